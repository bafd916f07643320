"""The plan on screen follows what the next request would hold, whoever changed it: no
part has to ask for it to be drawn again (the run's `ChangeLog` tells the planner)."""

from __future__ import annotations

from ctxchat.chat.changes import MEMORY, ChangeLog, plan_key
from ctxchat.chat.window import WindowInfo
from ctxchat.core.budget import Layer
from ctxchat.core.memory import MemoryKind, Mode
from ctxchat.core.plan import ContextPlan
from ctxchat.tui.conversation_screen import ConversationScreen

from .app_harness import SIZE, MakeApp, exchange, memory_refs, seed, settle, until


async def test_a_change_made_through_another_session_is_drawn_without_being_asked(
    make_app: MakeApp,
) -> None:
    # A reply that outlived its session, a summary folding, a variant of another profile:
    # work begun on one session object changes the conversation another one shows.
    app, _ = make_app()
    screen = app.conversation_screen
    seed(app.workspace.store, exchange(2), conversation_id=screen.session.stored_id)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        other = screen.session.for_conversation(screen.session.conversation_id)
        assert other is not screen.session

        other.task_book.set_goal("Ship the sync before Friday")
        await until(pilot, lambda: "Friday" in task_text(screen.last_plan))

        entry = other.memory_book.add(MemoryKind.FACT, "The sync server runs on port 8443.")
        await until(pilot, lambda: entry.ref in memory_refs(screen.last_plan))

        answer = screen.session.history()[1]
        other.set_excluded([answer.id], True)
        await until(pilot, lambda: excluded(screen.last_plan, answer.id))


async def test_what_the_session_learns_or_switches_is_drawn_without_being_asked(
    make_app: MakeApp,
) -> None:
    app, _ = make_app(context_window=0)  # the server says its window
    screen = app.conversation_screen
    seed(app.workspace.store, exchange(2), conversation_id=screen.session.stored_id)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        session = screen.session
        assert screen.last_plan is not None
        mode = screen.last_plan.mode

        session.toggle_mode()  # as a command of the palette would, with no redraw asked
        await until(pilot, lambda: plan_of(screen).mode != mode)
        assert plan_of(screen).mode == Mode(mode).toggled().value

        session.server.use_window(WindowInfo(9_000, "server"))
        await until(pilot, lambda: plan_of(screen).context_window == 9_000)


def test_the_change_log_tells_its_watchers_each_key_until_stopped() -> None:
    log = ChangeLog()
    heard: list[int | str] = []
    stop = log.watch(heard.append)
    log.changed(7)
    log.changed(MEMORY)
    log.plan_changed(7)
    log.plan_changed(None)
    stop()
    log.changed(7)
    assert heard == [7, MEMORY, plan_key(7), plan_key(None)]
    # What changes only the plan reads nothing again: the stored counts stay.
    assert (log.count(7), log.total()) == (2, 3)


def plan_of(screen: ConversationScreen) -> ContextPlan:
    plan = screen.last_plan
    assert plan is not None
    return plan


def task_text(plan: ContextPlan | None) -> str:
    assert plan is not None
    return " ".join(m.content for m in plan.messages if m.layer is Layer.TASK)


def excluded(plan: ContextPlan | None, message_id: int) -> bool:
    assert plan is not None
    return [left.detail for left in plan.left_out if str(message_id) in left.ref] == [
        "excluded by you"
    ]
