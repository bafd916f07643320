"""Asking a reply again from the TUI: the dialog, both answers side by side, keep either."""

from __future__ import annotations

from textual.widgets import Input, SelectionList

from ctxchat.core.memory import MemoryKind
from ctxchat.testing.server import ScriptedModelServer
from ctxchat.tui.commands import ctxchat_commands
from ctxchat.tui.screens.ask_again import AskAgainDialog
from ctxchat.tui.screens.inspector import RequestInspector, WrappedLines
from ctxchat.tui.screens.variant_compare import VariantComparison
from ctxchat.tui.widgets.reply_markdown import ReplyMarkdown

from .app_harness import SIZE, MakeApp, settle, shown_messages, typed, until


async def test_f8_asks_the_reply_again_without_an_entry_and_k_keeps_the_variant(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, notes = make_app()
    app.session.store.add_memory(MemoryKind.FACT, "The database is SQLite.", key="db")
    app.session.forget_memory()
    server.script("SQLite, as you told me.", "I cannot tell which database.")
    async with app.run_test(size=SIZE) as pilot:
        await typed(pilot, "Which database do we use?")
        await pilot.press("enter")
        await settle(pilot)
        reply_id = app.session.store.messages(app.session.conversation)[-1].id

        await pilot.press("f8")
        await until(pilot, lambda: isinstance(app.screen, AskAgainDialog))
        dialog = app.screen
        choices: SelectionList[str] = dialog.query_one(SelectionList)
        assert "memory:1" in [
            choices.get_option_at_index(i).value for i in range(choices.option_count)
        ]
        choices.select("memory:1")
        await pilot.click("#ask")
        await until(pilot, lambda: isinstance(app.screen, VariantComparison))
        compare = app.screen
        assert isinstance(compare, VariantComparison)
        await until(pilot, lambda: compare.variant is not None)

        sent = server.requests[-1]
        assert all("SQLite" not in m["content"] for m in sent["messages"])
        original = compare.query_one("#variant-original", ReplyMarkdown)
        variant = compare.query_one("#variant-text", ReplyMarkdown)
        await until(pilot, lambda: variant.source == "I cannot tell which database.")
        assert original.source == "SQLite, as you told me."
        diff = compare.query_one("#variant-diff", WrappedLines).text
        assert "The database is SQLite." in diff and "the variant's request" in diff

        await pilot.press("f2")  # the inspector, on its diff tab
        await until(pilot, lambda: isinstance(app.screen, RequestInspector))
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is compare)

        await pilot.press("k")
        await until(
            pilot, lambda: ("assistant", "I cannot tell which database.") in shown_messages(app)
        )
        await settle(pilot)
        assert app.session.store.get_message(reply_id).content == "I cannot tell which database."
        (former,) = app.session.store.variants(reply_id)
        assert former.content == "SQLite, as you told me."
        assert notes.of("error") == []


async def test_escape_keeps_the_reply_and_the_variant_stays_stored(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app()
    server.script("First.", "Second.")
    async with app.run_test(size=SIZE) as pilot:
        await typed(pilot, "Hello")
        await pilot.press("enter")
        await settle(pilot)
        reply_id = app.session.store.messages(app.session.conversation)[-1].id
        app.action_ask_again()
        await until(pilot, lambda: isinstance(app.screen, AskAgainDialog))
        await pilot.pause()
        app.screen.query_one("#ask-again-model", Input).value = "other"
        await pilot.click("#ask")
        await until(pilot, lambda: isinstance(app.screen, VariantComparison))
        compare = app.screen
        assert isinstance(compare, VariantComparison)
        await until(pilot, lambda: compare.variant is not None)
        assert server.requests[-1]["model"] == "other"
        await pilot.press("escape")
        await settle(pilot)
        assert shown_messages(app)[-1] == ("assistant", "First.")
        (variant,) = app.session.store.variants(reply_id)
        assert (variant.content, variant.change) == ("Second.", "to model other")


async def test_nothing_chosen_is_one_line_and_the_palette_offers_it(make_app: MakeApp) -> None:
    app, notes = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.action_ask_again()
        await pilot.pause()
        assert notes.messages[-1] == "There is no reply with a stored request to ask again."
        titles = [command.title for command in ctxchat_commands(app)]
        assert "reply: ask again without…" in titles
