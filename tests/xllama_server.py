"""llama.cpp's server as `llama-server` takes it, run by xllamacpp (no build): the options
tests/llama_server.py passes (-m, --host, --port, -c, -t, --jinja, -n), nothing more.

`python tests/xllama_server.py -m MODEL --port 8767 -c 4096 -t 2 --jinja [-n 48]`: serves
until stopped, without a key (as llama-server started so does).
"""

from __future__ import annotations

import argparse
import signal
import sys

import xllamacpp


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("-m", dest="model", required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("-c", dest="n_ctx", type=int, default=4096)
    parser.add_argument("-t", dest="threads", type=int, default=2)
    parser.add_argument("--jinja", action="store_true")
    parser.add_argument("-n", dest="n_predict", type=int, default=-1)
    args = parser.parse_args(argv)
    params = xllamacpp.CommonParams()
    params.model.path = args.model
    params.hostnames = [args.host]
    params.port = args.port
    params.n_ctx = args.n_ctx
    params.cpuparams.n_threads = args.threads
    params.use_jinja = args.jinja
    params.n_predict = args.n_predict
    # Returns once it listens and serves in its own threads, as long as it is referenced.
    server = xllamacpp.Server(params)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT})
    signal.sigwait({signal.SIGTERM, signal.SIGINT})
    del server


if __name__ == "__main__":
    main(sys.argv[1:])
