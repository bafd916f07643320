"""Recall across conversations: what was said in another conversation of the project (or of
any, when asked) comes back as a recall item that names where it was said."""

from __future__ import annotations

import dataclasses
import re
from datetime import datetime

import pytest

from ctxchat.chat.recaller import OTHERS_UNEMBEDDED
from ctxchat.chat.semantic import SemanticRecall
from ctxchat.chat.session import ChatSession
from ctxchat.chat.turn import send_message
from ctxchat.config.settings import RecallSettings
from ctxchat.core.across import RecallAcross
from ctxchat.core.budget import Layer
from ctxchat.core.plan import ContextPlan, OtherConversation, PlanItem
from ctxchat.store import Store

from .test_session_recall import add_turn

FACT = "For the birdhouse we settled on cedar planks, 19 mm thick, and brass screws."
QUESTION = "Which wood did we pick for the birdhouse?"


def other(session: ChatSession, title: str, project: int | None) -> ChatSession:
    """A session on a new conversation called `title` (in `project`), as the app opens one."""
    conversation = session.store.conversations.create_conversation(title)
    if project is not None:
        session.store.projects.move_to_project(conversation.id, project)
    return session.for_conversation(conversation.id)


def said_in(session: ChatSession, title: str, project: int | None, user: str) -> ChatSession:
    """A conversation called `title` (in `project`) where the user said `user`."""
    where = other(session, title, project)
    add_turn(where, user, "Noted.")
    return where


def today() -> str:
    return datetime.now().astimezone().date().isoformat()


def recalled(plan: ContextPlan) -> list[str]:
    return [item.ref for item in plan.layer(Layer.RECALL).items]


def test_a_fact_from_another_conversation_of_the_project_is_recalled(
    session: ChatSession,
) -> None:
    project = session.store.projects.create_project("Garden").id
    a = said_in(session, "Birdhouse plan", project, FACT)
    fact_id = a.history()[0].id
    b = other(session, "Shopping list", project)

    plan = b.plan(QUESTION)

    ref = f"conversation:{a.stored_id}/message:{fact_id}"
    assert recalled(plan) == [ref]
    item = plan.layer(Layer.RECALL).items[0]
    assert isinstance(item, PlanItem)
    assert item.source == OtherConversation(a.stored_id, "Birdhouse plan", today())
    assert item.label.startswith(f"from “Birdhouse plan” ({today()}): matched birdhouse")
    assert "; score " in item.label
    # The model reads where it was said, beside the words themselves.
    recall_message = next(m for m in plan.messages if m.layer is Layer.RECALL)
    assert f"[user in another conversation, “Birdhouse plan”, {today()}] {FACT}" in (
        recall_message.content
    )
    # The JSON names the conversation; a stored plan keeps it.
    data = plan.to_dict()
    (recall_layer,) = [layer for layer in data["layers"] if layer["layer"] == "recall"]
    assert recall_layer["items"][0]["ref"] == ref
    assert recall_layer["items"][0]["from"] == {
        "conversation": a.stored_id,
        "title": "Birdhouse plan",
        "date": today(),
    }
    assert ContextPlan.from_dict(data) == plan


async def test_the_plan_a_reply_was_made_from_keeps_where_recall_found_it(
    session: ChatSession,
) -> None:
    project = session.store.projects.create_project("Garden").id
    a = said_in(session, "Birdhouse plan", project, FACT)
    b = other(session, "Shopping list", project)

    [event async for event in send_message(b, QUESTION)]

    reply = b.history()[-1]
    stored = b.store.plans.load_plan(reply.id)
    assert stored is not None
    (item,) = stored.layer(Layer.RECALL).items
    assert isinstance(item, PlanItem)
    assert item.source is not None and item.source.id == a.stored_id
    assert not item.ref.startswith("message:")  # never taken for a message of this one


def test_a_conversation_outside_the_project_is_searched_only_with_all(
    session: ChatSession,
) -> None:
    project = session.store.projects.create_project("Garden").id
    elsewhere = said_in(session, "Birdhouse, another one", None, FACT)
    b = other(session, "Shopping list", project)

    assert recalled(b.plan(QUESTION)) == []

    b.recaller.across = RecallAcross.ALL
    refs = recalled(b.plan(QUESTION))
    assert len(refs) == 1 and refs[0].startswith(f"conversation:{elsewhere.stored_id}/")


def test_outside_a_project_recall_stays_in_the_conversation_by_default(
    session: ChatSession,
) -> None:
    said_in(session, "Birdhouse plan", None, FACT)
    b = other(session, "Shopping list", None)

    assert b.recaller.across is RecallAcross.PROJECT  # the default
    assert recalled(b.plan(QUESTION)) == []


