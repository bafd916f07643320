"""Recall through the session: FTS5 search over the store, adaptive shares, the shared prefix."""

from __future__ import annotations

import json
import random
import re

import pytest

from ctxchat.chat.recaller import unembedded_note
from ctxchat.chat.semantic import SemanticRecall
from ctxchat.chat.session import ChatSession
from ctxchat.chat.session_factory import prepare_recall
from ctxchat.chat.turn import send_message
from ctxchat.chat.window import WindowInfo
from ctxchat.core.budget import Layer
from ctxchat.core.memory import MemoryKind
from ctxchat.core.plan import Reason
from ctxchat.testing.server import ScriptedModelServer

SYLLABLES = "ka lo mi ne ru ta vo xi ze pa do fe gu hi ja ko lu ma ni po".split()  # noqa: SIM905


def filler(rng: random.Random) -> str:
    words = ["".join(rng.choice(SYLLABLES) for _ in range(3)) for _ in range(rng.randint(6, 14))]
    return " ".join(words).capitalize() + "."


def add_turn(session: ChatSession, user: str, assistant: str) -> None:
    for role, text in (("user", user), ("assistant", assistant)):
        session.store.messages.add_message(
            session.stored_id,
            role,
            text,
            tokens=session.count(role, text),
            exact=True,
            encoding=session.counter.name,
        )


def long_conversation(session: ChatSession, turns: int, planted: dict[int, str]) -> None:
    rng = random.Random(7)
    with session.store.transaction():
        for turn in range(1, turns + 1):
            user = planted.get(turn, filler(rng))
            add_turn(session, user, filler(rng))
    session.forget_history()


def prepared_semantic(session: ChatSession) -> SemanticRecall:
    """The session's semantic recall, its encoder and vectors loaded (skips without the extra)."""
    if not SemanticRecall.possible():
        pytest.skip("the embeddings extra is not installed")
    semantic = SemanticRecall(session.store, session.stored_id)
    semantic.prepare()
    return semantic


def test_a_decision_from_turn_10_is_recalled_at_turn_300(session: ChatSession) -> None:
    session.server.use_window(WindowInfo(4_000, "config"))
    long_conversation(session, 299, {10: "We decided to use PostgreSQL for the main database."})
    plan = session.plan("What did we decide about the database?")
    recall = plan.layer(Layer.RECALL)
    # The reply after it comes along, read with it: by words it matches nothing itself.
    assert [item.ref for item in recall.items] == ["message:19", "message:20"]
    assert recall.items[0].label.startswith("matched decide, database; score ")
    assert recall.items[1].label.startswith(
        "read with #19 before it, which matched decide, database; score "
    )
    assert "579 messages ago" in recall.items[0].label  # 598 messages, it is the 19th
    assert "We decided to use PostgreSQL for the main database." in plan.messages[1].content
    assert plan.messages[1].layer is Layer.RECALL
    # Working memory is the newest turns: the planted one is not among them.
    working_ids = {item.ref for item in plan.layer(Layer.WORKING).items}
    assert "message:19" not in working_ids
    assert plan.share_notes == (
        "recall found earlier messages: it takes 10% from working",
        "turn 300 > 20: working yields 10% (5% to summary, 5% to recall)",
    )
    assert recall.hints == ("newer messages outrank older ones on the same topic",)
    assert recall.notes == ()


def test_a_later_contradicting_decision_outranks_the_earlier_one(session: ChatSession) -> None:
    session.server.use_window(WindowInfo(4_000, "config"))
    long_conversation(
        session,
        299,
        {
            10: "We decided to use PostgreSQL for the main database.",
            150: "We decided to use SQLite for the main database instead.",
        },
    )
    plan = session.plan("What did we decide about the database?")
    assert [item.ref for item in plan.layer(Layer.RECALL).items] == [
        "message:299",
        "message:19",
        "message:300",  # the replies after them, read with them
        "message:20",
    ]


def test_a_change_that_names_the_old_choice_comes_with_the_decision(
    session: ChatSession,
) -> None:
    session.server.use_window(WindowInfo(4_000, "config"))
    long_conversation(
        session,
        299,
        {
            10: "Booked our summer holiday at last: a week in Naples in August!",
            150: "Scratch Naples, the flights doubled overnight. We're doing Malaga instead.",
        },
    )
    plan = session.plan("Where are we going on holiday this summer?")
    recall = plan.layer(Layer.RECALL)
    assert [(item.ref, item.label) for item in recall.items] == [
        ("message:19", recall.items[0].label),
        ("message:299", "later on the topic of #19 (shares naples); 299 messages ago"),
        ("message:20", recall.items[2].label),
    ]
    assert recall.items[2].label.startswith("read with #19 before it, which matched holiday")
    assert "We're doing Malaga instead." in plan.messages[1].content


