"""The ctxchat app: conversation beside live context panels, and how it starts."""

from __future__ import annotations

import asyncio
import contextlib
import gc
from collections.abc import Callable, Collection, Iterable, Sequence
from typing import TYPE_CHECKING, ClassVar

from rich.console import RenderableType
from textual import events
from textual.app import App, SystemCommand
from textual.binding import BindingType
from textual.notifications import SeverityLevel
from textual.screen import Screen

from ctxchat.chat.options import SessionOptions
from ctxchat.chat.session import ChatSession
from ctxchat.chat.session_factory import Connect, open_session, resolve_profile
from ctxchat.chat.workspace import Workspace
from ctxchat.config.errors import ConfigError
from ctxchat.config.loader import LoadedSettings, load_settings
from ctxchat.config.names_check import NameProblems, check_names
from ctxchat.config.schema import OPENAI_DEFAULT_BASE_URL
from ctxchat.config.settings import BUNDLED_ENGINE_MODEL, ProviderProfile, engine_profile
from ctxchat.core.counts import counted
from ctxchat.model.deferred import DeferredBackend, warm
from ctxchat.tui.actions import bindings_for, shipped_bindings
from ctxchat.tui.collector import freeze_long_lived, thaw
from ctxchat.tui.commands import ctxchat_commands
from ctxchat.tui.conversation_screen import ConversationScreen
from ctxchat.tui.focus_keys import move_focus_now, opened_at_once
from ctxchat.tui.hangup import TerminalWatch
from ctxchat.tui.text import clean
from ctxchat.tui.textual_compat.output import drop_output_to_a_gone_terminal
from ctxchat.tui.textual_compat.parsed_css import keep_parsed_css
from ctxchat.tui.textual_compat.paste import keep_pastes_whole
from ctxchat.tui.themes import (
    LAYER_VARIABLE_DEFAULTS,
    describe_problems,
    load_themes,
    shipped_theme_dirs,
)
from ctxchat.tui.views import ServerView
from ctxchat.tui.widgets.conversation import warm_widgets

if TYPE_CHECKING:
    from ctxchat.engine.found import FoundModel
    from ctxchat.tui.screens.setup import SetupChoice


QUIT_QUESTION = "quit-question"
"""The id of the dialog asking before messages queued are dropped by quitting."""