def test_off_searches_no_other_conversation(session: ChatSession) -> None:
    project = session.store.projects.create_project("Garden").id
    said_in(session, "Birdhouse plan", project, FACT)
    settings = dataclasses.replace(session.settings, recall=RecallSettings(across=RecallAcross.OFF))
    conversation = session.store.conversations.create_conversation("Shopping list")
    session.store.projects.move_to_project(conversation.id, project)
    b = ChatSession(session.store, settings, session.profile, conversation.id)

    assert b.recaller.across is RecallAcross.OFF
    assert recalled(b.plan(QUESTION)) == []


def test_the_palette_switch_goes_round_and_sessions_opened_after_keep_it(
    session: ChatSession,
) -> None:
    project = session.store.projects.create_project("Garden").id
    said_in(session, "Birdhouse plan", project, FACT)
    b = other(session, "Shopping list", project)
    assert len(recalled(b.plan(QUESTION))) == 1

    assert b.recaller.switch_across() is RecallAcross.ALL
    assert b.recaller.switch_across() is RecallAcross.OFF
    assert recalled(b.plan(QUESTION)) == []  # not the result worked out before the switch
    assert b.for_conversation(session.stored_id).recaller.across is RecallAcross.OFF
    assert b.recaller.switch_across() is RecallAcross.PROJECT
    assert len(recalled(b.plan(QUESTION))) == 1


def test_objective_mode_keeps_recall_across_conversations(session: ChatSession) -> None:
    project = session.store.projects.create_project("Garden").id
    said_in(session, "Birdhouse plan", project, FACT)
    b = other(session, "Shopping list", project)
    b.toggle_mode()

    assert b.plan(QUESTION).mode == "objective"
    assert len(recalled(b.plan(QUESTION))) == 1


def test_what_the_user_excluded_there_or_this_conversation_holds_is_not_brought(
    session: ChatSession, store: Store
) -> None:
    project = store.projects.create_project("Garden").id
    a = said_in(session, "Birdhouse plan", project, FACT)
    branch = said_in(session, "Birdhouse plan (branch)", project, FACT)  # the same words
    b = other(session, "Shopping list", project)
    assert len(recalled(b.plan(QUESTION))) == 1  # the same text is brought once

    store.exclusions.set_excluded([a.history()[0].id], True)
    store.exclusions.set_excluded([branch.history()[0].id], True)
    b.invalidate()
    assert recalled(b.plan(QUESTION)) == []

    store.exclusions.set_excluded([a.history()[0].id], False)
    add_turn(b, FACT, "Yes, cedar.")  # this conversation says it itself now
    b.forget_history()
    assert not any(ref.startswith("conversation:") for ref in recalled(b.plan(QUESTION)))


def test_a_question_found_there_brings_its_answer(session: ChatSession) -> None:
    project = session.store.projects.create_project("Garden").id
    a = other(session, "Birdhouse plan", project)
    add_turn(a, "What wood should the birdhouse be?", "Cedar planks, 19 mm thick.")
    question, answer = (m.id for m in a.history())
    b = other(session, "Shopping list", project)

    items = b.plan(QUESTION).layer(Layer.RECALL).items

    assert [item.ref for item in items] == [
        f"conversation:{a.stored_id}/message:{question}",
        f"conversation:{a.stored_id}/message:{answer}",
    ]
    assert items[1].label == (
        f"from “Birdhouse plan” ({today()}): the question or answer beside a match there"
    )


def meaning_on(session: ChatSession) -> SemanticRecall:
    """The session's recall by meaning, loaded as a command loads it (skips without the
    extra): the encoder, the conversation's vectors and the other conversations'."""
    if not SemanticRecall.possible():
        pytest.skip("the embeddings extra is not installed")
    semantic = SemanticRecall(session.store, session.stored_id)
    semantic.prepare()
    semantic.prepare_others(session.recaller.others())
    session.semantic = semantic
    return semantic


PAID = "The quote from the roofer came to 4,200 euros, tiles and labour included."
ASKED_BY_MEANING = "How expensive was fixing the top of the house?"


