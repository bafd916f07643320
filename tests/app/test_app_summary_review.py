"""What a summary loses, in the app: a manual summary reviewed before it goes into force, and
an automatic one that lost details flagged until the user reviews it."""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot
from textual.widgets import OptionList, Static, TextArea

from ctxchat.core.budget import Layer
from ctxchat.core.summary import SummaryStrategy
from ctxchat.testing.server import ScriptedModelServer
from ctxchat.tui.app import CtxChatApp
from ctxchat.tui.screens.confirm import ConfirmScreen
from ctxchat.tui.screens.summarize_preview import SummarizePreview
from ctxchat.tui.screens.summary_review import NOTHING_LOST, SummaryReview
from ctxchat.tui.screens.summary_versions import SummaryScreen

from ..waiting import until
from .app_harness import SIZE, MakeApp, Notes, seed, settle, typed

SMALL_WORKING = "[context]\nmin_recent = 2\n[summary]\nauto = false\n"

# The number and the path the model's summary drops.
TURNS = [
    ("user", "How large should the cache be?"),
    ("assistant", "Set the cache to 1200 MB."),
    ("user", "Where does it live?"),
    ("assistant", "Keep it under /var/lib/cachesvc/data on every host."),
    ("user", "Anything else?"),
    ("assistant", "No, that is all."),
]
VAGUE = "They talked about the cache size and where it lives."
HOME = TURNS[3][1]


def lost_items(review: SummaryReview) -> list[str]:
    listed = review.query_one("#review-lost", OptionList)
    if not listed.display or listed.has_class("-empty"):
        return []
    return [str(listed.get_option_at_index(i).prompt) for i in range(listed.option_count)]


def count_line(review: SummaryReview) -> str:
    return str(review.query_one("#review-count", Static).render())


def stored(app: CtxChatApp) -> list[tuple[int, str, bool]]:
    """(version, text, flagged) of the open conversation's summaries, oldest first."""
    session = app.conversation_screen.session
    return [
        (v.version, v.text, v.flagged)
        for v in sorted(
            session.store.summaries.summaries(session.stored_id), key=lambda v: v.version
        )
    ]


async def review_of_summarize_now(app: CtxChatApp, pilot: Pilot[Any]) -> SummaryReview:
    await pilot.press("ctrl+s")
    assert isinstance(app.screen, SummarizePreview)
    await pilot.press("enter")
    await until(pilot, lambda: isinstance(app.screen, SummaryReview))
    review = app.screen
    assert isinstance(review, SummaryReview)
    await pilot.pause()
    return review


