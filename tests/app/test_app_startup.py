"""Starting up: first-run setup, keys and themes from the user's files, long conversations,
and model text that must never act as markup or terminal control."""

from __future__ import annotations

import asyncio
import functools
import gc
import html
import stat
import threading
import tomllib
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, RadioButton, Static
from textual.widgets.markdown import MarkdownBlock

from ctxchat.chat.options import SessionOptions
from ctxchat.chat.workspace import Workspace
from ctxchat.cli.launch import preload_tokenizer_if_needed
from ctxchat.core import tokens
from ctxchat.core.memory import Mode
from ctxchat.core.tokens import DeferredCounter, TokenCounter
from ctxchat.model import discovery
from ctxchat.model.deferred import DeferredBackend
from ctxchat.store import ReplyEnding, Store
from ctxchat.testing.harness import open_test_workspace
from ctxchat.testing.hostile_text import HOSTILE_SAMPLES, HOSTILE_TEXT
from ctxchat.testing.server import ScriptedModelServer
from ctxchat.tui.app import CtxChatApp, build_app, known_binding_ids
from ctxchat.tui.screens.confirm import ConfirmScreen
from ctxchat.tui.screens.setup import SetupScreen
from ctxchat.tui.screens.setup_engine import installed_offer
from ctxchat.tui.textual_compat import FooterKey
from ctxchat.tui.widgets.conversation import ConversationView
from ctxchat.tui.widgets.footer import KeyFooter

from .app_harness import SIZE, MakeApp, Notes, exchange, seed, settle, shown_messages, typed, until


async def first_run(
    root: Path, workspaces: list[Workspace], monkeypatch: pytest.MonkeyPatch, ports: list[int]
) -> tuple[CtxChatApp, Notes]:
    """No config, no OPENAI_API_KEY; loopback discovery only looks at `ports`.

    `build_app` runs its own event loop for discovery (as `ctxchat` does before the app
    starts), so here it runs in a thread beside the test's loop."""
    monkeypatch.setattr(
        discovery,
        "probe_local_servers",
        functools.partial(
            discovery.probe_local_servers, candidates=[("llama.cpp", p) for p in ports]
        ),
    )
    workspace = open_test_workspace(root)
    workspaces.append(workspace)
    assert workspace.settings.needs_setup
    assert "OPENAI_API_KEY" not in workspace.env
    app = await asyncio.to_thread(build_app, workspace, SessionOptions())
    return app, Notes.attach(app)


def check_written_config(path: Path, base_url: str) -> None:
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    (profile,) = data["profiles"].values()
    assert (profile["base_url"], profile["model"], profile["api_key_env"]) == (
        base_url,
        "gpt-4o",
        "CTXCHAT_TEST_KEY",
    )


async def test_first_run_without_a_server_asks_and_writes_the_config(
    tmp_path: Path,
    workspaces: list[Workspace],
    monkeypatch: pytest.MonkeyPatch,
    server: ScriptedModelServer,
) -> None:
    app, notes = await first_run(tmp_path, workspaces, monkeypatch, ports=[])
    config = tmp_path / "config.toml"
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        setup = app.screen
        assert isinstance(setup, SetupScreen)
        assert not app.conversation_screen.has_session
        # Nothing found and no key: the model on this machine is chosen where it is
        # installed (tests/app/test_app_engine_first_run.py), else OpenAI.
        assert setup.provider == ("engine" if installed_offer() else "openai")
        setup.query_one("#provider-openai", RadioButton).value = True
        await pilot.pause()
        warning = str(setup.query_one("#setup-warning", Static).render())
        assert warning == (
            "OPENAI_API_KEY is not set in this shell: type the key above, or set it before "
            "you chat."
        )
        assert not config.exists()

        setup.query_one("#provider-custom", RadioButton).value = True
        await pilot.pause()
        setup.query_one("#setup-url", Input).value = server.base_url
        setup.query_one("#setup-model", Input).value = "gpt-4o"
        setup.query_one("#setup-env", Input).value = "CTXCHAT_TEST_KEY"
        await pilot.press("ctrl+s")
        await settle(pilot)

        assert not isinstance(app.screen, SetupScreen)
        check_written_config(config, server.base_url)
        assert f"Saved the configuration to {config}." in notes.messages
        assert app.conversation_screen.has_session
        assert (
            app.conversation_screen.session.profile.base_url,
            app.conversation_screen.session.model,
        ) == (server.base_url, "gpt-4o")
        assert app.conversation_screen.sub_title == "server · gpt-4o · mode: personalization"

        server.script("Hello from the server.")
        await typed(pilot, "Hi")
        await pilot.press("enter")
        await settle(pilot)
        assert server.requests[-1]["model"] == "gpt-4o"
        assert shown_messages(app) == [("user", "Hi"), ("assistant", "Hello from the server.")]


