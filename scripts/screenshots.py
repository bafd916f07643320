"""Pictures of ctxchat's main states, drawn by the app itself: `python scripts/screenshots.py`.

Writes SVG files to `screenshots/`: the conversation beside its context panels, the memory
editor opened by "pin this message", the find bar on a hit, a regenerated reply's variants,
objective mode right after the switch, the request inspector (JSON and diff), the summary
versions and the first-run setup.

Deterministic: a temporary data directory, a config written here, a scripted model server on
loopback (its random port never reaches the pictures, which is checked), UTC, fixed
timestamps, no cursor blink, semantic recall off (it would run in a thread).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import TabbedContent, TextArea

from ctxchat.chat.options import SessionOptions
from ctxchat.chat.workspace import Workspace, open_workspace
from ctxchat.core.memory import MemoryKind
from ctxchat.core.tokens import count_message, counter_for_model
from ctxchat.testing import harness
from ctxchat.testing.server import Flavour, Reply, ScriptedModelServer
from ctxchat.tui.app import CtxChatApp, build_app
from ctxchat.tui.views import ServerView

SIZE = (160, 48)
OUT = Path(__file__).resolve().parent.parent / "screenshots"
MODEL = "qwen2.5-7b-instruct"
WINDOW = 8_192
# 2025-03-14 09:30 UTC, then one minute between messages.
EPOCH = 1_741_944_600.0

CONFIG = """\
# ctxchat configuration
default_profile = "local"

[profiles.local]
base_url = "{base_url}"
model = "{model}"
api_key_env = "CTXCHAT_TEST_KEY"
context_window = {window}
output_reserve = 1024

[recall]
semantic = false
"""

TITLE = "Sync service: choosing the database"

# Turns the summary covers: they have left working memory.
EARLIER = [
    (
        "user",
        "We're building the sync service for our notes app. About 2,000 users, a few "
        "thousand notes each, syncing between phones and laptops. Where should it run?",
    ),
    (
        "assistant",
        "At that size one small VM is plenty: a 2-vCPU machine with 4 GB of memory handles "
        "thousands of sync requests a minute. Managed platforms save you the upgrades but "
        "cost three to five times as much for the same load.",
    ),
    ("user", "Our budget for hosting is 40 € a month, all in. Does that change anything?"),
    (
        "assistant",
        "It rules out managed PostgreSQL on most clouds (the smallest plans start around "
        "15-25 € before storage and backups) if you also want a staging copy. A single VM "
        "at 8-12 € with the database on the same machine fits with room to spare.",
    ),
    ("user", "What about backups? We can't lose notes."),
    (
        "assistant",
        "Back up the database every hour to object storage and keep 30 days. Test a restore "
        "once a month: a backup you have never restored is a hope, not a backup.",
    ),
    ("user", "I'd like answers short, with code when it helps."),
    ("assistant", "Noted: short answers, with a code example when it helps."),
]

RECENT = [
    (
        "user",
        "Should we start with PostgreSQL or SQLite? One app server for now, maybe two next year.",
    ),
    (
        "assistant",
        "Start with **SQLite in WAL mode**. With one app server there is a single writer, "
        "which is exactly what SQLite does best, and the database is a file you back up "
        "with one command.\n\n"
        "Move to **PostgreSQL** when a second app server must write at the same time: "
        "SQLite's single writer lock then becomes the bottleneck.",
    ),
    ("user", "What breaks first if we stay on SQLite too long?"),
    (
        "assistant",
        "Writes. Each write takes the database-wide lock for the length of its "
        "transaction, so:\n\n"
        "- keep transactions short (no network calls inside them);\n"
        "- batch a device's changes into one transaction per sync;\n"
        "- set `busy_timeout`, so a writer waits instead of failing at once.\n\n"
        "Reads are not the problem: in WAL mode they never block the writer.",
    ),
    (
        "user",
        "Decision: SQLite in WAL mode for now; we move to PostgreSQL when we add a second "
        "app server.",
    ),
    ("assistant", "Agreed. I'll keep that in mind for everything that follows."),
]

QUESTION = "How should the notes table handle two devices editing the same note?"

ANSWER = """\
Give every note a **version** and let the server decide: a device sends the version it \
edited, and the update only applies if that is still the current one.

```sql
CREATE TABLE notes (
    id         TEXT PRIMARY KEY,           -- a UUID made on the device
    body       TEXT NOT NULL,
    version    INTEGER NOT NULL DEFAULT 1,
    updated_at INTEGER NOT NULL,           -- unix time, from the server
    deleted    INTEGER NOT NULL DEFAULT 0  -- tombstone, so deletes sync too
) STRICT;

UPDATE notes
   SET body = :body, version = version + 1, updated_at = unixepoch()
 WHERE id = :id AND version = :seen_version;
```

If the update changes no row, the device was behind: it fetches the current note, \
merges (or keeps both as a conflict copy) and tries again. The whole check is one \
statement, so SQLite's single writer never waits on the network."""

