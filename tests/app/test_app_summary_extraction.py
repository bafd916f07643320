"""Summarize now, summary versions (roll back, edit, rebuild) and fact extraction."""

from __future__ import annotations

import json
from typing import Any

from textual.pilot import Pilot
from textual.widgets import OptionList, Static, TextArea

from ctxchat.core.budget import Layer
from ctxchat.core.memory import MemoryKind
from ctxchat.core.plan import ContextPlan, Reason
from ctxchat.testing.server import Fault, ScriptedModelServer
from ctxchat.tui.app import CtxChatApp
from ctxchat.tui.screens.extraction import ExtractionReview
from ctxchat.tui.screens.summarize_preview import SummarizePreview
from ctxchat.tui.screens.summary_review import SummaryReview
from ctxchat.tui.screens.summary_versions import SummaryScreen

from ..waiting import until
from .app_harness import SIZE, MakeApp, exchange, seed, settle

# Two recent messages stay in working memory; nothing is folded behind the test's back.
SMALL_WORKING = "[context]\nmin_recent = 2\n[summary]\nauto = false\n"


def summary_layer(plan: ContextPlan | None) -> tuple[list[str], str]:
    """The summary layer's refs and the text of the summary message sent."""
    assert plan is not None
    refs = [item.ref for item in plan.layer(Layer.SUMMARY).items]
    text = next((m.content for m in plan.messages if m.layer is Layer.SUMMARY), "")
    return refs, text


def working_left_out(plan: ContextPlan | None) -> list[tuple[Reason, str]]:
    assert plan is not None
    return [(o.reason, o.detail) for o in plan.layer(Layer.WORKING).left_out]


def versions(app: CtxChatApp) -> list[tuple[int, str, bool, bool]]:
    """(version, text, edited, active) of the open conversation's summaries, oldest first."""
    store = app.conversation_screen.session.store
    active = store.summaries.active_summary(app.conversation_screen.session.stored_id)
    return [
        (v.version, v.text, v.edited, active is not None and v.id == active.id)
        for v in sorted(
            store.summaries.summaries(app.conversation_screen.session.stored_id),
            key=lambda v: v.version,
        )
    ]


async def kept_as_written(app: CtxChatApp, pilot: Pilot[Any]) -> None:
    """Keep the summary the model wrote, as the review shows it."""
    await until(pilot, lambda: isinstance(app.screen, SummaryReview))
    await pilot.press("ctrl+s")
    await settle(pilot)


async def summarize_now(app: CtxChatApp, pilot: Pilot[Any]) -> SummarizePreview:
    await pilot.press("ctrl+s")
    preview = app.screen
    assert isinstance(preview, SummarizePreview)
    return preview


