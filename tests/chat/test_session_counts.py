"""Kept counts: what a plan counts besides the draft is kept, so a later session plans
before its tokenizer has loaded."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from ctxchat.chat.session import ChatSession
from ctxchat.chat.window import WindowInfo
from ctxchat.core import encodings, tokens
from ctxchat.core.tokens import EstimateCounter, text_key
from ctxchat.store import Store


def again(session: ChatSession) -> ChatSession:
    """A new session on the same conversation, as the next start of the app opens."""
    return ChatSession(
        session.store,
        session.settings,
        session.profile,
        session.conversation_id,
        window=WindowInfo(8_000, "config"),
    )


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The encodings the sessions' counters build, in order."""
    built: list[str] = []
    original = encodings.load_encoding  # what tokens.load_encoding names until it is patched

    def load(name: str) -> Any:
        built.append(name)
        return original(name)

    monkeypatch.setattr(tokens, "load_encoding", load)
    return built


def no_tokenizer_data(monkeypatch: pytest.MonkeyPatch) -> None:
    """No packaged data file and no parsed copy: the next tokenizer build fails."""
    monkeypatch.setattr(encodings, "candidate_files", lambda name: [])
    monkeypatch.setattr(encodings, "_cache_dir", None)
    encodings.forget_built()


def test_a_later_session_plans_from_kept_counts_without_its_tokenizer(
    store: Store, session: ChatSession, loads: list[str]
) -> None:
    store.memory.add_memory("fact", "The service runs on one small VM.")
    store.memory.add_memory(
        "preference", "Short answers, with code.", conversation_id=session.stored_id
    )
    first = again(session)
    planned = first.plan(None)
    assert loads == ["o200k_base"]
    assert len(store.counts.kept_counts("o200k_base")) >= 3  # the prompt, memory lines, roles

    second = again(session)
    assert second.plan(None) == planned
    assert loads == ["o200k_base"]  # nothing counted: the second never built its tokenizer
    second.plan("Which VM size?")  # the draft needs it
    assert loads == ["o200k_base", "o200k_base"]


def test_a_plan_with_a_draft_keeps_nothing(
    store: Store, session: ChatSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    writes: list[int] = []
    keep = store.counts.keep_counts

    def watched(encoding: str, counts: Mapping[bytes, int]) -> None:
        writes.append(len(counts))
        keep(encoding, counts)

    monkeypatch.setattr(store.counts, "keep_counts", watched)
    draft = "A draft the user is still typing"
    for end in range(1, len(draft) + 1):  # a plan a keystroke: no write while typing
        session.plan(draft[:end])
    assert writes == []
    session.plan(None)
    assert len(writes) == 1
    kept = store.counts.kept_counts("o200k_base")
    assert text_key("You are terse.") in kept and text_key(draft) not in kept


def test_the_next_plan_keeps_again_what_an_edit_dropped(
    store: Store, session: ChatSession, loads: list[str]
) -> None:
    first = again(session)
    kept = first.add_user_message("first")
    first.add_user_message("second")
    first.plan(None)
    first.delete_after(kept.id)  # a deletion drops every kept count
    assert store.counts.kept_counts("o200k_base") == {}
    store.memory.add_memory("fact", "A new fact.")
    first.forget_memory()
    first.plan(None)  # the prompt's count, remembered by this session, is kept again
    assert text_key("You are terse.") in store.counts.kept_counts("o200k_base")
    built = len(loads)
    again(session).plan(None)
    assert len(loads) == built  # the next start plans without its tokenizer


def test_a_recount_of_the_history_is_kept_in_the_messages_not_here(
    store: Store, session: ChatSession
) -> None:
    first = again(session)
    for index in range(5):  # counted with another model's encoding
        store.messages.add_message(
            first.stored_id, "user", f"message {index}", tokens=5, exact=False, encoding="x"
        )
    first.plan(None)
    assert [m.tokens for m in first.history()] == [first.count("user", "message 0")] + [
        first.count("user", f"message {index}") for index in range(1, 5)
    ]
    kept = store.counts.kept_counts("o200k_base")
    assert text_key("message 0") not in kept and text_key("You are terse.") in kept


def test_counts_outside_a_plan_are_not_kept(store: Store, session: ChatSession) -> None:
    session.plan(None)
    before = store.counts.kept_counts("o200k_base")
    session.add_user_message("A message is counted once and stored with its count.")
    session.plan(None)
    assert store.counts.kept_counts("o200k_base") == before


def test_an_estimate_keeps_nothing(
    store: Store, session: ChatSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    no_tokenizer_data(monkeypatch)
    try:
        plan = again(session).plan(None)
    finally:
        encodings.forget_built()
    assert plan.counter == "estimate"
    assert (
        store.counts.kept_counts("o200k_base") == {} and store.counts.kept_counts("estimate") == {}
    )


def test_a_tokenizer_that_fails_after_kept_counts_replans_as_an_estimate(
    session: ChatSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = again(session)
    first.add_user_message("Hello there, how are you today?")
    exact = first.plan(None)
    no_tokenizer_data(monkeypatch)
    try:
        second = again(session)
        assert second.plan(None) == exact  # from the kept and stored counts
        estimated = second.plan("now the draft needs the tokenizer, which fails")
        assert estimated.counter == "estimate" and not estimated.exact
        # Every layer is counted again as an estimate, the stored history too.
        estimate = EstimateCounter()
        prompt = 3 + estimate.count_text("system") + estimate.count_text("You are terse.")
        assert estimated.messages[0].tokens == prompt
        assert [m.tokens for m in second.history()] == [
            3 + estimate.count_text("user") + estimate.count_text("Hello there, how are you today?")
        ]
    finally:
        encodings.forget_built()