# The answer regenerated: the first one is kept as a variant (the variants picture).
OTHER_ANSWER = """\
Keep a **version** per note and make every update conditional on it:

```sql
UPDATE notes SET body = :body, version = version + 1
 WHERE id = :id AND version = :seen_version;
```

No row changed means the device was behind: fetch, merge, try again."""

NEXT_DRAFT = "And the backups: how do we copy the file safely while the service writes?"


@dataclass(frozen=True)
class Entry:
    kind: MemoryKind
    text: str
    key: str | None = None
    pinned: bool = False
    importance: int = 5
    conversation: bool = False


MEMORY = [
    Entry(
        MemoryKind.CONSTRAINT, "Hosting budget: at most 40 € a month, all in.", "budget", True, 9
    ),
    Entry(
        MemoryKind.FACT,
        "About 2,000 users with a few thousand notes each; phones and laptops sync.",
        "scale",
        True,
        8,
    ),
    Entry(
        MemoryKind.FACT,
        "The clients are an iOS app, an Android app and a desktop app; all sync over HTTPS.",
        "clients",
        False,
        7,
        conversation=True,
    ),
    Entry(MemoryKind.PREFERENCE, "Prefers short answers, with code when it helps.", None, False, 6),
    Entry(
        MemoryKind.HYPOTHESIS,
        "Conflicts will be rare: most people edit a note from one device at a time.",
        None,
        False,
        4,
        conversation=True,
    ),
]

SUMMARIES = [
    (
        "The team is building a sync service for a notes app (about 2,000 users). One small "
        "VM is enough; managed platforms cost three to five times as much.",
        4,
        False,
    ),
    (
        "Sync service for a notes app, ~2,000 users, a few thousand notes each. Hosting: one "
        "small VM (8-12 €) with the database on it; the budget of 40 €/month rules out "
        "managed PostgreSQL with a staging copy. Backups: hourly to object storage, 30 days "
        "kept, a restore tested monthly.",
        8,
        False,
    ),
    (
        "Sync service for a notes app: ~2,000 users, a few thousand notes each, phones and "
        "laptops. Hosting on one small VM (8-12 €) with the database on it; budget 40 €/month "
        "all in, so no managed PostgreSQL. Backups hourly to object storage, kept 30 days, "
        "restore tested monthly. The user wants short answers with code.",
        8,
        True,
    ),
]

FOUND_SERVERS = [
    ServerView("llama.cpp", "http://127.0.0.1:8080/v1", (MODEL,)),
    ServerView("ollama", "http://127.0.0.1:11434/v1", ("llama3.1:8b", "qwen2.5:7b", "phi4")),
]


# --- the data ---------------------------------------------------------------------------------


def populate(workspace: Workspace) -> int:
    """Store the conversation, its memory and its summary versions; the conversation's id."""
    store = workspace.store
    counter = counter_for_model(MODEL)
    conversation = store.conversations.create_conversation(TITLE, model=MODEL, profile="local").id
    ids = []
    for role, text in [*EARLIER, *RECENT]:
        count = count_message(counter, role, text)
        message = store.messages.add_message(
            conversation,
            role,
            text,
            tokens=count.tokens,
            exact=count.exact,
            encoding=counter.name,
            model=MODEL if role == "assistant" else None,
        )
        ids.append(message.id)
    for text, covered, edited in SUMMARIES:
        store.summaries.add_summary(
            conversation,
            text=text,
            first_message_id=ids[0],
            last_message_id=ids[covered - 1],
            strategy="summarize",
            model=None if edited else MODEL,
            tokens=count_message(counter, "system", text).tokens,
            edited=edited,
        )
    for entry in MEMORY:
        store.memory.add_memory(
            entry.kind,
            entry.text,
            key=entry.key,
            pinned=entry.pinned,
            importance=entry.importance,
            conversation_id=conversation if entry.conversation else None,
        )
    with store.transaction() as conn:  # fixed times: the pictures must not change by the day
        for table in ("messages", "summaries"):
            conn.execute(f"UPDATE {table} SET created_at = ? + 60 * id", (EPOCH,))
        conn.execute("UPDATE messages SET updated_at = created_at")
        conn.execute("UPDATE memory SET created_at = ?, updated_at = ?", (EPOCH, EPOCH))
        conn.execute("UPDATE conversations SET created_at = ?, updated_at = ?", (EPOCH, EPOCH))
    return conversation


# --- driving the app ----------------------------------------------------------------------------