def test_recall_never_repeats_working_memory(session: ChatSession) -> None:
    session.server.use_window(WindowInfo(100_000, "config"))
    long_conversation(session, 30, {12: "The database choice is PostgreSQL, decided."})
    plan = session.plan("Which database did we decide on?")
    # Everything fits in working memory, so recall has nothing to add.
    assert plan.layer(Layer.RECALL).items == ()
    assert [(o.ref, o.reason) for o in plan.layer(Layer.RECALL).left_out] == [
        ("message:23", Reason.DUPLICATE),
        ("message:24", Reason.DUPLICATE),  # the reply after it, read with it
    ]
    contents = [m.content for m in plan.messages]
    assert contents.count("The database choice is PostgreSQL, decided.") == 1


def test_recall_can_be_switched_off(session: ChatSession) -> None:
    import dataclasses

    session.server.use_window(WindowInfo(4_000, "config"))
    long_conversation(session, 100, {10: "We decided to use PostgreSQL for the main database."})
    session.settings = dataclasses.replace(
        session.settings, recall=dataclasses.replace(session.settings.recall, enabled=False)
    )
    plan = session.plan("What did we decide about the database?")
    assert plan.layer(Layer.RECALL).items == ()
    assert plan.shares["recall"] == 0.0
    assert plan.share_notes == ("turn 101 > 20: working yields 10% to summary",)


