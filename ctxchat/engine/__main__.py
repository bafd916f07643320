"""`python -m ctxchat.engine serve DIR MODEL_PATH NAME PORT N_CTX IDLE [NOTE]`: the engine
process (see `serve`); started by `control.ensure_engine`, not by hand. NOTE says why the
window is what it is (kept in the engine's state for every ctxchat that uses it)."""

from __future__ import annotations

import sys
from pathlib import Path

from ctxchat.engine.serve import ServeOptions, serve


def main(argv: list[str]) -> int:
    if len(argv) not in (7, 8) or argv[0] != "serve":
        print("usage: python -m ctxchat.engine serve DIR MODEL_PATH NAME PORT N_CTX IDLE [NOTE]")
        return 2
    _, directory, model_path, name, port, n_ctx, idle, *note = argv
    options = ServeOptions(
        Path(directory), Path(model_path), name, int(port), int(n_ctx), float(idle), *note
    )
    serve(options)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
