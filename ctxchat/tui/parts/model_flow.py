"""ModelFlow: which model a conversation talks to (F4), and what its server is and whether it answers."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import work
from textual.message import Message

from ctxchat.chat.connection import same_server
from ctxchat.chat.reachability import unreachable_notice
from ctxchat.chat.session import ChatSession
from ctxchat.chat.session_factory import (
    learn_server,
    make_backend,
    offered_profiles,
    profile_for_choice,
)
from ctxchat.chat.workspace import Workspace
from ctxchat.config.errors import MissingApiKey
from ctxchat.model.errors import ProviderError
from ctxchat.tui.parts.part import Flow
from ctxchat.tui.results_in_waiting import Asked, ResultReady

if TYPE_CHECKING:
    from ctxchat.model.backend import ModelBackend
    from ctxchat.tui.screens.model_picker import ModelChoice, ModelPicker


class ModelFlow(Flow):
    """Lists the server's models for the picker (a job: the list may wait for its key),
    switches the conversation's model, and asks the server what it is (its window) at
    start, after a switch, and once it answers again. Says what it learned with messages:
    `Reachable` (whether anything answers), `Learned` (the window or the model changed),
    `Switched`."""

    @dataclass
    class Reachable(Message):
        """What to say about the server of the conversation on screen (`session`): `notice`
        that nothing answers, or None."""

        session: ChatSession
        notice: str | None

    @dataclass
    class Learned(Message):
        """The server told the session on screen (`session`) its model (`model_changed`:
        the only one was taken) or its window (`window_changed`)."""

        session: ChatSession
        model_changed: bool
        window_changed: bool

    @dataclass
    class Switched(Message):
        """`session` talks to another profile or model now."""

        session: ChatSession

    def __init__(self, workspace: Workspace) -> None:
        super().__init__()
        self.workspace = workspace
        self._left_behind: list[ModelBackend] = []
        """Connections a switch left: closed with the screen, not at the switch."""

    # --- the model list and the switch ----------------------------------------------------

    def pick(self, asked: Asked) -> None:
        """Ask the server of the conversation on screen its models, then offer the picker
        (`asked`: where the user was when they asked)."""
        session = self.session
        if session is None:
            return
        self.run_job(
            "Asking the server for its models",
            lambda: self._pick(session, asked),
            group="models",
        )

    async def _pick(self, session: ChatSession, asked: Asked) -> None:
        models: list[str] = []
        note = ""
        if session.backend is not None:
            try:
                models = await session.backend.list_models()
            except ProviderError as error:
                note = f"The server did not list its models: {error.message}"
        base_url = session.profile.base_url
        from ctxchat.tui.screens.model_picker import ModelPicker

        def picker(unasked: bool) -> ModelPicker:
            # Marked as things are when it opens (it may have waited).
            now = self._now(session)
            return ModelPicker(
                [(p.name, p.base_url, p.model) for p in offered_profiles(now)],
                models,
                current_profile=now.profile.name,
                current_model=now.model,
                note=note,
                unasked=unasked,
            )

        def chosen(choice: ModelChoice | None) -> None:
            if choice is not None:
                self.call_later(self._switch, choice)

        self.post_up(
            lambda: ResultReady(
                "models",
                asked,
                picker,
                chosen,
                ready="The model list is ready: {key} opens it.",
                opens="model.switch",
                # The list is that server's: another one (picked meanwhile) is asked afresh.
                still_holds=lambda: self._now(session).profile.base_url == base_url,
            )
        )

    def _now(self, session: ChatSession) -> ChatSession:
        """The session on screen (the conversation's, as things are now), else `session`."""
        return self.shown.session if self.shown is not None else session

    async def _switch(self, choice: ModelChoice) -> None:
        if self.shown is None:
            return
        session = self.shown.session
        # The server this run talks to (a `--base-url` included) stays unless another
        # profile is picked.
        profile = profile_for_choice(session, choice.profile, choice.model)
        old = session.backend
        backend = old
        if old is None or not same_server(profile, session.profile, self.workspace.env):
            try:
                backend = make_backend(profile, self.workspace.env, session.settings.model)
            except MissingApiKey as error:
                self.notify(str(error), severity="error", markup=False)
                return
        session.switch_model(profile, backend)
        session.remember_model()
        self.post_up(lambda: self.Switched(session))
        if old is not None and old is not backend:
            # Sessions of other conversations may share it: a reply streaming there, or a
            # message waiting there, goes on over it.
            self._left_behind.append(old)
        self.detect_window(session)
        self.notify(f"Now talking to {profile.model} ({profile.name}).", markup=False)

    async def on_unmount(self) -> None:
        for backend in self._left_behind:
            await backend.aclose()
        self._left_behind.clear()

    # --- the server -----------------------------------------------------------------------

    @work(exclusive=True, group="window", exit_on_error=False)
    async def detect_window(self, session: ChatSession) -> None:
        """Ask `session`'s server whether it answers, and its window."""
        before, model = session.window, session.model
        # Nothing listening is said as such, once, rather than as a window the server
        # "does not report"; the next reply that comes back clears it.
        notice = await unreachable_notice(session, self.workspace.loaded.path)
        if self._current(session):
            self.post_up(lambda: self.Reachable(session, notice))
        if notice is not None:
            return
        # Asked on every start; the answer is kept for `ctxchat context` and the next start.
        window = await learn_server(session, self.workspace, refresh=True)
        if self._current(session):
            if window != before:
                self.notify_lines(self._not_yet_told(session, window.warnings))
            self.post_up(lambda: self.Learned(session, session.model != model, window != before))

    def _current(self, session: ChatSession) -> bool:
        """Whether `session` is the very session on screen (not just its conversation)."""
        return self.shown is not None and session is self.shown.session

    def notify_lines(self, lines: Sequence[str]) -> None:
        for line in lines:
            self.notify(line, severity="warning", markup=False)

    def _not_yet_told(self, session: ChatSession, warnings: Sequence[str]) -> list[str]:
        """The window warnings not shown before for this server and model (each once, not
        on every start); those returned are remembered as shown."""
        base_url = session.profile.base_url
        fact = f"window_notice:{session.model}"
        told = self.workspace.state.server_fact(base_url, fact)
        text = "\n".join(warnings)
        if not warnings or told == text:
            return []
        self.workspace.save_state(self.workspace.state.with_server_fact(base_url, fact, text))
        return list(warnings)
