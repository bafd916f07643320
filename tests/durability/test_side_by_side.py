"""The app, the commands and an in-app import side by side on one database, each killed with
SIGKILL at seeded random points, round after round: every acknowledged write is kept, there
is one history, and the database stays whole (the way SQLite tests itself).

CTXCHAT_DURABILITY_ROUNDS raises the rounds for a long local run (CTXCHAT_DURABILITY_SEED
draws other ones); CTXCHAT_DURABILITY_KEEP names a file that gets everything the app drew
when it never shows what was awaited. Run pytest with -s to see the figures reached."""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ctxchat.store import Store
from ctxchat.testing.server import ScriptedModelServer

from .ledger import ECHO, Ledger, check_database
from .rounds import TITLE, Tally, World, play_round

ROUNDS = int(os.environ.get("CTXCHAT_DURABILITY_ROUNDS", "3"))
SEED = int(os.environ.get("CTXCHAT_DURABILITY_SEED", "34"))
WORKERS = 2  # commands at once beside the app: the machines running this have two cores
STEPS = 4  # commands each worker runs in a round
KEY = "sk-durability-0123456789"


def reply(body: dict[str, Any]) -> str:
    """The last message echoed (so a reply names the message it answers); a summary is
    short, so the summaries of many rounds stay small."""
    last = body["messages"][-1]["content"]
    return "A short summary." if "Write the" in last and "summary" in last else ECHO + last


@pytest.fixture
def server() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer(models=["gpt-4o"], requires_key=KEY, default_reply=reply) as running:
        yield running


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server: ScriptedModelServer) -> Path:
    """Every process's config: the scripted server, the data in a temp dir."""
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    config = tmp_path / "config.toml"
    config.write_text(
        'default_profile = "test"\n'
        "[profiles.test]\n"
        f'base_url = "{server.base_url}"\n'
        'model = "gpt-4o"\n'
        'api_key_env = "CTXCHAT_TEST_KEY"\n'
        "context_window = 8000\n"
        "output_reserve = 1000\n"
        "[summary]\n"
        "min_messages = 2\n"
    )
    monkeypatch.setenv("CTXCHAT_TEST_KEY", KEY)
    monkeypatch.setenv("CTXCHAT_CONFIG", str(config))
    monkeypatch.setenv("CTXCHAT_DATA_DIR", str(tmp_path / "data"))
    return tmp_path


def test_acknowledged_writes_survive_processes_killed_side_by_side(home: Path) -> None:
    database = home / "data" / "ctxchat.db"
    with Store.open(database) as store:  # closed before any other process starts
        main = store.conversations.create_conversation(TITLE, model="gpt-4o", profile="test").id
    folder = home / "files"
    folder.mkdir()
    world = World(database, main, folder, Ledger(), Tally())
    rng = random.Random(SEED)
    for number in range(ROUNDS):
        play_round(world, number, rng, WORKERS, STEPS)
        problems = world.tally.problems + check_database(database, world.ledger)
        assert not problems, f"round {number} (seed {SEED}): " + "\n".join(problems)
    print(f"\nside by side: {world.tally.line()}")