async def test_first_run_offers_a_server_found_on_loopback(
    tmp_path: Path,
    workspaces: list[Workspace],
    monkeypatch: pytest.MonkeyPatch,
    server: ScriptedModelServer,
) -> None:
    app, _ = await first_run(tmp_path, workspaces, monkeypatch, ports=[server.port])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        setup = app.screen
        assert isinstance(setup, SetupScreen)
        # The found server comes first and is chosen: it needs a key, so one is asked for.
        assert setup.provider == "server-0"
        assert setup.query_one("#setup-url", Input).value == server.base_url
        assert setup.query_one("#setup-url", Input).disabled
        assert setup.query_one("#setup-env", Input).value == "OPENAI_API_KEY"
        assert str(setup.query_one("#setup-warning", Static).render()) == (
            "This server asks for a key."
        )
        setup.query_one("#setup-model", Input).value = "gpt-4o"
        setup.query_one("#setup-env", Input).value = "CTXCHAT_TEST_KEY"
        await pilot.press("ctrl+s")
        await settle(pilot)

        check_written_config(tmp_path / "config.toml", server.base_url)
        assert app.conversation_screen.has_session
        assert app.conversation_screen.session.profile.name == "openai-compatible"
        assert app.conversation_screen.session.backend is not None


async def test_quitting_the_setup_writes_nothing(
    tmp_path: Path, workspaces: list[Workspace], monkeypatch: pytest.MonkeyPatch
) -> None:
    app, _ = await first_run(tmp_path, workspaces, monkeypatch, ports=[])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.click("#quit")
        await settle(pilot)
    assert app.return_code == 0
    assert not (tmp_path / "config.toml").exists()


async def test_keys_from_the_config_rebind_and_unknown_ids_are_reported(
    make_app: MakeApp,
) -> None:
    app, notes = make_app(
        extra='[keys]\n"mode.toggle" = "f11"\n"mode.toggel" = "f1"\n"memory.focus" = "ctrl+"\n'
    )
    config = app.workspace.loaded.path
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        # Told as config errors are: file, line, key, and the likely meant id.
        assert notes.of("warning") == [
            f'{config}:4: keys."mode.toggel": no key binding has this id; '
            'did you mean "mode.toggle"?',
            f'{config}:5: keys."memory.focus": "ctrl+" ends without a key after "+"',
        ]
        await pilot.press("ctrl+o")
        await settle(pilot)
        after_the_old_key = app.conversation_screen.session.mode
        await pilot.press("f11")
        await settle(pilot)
        assert (after_the_old_key, app.conversation_screen.session.mode) == (
            Mode.PERSONALIZATION,
            Mode.OBJECTIVE,
        )


async def test_an_unknown_theme_in_the_config_is_a_config_error_and_the_default_is_used(
    make_app: MakeApp,
) -> None:
    app, notes = make_app(extra='theme = "nrod"\n')
    config = app.workspace.loaded.path
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert notes.of("warning") == [
            f"{config}:2: theme: no theme called 'nrod'; did you mean \"nord\"?"
        ]
        assert app.theme == "textual-dark"
        assert app.is_running


async def test_a_broken_theme_file_is_named_in_one_notification(make_app: MakeApp) -> None:
    app, notes = make_app()
    themes = app.workspace.locations.themes_dir
    themes.mkdir(parents=True)
    broken = themes / "broken.toml"
    broken.write_text('name = "broken"\nprimary = [\n', encoding="utf-8")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        theme_notes = [m for m in notes.messages if "theme" in m]
        assert len(theme_notes) == 1
        assert theme_notes[0].startswith(f"A theme file could not be loaded:\n{broken}: ")
        assert notes.of("warning") == theme_notes
        assert app.conversation_screen.has_session