async def test_summarize_now_previews_then_folds_into_summary_v1(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, notes = make_app(extra=SMALL_WORKING)
    turns = seed(
        app.workspace.store,
        exchange(4),
        conversation_id=app.conversation_screen.session.stored_id,
    )
    server.script("They asked four questions about the database.")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        preview = await summarize_now(app, pilot)
        listed = preview.query_one(OptionList)
        assert listed.option_count == 6
        folded = turns[:6]
        total = sum(m.tokens for m in folded)
        headline = str(preview.query_one("#preview-headline", Static).render())
        assert headline == (
            f"Fold 6 messages (#{folded[0].id}–#{folded[-1].id}, {total} tokens) into "
            "summary v1 with the summarize strategy."
        )
        await pilot.press("enter")  # the Summarize button has the focus
        await kept_as_written(app, pilot)

        assert versions(app) == [(1, "They asked four questions about the database.", False, True)]
        refs, text = summary_layer(app.conversation_screen.last_plan)
        assert refs == ["summary:v1"]
        assert text.endswith("They asked four questions about the database.")
        assert working_left_out(app.conversation_screen.last_plan) == [
            (Reason.SUMMARIZED, "in summary v1")
        ]
        assert "Summary v1 is in force." in notes.messages
        sent = server.requests[-1]["messages"]
        assert "Question 1 about the database?" in sent[-1]["content"]
        assert "Question 4 about the database?" not in sent[-1]["content"]


async def test_cancelling_the_preview_folds_nothing(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app(extra=SMALL_WORKING)
    seed(
        app.workspace.store,
        exchange(4),
        conversation_id=app.conversation_screen.session.stored_id,
    )
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await summarize_now(app, pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert versions(app) == []
        assert server.requests == []


async def test_summary_versions_roll_back_edit_and_rebuild(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, notes = make_app(extra=SMALL_WORKING)
    seed(
        app.workspace.store,
        exchange(4),
        conversation_id=app.conversation_screen.session.stored_id,
    )
    server.script("First summary.", "Rebuilt summary.")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await summarize_now(app, pilot)
        await pilot.press("enter")
        await kept_as_written(app, pilot)

        # Rebuild from the originals: a new version, in force.
        await pilot.press("f3")
        assert isinstance(app.screen, SummaryScreen)
        await pilot.press("ctrl+b")
        await settle(pilot)
        assert versions(app) == [
            (1, "First summary.", False, False),
            (2, "Rebuilt summary.", False, True),
        ]
        assert summary_layer(app.conversation_screen.last_plan)[0] == ["summary:v2"]
        assert summary_layer(app.conversation_screen.last_plan)[1].endswith("Rebuilt summary.")
        assert "Rebuilt as summary v2." in notes.messages

        # Roll back to v1: newest is listed first, so v1 is one down.
        await pilot.press("f3")
        await pilot.press("down", "ctrl+r")
        await settle(pilot)
        assert [v[3] for v in versions(app)] == [True, False]
        assert summary_layer(app.conversation_screen.last_plan)[0] == ["summary:v1"]
        assert summary_layer(app.conversation_screen.last_plan)[1].endswith("First summary.")

        # Edit the version in force: saved as v3, marked edited.
        await pilot.press("f3", "ctrl+e")
        screen = app.screen
        assert isinstance(screen, SummaryScreen) and screen.editing
        editor = screen.query_one("#summary-edit", TextArea)
        assert editor.text == "First summary."
        editor.load_text("My own summary of the database questions.")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert versions(app)[-1] == (3, "My own summary of the database questions.", True, True)
        assert summary_layer(app.conversation_screen.last_plan)[0] == ["summary:v3"]
        assert summary_layer(app.conversation_screen.last_plan)[1].endswith(
            "My own summary of the database questions."
        )
        assert len(server.requests) == 2  # an edit asks no model


async def test_a_failing_summarizer_keeps_the_summary_in_force(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, notes = make_app(extra=SMALL_WORKING)
    seed(
        app.workspace.store,
        exchange(4),
        conversation_id=app.conversation_screen.session.stored_id,
    )
    server.script("First summary.")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await summarize_now(app, pilot)
        await pilot.press("enter")
        await kept_as_written(app, pilot)
        seed(
            app.workspace.store,
            exchange(2, "backups"),
            conversation_id=app.conversation_screen.session.stored_id,
        )
        app.conversation_screen.session.invalidate()  # written behind the session's back, as another tool would
        await app.conversation_screen.reload_conversation()
        await settle(pilot)

        server.fail_next(Fault.SERVER_ERROR)
        await summarize_now(app, pilot)
        await pilot.press("enter")
        await settle(pilot)

        assert versions(app) == [(1, "First summary.", False, True)]
        assert summary_layer(app.conversation_screen.last_plan)[0] == ["summary:v1"]
        assert notes.of("error") == [
            "Summarization failed: The model server failed with an internal error (500). "
            "Retry in a moment; if it keeps failing, check the server's log. "
            "The previous summary stays in force."
        ]


async def test_extracted_facts_are_stored_only_when_accepted(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, notes = make_app()
    question, _ = seed(
        app.workspace.store,
        [
            ("user", "We deploy on Fridays, and I think Rust would be nicer."),
            ("assistant", "Noted."),
        ],
        conversation_id=app.conversation_screen.session.stored_id,
    )
    server.script(
        json.dumps(
            [
                {
                    "kind": "fact",
                    "text": "The team deploys on Fridays.",
                    "importance": 6,
                    "message_id": question.id,
                },
                {
                    "kind": "preference",
                    "text": "The user would like Rust.",
                    "importance": 3,
                    "message_id": question.id,
                },
            ]
        )
    )
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+t")
        await settle(pilot)
        review = app.screen
        assert isinstance(review, ExtractionReview)
        assert review.query_one(OptionList).option_count == 2
        assert not review.query("#extraction-problems")
        await pilot.press("ctrl+a", "ctrl+x")  # accept the fact, reject the preference
        assert [(d.action, d.text) for d in review.decisions] == [
            ("accept", "The team deploys on Fridays."),
            ("reject", "The user would like Rust."),
        ]
        await pilot.press("ctrl+s")
        await settle(pilot)

        stored = app.conversation_screen.session.store.memory.list_memory(include_all_scopes=True)
        assert [(e.kind, e.text, e.importance, e.source, e.conversation_id) for e in stored] == [
            (
                MemoryKind.FACT,
                "The team deploys on Fridays.",
                6,
                f"messages:{question.id}-{question.id}",
                None,
            )
        ]
        assert app.conversation_screen.last_plan is not None
        assert [
            item.ref for item in app.conversation_screen.last_plan.layer(Layer.MEMORY).items
        ] == [stored[0].ref]
        assert "Stored 1 memory entries." in notes.messages


async def test_malformed_extraction_output_shows_the_problems(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app()
    seed(
        app.workspace.store,
        [("user", "Builds must stay offline."), ("assistant", "Understood.")],
        conversation_id=app.conversation_screen.session.stored_id,
    )
    server.script(
        'Here you go: [{"kind": "constraint", "text": "Builds stay offline."}, '
        '{"kind": "rumour", "text": "The CI is flaky."}, {"kind": "fact"}]'
    )
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+t")
        await settle(pilot)
        review = app.screen
        assert isinstance(review, ExtractionReview)
        problems = str(review.query_one("#extraction-problems", Static).render())
        assert problems == (
            "⚠ 2 problems in the model's reply: Entry 2 has kind 'rumour'; taken as a "
            "hypothesis. Entry 3 has no text; skipped."
        )
        assert review.query_one(OptionList).option_count == 2
        await pilot.press("escape")
        await settle(pilot)
        assert (
            app.conversation_screen.session.store.memory.list_memory(include_all_scopes=True) == []
        )
