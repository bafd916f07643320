"""Exact counts by the server's own tokenizer: counted in the background, kept per tokenizer,
labelled, and replaced by the labelled estimate when the server misbehaves."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from ctxchat.chat.counted_first import send_counted
from ctxchat.chat.session import ChatSession
from ctxchat.chat.turn import TurnFinished, TurnRetried, send_message
from ctxchat.config.settings import ContextSettings, ProviderProfile, Settings
from ctxchat.model.openai_backend import OpenAIBackend
from ctxchat.store import Store
from ctxchat.testing.server import Fault, ScriptedModelServer, count_prompt_tokens

MODEL = "test-model"


@pytest.fixture
def server() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer(models=[MODEL], flavour="llama-cpp-python", n_ctx=4096) as running:
        yield running


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "ctxchat.db") as opened:
        yield opened


@pytest.fixture
async def backend(server: ScriptedModelServer) -> AsyncIterator[OpenAIBackend]:
    # Generous: the server always answers, and a loaded machine must not turn a slow answer
    # into "no tokenizer".
    client = OpenAIBackend(server.base_url, probe_timeout=10.0, window_probe_timeout=10.0)
    yield client
    await client.aclose()


def wows(number: int) -> str:
    """Turn `number`'s message: every "!" is a token to the server, far more than
    ctxchat's estimate counts."""
    return f"Turn {number}: " + "Wow!!!! " * 30


def open_session(store: Store, server: ScriptedModelServer, backend: OpenAIBackend) -> ChatSession:
    profile = ProviderProfile(name="local", base_url=server.base_url, model=MODEL)
    settings = Settings(
        profiles={"local": profile},
        default_profile="local",
        context=ContextSettings(system_prompt="You are terse."),
    )
    conversation = store.conversations.create_conversation("counts")
    return ChatSession(store, settings, profile, conversation.id, backend=backend)


