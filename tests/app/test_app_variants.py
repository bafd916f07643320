"""A reply's variants in the TUI: regenerating keeps the old reply as one, F7 lists them,
any opens beside the reply (as Markdown) and any can be kept as the reply."""

from __future__ import annotations

from textual.widgets import OptionList

from ctxchat.core.history import MessageStatus
from ctxchat.store.variants import REGENERATED
from ctxchat.testing.server import Fault, Reply, ScriptedModelServer
from ctxchat.tui.commands import ctxchat_commands
from ctxchat.tui.screens.inspector import WrappedLines
from ctxchat.tui.screens.variant_compare import VariantComparison
from ctxchat.tui.screens.variant_list import VariantList
from ctxchat.tui.widgets.reply_markdown import ReplyMarkdown

from .app_harness import SIZE, MakeApp, settle, shown_messages, typed, until
from .test_app_editing_keys import keys as burst_keys


async def test_regenerate_keeps_the_old_reply_with_its_reasoning_plan_and_usage(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, notes = make_app()
    server.script(Reply("Use WAL mode.", "Durability first."), "Use the rollback journal.")
    async with app.run_test(size=SIZE) as pilot:
        await typed(pilot, "Which journal mode?")
        await pilot.press("enter")
        await settle(pilot)
        store = app.conversation_screen.session.store
        old = store.messages.messages(app.conversation_screen.session.stored_id)[-1]
        old_plan = store.plans.load_plan(old.id)

        app.conversation_screen.conversation_view.focus()
        await pilot.press("ctrl+g")  # no "are you sure?": nothing is destroyed
        await settle(pilot)

        new = store.messages.messages(app.conversation_screen.session.stored_id)[-1]
        assert (new.content, new.id != old.id) == ("Use the rollback journal.", True)
        assert shown_messages(app)[-1] == ("assistant", "Use the rollback journal.")
        (kept,) = store.variants.variants(new.id)
        assert (kept.change, kept.content, kept.reasoning) == (
            REGENERATED,
            "Use WAL mode.",
            "Durability first.",
        )
        assert (kept.prompt_tokens, kept.completion_tokens) == (
            old.prompt_tokens,
            old.completion_tokens,
        )
        assert kept.prompt_tokens is not None
        assert store.variants.load_variant_plan(kept.id) == old_plan
        assert (
            "The previous reply is kept as a variant: reply: variants (f7) brings it back."
            in notes.messages
        )


async def test_f7_lists_the_variants_and_k_brings_the_regenerated_reply_back(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app()
    server.script("First answer.", "Second answer.")
    async with app.run_test(size=SIZE) as pilot:
        await typed(pilot, "Pick a number.")
        await pilot.press("enter")
        await settle(pilot)
        app.conversation_screen.chat.again()
        await settle(pilot)
        reply_id = app.conversation_screen.session.store.messages.messages(
            app.conversation_screen.session.stored_id
        )[-1].id

        await pilot.press("f7")
        await until(pilot, lambda: isinstance(app.screen, VariantList))
        listed = app.screen.query_one(OptionList)
        assert listed.option_count == 1
        label = str(listed.get_option_at_index(0).prompt)
        assert REGENERATED in label and "gpt-4o" in label and "tokens" in label

        await pilot.press(*"keep it")  # letters keep nothing (k did): they go to the message
        await until(pilot, lambda: app.conversation_screen.composer.text == "keep it")
        assert app.screen is app.conversation_screen
        app.conversation_screen.composer.clear()
        await pilot.press("f7")
        await until(pilot, lambda: isinstance(app.screen, VariantList))
        await pilot.press("ctrl+k")
        await until(pilot, lambda: ("assistant", "First answer.") in shown_messages(app))
        await settle(pilot)
        store = app.conversation_screen.session.store
        assert store.messages.get_message(reply_id).content == "First answer."
        (swapped,) = store.variants.variants(reply_id)
        assert swapped.content == "Second answer."
        # The next request continues from the reply kept.
        server.script("Third.")
        await typed(pilot, "And now?")
        await pilot.press("enter")
        await settle(pilot)
        assert server.requests[-1]["messages"][-2]["content"] == "First answer."


async def test_enter_opens_a_stored_variant_beside_the_reply_as_markdown(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app()
    markdown = (
        "Two options:\n\n- **WAL**\n- `DELETE`\n\n| mode | speed |\n|---|---|\n| WAL | fast |\n"
    )
    server.script(markdown, "Plain answer.")
    async with app.run_test(size=SIZE) as pilot:
        await typed(pilot, "Which journal mode?")
        await pilot.press("enter")
        await settle(pilot)
        app.conversation_screen.chat.again()
        await settle(pilot)

        app.conversation_screen.action_variants()
        await until(pilot, lambda: isinstance(app.screen, VariantList))
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, VariantComparison))
        compare = app.screen
        assert isinstance(compare, VariantComparison)
        await settle(pilot)
        variant = compare.query_one("#variant-text", ReplyMarkdown)
        assert variant.source == markdown
        # Drawn as Markdown: a list and a table, the bold and code as styles, not asterisks.
        blocks = {type(block).__name__ for block in variant.children}
        assert {"DrawnBulletList", "MarkdownTable"} <= blocks, blocks
        assert "**" not in " ".join(str(b.render()) for b in variant.query("DrawnBulletList"))
        assert compare.query_one("#variant-original", ReplyMarkdown).source == "Plain answer."
        diff = compare.query_one("#variant-diff", WrappedLines).text
        assert "The requests are identical." in diff
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, VariantComparison))
        assert shown_messages(app)[-1] == ("assistant", "Plain answer.")


