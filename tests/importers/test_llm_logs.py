"""simonw/llm's logs.db, as llm itself writes it: threads (llm 0.32 and later) and the older
conversations and responses tables (a database llm 0.31 wrote), read without changing it."""

from __future__ import annotations

import hashlib
import shutil
import sys
from pathlib import Path

import pytest

from ctxchat.chat.history_import import import_file
from ctxchat.core.tokens import TokenCounter
from ctxchat.store import Store

from .llm_cli import run_llm

LEGACY = Path(__file__).parent / "data" / "llm-0.31-logs.db"


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def threads_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A logs.db written by the llm installed with ctxchat's test tools."""
    return run_llm(sys.executable, tmp_path_factory.mktemp("llm") / "home")


@pytest.fixture
def legacy_db(tmp_path: Path) -> Path:
    return Path(shutil.copy(LEGACY, tmp_path / "logs.db"))


def test_threads_become_conversations_with_model_and_usage(
    store: Store, counter: TokenCounter, threads_db: Path
) -> None:
    before = digest(threads_db)
    done = import_file(store, threads_db, counter=counter)
    assert done.source is not None and done.source.name == "llm"
    first, second = (store.conversations.get_conversation(i) for i in done.conversation_ids)
    assert (first.title, first.origin, first.model) == ("What is Oslo like?", "llm", "scripted")
    messages = store.messages.messages(first.id)
    assert [(m.role, m.content) for m in messages] == [
        ("system", "You are a travel agent."),
        ("user", "What is Oslo like?"),
        ("assistant", "Oslo is cold in winter."),
        ("user", "What should I pack?"),
        ("assistant", "Pack layers and a raincoat."),
        ("user", "And for the rain?"),
        ("assistant", "Prenez des couches."),
    ]
    # The server's counts, as llm recorded them for each call.
    assert [(m.prompt_tokens, m.completion_tokens) for m in messages if m.role == "assistant"] == [
        (20, 6),
        (37, 6),
        (54, 4),
    ]
    assert [(m.role, m.content) for m in store.messages.messages(second.id)] == [
        ("user", "The meeting is on Tuesday at ten.\nWhen is the meeting?"),
        ("assistant", "Tuesday at ten, the notes say."),
        ("user", "What is in this picture?\n\n[image not imported: photo.png]"),
        ("assistant", "A red dot."),
    ]
    assert digest(threads_db) == before
    assert not threads_db.with_name("logs.db-wal").exists()


def test_the_older_tables_are_read_with_system_prompts_fragments_and_attachments(
    store: Store, counter: TokenCounter, legacy_db: Path
) -> None:
    before = digest(legacy_db)
    done = import_file(store, legacy_db, counter=counter)
    first, second = (store.conversations.get_conversation(i) for i in done.conversation_ids)
    assert (first.origin_id, first.title) == ("01m8evf887bp8an76gqfzkxn8y", "What is Oslo like?")
    assert [(m.role, m.content) for m in store.messages.messages(first.id)] == [
        ("system", "You are a travel agent."),
        ("user", "What is Oslo like?"),
        ("assistant", "Oslo is cold in winter."),
        ("user", "What should I pack?"),
        ("assistant", "Pack layers and a raincoat."),
        ("system", "Answer in French."),
        ("user", "And for the rain?"),
        ("assistant", "Prenez des couches."),
    ]
    assert [(m.role, m.content) for m in store.messages.messages(second.id)] == [
        ("user", "The meeting is on Tuesday at ten.\nWhen is the meeting?"),
        ("assistant", "Tuesday at ten, the notes say."),
        ("user", "What is in this picture?\n\n[image not imported: photo.png]"),
        ("assistant", "A red dot."),
    ]
    replies = [m for m in store.messages.messages(first.id) if m.role == "assistant"]
    assert [(m.model, m.prompt_tokens, m.completion_tokens) for m in replies] == [
        ("scripted", 20, 6),
        ("scripted", 37, 6),
        ("scripted", 61, 4),
    ]
    assert digest(legacy_db) == before


def test_importing_the_database_again_adds_nothing(
    store: Store, counter: TokenCounter, legacy_db: Path
) -> None:
    import_file(store, legacy_db, counter=counter)
    before = store.conversations.list_conversations()
    assert import_file(store, legacy_db, counter=counter).conversation_ids == []
    assert store.conversations.list_conversations() == before
