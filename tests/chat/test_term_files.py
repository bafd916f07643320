"""Recall's word statistics read back from the last run are the statistics of the history as
it is now: new messages are counted, and an edit, a deletion or an exclusion before the
kept point has everything counted again."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

from ctxchat.chat import term_files
from ctxchat.chat.term_files import KEEP_AFTER, conversation_terms
from ctxchat.core.history import HistoryMessage, MessageStatus
from ctxchat.core.recall import history_terms
from ctxchat.core.termstats import ConversationTerms

DATABASE = Path("/data/ctxchat.db")


@pytest.fixture
def kept(tmp_path: Path) -> Iterator[Path]:
    term_files.use_directory(tmp_path)
    yield tmp_path
    term_files.use_directory(None)


def history(count: int, start: int = 1) -> list[HistoryMessage]:
    words = ["sqlite", "postgres", "kestrel", "harbour", "lantern", "quorum", "birch", "mole"]
    return [
        HistoryMessage(
            start + i,
            "user" if i % 2 == 0 else "assistant",
            f"{words[i % 8]} and {words[(i * 3) % 8]} message {i} about topic{i // 40}",
            12,
            MessageStatus.COMPLETE,
        )
        for i in range(count)
    ]


def same(found: ConversationTerms, messages: list[HistoryMessage]) -> None:
    fresh = history_terms(messages)
    assert found.state() == fresh.state()
    assert found.weight("kestrel") == fresh.weight("kestrel")
    assert found.topic_words("topic3 harbour") == fresh.topic_words("topic3 harbour")


def files(directory: Path) -> list[Path]:
    return sorted((directory / "terms").glob("*.marshal"))


def test_a_long_history_is_kept_and_read_back(kept: Path) -> None:
    messages = history(KEEP_AFTER + 100)
    same(conversation_terms(DATABASE, 7, messages), messages)
    (written,) = files(kept)
    stamp = written.stat().st_mtime_ns
    same(conversation_terms(DATABASE, 7, messages), messages)
    assert written.stat().st_mtime_ns == stamp  # read, not counted and written again


def test_new_messages_are_counted_on_top(kept: Path) -> None:
    messages = history(KEEP_AFTER + 10)
    conversation_terms(DATABASE, 7, messages)
    longer = messages + history(30, start=len(messages) + 1)
    same(conversation_terms(DATABASE, 7, longer), longer)


@pytest.mark.parametrize("change", ["edit", "delete", "exclude"])
def test_a_change_before_the_kept_point_counts_everything_again(kept: Path, change: str) -> None:
    messages = history(KEEP_AFTER + 10)
    conversation_terms(DATABASE, 7, messages)
    changed = list(messages)
    if change == "edit":
        changed[3] = dataclasses.replace(changed[3], content="an entirely new kestrel text")
    elif change == "delete":
        del changed[3]
    else:
        changed[3] = dataclasses.replace(changed[3], excluded=True)
    same(conversation_terms(DATABASE, 7, changed), changed)


def test_conversations_and_databases_keep_their_own(kept: Path) -> None:
    one, other = history(KEEP_AFTER + 5), history(KEEP_AFTER + 50, start=9_000)
    conversation_terms(DATABASE, 1, one)
    conversation_terms(DATABASE, 2, other)
    conversation_terms(Path("/elsewhere/ctxchat.db"), 1, other)
    assert len(files(kept)) == 3
    same(conversation_terms(DATABASE, 1, one), one)
    same(conversation_terms(DATABASE, 2, other), other)


def test_an_unreadable_file_is_no_file(kept: Path) -> None:
    messages = history(KEEP_AFTER + 5)
    conversation_terms(DATABASE, 7, messages)
    (written,) = files(kept)
    written.write_bytes(b"not marshal")
    same(conversation_terms(DATABASE, 7, messages), messages)


def test_short_histories_and_no_directory_write_nothing(kept: Path) -> None:
    messages = history(40)
    same(conversation_terms(DATABASE, 7, messages), messages)
    assert files(kept) == []
    term_files.use_directory(None)
    long = history(KEEP_AFTER + 5)
    same(conversation_terms(DATABASE, 7, long), long)
    assert files(kept) == []


def test_statistics_written_again_after_many_new_messages_are_read_back(kept: Path) -> None:
    """The fingerprint written after counting on top of kept statistics is that of the whole
    history: the next run reads them back rather than counting everything again."""
    messages = history(KEEP_AFTER + 10)
    conversation_terms(DATABASE, 7, messages)
    longer = messages + history(KEEP_AFTER, start=len(messages) + 1)
    same(conversation_terms(DATABASE, 7, longer), longer)
    (written,) = files(kept)
    stamp = written.stat().st_mtime_ns
    same(conversation_terms(DATABASE, 7, longer), longer)
    assert written.stat().st_mtime_ns == stamp