def fill(store: Store, conversation_id: int, count: int) -> int:
    """`count` short messages in one transaction (counts given: no tokenizer needed)."""
    last = 0
    with store.transaction():
        for index in range(count):
            role = "user" if index % 2 == 0 else "assistant"
            last = store.messages.add_message(
                conversation_id,
                role,
                f"Message {index + 1} of a very long conversation.",
                tokens=12,
                exact=True,
                encoding="o200k_base",
                model="gpt-4o",
            ).id
    return last


async def test_ten_thousand_messages_open_with_a_window_of_them(make_app: MakeApp) -> None:
    app, _ = make_app()
    last = fill(app.workspace.store, app.conversation_screen.session.stored_id, 10_000)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = app.query_one("#conversation", ConversationView)
        assert view.total_count == 10_000
        items = view.items
        assert 0 < len(items) <= ConversationView.MAX_MOUNTED == 120
        assert items[-1].message_id == last
        assert items[-1].view.content == "Message 10000 of a very long conversation."
        assert view.window == (10_000 - len(items), 10_000)


TRICKY = "[bold]x[/bold] then [/INST] and [@click=app.quit]x[/] and \x1b[31mred\x1b[0m end"


def screen_text(app: CtxChatApp) -> str:
    """The visible characters of the screen, read from an SVG screenshot."""
    svg = app.export_screenshot()
    return html.unescape(svg).replace("\xa0", " ")