class CtxChatApp(App[int]):
    """Holds what is global: the workspace, the theme, the key map, first-run setup, and the
    conversation screen, which owns the conversation on screen."""

    CSS_PATH = "app.tcss"
    TITLE = "ctxchat"

    # Priority, as in Textual: ctrl+q quits from every dialog too (a modal screen blocks the
    # app's other bindings).
    BINDINGS: ClassVar[list[BindingType]] = bindings_for("CtxChatApp")

    def __init__(
        self,
        workspace: Workspace,
        session: ChatSession | None,
        *,
        theme: str | None = None,
        servers: Sequence[ServerView] = (),
        model_files: Sequence[FoundModel] = (),
        notes: Sequence[str] = (),
        offline: bool = False,
    ) -> None:
        super().__init__()
        self.workspace = workspace
        self._wanted_theme = theme
        self._servers = list(servers)
        self._model_files = list(model_files)
        self._notes = list(notes)
        self.conversation_screen = ConversationScreen(workspace, session, offline=offline)
        """The main screen, for the whole run: the conversation and its context."""
        self._terminal_watch = TerminalWatch(self.end_from_outside)

    def get_default_screen(self) -> Screen[None]:
        return self.conversation_screen

    def on_mount(self) -> None:
        if not self.is_headless:
            self._terminal_watch.start()
        self._load_themes()
        screen = self.conversation_screen
        screen.after_first_frame(self._first_frame_drawn)
        screen.notify_lines(self.workspace.warnings, severity="warning")
        screen.notify_lines(self._notes, severity="warning")
        if not screen.has_session:
            from ctxchat.tui.screens.setup import SetupScreen
            from ctxchat.tui.screens.setup_engine import installed_offer

            self.push_screen(
                SetupScreen(
                    self._servers,
                    openai_key_present=bool(self.workspace.env.get("OPENAI_API_KEY")),
                    config_path=str(self.workspace.locations.config_file),
                    env=self.workspace.env,
                    engine=installed_offer(),
                    files=self._model_files,
                ),
                self._setup_done,
            )

    def _first_frame_drawn(self) -> None:
        # What start-up made lives on: it moves out of the collector's sight. The command
        # line turns the collector off while the app starts; it is back on from here.
        freeze_long_lived()
        gc.enable()
        # The tokenizer and the model client load in a thread now the first frame is drawn.
        self.run_worker(self._warm(), group="warm", exit_on_error=False)

    async def _warm(self) -> None:
        screen = self.conversation_screen
        if screen.has_session:
            # Counts of the draft need the tokenizer; the plan on screen did not. A build
            # that fails here fails again where it is needed, and is reported there.
            with contextlib.suppress(Exception):
                await asyncio.to_thread(screen.session.counter.build)
        await asyncio.to_thread(warm_widgets)
        await asyncio.to_thread(warm)
        backend = screen.session.backend if screen.has_session else None
        if isinstance(backend, DeferredBackend):
            await backend.real()  # the first message then goes out at once
        # The client's modules live as long as the app, as what start-up made does.
        freeze_long_lived()

    async def on_event(self, event: events.Event) -> None:
        # Typing meant for the composer moves focus there before the key is delivered, in
        # the app's own queue, so a burst of keys stays in order (see
        # `ChatActions.typing_goes_to_composer`).
        screen = self.conversation_screen
        if isinstance(event, events.Key | events.Paste):
            # Typed while the app starts: kept until the screen is up, its composer focused
            # (the app's queue waits meanwhile, so nothing typed overtakes it).
            await screen.mounted.wait()
            if screen.typing_goes_to_composer(event):
                screen.set_focus(screen.composer)
            elif move_focus_now(self.screen, event) or (
                self.screen is screen
                and await opened_at_once(screen, self.workspace.settings.keymap, event)
            ):
                return
        await super().on_event(event)

    async def action_quit(self) -> None:
        """Quit; with messages still queued (never sent), ask first: Ctrl+Q again quits."""
        count = self.conversation_screen.queued_count
        if not count or self.screen.id == QUIT_QUESTION:
            self.exit()
            return
        from ctxchat.tui.screens.confirm import ConfirmScreen

        def answered(quit_now: bool | None) -> None:
            if quit_now:
                self.exit()

        question = ConfirmScreen(
            f"{counted(count, 'queued message')} not sent yet. Quit anyway?",
            "Quit",
            danger=True,
            detail="Quitting drops them. Cancel keeps them waiting to be sent.",
        )
        question.id = QUIT_QUESTION
        self.push_screen(question, answered)

    def end_from_outside(self) -> None:
        """The terminal went away (or the process was told to end): quit as the user would,
        without asking first, as no one is there to answer. The draft is kept for the next
        start, a reply being written stops where it came (its worker is cancelled)."""
        self.exit()

    def exit(
        self, result: int | None = None, return_code: int = 0, message: RenderableType | None = None
    ) -> None:
        """Exit, the drafts kept for the next start (however the app ends: quit, first-run
        setup cancelled, the terminal gone)."""
        self.conversation_screen.keep_drafts()
        super().exit(result, return_code, message)

    # Every notification is cleaned here, once (a server's model id, a conversation title).
    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        super().notify(
            clean(message), title=clean(title), severity=severity, timeout=timeout, markup=markup
        )

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return {**super().get_theme_variable_defaults(), **LAYER_VARIABLE_DEFAULTS}

    def _load_themes(self) -> None:
        themes, problems = load_themes([*shipped_theme_dirs(), self.workspace.locations.themes_dir])
        for theme in themes:
            self.register_theme(theme)
        if problems:
            self.notify(describe_problems(problems), severity="warning", markup=False, timeout=10)
        settings = self.workspace.settings
        # A wrong theme or key remap in the config is told like any config error (file, line,
        # key, "did you mean"); the app starts anyway, on the default theme.
        names = check_config_names(self.workspace.loaded, self.available_themes)
        self.conversation_screen.notify_lines(names.lines, severity="warning")
        wanted = self._wanted_theme
        if wanted:
            if wanted in self.available_themes:
                self.theme = wanted
            elif not (names.bad_theme and wanted == settings.theme):
                self.notify(
                    f"There is no theme called {wanted!r}.", severity="warning", markup=False
                )
        self._apply_keymap(names.bad_bindings)

    def watch_theme(self, theme: str) -> None:
        if self.is_running and theme != self.workspace.state.theme:
            self.workspace.update_state(theme=theme)

    def _apply_keymap(self, leave_out: Collection[str]) -> None:
        keymap = self.workspace.settings.keymap
        if keymap:
            self.set_keymap({k: v for k, v in keymap.items() if k not in leave_out})

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:  # type: ignore[type-arg]
        yield from super().get_system_commands(screen)
        yield from ctxchat_commands(self.conversation_screen)

    # First run.

    def _setup_done(self, choice: SetupChoice | None) -> None:
        if choice is None:
            self.exit(0)
            return
        profile = (
            engine_profile(engine=choice.model or BUNDLED_ENGINE_MODEL)
            if choice.provider == "engine"
            else ProviderProfile(
                name=choice.provider if choice.provider != "custom" else "server",
                base_url=choice.base_url or OPENAI_DEFAULT_BASE_URL,
                model=choice.model,
                api_key_env=choice.api_key_env,
                api_key=choice.api_key if choice.store_key else None,
            )
        )
        choice.lend_key(self.workspace.env)
        path = self.workspace.locations.config_file
        if path.exists():
            self.notify(
                f"{path} exists and was left as it is; add a [profiles] table to keep this choice.",
                severity="warning",
                markup=False,
                timeout=12,
            )
        else:
            from ctxchat.config.template import write_initial_config

            write_initial_config(path, profile=profile)
            try:
                self.workspace.loaded = load_settings(path, self.workspace.env)
            except ConfigError as error:
                self.notify(str(error), severity="error", markup=False)
            self.notify(saved_note(str(path), choice), markup=False, timeout=12)
        settings = self.workspace.settings
        if not settings.needs_setup:
            profile = settings.profile()
        screen = self.conversation_screen
        screen.show_session(
            open_tui_session(
                self.workspace, SessionOptions(), profile=profile, notes=self._notes_sink
            )
        )
        self.call_later(screen.start)

    def _notes_sink(self, note: str) -> None:
        self.notify(note, severity="warning", markup=False)

    def on_unmount(self) -> None:
        self._terminal_watch.stop()
        thaw()


