"""Asking a reply again from the TUI: the dialog, both answers side by side, keep either."""

from __future__ import annotations

from textual.widgets import Input, RadioButton, Select, SelectionList, Static

from ctxchat.core.memory import MemoryKind
from ctxchat.testing.harness import TEST_KEY
from ctxchat.testing.server import ScriptedModelServer
from ctxchat.tui.commands import ctxchat_commands
from ctxchat.tui.screens.ask_again import AskAgainDialog
from ctxchat.tui.screens.inspector import RequestInspector, WrappedLines
from ctxchat.tui.screens.variant_compare import VariantComparison
from ctxchat.tui.screens.variant_list import VariantList
from ctxchat.tui.widgets.reply_markdown import ReplyMarkdown

from .app_harness import SIZE, MakeApp, settle, shown_messages, typed, until
from .test_app_mode_model_inspect import pick_model


async def test_f8_asks_the_reply_again_without_an_entry_and_k_keeps_the_variant(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, notes = make_app()
    app.conversation_screen.session.store.memory.add_memory(
        MemoryKind.FACT, "The database is SQLite.", key="db"
    )
    app.conversation_screen.session.forget_memory()
    server.script("SQLite, as you told me.", "I cannot tell which database.")
    async with app.run_test(size=SIZE) as pilot:
        await typed(pilot, "Which database do we use?")
        await pilot.press("enter")
        await settle(pilot)
        reply_id = app.conversation_screen.session.store.messages.messages(
            app.conversation_screen.session.stored_id
        )[-1].id

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

        await pilot.press(*"keep it")  # letters keep nothing (k did): they go to the message
        await until(pilot, lambda: app.conversation_screen.composer.text == "keep it")
        assert app.screen is app.conversation_screen
        store = app.conversation_screen.session.store
        assert store.messages.get_message(reply_id).content == "SQLite, as you told me."
        app.conversation_screen.composer.clear()
        await pilot.press("f7")  # the variant was kept as one: open it again
        await until(pilot, lambda: isinstance(app.screen, VariantList))
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, VariantComparison))
        await pilot.press("ctrl+k")
        await until(
            pilot, lambda: ("assistant", "I cannot tell which database.") in shown_messages(app)
        )
        await settle(pilot)
        assert (
            app.conversation_screen.session.store.messages.get_message(reply_id).content
            == "I cannot tell which database."
        )
        (former,) = app.conversation_screen.session.store.variants.variants(reply_id)
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
        reply_id = app.conversation_screen.session.store.messages.messages(
            app.conversation_screen.session.stored_id
        )[-1].id
        app.conversation_screen.action_ask_again()
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
        (variant,) = app.conversation_screen.session.store.variants.variants(reply_id)
        assert (variant.content, variant.change) == ("Second.", "to model other")


