"""Summaries held to their share: the limit asked for, a cut reply kept to its last whole
sentence and flagged, chunks that fit a small window, what must be kept word for word."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from typing import Any

import pytest

from ctxchat.chat.extractor import extract_facts
from ctxchat.chat.session import ChatSession
from ctxchat.chat.summarizer import Summarizer, SummaryFailed
from ctxchat.config.server_facts import ServerFacts
from ctxchat.core.budget import Layer
from ctxchat.core.memory import MemoryKind
from ctxchat.core.summary import summary_allowance
from ctxchat.model.openai_backend import OpenAIBackend
from ctxchat.store import Store
from ctxchat.testing.server import ScriptedModelServer
from ctxchat.testing.server.script import Reply

from .conftest import make_settings, open_chat

RAMBLE = " ".join(
    f"Sentence number {i} of a summary that goes on about the project plan." for i in range(400)
)


def session_with(
    store: Store,
    server: ScriptedModelServer,
    backend: OpenAIBackend,
    *,
    window: int = 8_000,
    max_tokens: int = 0,
) -> ChatSession:
    settings = make_settings(server)
    settings = dataclasses.replace(
        settings, summary=dataclasses.replace(settings.summary, max_tokens=max_tokens)
    )
    return open_chat(store, settings, backend, window=window)


def talk(session: ChatSession, turns: int, words: int = 3) -> None:
    for i in range(turns):
        filler = " ".join(f"detail{i}x{w}" for w in range(words))
        session.add_user_message(f"Question {i}: {filler}")
        text = f"Answer {i}: {filler}"
        session.store.messages.add_message(
            session.stored_id,
            "assistant",
            text,
            tokens=session.count("assistant", text),
            exact=True,
            encoding=session.counter.name,
        )
    session.forget_history()


def cut_at_limit(session: ChatSession, text: str) -> Any:
    """A reply as a server that honours max_tokens gives it: cut inside a sentence there."""

    def reply(body: dict[str, Any]) -> Reply:
        limit = body["max_tokens"]
        words = text.split()
        kept: list[str] = []
        for word in words:
            if session.counter.count_text(" ".join([*kept, word])) > limit:
                return Reply(" ".join(kept), finish_reason="length")
            kept.append(word)
        return Reply(text)

    return reply


def allowance(session: ChatSession) -> int:
    return summary_allowance(session.budget, session.counter)


async def test_the_request_asks_for_at_most_the_summary_share(
    store: Store, server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    session = session_with(store, server, backend)
    talk(session, 10)
    server.script("Short summary.")
    fold = session.pending_fold(manual=True)
    assert fold is not None
    await Summarizer.for_session(session).fold(fold)
    share = allowance(session)
    assert 1_000 < share < session.budget.nominal(Layer.SUMMARY)
    assert server.requests[-1]["max_tokens"] == share


@pytest.mark.parametrize(("setting", "asked"), [(120, 120), (1_000_000, None)])
async def test_the_max_tokens_setting_lowers_the_limit_never_raises_it(
    store: Store,
    server: ScriptedModelServer,
    backend: OpenAIBackend,
    setting: int,
    asked: int | None,
) -> None:
    session = session_with(store, server, backend, max_tokens=setting)
    talk(session, 10)
    server.script("Short summary.")
    fold = session.pending_fold(manual=True)
    assert fold is not None
    await Summarizer.for_session(session).fold(fold)
    assert server.requests[-1]["max_tokens"] == (asked or allowance(session))


async def test_a_reply_cut_at_its_limit_is_kept_to_its_last_sentence_and_flagged(
    store: Store, server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    session = session_with(store, server, backend, max_tokens=150)
    talk(session, 10)
    server.script(cut_at_limit(session, RAMBLE))
    fold = session.pending_fold(manual=True)
    assert fold is not None
    version = await Summarizer.for_session(session).fold(fold)
    assert version.cut is True
    assert version.text.endswith("about the project plan.")
    assert RAMBLE.startswith(version.text)
    assert 100 < version.tokens <= 150
    assert (version.first_message_id, version.last_message_id) == (fold.first_id, fold.last_id)
    # In force, whole: the plan does not cut it again.
    plan = session.plan("next")
    summary_layer = plan.layer(Layer.SUMMARY)
    assert summary_layer.notes == ()
    assert plan.messages[1].content.endswith(version.text)


async def test_a_reply_longer_than_asked_is_cut_the_same_way(
    store: Store, server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    session = session_with(store, server, backend, max_tokens=150)
    talk(session, 10)
    server.script(RAMBLE)  # a server that ignores max_tokens
    fold = session.pending_fold(manual=True)
    assert fold is not None
    version = await Summarizer.for_session(session).fold(fold)
    assert version.cut is True
    assert version.tokens <= 150
    assert version.text.endswith(".")


@pytest.mark.parametrize(
    ("setting", "remedy"),
    [
        (40, "Raise max_tokens in the [summary] config table."),
        (0, "Raise the summary share (summary in the [context.shares] config table)."),
    ],
)
async def test_a_reply_cut_before_its_first_sentence_fails_with_one_remedy(
    store: Store,
    server: ScriptedModelServer,
    backend: OpenAIBackend,
    setting: int,
    remedy: str,
) -> None:
    session = session_with(store, server, backend, max_tokens=setting)
    talk(session, 10)
    server.script(Reply("one long clause that never ends", finish_reason="length"))
    fold = session.pending_fold(manual=True)
    assert fold is not None
    with pytest.raises(SummaryFailed) as failed:
        await Summarizer.for_session(session).fold(fold)
    assert str(failed.value).endswith(" ended. " + remedy)
    assert session.store.summaries.summaries(session.stored_id) == []


async def test_on_a_small_window_the_fold_goes_in_chunks_that_each_fit(
    store: Store, server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    session = session_with(store, server, backend, window=1_200)
    talk(session, 24, words=30)
    replies = iter(f"Summary after chunk {n}." for n in range(1, 20))
    server.default_reply = lambda body: next(replies)
    fold = session.pending_fold(manual=True)
    assert fold is not None
    summarizer = Summarizer.for_session(session)
    version = await summarizer.fold(fold)
    requests = list(server.requests)
    assert len(requests) >= 3
    for request in requests:
        prompt = sum(session.count(m["role"], m["content"]) for m in request["messages"])
        assert prompt + request["max_tokens"] <= 1_200
    # Each chunk folds into what the previous one wrote: incremental, never the whole again.
    assert requests[1]["messages"][1]["content"].startswith(
        "Current summary:\nSummary after chunk 1.\n\nNew messages to fold into it:\n"
    )
    folded = [
        line.split(":")[0]
        for request in requests
        for line in request["messages"][1]["content"].splitlines()
        if line.startswith("[user] Question")
    ]
    assert folded == [f"[user] Question {i}" for i in range(len(fold.messages) // 2)]
    assert version.text == f"Summary after chunk {len(requests)}."
    assert (version.first_message_id, version.last_message_id) == (fold.first_id, fold.last_id)


async def test_pinned_entries_and_rules_are_kept_word_for_word(
    store: Store, server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    session = session_with(store, server, backend)
    rule = session.add_user_message("Never push directly to the main branch.")
    session.store.messages.add_message(
        session.stored_id, "assistant", "Understood.", tokens=5, exact=True, encoding="x"
    )
    host = session.add_user_message("The staging database is on db-2.internal port 5433.")
    session.memory_book.add(
        MemoryKind.FACT,
        "Staging database: db-2.internal:5433",
        pinned=True,
        conversation_id=session.stored_id,
        source=f"message:{host.id}",
    )
    talk(session, 6)
    server.script("They talked about the project and asked several questions.")
    fold = session.pending_fold(manual=True)
    assert fold is not None and fold.first_id == rule.id
    version = await Summarizer.for_session(session).fold(fold)
    assert version.text == (
        "They talked about the project and asked several questions.\n\n"
        "Kept word for word (pinned, or a rule that was stated):\n"
        "- Staging database: db-2.internal:5433\n"
        "- Never push directly to the main branch."
    )
    assert "Never push" not in " ".join(item.context for item in version.lost)
    # The next fold keeps them too, though the model drops them again.
    talk(session, 6)
    server.script("More questions were asked.")
    later = session.pending_fold(manual=True)
    assert later is not None
    again = await Summarizer.for_session(session).fold(later)
    assert again.text.endswith("- Never push directly to the main branch.")


async def test_what_a_summary_lost_is_stored_with_it(
    store: Store, server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    session = session_with(store, server, backend)
    said = session.add_user_message("Run the proxy on port 8771 and log to /var/log/proxy.log.")
    talk(session, 6)
    server.script("They set up a proxy and asked questions.")
    fold = session.pending_fold(manual=True)
    assert fold is not None
    version = await Summarizer.for_session(session).fold(fold)
    lost = [(i.text, i.kind.value, i.message_id) for i in version.lost if i.message_id == said.id]
    assert lost == [("/var/log/proxy.log", "path", said.id), ("8771", "number", said.id)]
    assert version.flagged
    assert store.summaries.active_summary(session.stored_id) == version


async def test_where_the_template_drops_system_messages_the_instructions_go_to_the_user(
    store: Store, server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    session = session_with(store, server, backend)
    talk(session, 10)
    session.use_facts(
        ServerFacts(
            8_000, "server", "", "llama-cpp-python", datetime.now(UTC), template_drops_system=True
        )
    )
    server.script("A summary.", "[]")
    fold = session.pending_fold(manual=True)
    assert fold is not None
    await Summarizer.for_session(session).fold(fold)
    await extract_facts(session)
    for request in server.requests:
        (only,) = request["messages"]
        assert only["role"] == "user"
    summary, extraction = (r["messages"][0]["content"] for r in server.requests)
    assert summary.startswith("You maintain the running summary of a conversation")
    assert "\n\n---\n\nMessages:\n[user] Question 0" in summary
    assert extraction.startswith("You extract memory entries from a conversation")