async def settle(pilot: Pilot[int]) -> None:
    """Let workers finish, the plan's 50 ms debounce fire and the screen catch up."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause(0.2)
    await pilot.pause()


def no_blink(app: CtxChatApp) -> None:
    """A steady cursor: a blinking one is drawn or not depending on the moment."""
    for area in app.screen.query(TextArea):
        area.cursor_blink = False
        area.refresh()


async def shoot(pilot: Pilot[int], name: str, forbidden: Sequence[str]) -> Path:
    app = pilot.app
    assert isinstance(app, CtxChatApp)
    no_blink(app)
    await settle(pilot)
    # The window's title is the conversation's, as the header shows it.
    svg = app.export_screenshot(title=app.conversation_screen.title or app.title)
    path = OUT / f"{name}.svg"
    path.write_text(svg, encoding="utf-8")
    for text in forbidden:
        if text and text in svg:
            raise SystemExit(f"{path.name} shows {text!r}, which must not be in a picture")
    print(f"wrote {path.relative_to(OUT.parent)}")
    return path


async def conversation_states(root: Path, forbidden: list[str]) -> None:
    with ScriptedModelServer(
        models=[MODEL],
        flavour=Flavour.LLAMA_CPP,
        n_ctx=WINDOW,
        requires_key=harness.TEST_KEY,
    ) as server:
        forbidden += [str(server.port), server.base_url]
        root.mkdir(parents=True)
        config = root / "config.toml"
        config.write_text(
            CONFIG.format(base_url=server.base_url, model=MODEL, window=WINDOW), encoding="utf-8"
        )
        workspace = harness.open_test_workspace(root, config)
        try:
            conversation = populate(workspace)
            app = build_app(workspace, SessionOptions(conversation=conversation))
            async with app.run_test(size=SIZE) as pilot:
                no_blink(app)
                await settle(pilot)
                # The last turn goes through the app, so its request plan is stored.
                server.script(Reply(ANSWER))
                app.conversation_screen.composer.text = QUESTION
                app.conversation_screen.composer.action_submit()
                await settle(pilot)
                app.conversation_screen.composer.text = NEXT_DRAFT
                app.conversation_screen.composer.focus()
                await shoot(pilot, "conversation", forbidden)

                await pilot.press("f2")
                await shoot(pilot, "inspector", forbidden)
                app.screen.query_one(TabbedContent).active = "diff"
                await shoot(pilot, "inspector-diff", forbidden)
                await pilot.press("escape")

                await pilot.press("f3")
                await shoot(pilot, "summary-versions", forbidden)
                await pilot.press("escape")

                # "Pin this message" on the user's decision.
                decision = next(
                    item
                    for item in app.conversation_screen.conversation_view.items
                    if item.view.content.startswith("Decision:")
                )
                app.conversation_screen.conversation_view.focus()
                app.conversation_screen.conversation_view.select(decision.message_id)
                await pilot.press("ctrl+k")
                await shoot(pilot, "memory-editor", forbidden)
                await pilot.press("escape")
                app.conversation_screen.conversation_view.action_clear_selection()
                app.conversation_screen.composer.focus()

                await pilot.press("ctrl+f")
                await pilot.press(*"WAL")
                await pilot.press("enter")
                await shoot(pilot, "find", forbidden)
                await pilot.press("escape")

                # Regenerate the newest reply; the one it replaces is kept as a variant.
                server.script(Reply(OTHER_ANSWER))
                app.conversation_screen.conversation_view.focus()
                await pilot.press("end")
                await pilot.press("ctrl+g")
                await settle(pilot)
                with workspace.store.transaction() as conn:  # a fixed time, as above
                    conn.execute("UPDATE reply_variants SET created_at = ?", (EPOCH,))
                await pilot.press("f7")
                await shoot(pilot, "variants", forbidden)
                await pilot.press("escape")
                app.conversation_screen.conversation_view.action_clear_selection()
                app.conversation_screen.composer.text = NEXT_DRAFT
                app.conversation_screen.composer.focus()

                await pilot.press("ctrl+o")
                await shoot(pilot, "objective-mode", forbidden)
                await pilot.press("ctrl+o")

                # The task layer: its goal and steps, edited in f10.
                book = app.conversation_screen.session.task_book
                book.set_goal("Ship the notes app's sync on SQLite")
                for step in ("Turn on WAL", "Sync over HTTPS", "Test offline edits"):
                    book.add_step(step)
                book.mark_done(1, True)
                await pilot.press("f10")
                await shoot(pilot, "task", forbidden)
                await pilot.press("escape")
        finally:
            workspace.close()


async def setup_state(root: Path, forbidden: list[str]) -> None:
    # No config yet: the app opens on the setup screen. The config path shown is where a
    # user's would be; nothing is written there, the picture is taken before any choice.
    env = {
        "CTXCHAT_CONFIG": "/home/you/.config/ctxchat/config.toml",
        "CTXCHAT_DATA_DIR": str(root / "data"),
    }
    workspace = open_workspace(data_dir=root / "data", env=env)
    try:
        app = CtxChatApp(workspace, None, servers=FOUND_SERVERS)
        async with app.run_test(size=SIZE) as pilot:
            await shoot(pilot, "setup", forbidden)
    finally:
        workspace.close()


async def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.parse_args(argv)
    os.environ["TZ"] = "UTC"
    time.tzset()
    OUT.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="ctxchat-screenshots-") as directory:
        root = Path(directory)
        forbidden = [directory, harness.TEST_KEY]
        await conversation_states(root / "chat", forbidden)
        await setup_state(root / "setup", forbidden)


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
