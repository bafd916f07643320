"""The ctxchat app: conversation beside live context panels, and how it starts."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import pkgutil
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from textual.app import SystemCommand
from textual.screen import Screen

from ctxchat.chat.session import ChatSession
from ctxchat.chat.workspace import Workspace, make_backend, profile_for
from ctxchat.config.errors import ConfigError, MissingApiKey
from ctxchat.config.loader import load_settings
from ctxchat.config.schema import OPENAI_DEFAULT_BASE_URL
from ctxchat.config.settings import ProviderProfile
from ctxchat.core.memory import Mode
from ctxchat.model.deferred import DeferredBackend, warm
from ctxchat.tui.base import NARROW
from ctxchat.tui.chat_actions import ChatActions
from ctxchat.tui.collector import freeze_long_lived, thaw
from ctxchat.tui.commands import ctxchat_commands
from ctxchat.tui.conversation_actions import ConversationActions
from ctxchat.tui.memory_actions import MemoryActions
from ctxchat.tui.summary_actions import SummaryActions
from ctxchat.tui.themes import describe_problems, load_themes, shipped_theme_dirs
from ctxchat.tui.views import ServerView
from ctxchat.tui.widgets.conversation import warm_widgets

if TYPE_CHECKING:
    from ctxchat.tui.screens.setup import SetupChoice


class CtxChatApp(ChatActions, MemoryActions, SummaryActions, ConversationActions):
    """The conversation on the left, exactly what the model will see on the right."""

    def __init__(
        self,
        workspace: Workspace,
        session: ChatSession | None,
        *,
        theme: str | None = None,
        servers: Sequence[ServerView] = (),
        notes: Sequence[str] = (),
    ) -> None:
        super().__init__(workspace, session)
        self._wanted_theme = theme
        self._servers = list(servers)
        self._notes = list(notes)

    def on_mount(self) -> None:
        # The tokenizer and the model client load in a thread once the first frame is drawn.
        self.after_first_frame(
            lambda: self.run_worker(self._warm(), group="warm", exit_on_error=False)
        )
        # Keys typed before the conversation is drawn land in the composer.
        self.composer.focus()
        self._load_themes()
        self._apply_keymap()
        if self.size.width < NARROW:
            self.query_one("#side").add_class("-hidden")
        self.notify_lines(self.workspace.warnings, severity="warning")
        self.notify_lines(self._notes, severity="warning")
        if self.has_session:
            self.call_later(self._start_session)
        else:
            from ctxchat.tui.screens.setup import SetupScreen

            self.push_screen(
                SetupScreen(
                    self._servers,
                    openai_key_present=bool(self.workspace.env.get("OPENAI_API_KEY")),
                    config_path=str(self.workspace.locations.config_file),
                ),
                self._setup_done,
            )

    async def _warm(self) -> None:
        if self.has_session:
            # Counts of the draft need the tokenizer; the plan on screen did not. A build
            # that fails here fails again where it is needed, and is reported there.
            with contextlib.suppress(Exception):
                await asyncio.to_thread(self.session.counter.build)
        await asyncio.to_thread(warm_widgets)
        await asyncio.to_thread(warm)
        backend = self.session.backend if self.has_session else None
        if isinstance(backend, DeferredBackend):
            await backend.real()  # the first message then goes out at once
        # The client's modules live as long as the app, as what start-up made does.
        freeze_long_lived()

    async def _start_session(self) -> None:
        await self.show_conversation()
        self.composer.focus()
        if self.session.backend is not None:
            self.after_first_frame(self.detect_window)

    def _load_themes(self) -> None:
        themes, problems = load_themes([*shipped_theme_dirs(), self.workspace.locations.themes_dir])
        for theme in themes:
            self.register_theme(theme)
        if problems:
            self.notify(describe_problems(problems), severity="warning", markup=False, timeout=10)
        wanted = self._wanted_theme
        if wanted:
            if wanted in self.available_themes:
                self.theme = wanted
            else:
                self.notify(
                    f"There is no theme called {wanted!r}.", severity="warning", markup=False
                )

    def watch_theme(self, theme: str) -> None:
        if self.is_running and theme != self.workspace.state.theme:
            self.remember(theme=theme)

    def _apply_keymap(self) -> None:
        keymap = dict(self.workspace.settings.keymap)
        if not keymap:
            return
        known = known_binding_ids()
        unknown = sorted(set(keymap) - known)
        if unknown:
            self.notify(
                f"Unknown key binding ids in the config: {', '.join(unknown)}.",
                severity="warning",
                markup=False,
            )
        self.set_keymap({k: v for k, v in keymap.items() if k in known})

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:  # type: ignore[type-arg]
        yield from super().get_system_commands(screen)
        yield from ctxchat_commands(self)

    # Palette actions that need a selection or an argument.

    def action_pin_message(self) -> None:
        self.conversation_view.action_pin()

    def action_regenerate(self) -> None:
        self.conversation_view.action_regenerate()

    def action_export(self, export_format: str) -> None:
        if self.has_session and self.session.conversation_id is not None:
            if export_format == "json":
                self.ask_export(self.session.conversation, "json")
            else:
                self.ask_export(self.session.conversation, "markdown")

    # First run.

    def _setup_done(self, choice: SetupChoice | None) -> None:
        if choice is None:
            self.exit(0)
            return
        profile = ProviderProfile(
            name=choice.provider if choice.provider != "custom" else "server",
            base_url=choice.base_url or OPENAI_DEFAULT_BASE_URL,
            model=choice.model,
            api_key_env=choice.api_key_env,
        )
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
            self.notify(f"Saved the configuration to {path}.", markup=False)
        settings = self.workspace.settings
        if not settings.needs_setup:
            profile = settings.profile()
        self.show_session(open_session(self.workspace, profile, None, None, self._notes_sink))
        self.call_later(self._start_session)

    def _notes_sink(self, note: str) -> None:
        self.notify(note, severity="warning", markup=False)

    async def on_unmount(self) -> None:
        thaw()
        if self.has_session and self.session.backend is not None:
            await self.session.backend.aclose()


def known_binding_ids() -> set[str]:
    """Every binding id a user may remap: those of the app and of every screen and widget."""
    from ctxchat.tui import screens, widgets

    classes: list[type] = [CtxChatApp]
    for package in (screens, widgets):
        for found in pkgutil.iter_modules(package.__path__, f"{package.__name__}."):
            module = importlib.import_module(found.name)
            classes.extend(v for v in vars(module).values() if isinstance(v, type))
    ids = set()
    for cls in classes:
        for binding in getattr(cls, "BINDINGS", []):
            binding_id = getattr(binding, "id", None)
            if binding_id:
                ids.add(binding_id)
    return ids


def open_session(
    workspace: Workspace,
    profile: ProviderProfile,
    conversation: int | None,
    mode: Mode | None,
    notes: object,
) -> ChatSession:
    """A session on `conversation` (else the last one, else a new one) with `profile`."""
    store = workspace.store
    if conversation is None:
        conversation = workspace.last_or_latest()
    if conversation is None:
        conversation = store.create_conversation(model=profile.model, profile=profile.name).id
    backend = None
    try:
        backend = make_backend(profile, workspace.env)
    except MissingApiKey as error:
        notes(f"{error} Replies cannot be sent until it is set.")  # type: ignore[operator]
    return ChatSession(
        store,
        workspace.settings,
        profile,
        conversation,
        backend=backend,
        mode=mode or workspace.state.last_mode or workspace.settings.default_mode,
        secrets=workspace.secrets,
        env=workspace.env,
    )


def _found_servers() -> list[ServerView]:
    from ctxchat.model.discovery import probe_local_servers

    try:
        found = asyncio.run(probe_local_servers())
    except OSError:
        return []
    return [ServerView(s.kind, s.base_url, s.models, s.needs_key) for s in found]


def build_app(args: argparse.Namespace, workspace: Workspace) -> CtxChatApp:
    """The app for these command-line options (no terminal is touched yet)."""
    settings = workspace.settings
    notes: list[str] = []
    theme = args.theme or workspace.state.theme or settings.theme
    mode = Mode(args.mode) if args.mode else None
    profile = profile_for(settings, name=args.profile, model=args.model, base_url=args.base_url)
    if profile is None:
        return CtxChatApp(workspace, None, theme=theme, servers=_found_servers())
    if args.conversation is not None:
        workspace.store.get_conversation(args.conversation)  # NotFound: one clear line
    session = open_session(workspace, profile, args.conversation, mode, notes.append)
    return CtxChatApp(workspace, session, theme=theme, notes=notes)


def run_app(args: argparse.Namespace, workspace: Workspace) -> int:
    """Run the app on an open workspace (the caller closes it)."""
    return build_app(args, workspace).run() or 0