def saved_note(path: str, choice: SetupChoice) -> str:
    """What setup wrote, and where the key is now (never the key itself)."""
    note = f"Saved the configuration to {path}."
    if choice.store_key:
        return f"{note} The key is in it; the file is readable only by you (mode 0600)."
    if choice.api_key and choice.api_key_env:
        return (
            f"{note} The key is used for this run only: set it for the next with "
            f"export {choice.api_key_env}=… (e.g. in your shell's profile)."
        )
    return note


def check_config_names(loaded: LoadedSettings, themes: Collection[str]) -> NameProblems:
    """The config's theme and key remaps checked against `themes` and the app's bindings."""
    settings = loaded.settings
    return check_names(
        settings.theme,
        settings.keymap,
        loaded.path,
        themes=themes,
        bindings=known_binding_ids() if settings.keymap else (),
    )


def known_binding_ids() -> set[str]:
    """Every binding id a user may remap: those of the app and of every screen and widget."""
    return set(shipped_bindings())


def open_tui_session(
    workspace: Workspace,
    options: SessionOptions,
    *,
    profile: ProviderProfile | None = None,
    notes: Callable[[str], None],
) -> ChatSession:
    """The app's session: on the options' conversation, else the last one, else a new one."""
    conversation = options.conversation
    if conversation is not None:
        workspace.store.conversations.get_conversation(conversation)  # NotFound: one clear line
    else:
        conversation = workspace.last_or_latest()
    if conversation is None:
        conversation = workspace.start_conversation(
            profile or resolve_profile(workspace.settings, options)
        )
    session = open_session(
        workspace, options, conversation, connect=Connect.TRY, profile=profile, notes=notes
    )
    if options.preset is not None:
        session.choose_preset(options.preset)  # remembered with the conversation
    return session


def _found_servers() -> list[ServerView]:
    from ctxchat.tui.parts.profile_changes import found_servers

    return asyncio.run(found_servers())


def _found_files() -> list[FoundModel]:
    """The model files on this machine the engine could run (none without the engine)."""
    from ctxchat.engine.files import engine_installed
    from ctxchat.engine.found import find_models
    from ctxchat.tui.screens.setup_engine import offered_files

    return offered_files(find_models()) if engine_installed() else []


def build_app(
    workspace: Workspace, options: SessionOptions, *, theme: str | None = None
) -> CtxChatApp:
    """The app for these options (no terminal is touched yet)."""
    settings = workspace.settings
    notes: list[str] = []
    theme = theme or workspace.state.theme or settings.theme
    if resolve_profile(settings, options) is None:
        return CtxChatApp(
            workspace, None, theme=theme, servers=_found_servers(), model_files=_found_files()
        )
    session = open_tui_session(workspace, options, notes=notes.append)
    return CtxChatApp(workspace, session, theme=theme, notes=notes, offline=options.offline)


def run_app(workspace: Workspace, options: SessionOptions, *, theme: str | None = None) -> int:
    """Run the app on an open workspace (the caller closes it)."""
    keep_pastes_whole()
    drop_output_to_a_gone_terminal()
    keep_parsed_css(workspace.locations.cache_dir)
    return build_app(workspace, options, theme=theme).run() or 0