async def test_retrying_an_empty_failed_reply_keeps_no_variant_and_f7_says_so(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, notes = make_app()
    server.fail_next(Fault.AUTH)
    server.script("Recovered.")
    async with app.run_test(size=SIZE) as pilot:
        await typed(pilot, "Hello")
        await pilot.press("enter")
        await settle(pilot)
        failed = app.conversation_screen.session.store.messages.messages(
            app.conversation_screen.session.stored_id
        )[-1]
        assert failed.status is MessageStatus.FAILED
        await pilot.press("ctrl+r")
        await settle(pilot)
        reply = app.conversation_screen.session.store.messages.messages(
            app.conversation_screen.session.stored_id
        )[-1]
        assert reply.content == "Recovered."
        assert app.conversation_screen.session.store.variants.variants(reply.id) == []
        app.conversation_screen.action_variants()
        await pilot.pause()
        assert notes.messages[-1].startswith("This reply has no variants")
        titles = [command.title for command in ctxchat_commands(app.conversation_screen)]
        assert "reply: variants" in titles


async def test_an_arrow_and_enter_in_one_burst_open_the_variant_the_arrow_moved_to(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app()
    server.script("First answer.", "Second answer.", "Third answer.")
    async with app.run_test(size=SIZE) as pilot:
        await typed(pilot, "Pick a number.")
        await pilot.press("enter")
        await settle(pilot)
        for _ in range(2):
            app.conversation_screen.chat.again()
            await settle(pilot)
        app.conversation_screen.action_variants()
        await until(pilot, lambda: isinstance(app.screen, VariantList))
        await settle(pilot)
        listed = app.screen.query_one(OptionList)
        assert listed.option_count == 2
        second = str(listed.get_option_at_index(1).id)
        burst_keys(pilot, "down", "enter")  # as a terminal sends them, at once
        await until(pilot, lambda: isinstance(app.screen, VariantComparison))
        await settle(pilot)
        compare = app.screen
        assert isinstance(compare, VariantComparison)
        session = app.conversation_screen.session
        reply = session.store.messages.messages(session.stored_id)[-1].id
        (stored,) = [v for v in session.store.variants.variants(reply) if str(v.id) == second]
        assert compare.query_one("#variant-text", ReplyMarkdown).source == stored.content
