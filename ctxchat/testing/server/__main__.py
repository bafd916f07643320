"""`python -m ctxchat.testing.server`: serve a scripted model server until Ctrl-C."""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Sequence

from ctxchat.testing.server.flavours import Flavour
from ctxchat.testing.server.scripted import ScriptedModelServer


def main(argv: Sequence[str] | None = None) -> None:
    """Serve a scripted model server until Ctrl-C, for demos."""
    parser = argparse.ArgumentParser(
        prog="python -m ctxchat.testing.server", description=main.__doc__
    )
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--model", action="append", dest="models")
    parser.add_argument("--flavour", choices=[f.value for f in Flavour], default="openai")
    parser.add_argument("--n-ctx", type=int, default=4096)
    parser.add_argument("--latency", type=float, default=0.03, help="seconds per chunk")
    parser.add_argument("--chunk-size", type=int, default=6, help="characters per chunk")
    parser.add_argument("--reply", default=None, help="fixed reply text (default: echo)")
    parser.add_argument("--require-key", default=None, help="API key the server demands")
    args = parser.parse_args(argv)
    server = ScriptedModelServer(
        models=args.models or ["test-model"],
        flavour=args.flavour,
        n_ctx=args.n_ctx,
        latency=args.latency,
        chunk_size=args.chunk_size,
        default_reply=args.reply,
        requires_key=args.require_key,
        port=args.port,
    )
    server.start()
    print(
        f"Serving an OpenAI-compatible test server at {server.base_url} (Ctrl-C stops it)",
        flush=True,
    )
    server.serve_until_interrupted()


if __name__ == "__main__":
    # Ctrl-C may come before serving starts (right after the banner): still a clean exit.
    with contextlib.suppress(KeyboardInterrupt):
        main()