def test_recall_by_meaning_finds_in_another_conversation_what_shares_no_word(
    session: ChatSession,
) -> None:
    project = session.store.projects.create_project("House").id
    a = said_in(session, "Renovation", project, PAID)
    paid_id = a.history()[0].id
    b = other(session, "Chores", project)
    add_turn(b, "Remind me to water the plants.", "Noted.")
    assert recalled(b.plan(ASKED_BY_MEANING)) == []  # by words: no word in common
    # The other conversation's messages have no vector yet: the app embeds them after the
    # conversation's own, in the worker that loads the encoder.
    semantic = meaning_on(b)
    before = b.plan(ASKED_BY_MEANING)
    assert recalled(before) == []
    assert OTHERS_UNEMBEDDED in " ".join(before.warnings)  # the plan says what it missed
    assert semantic.embed_others(b.recaller.others()) == 2

    plan = b.plan(ASKED_BY_MEANING)
    assert OTHERS_UNEMBEDDED not in " ".join(plan.warnings)

    ref = f"conversation:{a.stored_id}/message:{paid_id}"
    assert ref in recalled(plan)
    item = next(i for i in plan.layer(Layer.RECALL).items if i.ref == ref)
    assert isinstance(item, PlanItem)
    assert item.source == OtherConversation(a.stored_id, "Renovation", today())
    assert "similar in meaning" in item.label
    assert f"“Renovation”, {today()}] {PAID}" in next(
        m.content for m in plan.messages if m.layer is Layer.RECALL
    )
    # The vectors were kept: another session (a command) finds it without embedding again.
    again = b.for_conversation(b.stored_id)
    assert meaning_on(again).embed_others(again.recaller.others()) == 0
    assert ref in recalled(again.plan(ASKED_BY_MEANING))


def test_recall_by_meaning_keeps_to_the_conversations_recall_across_names(
    session: ChatSession,
) -> None:
    project = session.store.projects.create_project("House").id
    outside = said_in(session, "Renovation", None, PAID)
    b = other(session, "Chores", project)
    semantic = meaning_on(b)
    assert semantic.embed_others(b.recaller.others()) == 0  # nothing in the project
    assert recalled(b.plan(ASKED_BY_MEANING)) == []

    b.recaller.switch_across()  # project -> all
    assert b.recaller.across is RecallAcross.ALL
    semantic.prepare_others(b.recaller.others())
    assert semantic.embed_others(b.recaller.others()) == 2
    paid_id = outside.history()[0].id
    assert f"conversation:{outside.stored_id}/message:{paid_id}" in recalled(
        b.plan(ASKED_BY_MEANING)
    )

    b.recaller.switch_across()  # all -> off
    b.cache.forget_recall()
    assert recalled(b.plan(ASKED_BY_MEANING)) == []


def test_recall_by_meaning_there_reads_a_message_with_the_one_before_it(
    session: ChatSession,
) -> None:
    project = session.store.projects.create_project("Pets").id
    a = other(session, "Rex", project)
    add_turn(a, "Morning!", "How did the vet visit go with Rex?")
    # Another conversation of the project, written in between: not what the answer answers.
    said_in(session, "Garden", project, "The tomatoes need staking this week.")
    add_turn(a, "All fine, he just needs to lose two kilos.", "Good to hear.")
    answer_id = a.history()[2].id
    b = other(session, "Errands", project)
    semantic = meaning_on(b)
    semantic.embed_others(b.recaller.others())

    plan = b.plan("What did the vet say about the dog?")
    ref = f"conversation:{a.stored_id}/message:{answer_id}"
    assert ref in recalled(plan)
    item = next(i for i in plan.layer(Layer.RECALL).items if i.ref == ref)
    assert item.label.startswith("from “Rex”")
    # Alone the answer is too far from the question to be recalled; read with the
    # question before it in its conversation (not the one written between), it is near.
    # The draft is not widened across conversations, so only the reading is named.
    assert re.search(
        r"similar in meaning \(cosine 0\.1\d; 0\.\d\d read with the message before it\)", item.label
    )


def test_recall_by_meaning_there_leaves_out_what_is_only_loosely_alike(
    session: ChatSession,
) -> None:
    project = session.store.projects.create_project("House").id
    chores = other(session, "Chores", project)
    add_turn(chores, "I'll do the bins, you do the dishes.", "Noted.")
    add_turn(chores, "The kids should tidy their rooms before dinner.", "Noted.")
    meals = said_in(session, "Meals", project, "This week we cook the lentil curry again.")
    curry_id = meals.history()[0].id
    b = other(session, "Tonight", project)
    semantic = meaning_on(b)
    semantic.embed_others(b.recaller.others())

    plan = b.plan("What should I cook tonight?")
    # The chores are about the house, not about cooking: alike at a cosine of 0.26 to 0.27,
    # what unrelated sentences reach. In a new conversation they would fill its free room.
    # Nor does the "Noted." after the curry: read with the message before it, it would only
    # stand for that one.
    assert recalled(plan) == [f"conversation:{meals.stored_id}/message:{curry_id}"]
