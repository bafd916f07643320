"""The first frame is the settled screen: what loads after it (the tokenizer, the model
client, the encoder, the server's answers) changes nothing it shows."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ctxchat.testing import harness
from ctxchat.testing.harness import open_test_workspace, write_config
from ctxchat.testing.server import ScriptedModelServer
from ctxchat.tui.app import CtxChatApp

from ..textual_internals import drawn_rows
from .app_harness import SIZE, MakeApp, exchange, seed, settle


def lines(app: CtxChatApp) -> list[str]:
    """The screen's rows as text."""
    return [row.text for row in drawn_rows(app.screen)]


@pytest.mark.parametrize("draft", ["", "How big should the VM be, and which database?"])
async def test_the_first_frame_equals_the_settled_screen(
    make_app: MakeApp, server: ScriptedModelServer, draft: str
) -> None:
    """On a conversation with turns and memory, with or without a draft the last run left
    (its count needs the tokenizer, which loads after the first frame)."""
    first, _ = make_app()
    store = first.workspace.store
    conversation = first.conversation_screen.session.stored_id
    seed(store, exchange(6), conversation_id=conversation)
    store.memory.add_memory("constraint", "The service must run on a single small VM.", pinned=True)
    store.memory.add_memory("preference", "Prefers short answers with a code example.")
    async with first.run_test(size=SIZE) as pilot:
        if draft:
            first.conversation_screen.composer.insert(draft)
        await settle(pilot)  # a first start keeps the counts a later start draws from
        first.exit()  # as ctrl+q does: the draft is kept for the next start

    app, _ = make_app()
    at_first_frame: list[list[str]] = []
    app.conversation_screen.after_first_frame(lambda: at_first_frame.append(lines(app)))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        settled = lines(app)
    assert at_first_frame
    assert at_first_frame[0] == settled
    assert draft.split(",")[0] in "\n".join(settled)


# Run in a fresh interpreter as `ctxchat` runs (headless: no terminal in a test), the app
# writes the modules imported when its first frame is drawn, then quits.
FIRST_FRAME_MODULES = """
import json, sys
import ctxchat.tui.app as app_module

def drawn(self):
    with open(sys.argv[1], "w") as out:
        json.dump(sorted(sys.modules), out)
    self.exit()

app_module.CtxChatApp._first_frame_drawn = drawn
run = app_module.CtxChatApp.run
app_module.CtxChatApp.run = lambda self, **_: run(self, headless=True, size=(160, 50))
from ctxchat.cli.main import main
main([])
"""

# What the first frame does not need: the model client, the encoder for recall by meaning,
# the tokenizer's tables (the plan is drawn from kept counts), the local server probe and
# the setup form, the config editor, the readers of other tools' histories, what reading an
# installed package's files costs, the patterns that find a summary's details and a
# question's dates, the parser of a server's dates (a Retry-After), and asking the model
# for memory entries or a reply again.
LATER = (
    "openai",
    "httpx",
    "numpy",
    "tiktoken",
    "ctxchat.embeddings.encoder",
    "ctxchat.embeddings.bert",
    "ctxchat.model.discovery",
    "ctxchat.tui.screens.setup",
    "ctxchat.config.profile_edit",
    "ctxchat.store.importers.chatgpt",
    "ctxchat.store.importers.llm_logs",
    "importlib.metadata",
    "zipfile",
    "ctxchat.core.details",
    "ctxchat.core.when",
    "email.utils",
    "ctxchat.chat.extractor",
    "ctxchat.chat.ask_again",
)


def first_frame_modules(home: Path, config: Path) -> set[str]:
    out = home / "modules.json"
    env = {**os.environ, **harness.test_env(home, config), "HOME": str(home)}
    subprocess.run(
        [sys.executable, "-c", FIRST_FRAME_MODULES, str(out)],
        env=env,
        check=True,
        capture_output=True,
        timeout=120,
    )
    return set(json.loads(out.read_text(encoding="utf-8")))


@pytest.mark.perf
def test_the_first_frame_imports_only_what_it_draws(
    tmp_path: Path, server: ScriptedModelServer
) -> None:
    """`ctxchat` on a conversation (its counts kept by an earlier start) draws its first
    frame before it imports what only sending, recall by meaning or a dialog needs."""
    config = write_config(tmp_path, server.base_url, context_window=16_000)
    workspace = open_test_workspace(tmp_path, config)
    try:
        conversation = workspace.store.conversations.create_conversation(
            "t", model="gpt-4o", profile="test"
        )
        seed(workspace.store, exchange(4), conversation_id=conversation.id)
    finally:
        workspace.close()
    first_frame_modules(tmp_path, config)  # the first start keeps the counts
    modules = first_frame_modules(tmp_path, config)
    assert "ctxchat.tui.conversation_screen" in modules  # the frame was the app's
    assert sorted(set(LATER) & modules) == []
    # Every dialog loads when it is first opened: none is on the first frame.
    assert sorted(name for name in modules if name.startswith("ctxchat.tui.screens.")) == []