async def test_prefix_stays_without_changes_and_shrinks_with_a_new_memory_entry(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    session.store.memory.add_memory(MemoryKind.FACT, "The team uses Python 3.11.")
    session.forget_memory()
    server.script("One.", "Two.", "Three.")
    [e async for e in send_message(session, "First question")]
    first = session.store.plans.load_plan(session.store.messages.messages(session.stored_id)[-1].id)
    [e async for e in send_message(session, "Second question")]
    second = session.store.plans.load_plan(
        session.store.messages.messages(session.stored_id)[-1].id
    )
    assert first is not None and second is not None
    # Nothing above the turns changed: the whole first request is the start of the second.
    assert (second.prefix_messages, second.prefix_tokens) == (
        len(first.messages),
        sum(m.tokens for m in first.messages),
    )
    session.store.memory.add_memory(MemoryKind.CONSTRAINT, "Everything must run offline.")
    session.forget_memory()
    [e async for e in send_message(session, "Third question")]
    third = session.store.plans.load_plan(session.store.messages.messages(session.stored_id)[-1].id)
    assert third is not None
    # The memory message changed, so only the system prompt is still shared.
    assert (third.prefix_messages, third.prefix_tokens) == (1, third.messages[0].tokens)
    assert json.loads(json.dumps(third.to_dict()))["prefix"] == {
        "messages": 1,
        "tokens": third.messages[0].tokens,
    }


def test_semantic_recall_finds_what_shares_no_words(session: ChatSession) -> None:
    session.server.use_window(WindowInfo(4_000, "config"))
    long_conversation(session, 120, {8: "We chose Postgres as our DB."})
    semantic = prepared_semantic(session)
    assert semantic.embed_rest() == 240
    assert semantic.embed_rest() == 0
    session.semantic = semantic
    plan = session.plan("Which data store did we pick?")
    recall = plan.layer(Layer.RECALL)
    assert recall.items[0].ref == "message:15"
    assert "We chose Postgres as our DB." in plan.messages[1].content


def test_catching_up_pauses_between_batches_and_stops_when_asked(
    session: ChatSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    long_conversation(session, 40, {})
    semantic = prepared_semantic(session)
    pauses: list[float] = []
    monkeypatch.setattr("ctxchat.chat.semantic.time.sleep", pauses.append)
    # Stopped during the pause after the first batch: 16 of the 80 messages are embedded.
    assert semantic.embed_rest(batch=16, cancelled=lambda: len(pauses) >= 1) == 16
    assert len(pauses) == 1 and 0 < pauses[0] <= 0.1
    # Resumed: the other 64, in four batches, pausing after each.
    pauses.clear()
    assert semantic.embed_rest(batch=16) == 64
    assert pauses and all(0 < pause <= 0.1 for pause in pauses)


def test_a_name_most_messages_hold_does_not_fill_recall_with_chit_chat(
    session: ChatSession,
) -> None:
    session.server.use_window(WindowInfo(4_000, "config"))
    rng = random.Random(3)
    with session.store.transaction():
        for turn in range(1, 151):
            user = (
                "We adopted a beagle called Biscuit." if turn == 20 else f"Haha Maya, {filler(rng)}"
            )
            add_turn(session, user, filler(rng))
    session.forget_history()
    plan = session.plan("What did Maya call the beagle?")
    recall = plan.layer(Layer.RECALL)
    # "maya" is in half of this conversation's messages: it says nothing about which one.
    # The reply after the match comes along, read with it; none of the chit-chat does.
    assert [item.ref for item in recall.items] == ["message:39", "message:40"]
    assert recall.items[0].label.startswith("matched beagle; score ")
    assert recall.items[1].label.startswith("read with #39 before it, which matched beagle;")


def test_recall_fills_its_share_by_tokens_past_twenty_results(session: ChatSession) -> None:
    session.server.use_window(WindowInfo(8_000, "config"))
    planted = {turn: f"Invoice {turn} was paid late." for turn in range(3, 153, 5)}
    long_conversation(session, 299, planted)
    plan = session.plan("Which invoice was paid late?")
    recall = plan.layer(Layer.RECALL)
    found = [int(item.ref.split(":")[1]) for item in recall.items]
    matches = [2 * turn - 1 for turn in planted]
    # Every match first; the share's room to spare holds the replies after them, read
    # with them, and only those are left out for the budget.
    assert sorted(found[: len(matches)]) == matches
    assert found[len(matches) :] and all(i - 1 in matches for i in found[len(matches) :])
    assert recall.left_out and all(
        o.reason is Reason.BUDGET and int(o.ref.split(":")[1]) - 1 in matches
        for o in recall.left_out
    )


def test_a_recalled_question_brings_the_answer_along(session: ChatSession) -> None:
    session.server.use_window(WindowInfo(4_000, "config"))
    rng = random.Random(5)
    with session.store.transaction():
        for turn in range(1, 121):
            if turn == 10:
                add_turn(session, "Which database should we use for the shop?", "PostgreSQL.")
            else:
                add_turn(session, filler(rng), filler(rng))
    session.forget_history()
    plan = session.plan("Remind me about the database for the shop?")
    recall = plan.layer(Layer.RECALL)
    assert [item.ref for item in recall.items] == ["message:19", "message:20"]
    assert recall.items[1].label == "neighbour of #19 (question and answer); 220 messages ago"
    assert "[#19 user, 221 ago] Which database should we use for the shop?\n" in (
        plan.messages[1].content
    )
    assert "[#20 assistant, 220 ago] PostgreSQL.\n" in plan.messages[1].content


CHIT_CHAT = ("Good luck, Jon! You've got this.", "Thanks, Jon, means a lot.", "Jon! Guess what.")


def test_semantic_recall_looks_past_the_speakers_names(session: ChatSession) -> None:
    session.server.use_window(WindowInfo(4_000, "config"))
    rng = random.Random(9)
    with session.store.transaction():
        for turn in range(1, 121):
            user = (
                "Big news: I got promoted to project manager."
                if turn == 8
                else CHIT_CHAT[turn % len(CHIT_CHAT)]
            )
            add_turn(session, user, filler(rng))
    session.forget_history()
    semantic = prepared_semantic(session)
    semantic.embed_rest(pause=0.0)
    session.semantic = semantic
    plan = session.plan("What is Jon's new position at the company?")
    recall = plan.layer(Layer.RECALL)
    assert recall.items[0].ref == "message:15"
    assert recall.items[0].label.startswith("similar in meaning (cosine 0.")


def test_what_a_query_finds_is_embedded_before_the_rest(
    session: ChatSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    session.server.use_window(WindowInfo(4_000, "config"))
    long_conversation(session, 60, {3: "The invoice bug came from the timezone."})
    semantic = prepared_semantic(session)
    session.semantic = semantic
    session.plan("What caused the invoice bug?")  # full-text finds message 5
    pauses: list[float] = []
    monkeypatch.setattr("ctxchat.chat.semantic.time.sleep", pauses.append)
    assert semantic.embed_rest(batch=2, cancelled=lambda: len(pauses) >= 1) == 2
    rows = session.store.search.load_embeddings(session.stored_id, "all-MiniLM-L6-v2")
    # The message the query wanted, then the newest one.
    assert [message_id for message_id, _ in rows] == [5, 120]


def test_a_command_plans_with_what_is_embedded_and_says_how_much_is_not(
    session: ChatSession,
) -> None:
    if not SemanticRecall.possible():
        pytest.skip("the embeddings extra is not installed")
    session.server.use_window(WindowInfo(4_000, "config"))
    long_conversation(session, 100, {10: "We decided to use PostgreSQL for the main database."})
    draft = "What did we decide about the database?"
    # No time to embed anything: recall by meaning searches nothing yet, and says so.
    prepared = prepare_recall(session, draft, wait=0.0)
    assert (prepared.left, prepared.embedded) == (200, 0)
    assert prepared.loading > 0 and "loading its encoder" in prepared.timing_note()
    plan = session.plan(draft)
    earlier = 200 - session.settings.context.min_recent
    assert unembedded_note(earlier, earlier) in plan.warnings
    assert any(item.ref == "message:19" for item in plan.layer(Layer.RECALL).items)  # by words
    # Asked to wait for all, it embeds every message: nothing left to say.
    prepared = prepare_recall(session, draft, wait=None)
    assert (prepared.left, prepared.embedded) == (0, 200)
    assert "embedding 200 messages" in prepared.timing_note()
    assert not any("not embedded" in warning for warning in session.plan(draft).warnings)


def test_a_draft_has_the_messages_its_words_find_embedded_first(session: ChatSession) -> None:
    if not SemanticRecall.possible():
        pytest.skip("the embeddings extra is not installed")
    long_conversation(session, 100, {10: "We decided to use PostgreSQL for the main database."})
    draft = "What did we decide about the database?"
    prepare_recall(session, draft, wait=0.0)
    semantic = session.semantic
    assert semantic is not None
    # One message embedded: the one full-text search found comes before the newest.
    semantic.embed_rest(1, pause=0.0, cancelled=lambda: semantic.embedded >= 1)
    assert semantic.missing([19]) == 0
    assert semantic.missing(m.id for m in session.history()) == 199


def test_an_answer_in_other_words_is_recalled_with_the_question_it_answers(
    session: ChatSession,
) -> None:
    session.server.use_window(WindowInfo(4_000, "config"))
    rng = random.Random(11)
    with session.store.transaction():
        for turn in range(1, 121):
            add_turn(
                session,
                "All fine, he just needs to lose two kilos." if turn == 9 else filler(rng),
                "How did the vet visit go with Rex?" if turn == 8 else filler(rng),
            )
    session.forget_history()
    semantic = prepared_semantic(session)
    semantic.embed_rest(pause=0.0)
    session.semantic = semantic
    plan = session.plan("What did the vet say about the dog?")
    recall = plan.layer(Layer.RECALL)
    labels = {item.ref: item.label for item in recall.items}
    # Alone the answer is nothing like the question (its cosine is below the noise floor);
    # read with the question before it, it is what answers.
    assert list(labels)[:2] == ["message:16", "message:17"]
    from ctxchat.embeddings.candidates import MIN_COSINE

    alone = re.match(r"similar in meaning \(cosine (0\.\d\d); ", labels["message:17"])
    assert alone is not None and float(alone.group(1)) < MIN_COSINE
    assert "read with the message before it)" in labels["message:17"]


def test_by_words_an_answer_in_other_words_comes_with_what_it_answers(
    session: ChatSession,
) -> None:
    session.server.use_window(WindowInfo(4_000, "config"))
    long_conversation(session, 150, {})
    add_turn(session, "Took Rex for his check-up today.", "How did the vet visit go with Rex?")
    add_turn(session, "All fine, he just needs to lose two kilos.", "Noted.")
    long_conversation(session, 150, {})
    plan = session.plan("What did the vet say about Rex?")
    recall = plan.layer(Layer.RECALL)
    # The answer shares no word with the question: it is found through the question it
    # answers, read with it, as recall by meaning reads every message with the one before.
    assert [item.ref for item in recall.items] == ["message:302", "message:301", "message:303"]
    assert recall.items[2].label.startswith("read with #302 before it, which matched vet, rex;")
    assert "All fine, he just needs to lose two kilos." in plan.messages[1].content