async def test_the_model_chosen_for_the_conversation_is_the_one_asked_again(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    """F4 chose gpt-4o-mini after the reply came from gpt-4o: F8 offers the chosen model and
    asks it, and the variant says so."""
    app, _ = make_app()
    server.script("From gpt-4o.", "From the chosen model.")
    async with app.run_test(size=SIZE) as pilot:
        await typed(pilot, "Hello")
        await pilot.press("enter")
        await settle(pilot)
        screen = app.conversation_screen
        reply_id = screen.session.store.messages.messages(screen.session.stored_id)[-1].id
        await pick_model(pilot, "gpt-4o-mini")
        await settle(pilot)

        await pilot.press("f8")
        await until(pilot, lambda: isinstance(app.screen, AskAgainDialog))
        await pilot.pause()
        assert app.screen.query_one("#ask-again-model", Input).value == "gpt-4o-mini"
        await pilot.click("#ask")
        await until(pilot, lambda: isinstance(app.screen, VariantComparison))
        compare = app.screen
        assert isinstance(compare, VariantComparison)
        await until(pilot, lambda: compare.variant is not None)
        assert server.requests[-1]["model"] == "gpt-4o-mini"
        (variant,) = screen.session.store.variants.variants(reply_id)
        assert (variant.model, variant.change) == ("gpt-4o-mini", "to model gpt-4o-mini")


async def test_nothing_chosen_is_one_line_and_the_palette_offers_it(make_app: MakeApp) -> None:
    app, notes = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.conversation_screen.action_ask_again()
        await pilot.pause()
        assert notes.messages[-1] == "There is no reply with a stored request to ask again."
        titles = [command.title for command in ctxchat_commands(app.conversation_screen)]
        assert "reply: ask again without…" in titles


async def test_another_profile_is_asked_on_its_own_server_with_its_headers_and_inspected(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    with ScriptedModelServer(models=["tiny"], requires_key=TEST_KEY) as other:
        app, notes = make_app(
            extra=(
                "[profiles.small]\n"
                f'base_url = "{other.base_url}"\n'
                'model = "tiny"\n'
                'api_key_env = "CTXCHAT_TEST_KEY"\n'
                "[profiles.small.headers]\n"
                'X-Tenant = "acme"\n'
            )
        )
        server.script("From the big model.")
        other.script("From the **small** one:\n\n1. first\n2. second\n")
        async with app.run_test(size=SIZE) as pilot:
            await typed(pilot, "Hello")
            await pilot.press("enter")
            await settle(pilot)
            reply_id = app.conversation_screen.session.store.messages.messages(
                app.conversation_screen.session.stored_id
            )[-1].id
            await pilot.press("f8")
            await until(pilot, lambda: isinstance(app.screen, AskAgainDialog))
            await pilot.pause()
            dialog = app.screen
            dialog.query_one("#ask-again-profile", Select).value = "small"
            model = dialog.query_one("#ask-again-model", Input)
            await until(pilot, lambda: model.value == "tiny")  # the model follows the profile
            await pilot.click("#ask")
            await until(pilot, lambda: isinstance(app.screen, VariantComparison))
            compare = app.screen
            assert isinstance(compare, VariantComparison)
            await until(pilot, lambda: compare.variant is not None)

            (sent,) = other.requests
            assert sent["model"] == "tiny"
            assert {k.lower(): v for k, v in sent.headers.items()}["x-tenant"] == "acme"
            # The same context: the messages the reply was asked with.
            assert sent["messages"] == server.requests[0]["messages"]
            (variant,) = app.conversation_screen.session.store.variants.variants(reply_id)
            assert (variant.change, variant.model) == ("to profile small", "tiny")
            text = compare.query_one("#variant-text", ReplyMarkdown)
            await until(pilot, lambda: text.source.startswith("From the **small** one"))

            await pilot.press("f2")
            await until(pilot, lambda: isinstance(app.screen, RequestInspector))
            inspector = app.screen
            assert isinstance(inspector, RequestInspector)
            assert inspector.body["model"] == "tiny"
            assert f"POST {other.base_url}/chat/completions" in str(
                inspector.query_one(".inspector--title", Static).render()
            )
            await pilot.press("escape")
            await until(pilot, lambda: app.screen is compare)
            await pilot.press("escape")
            await settle(pilot)
            # The conversation still talks to its own profile.
            assert app.conversation_screen.session.profile.name == "test"
            assert notes.of("error") == []


async def test_a_profile_without_its_key_is_one_line_and_nothing_is_sent(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, notes = make_app(
        extra=(
            "[profiles.keyless]\n"
            'base_url = "http://127.0.0.1:9/v1"\n'
            'model = "tiny"\n'
            'api_key_env = "CTXCHAT_NO_SUCH_KEY"\n'
        )
    )
    server.script("First.")
    async with app.run_test(size=SIZE) as pilot:
        await typed(pilot, "Hello")
        await pilot.press("enter")
        await settle(pilot)
        reply_id = app.conversation_screen.session.store.messages.messages(
            app.conversation_screen.session.stored_id
        )[-1].id
        app.conversation_screen.action_ask_again()
        await until(pilot, lambda: isinstance(app.screen, AskAgainDialog))
        await pilot.pause()
        app.screen.query_one("#ask-again-profile", Select).value = "keyless"
        await pilot.click("#ask")
        await until(pilot, lambda: notes.of("error") != [])
        (error,) = notes.of("error")
        assert "CTXCHAT_NO_SUCH_KEY" in error and "\n" not in error
        assert not isinstance(app.screen, VariantComparison)
        assert app.conversation_screen.session.store.variants.variants(reply_id) == []


async def test_the_dialog_shows_each_choice_by_shape_not_colour_alone(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app()
    app.conversation_screen.session.store.memory.add_memory(
        MemoryKind.FACT, "The database is SQLite.", key="db"
    )
    app.conversation_screen.session.forget_memory()
    server.script("SQLite, as you told me.")
    async with app.run_test(size=SIZE) as pilot:
        await typed(pilot, "Which database do we use?")
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("f8")
        await until(pilot, lambda: isinstance(app.screen, AskAgainDialog))
        dialog = app.screen
        choices: SelectionList[str] = dialog.query_one(SelectionList)
        modes = list(dialog.query_one("#ask-again-mode").query(RadioButton))

        def drawn() -> tuple[str, str, str]:
            box = choices.render_line(0).text[:3]
            return box, modes[0].render().plain[:3], modes[1].render().plain[:3]

        assert drawn() == ("▐☐▌", "▐◉▌", "▐○▌")
        choices.select(choices.get_option_at_index(0).value)
        modes[1].value = True
        await pilot.pause()
        assert drawn() == ("▐☑▌", "▐○▌", "▐◉▌")