async def test_the_review_lists_what_was_lost_and_keeps_exactly_the_text_shown(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, notes = make_app(extra=SMALL_WORKING)
    seed(app.workspace.store, TURNS, conversation_id=app.conversation_screen.session.stored_id)
    server.script(VAGUE, "Noted.")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        review = await review_of_summarize_now(app, pilot)
        assert stored(app) == []  # nothing in force while it is reviewed
        assert count_line(review) == "2 details lost:"
        # What matters most first: the path before a number.
        assert lost_items(review) == [
            "path       /var/lib/cachesvc/data  from message #4",
            "number     1200 MB  from message #2",
        ]

        # Enter on the path adds its sentence back; the report loses it at once.
        await pilot.press("enter")
        await pilot.pause()
        editor = review.query_one("#review-text", TextArea)
        assert editor.text == f"{VAGUE}\n{HOME}"
        assert lost_items(review) == ["number     1200 MB  from message #2"]
        assert count_line(review) == "1 detail lost:"

        # Typing the number by hand empties the report too.
        editor.focus()
        editor.move_cursor(editor.document.end)
        await pilot.press(*" Set the cache to 1200 MB.")
        await pilot.pause()
        assert lost_items(review) == []
        assert count_line(review) == NOTHING_LOST

        await pilot.press("ctrl+s")
        await settle(pilot)
        kept = f"{VAGUE}\n{HOME} Set the cache to 1200 MB."
        assert stored(app) == [(1, kept, False)]
        assert "Summary v1 is in force." in notes.messages

        # The next request's summary layer carries it, as the server received it.
        await typed(pilot, "Thanks.")
        await pilot.press("enter")
        await settle(pilot)
        sent = server.requests[-1]["messages"]
        summary_message = [
            m["content"] for m in sent if "Set the cache to 1200 MB." in m["content"]
        ]
        assert len(summary_message) == 1 and summary_message[0].endswith(kept)


async def test_escape_rejects_and_stores_nothing(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, notes = make_app(extra=SMALL_WORKING)
    seed(app.workspace.store, TURNS, conversation_id=app.conversation_screen.session.stored_id)
    server.script(VAGUE)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        review = await review_of_summarize_now(app, pilot)
        await pilot.press("enter")  # edited: Escape asks first
        await pilot.press("escape")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("escape")  # no: back to the review, the edit still there
        assert app.screen_stack[-1] is review
        assert HOME in review.query_one("#review-text", TextArea).text
        await pilot.press("escape")
        await pilot.click("#confirm")
        await settle(pilot)
        assert stored(app) == []
        assert "Summary rejected: the turns stay as they were." in notes.messages
        plan = app.conversation_screen.last_plan
        assert plan is not None and plan.layer(Layer.SUMMARY).items == ()


async def test_a_proposal_overtaken_by_another_version_stores_nothing(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, notes = make_app(extra=SMALL_WORKING)
    turns = seed(
        app.workspace.store, TURNS, conversation_id=app.conversation_screen.session.stored_id
    )
    server.script(VAGUE)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await review_of_summarize_now(app, pilot)
        session = app.conversation_screen.session
        session.writer.add_summary(  # another summary goes into force meanwhile
            "Written elsewhere.",
            first_message_id=turns[0].id,
            last_message_id=turns[1].id,
            strategy=SummaryStrategy.SUMMARIZE,
            model=None,
        )
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert stored(app) == [(1, "Written elsewhere.", False)]
        errors = notes.of("error")
        assert len(errors) == 1 and errors[0].startswith("Nothing was stored: The summary changed")
        assert "\n" not in errors[0]


async def test_an_empty_report_says_so(make_app: MakeApp, server: ScriptedModelServer) -> None:
    app, _ = make_app(extra=SMALL_WORKING)
    seed(app.workspace.store, TURNS, conversation_id=app.conversation_screen.session.stored_id)
    server.script("The cache is 1200 MB, under /var/lib/cachesvc/data on every host.")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        review = await review_of_summarize_now(app, pilot)
        assert count_line(review) == NOTHING_LOST
        assert lost_items(review) == []


async def test_markup_and_escapes_in_a_lost_item_are_shown_as_typed(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app(extra=SMALL_WORKING)
    turns = [
        ("user", "What do I run?"),
        ("assistant", "Run `echo [red]hi[/red]\x1b[31m` first."),
        *TURNS[4:],
    ]
    seed(app.workspace.store, turns, conversation_id=app.conversation_screen.session.stored_id)
    server.script("They ran something.")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        review = await review_of_summarize_now(app, pilot)
        shown = lost_items(review)
        assert len(shown) == 1 and "echo [red]hi[/red]" in shown[0], shown
        assert not any("\x1b" in line for line in shown)


FOLD_AFTER_A_REPLY = "[context]\nmin_recent = 2\n[summary]\nmax_unsummarized = 2\n"


def before_a_fold(make_app: MakeApp, server: ScriptedModelServer) -> tuple[CtxChatApp, Notes]:
    """The app on two exchanges; the summary after the next reply drops the number and the
    path."""
    app, notes = make_app(extra=FOLD_AFTER_A_REPLY)
    seed(app.workspace.store, TURNS[:4], conversation_id=app.conversation_screen.session.stored_id)
    server.script("All is clear now.", VAGUE)
    return app, notes


async def folded_after_a_reply(app: CtxChatApp, pilot: Pilot[Any]) -> None:
    """A third question: after its reply the first two exchanges are folded on their own."""
    await settle(pilot)
    await typed(pilot, "Anything else?")
    await pilot.press("enter")
    await until(pilot, lambda: bool(stored(app)))
    await settle(pilot)


WAITS = (
    "Summary v1 waits for your review, not in force: it lost 2 details (path "
    "“/var/lib/cachesvc/data”, number “1200 MB”). The turns it would fold are sent as they "
    "were; review it with f3."
)


async def test_an_automatic_fold_that_lost_details_waits_for_review(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    """Not put in force silently: the turns stay as they were, the plan (panel, inspector)
    says a summary waits; kept from f3, it goes into force."""
    app, notes = before_a_fold(make_app, server)
    async with app.run_test(size=SIZE) as pilot:
        await folded_after_a_reply(app, pilot)
        assert stored(app) == [(1, VAGUE, True)]
        plan = app.conversation_screen.last_plan
        assert plan is not None and plan.layer(Layer.SUMMARY).items == ()
        assert WAITS in plan.warnings and WAITS in plan.layer(Layer.SUMMARY).notes
        assert any(WAITS.split(":")[0] in note for note in notes.messages)

        await pilot.press("f3")
        versions = app.screen
        assert isinstance(versions, SummaryScreen)
        assert str(versions.query_one("#summary-flag", Static).render()) == (
            "Not in force: it waits for your review. ⚑ 2 details lost — ^l to review"
        )
        await pilot.press("ctrl+l")
        await until(pilot, lambda: isinstance(app.screen, SummaryReview))
        review = app.screen
        assert isinstance(review, SummaryReview)
        assert count_line(review) == "2 details lost:"
        await pilot.press("ctrl+s")  # kept as it is: in force, reviewed
        await settle(pilot)
        assert stored(app) == [(1, VAGUE, False)]
        assert "Summary v1 is in force." in notes.messages
        plan = app.conversation_screen.last_plan
        assert plan is not None and plan.layer(Layer.SUMMARY).items != ()
        assert WAITS not in plan.warnings


async def test_a_summary_held_for_review_can_be_rejected(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, notes = before_a_fold(make_app, server)
    async with app.run_test(size=SIZE) as pilot:
        await folded_after_a_reply(app, pilot)
        await pilot.press("f3", "ctrl+l")
        await until(pilot, lambda: isinstance(app.screen, SummaryReview))
        await pilot.press("escape")
        await settle(pilot)
        assert stored(app) == []
        assert "Summary v1 rejected: the turns stay as they were." in notes.messages
        plan = app.conversation_screen.last_plan
        assert plan is not None and WAITS not in plan.warnings


async def test_an_automatic_fold_accepted_as_it_came_is_flagged_until_reviewed(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, notes = make_app(extra=FOLD_AFTER_A_REPLY + "accept_unreviewed = true\n")
    seed(app.workspace.store, TURNS[:4], conversation_id=app.conversation_screen.session.stored_id)
    server.script("All is clear now.", VAGUE)
    async with app.run_test(size=SIZE) as pilot:
        await folded_after_a_reply(app, pilot)
        assert stored(app) == [(1, VAGUE, True)]
        side = app.conversation_screen.query_one("#layer-summary")
        flag = side.query_one(".layer-panel--flag", Static)
        assert str(flag.render()) == "⚑ 2 details lost — f3 to review"
        assert flag.display
        plan = app.conversation_screen.last_plan
        assert plan is not None
        assert any(
            w.startswith("The summary in force (v1) was not reviewed") for w in plan.warnings
        )

        await pilot.press("f3")
        versions = app.screen
        assert isinstance(versions, SummaryScreen)
        assert str(versions.query_one("#summary-flag", Static).render()) == (
            "⚑ 2 details lost — ^l to review"
        )
        await pilot.press("ctrl+l")
        await until(pilot, lambda: isinstance(app.screen, SummaryReview))
        await pilot.press("ctrl+s")  # kept as it is: reviewed, no new version
        await settle(pilot)
        assert stored(app) == [(1, VAGUE, False)]
        assert "Summary v1 kept as it is." in notes.messages
        assert not flag.display


async def test_editing_a_flagged_version_stores_a_reviewed_new_one(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = before_a_fold(make_app, server)
    async with app.run_test(size=SIZE) as pilot:
        await folded_after_a_reply(app, pilot)
        await pilot.press("f3", "ctrl+l")
        await until(pilot, lambda: isinstance(app.screen, SummaryReview))
        await pilot.press("enter")  # the path back
        await pilot.press("ctrl+s")
        await settle(pilot)
        # The held one went into force as reviewed, the edit after it.
        assert stored(app) == [(1, VAGUE, False), (2, f"{VAGUE}\n{HOME}", False)]
        flag = app.conversation_screen.query_one("#layer-summary .layer-panel--flag", Static)
        assert not flag.display
