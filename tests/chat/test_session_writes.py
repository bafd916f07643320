"""Every change made through the session shows in its next plan, with no one telling it to
forget what it read: memory, messages, summaries, variants, and other sessions' changes."""

from __future__ import annotations

from ctxchat.chat.ask_again import VariantFinished, ask_again, prepare_variant
from ctxchat.chat.session import ChatSession
from ctxchat.chat.turn import TurnFinished, send_message
from ctxchat.core.budget import Layer
from ctxchat.core.counterfactual import Change
from ctxchat.core.memory import MemoryKind, Mode
from ctxchat.core.plan import ContextPlan
from ctxchat.testing.server import ScriptedModelServer


def sent(plan: ContextPlan) -> str:
    """Everything the plan's request would send, as one text."""
    return "\n".join(message.content for message in plan.messages)


def memory_refs(session: ChatSession) -> list[str]:
    return [item.ref for item in session.plan().layer(Layer.MEMORY).items]


def talk(session: ChatSession, *turns: str) -> None:
    """Store alternating user and assistant messages (the session counts nothing twice)."""
    for index, text in enumerate(turns):
        if index % 2 == 0:
            session.add_user_message(text)
        else:
            reply = session.store.messages.add_message(
                session.stored_id, "assistant", text, tokens=5, exact=False, encoding="x"
            )
            session.remember_message(reply)


def test_a_memory_entry_added_is_in_the_next_plan(session: ChatSession) -> None:
    assert memory_refs(session) == []  # memory read (and kept) before the change
    entry = session.memory_book.add(MemoryKind.FACT, "The database is SQLite.")
    assert memory_refs(session) == [entry.ref]
    assert "The database is SQLite." in sent(session.plan())


def test_an_entry_edited_turned_off_or_deleted_shows_at_once(session: ChatSession) -> None:
    entry = session.memory_book.add(MemoryKind.FACT, "The database is SQLite.")
    assert "SQLite" in sent(session.plan())
    session.memory_book.update(entry.id, text="The database is PostgreSQL.")
    assert "PostgreSQL" in sent(session.plan())
    assert "SQLite" not in sent(session.plan())
    session.memory_book.update(entry.id, enabled=False)
    assert memory_refs(session) == []
    session.memory_book.update(entry.id, enabled=True)
    assert memory_refs(session) == [entry.ref]
    session.memory_book.delete(entry.id)
    assert memory_refs(session) == []


def test_a_kind_change_moves_an_entry_in_or_out_of_objective_mode(session: ChatSession) -> None:
    session.mode = Mode.OBJECTIVE
    entry = session.memory_book.add(MemoryKind.HYPOTHESIS, "The user runs Linux.")
    assert memory_refs(session) == []
    session.memory_book.update(entry.id, kind=MemoryKind.FACT)  # confirmed
    assert memory_refs(session) == [entry.ref]


def test_a_restored_entry_replaces_the_one_that_superseded_it(session: ChatSession) -> None:
    old = session.memory_book.add(MemoryKind.FACT, "The database is MySQL.", key="db")
    new = session.memory_book.add(MemoryKind.FACT, "The database is SQLite.", key="db")
    assert memory_refs(session) == [new.ref]
    session.memory_book.restore(old.id)
    assert "The database is MySQL." in sent(session.plan())


def test_a_kept_hypothesis_waits_again_from_now(session: ChatSession) -> None:
    entry = session.memory_book.add(MemoryKind.HYPOTHESIS, "The user runs Linux.")
    talk(session, "Hello", "Hi", "And again", "Yes")
    assert [e.turn for e in session.memory()] == [0]
    session.memory_book.keep_hypothesis(entry.id)
    assert [e.turn for e in session.memory()] == [2]


def test_an_edited_message_and_the_turns_deleted_after_it(session: ChatSession) -> None:
    talk(session, "Use MySQL.", "Noted: MySQL.", "Anything else?", "No.")
    first = session.history()[0]
    assert "Use MySQL." in sent(session.plan())
    session.edit_message(first.id, "Use SQLite.")
    plan = session.plan()
    assert "Use SQLite." in sent(plan) and "Use MySQL." not in sent(plan)
    session.delete_after(first.id)
    assert [m.content for m in session.history()] == ["Use SQLite."]
    assert "Noted: MySQL." not in sent(session.plan())


def test_a_summary_added_and_rolled_back(session: ChatSession) -> None:
    talk(session, "Use MySQL.", "Noted.", "Anything else?", "No.")
    assert session.plan().layer(Layer.SUMMARY).items == ()
    first, second = session.history()[0].id, session.history()[1].id
    version = session.writer.add_summary(
        "The user picked MySQL.",
        first_message_id=first,
        last_message_id=second,
        strategy="summarize",
        model=None,
    )
    assert "The user picked MySQL." in sent(session.plan())
    session.activate_summary(None)
    assert "The user picked MySQL." not in sent(session.plan())
    session.activate_summary(version.id)
    assert "The user picked MySQL." in sent(session.plan())


async def test_a_kept_variant_is_the_reply_the_next_plan_sends(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    server.script("MySQL, I think.")
    events = [event async for event in send_message(session, "Which database?")]
    finished = events[-1]
    assert isinstance(finished, TurnFinished)
    assert "MySQL, I think." in sent(session.plan())
    server.script("SQLite, surely.")
    prepared = prepare_variant(session, finished.reply.id, Change(mode=Mode.OBJECTIVE))
    variant = [event async for event in ask_again(session, prepared)][-1]
    assert isinstance(variant, VariantFinished)
    session.keep_variant(variant.variant.id)
    plan = session.plan()
    assert "SQLite, surely." in sent(plan) and "MySQL, I think." not in sent(plan)


def test_another_session_on_the_conversation_sees_what_this_one_wrote(
    session: ChatSession,
) -> None:
    """Opening a conversation again makes a new session while the old one may still write
    (a reply streaming, a summary folding): the new one reads those changes again."""
    talk(session, "Use MySQL.", "Noted.")
    elsewhere = session.for_conversation(None)
    again = elsewhere.for_conversation(session.conversation_id)
    assert "Noted." in sent(again.plan())  # read, and kept
    talk(session, "And the cache?", "Redis.")
    assert "Redis." in sent(again.plan())
    session.writer.add_summary(
        "The user picked MySQL.",
        first_message_id=session.history()[0].id,
        last_message_id=session.history()[1].id,
        strategy="summarize",
        model=None,
    )
    assert "The user picked MySQL." in sent(again.plan())
    entry = session.memory_book.add(MemoryKind.FACT, "The team is three people.")
    assert entry.ref in [item.ref for item in again.plan().layer(Layer.MEMORY).items]
    # A session opened on its own (asking another profile) shares the store, so the log.
    alone = ChatSession(session.store, session.settings, session.profile, session.conversation_id)
    assert "Redis." in sent(alone.plan())
    talk(alone, "And the queue?", "RabbitMQ.")
    assert "RabbitMQ." in sent(again.plan())
    # And the writer's own cache stayed true through it all.
    assert "Redis." in sent(session.plan())
    assert "The team is three people." in sent(session.plan())