async def test_model_text_is_shown_literally_and_never_acts(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, notes = make_app()
    server.script(TRICKY)
    async with app.run_test(size=(160, 30)) as pilot:
        await typed(pilot, "Say [bold]hi[/bold] [@click=app.quit]now[/]")
        await pilot.press("enter")
        await settle(pilot)

        stored = app.conversation_screen.session.store.messages.messages(
            app.conversation_screen.session.stored_id
        )[-1]
        assert stored.content == TRICKY  # storage keeps the bytes as received
        text = screen_text(app)
        assert "[bold]x[/bold] then [/INST] and [@click=app.quit]x[/] and red end" in text
        assert "Say [bold]hi[/bold] [@click=app.quit]now[/]" in text
        assert "\x1b" not in app.export_screenshot()
        assert "[31m" not in text

        # No cell of the reply carries an action, and clicking the literal text does nothing.
        body = app.query_one(f"#message-{stored.id} .message--body").region
        actions = {
            app.screen.get_style_at(x, y).meta.get("@click")
            for x in range(body.x, body.right)
            for y in range(body.y, body.bottom)
        }
        assert actions == {None}
        await pilot.click(offset=(body.x + TRICKY.index("[@click") + 1, body.y))
        await pilot.click(offset=(body.x + TRICKY.index("x[/]"), body.y))
        await settle(pilot)
        assert app.is_running
        assert app.return_code is None
        assert notes.of("error") == []


async def test_a_link_in_a_reply_opens_only_once_confirmed(
    make_app: MakeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    app, _ = make_app()
    seed(
        app.workspace.store,
        [("user", "Where?"), ("assistant", "Read [the docs](https://example.com/docs) first.")],
        conversation_id=app.conversation_screen.session.stored_id,
    )
    opened: list[str] = []
    monkeypatch.setattr(app, "open_url", lambda url, **_: opened.append(url))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        paragraph = app.conversation_screen.conversation_view.items[-1].query_one(MarkdownBlock)
        await pilot.click(paragraph, offset=(7, 0))  # "Read " is five cells
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        assert opened == []
        await pilot.click("#confirm")
        await settle(pilot)
        assert opened == ["https://example.com/docs"]


async def test_background_work_waits_for_the_first_frame(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app(context_window=0)  # 0: ask the server
    ran: list[str] = []
    app.conversation_screen.after_first_frame(lambda: ran.append("queued before the first frame"))
    assert ran == []
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert ran == ["queued before the first frame"]
        app.conversation_screen.after_first_frame(lambda: ran.append("asked for later"))
        assert ran == ["queued before the first frame", "asked for later"]
        # The window detection queued at start asks the server too.
        await app.workers.wait_for_complete()
        assert any(request.path.endswith("/models") for request in server.other_requests)


@pytest.mark.perf
async def test_the_cycle_collector_is_back_on_once_the_app_has_drawn(make_app: MakeApp) -> None:
    """Protects the first frame's speed: no cycle collection while the TUI starts, and the
    start-up objects frozen out of later full passes."""
    app, _ = make_app()
    gc.disable()  # what `ctxchat` does before it starts the TUI
    try:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert gc.isenabled()
            assert gc.get_freeze_count() > 0
    finally:
        gc.enable()
        gc.unfreeze()


async def test_the_model_client_is_ready_before_the_first_message(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        backend = app.conversation_screen.session.backend
        assert isinstance(backend, DeferredBackend)
        # Built in the background once the app had drawn: sending does not wait for it.
        assert backend.ready
        assert server.requests == []


async def test_with_counts_kept_the_tokenizer_loads_after_the_plan_is_drawn(
    make_app: MakeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, _ = make_app()
    async with first.run_test(size=SIZE) as pilot:
        await settle(pilot)  # its plan keeps the counts of the system prompt and headers
    assert first.workspace.store.counts.has_kept_counts("o200k_base")

    builds: list[tuple[bool, bool]] = []  # (plan shown, in the main thread) at each build
    original = DeferredCounter.build

    def build(self: DeferredCounter) -> TokenCounter:
        if not self.is_built:
            main = threading.current_thread() is threading.main_thread()
            builds.append((app.conversation_screen.last_plan is not None, main))
        return original(self)

    monkeypatch.setattr(DeferredCounter, "build", build)
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert builds == [(True, False)]  # after the plan was drawn, in a thread
        plan = await typed(pilot, "Now the draft is counted")
        assert plan.exact


async def test_a_reasoning_reply_is_drawn_from_kept_counts_too(
    make_app: MakeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The pane counts a reply's reasoning to show its tokens: kept, as the plan's texts are.
    first, _ = make_app()
    store, conversation = first.workspace.store, first.conversation_screen.session.stored_id
    seed(store, [("user", "Why?")], conversation_id=conversation)
    reply = store.replies.start_reply(conversation, model="gpt-4o")
    store.replies.finish_reply(
        reply.id,
        ReplyEnding(
            content="Because.",
            reasoning="Let me think about it.",
            tokens=5,
            exact=True,
            encoding="o200k_base",
        ),
    )
    async with first.run_test(size=SIZE) as pilot:
        await settle(pilot)
    main_thread_builds: list[bool] = []
    original = DeferredCounter.build

    def build(self: DeferredCounter) -> TokenCounter:
        if not self.is_built:
            main_thread_builds.append(threading.current_thread() is threading.main_thread())
        return original(self)

    monkeypatch.setattr(DeferredCounter, "build", build)
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert main_thread_builds == [False]
        assert app.conversation_screen.conversation_view.items[
            -1
        ].view.reasoning_tokens == first.conversation_screen.session.counter.count_text(
            "Let me think about it."
        )


async def test_a_conversation_is_shown_with_its_plan_ready(
    make_app: MakeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The plan comes first, so the frame with the newest turns has it beside them.
    app, _ = make_app()
    seed(
        app.workspace.store,
        exchange(3),
        conversation_id=app.conversation_screen.session.stored_id,
    )
    planned: list[bool] = []
    original = ConversationView.replace_all

    async def replace_all(self: ConversationView, *args: Any) -> None:
        planned.append(app.conversation_screen.last_plan is not None)
        await original(self, *args)

    monkeypatch.setattr(ConversationView, "replace_all", replace_all)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert planned == [True]
        await app.conversation_screen.open_conversation(
            seed(app.workspace.store, exchange(1))[0].conversation_id
        )
        await settle(pilot)
        assert planned == [True, True]
        assert len(shown_messages(app)) == 2


def test_the_tokenizer_preloads_only_when_no_counts_are_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workspaces: list[Workspace]
) -> None:
    started: list[str] = []
    monkeypatch.setattr(tokens, "preload", started.append)
    workspace = open_test_workspace(tmp_path)
    workspaces.append(workspace)
    assert preload_tokenizer_if_needed(workspace, "gpt-4o")
    workspace.store.counts.keep_counts("o200k_base", {b"k" * 16: 1})
    assert not preload_tokenizer_if_needed(workspace, "gpt-4o")
    assert preload_tokenizer_if_needed(workspace, "gpt-4")  # no cl100k_base counts kept
    assert started == ["o200k_base", "cl100k_base"]


@pytest.mark.perf
async def test_what_start_up_made_is_set_aside_until_the_app_closes(make_app: MakeApp) -> None:
    """Protects full collections from rescanning start-up objects, and a longer-lived process
    from keeping them frozen after the app closes."""
    app, _ = make_app()
    gc.unfreeze()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        # Full passes of the cycle collector no longer scan the start-up objects.
        assert gc.get_freeze_count() > 0
    # Given back on the way out: an app closed in a longer-lived process leaves no
    # uncollectable objects behind.
    assert gc.get_freeze_count() == 0


@pytest.mark.perf
async def test_a_reply_starting_and_ending_adds_and_removes_only_the_stop_key(
    make_app: MakeApp,
) -> None:
    """Protects streaming from footer rebuilds: a reply's start and end mount or remove only
    the Stop key, and put Enter's Queue in the place of its Send (and the footer still draws
    as a full rebuild would)."""
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        footer = app.screen.query_one(KeyFooter)
        before = list(footer.query(FooterKey))
        drawn_before = _drawn(footer)
        assert "Stop" not in _footer_keys(footer)
        runner = app.conversation_screen.turn_runner
        conversation = app.conversation_screen.session.conversation_id
        turn = runner.begin(conversation)  # what a reply starting does: Esc stops it
        for _ in range(4):  # a burst of binding changes: one update
            app.screen.bindings_updated_signal.publish(app.screen)
        await settle(pilot)
        during = list(footer.query(FooterKey))
        # In the place a full rebuild draws it, every other key kept as it was.
        assert [key for key in during if key not in before] == [
            _key(footer, "Queue"),
            _key(footer, "Stop"),
        ]
        assert [key for key in during if key in before] == [
            key for key in before if str(key.description) != "Send"
        ]
        runner.end(turn)
        app.screen.bindings_updated_signal.publish(app.screen)
        await settle(pilot)
        after = list(footer.query(FooterKey))
        assert _drawn(footer) == drawn_before
        assert [key for key in after if key not in before] == [_key(footer, "Send")]
        turn = runner.begin(conversation)
        app.screen.bindings_updated_signal.publish(app.screen)
        await settle(pilot)
        assert _drawn(footer) == await _rebuilt(pilot, footer)
        runner.end(turn)


@pytest.mark.perf
async def test_binding_changes_that_leave_the_keys_alone_keep_the_footer(
    make_app: MakeApp,
) -> None:
    """Protects frames from needless footer rebuilds: unchanged keys keep their widgets."""
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        footer = app.screen.query_one(KeyFooter)
        keys = list(footer.query(FooterKey))
        app.screen.bindings_updated_signal.publish(app.screen)
        await settle(pilot)
        assert list(footer.query(FooterKey)) == keys
        # A remapped key is a change the footer shows: that key alone is drawn again.
        app.set_keymap({"app.quit": "f11"})
        await settle(pilot)
        after = list(footer.query(FooterKey))
        assert [key.key_display for key in after if key not in keys] == ["f11"]
        assert _drawn(footer) == await _rebuilt(pilot, footer)


async def test_footer_keys_show_the_footers_compact_style(make_app: MakeApp) -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        footer = app.screen.query_one(KeyFooter)
        keys = list(footer.query(FooterKey))
        assert len(keys) > 5
        # As Textual draws them: the palette key compact, the others as the footer.
        assert _compact(footer) == [key.has_class("-command-palette") for key in keys]
        footer.compact = True  # Textual's binding: every key follows the footer
        await settle(pilot)
        assert _compact(footer) == [True] * len(keys)


def _compact(footer: KeyFooter) -> list[bool]:
    keys = footer.query(FooterKey)
    assert all(key.compact == key.has_class("-compact") for key in keys)
    return [key.compact for key in keys]


def _key(footer: KeyFooter, description: str) -> FooterKey:
    return next(key for key in footer.query(FooterKey) if key.description == description)


def _drawn(footer: KeyFooter) -> list[tuple[str, str, bool]]:
    return [
        (key.key_display, key.description, key.has_class("-disabled"))
        for key in footer.query(FooterKey)
    ]


async def _rebuilt(pilot: Any, footer: KeyFooter) -> list[tuple[str, str, bool]]:
    """What the footer shows once built again from scratch."""
    footer.refresh(recompose=True)
    await settle(pilot)
    return _drawn(footer)


def _footer_keys(footer: KeyFooter) -> list[str]:
    return [key.description for key in footer.query(FooterKey)]


async def test_keys_of_every_dialog_can_be_remapped(make_app: MakeApp) -> None:
    # These dialogs' ids were once missing from the known ids, so remapping them warned.
    app, notes = make_app(
        extra='[keys]\n"setup.save" = "f9"\n"model_picker.cancel" = "f8"\n'
        '"summarize_preview.cancel" = "f7"\n'
    )
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert notes.of("warning") == []
    assert {"setup.save", "model_picker.cancel", "summarize_preview.cancel"} <= (
        known_binding_ids()
    )


async def test_notifications_are_cleaned_of_control_sequences(make_app: MakeApp) -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        app.notify(f"server said: {HOSTILE_TEXT}", title=HOSTILE_SAMPLES["osc0"], markup=False)
        # Toasts found by their type name: the class is not public.
        await until(pilot, lambda: bool(app.screen.query("Toast")))
        shown = " ".join(str(toast.render()) for toast in app.screen.query("Toast"))
        assert "\x1b" not in shown and "\x9b" not in shown and "\u202e" not in shown
        assert "server said: <osc52> <osc52st>" in shown


async def test_the_servers_window_notice_is_shown_once_per_server_and_model(
    make_app: MakeApp,
) -> None:
    def window_notices(notes: Notes) -> list[str]:
        return [n for n in notes.of("warning") if "does not report its context size" in n]

    first, notes = make_app(context_window=0)
    async with first.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: window_notices(notes), timeout=10)
        await settle(pilot)
    again, notes_again = make_app(context_window=0)
    async with again.run_test(size=SIZE) as pilot:
        await until(
            pilot, lambda: again.conversation_screen.session.window.context_window > 0, timeout=10
        )
        await settle(pilot)
    assert window_notices(notes_again) == []


async def test_a_server_with_no_model_named_is_talked_to_through_its_only_model(
    tmp_path: Path, workspaces: list[Workspace]
) -> None:
    """`ctxchat --base-url URL` against llama-cpp-python: the header, the window and the
    request are its model's, not an unnamed one's."""
    model = "/models/gemma-3-270m-q4_k_m.gguf"
    with ScriptedModelServer(models=[model], flavour="llama-cpp-python", n_ctx=4096) as local:
        workspace = open_test_workspace(tmp_path)
        workspaces.append(workspace)
        app = build_app(workspace, SessionOptions(base_url=local.base_url))
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.conversation_screen.session.model == model)
            await until(pilot, lambda: app.conversation_screen.session.window.source == "probed")
            # The model's file name, not the folders it was loaded from, and the server the
            # command line named.
            host = local.base_url.split("//")[1].split("/")[0]
            assert (
                app.conversation_screen.sub_title
                == f"command-line · gemma-3-270m-q4_k_m.gguf at {host} · mode: personalization"
            )
            assert app.conversation_screen.session.window.context_window == 4096
            # One answer to "which models?" served the reachability check, adopting the
            # model and the window probe.
            asked = [request.path for request in local.other_requests]
            assert asked.count("/v1/models") == 1
            # Another conversation, with no model chosen for it, talks to that model too.
            await pilot.press("ctrl+n")
            await settle(pilot)
            assert app.conversation_screen.session.model == model