async def test_counts_are_made_by_the_server_in_the_background_and_labelled(
    store: Store, server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    session = open_session(store, server, backend)
    await session.detect_window()
    before = session.plan("How many tokens is this, exactly?")
    session.count_with_server(before)
    await session.server.counted()
    after = session.plan("How many tokens is this, exactly?")

    assert (session.window.context_window, session.window.source) == (4096, "probed")
    assert not before.exact
    assert before.counter_note.startswith("estimate: server tokenizer, ")
    assert before.counter_note.endswith(", 2 not counted by the server yet")
    # What the server itself reports for exactly these messages.
    expected = count_prompt_tokens(after.request_messages())
    assert after.exact
    assert after.counter_note == f"exact: server tokenizer, {expected:,} tokens"


async def test_a_turn_counts_what_it_sent_and_the_figure_matches_the_servers_usage(
    store: Store, server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    session = open_session(store, server, backend)
    await session.detect_window()
    events = [event async for event in send_message(session, "Hello there, server.")]
    await session.server.counted()

    finished = events[-1]
    assert isinstance(finished, TurnFinished)
    sent = session.store.plans.load_plan(finished.reply.id)
    assert sent is not None
    counts = session.server_counts
    assert counts is not None
    figure = counts.figure(sent)
    assert figure.exact
    assert figure.tokens == count_prompt_tokens(server.requests[-1]["messages"])


async def test_kept_counts_need_no_server_and_never_mix_tokenizers(
    store: Store, server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    session = open_session(store, server, backend)
    await session.detect_window()
    session.count_with_server(session.plan("Kept for later."))
    await session.server.counted()
    counts = session.server_counts
    assert counts is not None

    kept = store.server_counts.server_counts(counts.key)
    other = store.server_counts.server_counts(counts.key.replace(MODEL, "another-model"))

    assert len(kept) == 2  # the system prompt and the message, by digest
    assert other == {}


@pytest.mark.parametrize("fault", ["garbage", "error"])
async def test_a_tokenizer_that_fails_leaves_a_note_and_the_labelled_estimate(
    store: Store, server: ScriptedModelServer, backend: OpenAIBackend, fault: str
) -> None:
    session = open_session(store, server, backend)
    await session.detect_window()
    server.tokenizer_fault = fault
    session.count_with_server(session.plan("Count me."))
    await session.server.counted()

    plan = session.plan("Count me.")

    assert not plan.exact
    assert plan.counter_note.startswith("approximate: ")
    assert plan.warnings[-1] == (
        "The server's tokenizer failed (it gave no count); counts are the estimate."
    )


async def test_a_server_that_changes_model_between_turns_is_noted(
    store: Store, server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    session = open_session(store, server, backend)
    await session.detect_window()
    [event async for event in send_message(session, "First.")]
    server.served_model = "another-model"  # restarted with another model under the name
    [event async for event in send_message(session, "Second.")]

    plan = session.plan("Third.")

    assert session.server_counts is None
    assert not plan.exact
    assert plan.warnings[-1] == (
        "The server now answers as 'another-model' (it was 'test-model'); its earlier token "
        "counts no longer apply, and the estimate stands in."
    )


async def test_a_window_probe_that_times_out_leaves_a_note_and_the_labelled_default(
    store: Store, server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    server.fail_next(Fault.STALL, seconds=30)  # the over-long probe gets no answer
    session = open_session(store, server, backend)

    window = await session.detect_window()
    plan = session.plan("Hello")

    assert (window.context_window, window.source) == (2048, "default")
    assert plan.warnings[-1] == (
        "llama-cpp-python does not report its context size, and asking it timed out (--n_ctx, "
        "2048 unless set); set the context window to match the server."
    )


async def test_a_later_run_counts_exactly_from_kept_facts_without_the_server(
    store: Store, server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    session = open_session(store, server, backend)
    facts = await session.probe_server()
    session.count_with_server(session.plan("Later."))
    await session.server.counted()
    server.stop()

    later = open_session(store, server, backend)  # as `ctxchat context` from the state file
    later.use_facts(facts)
    plan = later.plan("Later.")

    assert facts is not None and facts.tokenizer_name == "llama-cpp-python"
    assert plan.exact
    assert plan.counter_note.startswith("exact: server tokenizer, ")


async def test_a_prompt_the_server_counts_over_its_window_is_fitted_to_its_count_and_sent_again(
    store: Store, server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    # The server's tokenizer counts every "!" as a token: these texts cost it more than
    # twice ctxchat's estimate, so a plan that fits the budget by ctxchat's count is longer
    # than the window by the server's, which llama-cpp-python answers with an empty stream.
    session = open_session(store, server, backend)
    await session.detect_window()
    for number in range(30):
        text = wows(number)
        session.add_user_message(text)
        store.messages.add_message(
            session.stored_id,
            "assistant",
            f"You said: {text}",
            tokens=session.count("assistant", f"You said: {text}"),
            exact=session.counter.exact,
            encoding=session.counter.name,
        )
    assert count_prompt_tokens(session.plan("And now?").request_messages()) > 4096

    events = [e async for e in send_message(session, "And now?")]

    # The refusal taught how much more the server counts: the turn was planned again with
    # room for the difference, and sent once more.
    retried = [e for e in events if isinstance(e, TurnRetried)]
    assert [type(e) for e in retried] == [TurnRetried] and retried[0].window == 4096
    assert isinstance(events[-1], TurnFinished)
    assert events[-1].reply.content == "You said: And now?"
    refused, accepted = [
        r["messages"] for r in server.requests if r["messages"][-1]["content"] == "And now?"
    ]
    assert count_prompt_tokens(accepted) < 4096 < count_prompt_tokens(refused)
    later = session.plan("And then?")
    assert any("kept free for the difference" in warning for warning in later.warnings)
    assert count_prompt_tokens(later.request_messages()) < 4096


async def test_a_conversation_growing_towards_the_window_keeps_room_before_any_refusal(
    store: Store, server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    # Every "!" is a token to the server: each turn costs it about twice ctxchat's estimate.
    # The replies' usage and the server's counts of what was sent say so long before the
    # conversation reaches the window, and the plans keep room for it from then on.
    session = open_session(store, server, backend)
    await session.detect_window()
    events = []
    for number in range(24):
        text = wows(number)
        events += [event async for event in send_counted(session, text)]
        await session.server.counted()

    assert [type(e) for e in events if isinstance(e, TurnFinished | TurnRetried)] == [
        TurnFinished
    ] * 24
    turns = [r for r in server.requests if "Turn" in r["messages"][-1]["content"]]
    sent = [count_prompt_tokens(r["messages"]) for r in turns]
    assert len(sent) == 24
    # Each request fits by the server's count, the reply's room included.
    assert all(count_prompt_tokens(r["messages"]) + r["max_tokens"] <= 4096 for r in turns)
    assert sent[-1] > 4096 / 2  # the conversation did reach far into the window
    later = session.plan("And then?")
    assert any("kept free for the difference" in warning for warning in later.warnings)
    assert count_prompt_tokens(later.request_messages()) <= 4096


async def test_a_big_text_not_counted_yet_is_scaled_as_the_counted_ones_are(
    store: Store, server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    # A new block (a draft here; a recall block alike) the server has not counted yet: its
    # estimate is scaled by how much more the server counted the texts it did count.
    session = open_session(store, server, backend)
    await session.detect_window()
    for number in range(4):
        [event async for event in send_message(session, wows(number))]
    await session.server.counted()

    plan = session.plan("New: " + "Yes!!!! " * 200)

    server_count = count_prompt_tokens(plan.request_messages())
    assert plan.counter_note.endswith(", 1 not counted by the server yet")
    shown = int(plan.counter_note.split(", ")[1].removesuffix(" tokens").replace(",", ""))
    assert abs(shown - server_count) <= server_count * 0.05
