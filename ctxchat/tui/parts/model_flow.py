"""ModelFlow: which model a conversation talks to (F4): a profile, a model of its server, a
model file loaded in the engine, a server added or fixed, a profile removed; and what its
server is and whether it answers."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Sequence
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
from ctxchat.config.errors import ConfigError, MissingApiKey
from ctxchat.engine.errors import EngineError, EngineLoadCancelled
from ctxchat.model.errors import ProviderError
from ctxchat.tui.parts.part import Flow, Job
from ctxchat.tui.parts.profile_changes import (
    config_file,
    configured,
    file_profile,
    found_servers,
    server_name,
    server_values,
    take_in_profiles,
)
from ctxchat.tui.results_in_waiting import Asked, ResultReady

if TYPE_CHECKING:
    from ctxchat.config.profile_edit import ProfileValues
    from ctxchat.config.settings import ProviderProfile
    from ctxchat.engine.found import FoundModel
    from ctxchat.model.backend import ModelBackend
    from ctxchat.tui.screens.model_picker import ModelChoice, ModelPicker, PickerResult
    from ctxchat.tui.screens.setup import SetupChoice


class ModelFlow(Flow):
    """Lists the server's models for the picker (a job: the list may wait for its key),
    switches the conversation's model, and asks the server what it is (its window) at
    start, after a switch, and once it answers again. Says what it learned with messages:
    `Reachable` (whether anything answers), `Learned` (the window or the model changed);
    a switch is told to the run's `ChangeLog` by the session (the planner follows)."""

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

    def __init__(self, workspace: Workspace) -> None:
        super().__init__()
        self.workspace = workspace
        self._left_behind: list[ModelBackend] = []
        """Connections a switch left: closed with the screen, not at the switch."""
        self._loading: tuple[Job, threading.Event] | None = None
        """The job loading a model file in the engine, and what cancels it."""

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
        files = await asyncio.to_thread(self._model_files)
        from ctxchat.tui.screens.model_picker import ModelPicker

        def picker(unasked: bool) -> ModelPicker:
            # Marked as things are when it opens (it may have waited).
            now = self._now(session)
            return ModelPicker(
                [(p.name, "" if p.engine else p.base_url, p.model) for p in offered_profiles(now)],
                models,
                current_profile=now.profile.name,
                current_model=now.model,
                note=note,
                unasked=unasked,
                files=files,
                current_file=self._file_in_use(now.profile),
            )

        def chosen(choice: PickerResult | None) -> None:
            if choice is not None:
                self.call_later(self._chosen, choice)

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

    def _model_files(self) -> list[FoundModel]:
        """The model files on this machine the engine could run (none without the engine)."""
        from ctxchat.engine.files import engine_installed
        from ctxchat.engine.found import MOST_FOUND, find_models
        from ctxchat.tui.screens.setup_engine import offered_files

        if not engine_installed():
            return []
        return offered_files(find_models(self.workspace.env), most=MOST_FOUND)

    @staticmethod
    def _file_in_use(profile: ProviderProfile) -> str:
        from ctxchat.engine.files import model_path

        if not profile.engine:
            return ""
        try:
            return str(model_path(profile.engine))
        except EngineError:
            return ""

    async def _chosen(self, choice: PickerResult) -> None:
        from ctxchat.tui.screens.model_picker import (
            FileChoice,
            ModelChoice,
            ProfileRemoval,
            ServerEdit,
        )

        if isinstance(choice, ModelChoice):
            await self._switch(choice)
        elif isinstance(choice, FileChoice):
            self.load_file(choice.model)
        elif isinstance(choice, ServerEdit):
            self.edit_server(choice.profile)
        elif isinstance(choice, ProfileRemoval):
            self.drop_profile(choice.profile)

    def _now(self, session: ChatSession) -> ChatSession:
        """The session on screen (the conversation's, as things are now), else `session`."""
        return self.shown.session if self.shown is not None else session

    async def _switch(self, choice: ModelChoice) -> None:
        if self.shown is None:
            return
        session = self.shown.session
        # The server this run talks to (a `--base-url` included) stays unless another
        # profile is picked.
        await self._switch_to(session, profile_for_choice(session, choice.profile, choice.model))

    async def _switch_to(self, session: ChatSession, profile: ProviderProfile) -> None:
        old = session.backend
        backend = old
        if old is None or not same_server(profile, session.profile, self.workspace.env):
            try:
                backend = make_backend(profile, self.workspace.env, session.settings.model)
            except MissingApiKey as error:
                self.notify(str(error), severity="error", markup=False)
                return
        session.switch_model(profile, backend)
        session.choice.remember_model()
        if old is not None and old is not backend:
            # Sessions of other conversations may share it: a reply streaming there, or a
            # message waiting there, goes on over it.
            self._left_behind.append(old)
        self.detect_window(session)
        self.notify(f"Now talking to {profile.model} ({profile.name}).", markup=False)

    # --- a model file, a server added or fixed, a profile removed ---------------------------

    def load_file(self, found: FoundModel) -> None:
        """Load `found` in the engine as a job (`f9` cancels it), then write the profile
        that runs it and switch the conversation on screen to it."""
        session = self.session
        if session is None:
            return
        cancelled = threading.Event()
        size = found.size / 1024**2
        self.run_job(
            f"Loading {found.name} ({size:,.0f} MB) in ctxchat's engine",
            lambda: self._load(session, found, cancelled),
            group="engine-load",
        )
        assert self.job is not None
        self._loading = (self.job, cancelled)

    async def _load(
        self, session: ChatSession, found: FoundModel, cancelled: threading.Event
    ) -> None:
        from ctxchat.engine.control import EngineOptions, ensure_engine

        options = EngineOptions(model=str(found.path))
        try:
            await asyncio.to_thread(
                ensure_engine,
                self.workspace.locations.engine_dir,
                options,
                env=self.workspace.env,
                cancelled=cancelled,
            )
        except EngineLoadCancelled:
            return  # `cancel_job` said so
        except EngineError as error:
            self.notify(str(error), severity="error", markup=False, timeout=12)
            return
        name, values = file_profile(found, self.workspace.settings.profiles.values())
        if self._saved(name, values) and self._current(session):
            await self._switch_to(session, configured(self.workspace, name))

    def progress(self, job: Job) -> str | None:
        if self._loading is not None and self._loading[0] is job:
            from ctxchat.engine.control import loading_step

            return loading_step(self.workspace.locations.engine_dir)
        return None

    def cancel_job(self) -> Job | None:
        loading = self._loading
        if loading is not None and loading[0] is self.job:
            loading[1].set()  # the thread loading it stops the engine
        return super().cancel_job()

    def cancelled_note(self, job: Job) -> str:
        if self._loading is not None and self._loading[0] is job:
            return " The engine stopped loading it; the conversation keeps its model."
        return ""

    def edit_server(self, name: str | None) -> None:
        """Open the setup's form to add a server (`name` None) or fix profile `name`."""
        session = self.session
        if session is None:
            return
        fixing = self.workspace.settings.profiles.get(name) if name is not None else None
        if name is not None and fixing is None:
            self.notify(
                f"Profile {name} is not in the config (it was given on the command line): "
                "add a server instead.",
                severity="warning",
                markup=False,
            )
            return
        if fixing is not None and fixing.engine:
            self.notify(
                f"Profile {name} runs a model file in ctxchat's engine: pick another file in "
                "F4 to run that one, or add a server.",
                severity="warning",
                markup=False,
            )
            return
        self.run_job(
            "Looking for model servers on this machine",
            lambda: self._open_form(session, fixing),
            group="models",
        )

    async def _open_form(self, session: ChatSession, fixing: ProviderProfile | None) -> None:
        from ctxchat.tui.screens.setup import SetupPurpose, SetupScreen

        servers = await found_servers() if fixing is None else []
        form = SetupScreen(
            servers,
            openai_key_present=bool(self.workspace.env.get("OPENAI_API_KEY")),
            config_path=str(config_file(self.workspace)),
            env=self.workspace.env,
            purpose=SetupPurpose(fixing),
        )

        def answered(choice: SetupChoice | None) -> None:
            if choice is not None:
                self.call_later(self._server_saved, session, choice, fixing)

        self.app.push_screen(form, answered)

    async def _server_saved(
        self, session: ChatSession, choice: SetupChoice, fixing: ProviderProfile | None
    ) -> None:
        name = server_name(choice, fixing, self.workspace.settings.profiles)
        choice.lend_key(self.workspace.env)
        if not self._saved(name, server_values(choice, fixing), fixed=name if fixing else None):
            return
        now = self._now(session)
        if fixing is None or now.profile.name == name:
            await self._switch_to(now, configured(self.workspace, name))

    def _saved(self, name: str, values: ProfileValues, fixed: str | None = None) -> bool:
        """Write profile `name`'s `values` to the config and take the profiles in again;
        False (and said) when that could not be done."""
        from ctxchat.config.profile_edit import save_profile

        path = config_file(self.workspace)
        changed = self._changed_config(lambda: save_profile(path, name, values), fixed)
        if changed:
            self.notify(f"Saved profile {name} in {path}.", markup=False)
        return changed is not None

    def _changed_config(self, change: Callable[[], bool], fixed: str | None) -> bool | None:
        """Make `change` to the config file and take its profiles in again: what `change`
        returned (whether the file changed); None, said, when that could not be done."""
        from ctxchat.config.profile_edit import ProfileEditError

        try:
            changed = change()
            take_in_profiles(self.workspace, self.session, fixed)
        except (ProfileEditError, ConfigError, OSError) as error:
            self.notify(str(error), severity="error", markup=False, timeout=15)
            return None
        return changed

    def drop_profile(self, name: str) -> None:
        """Take profile `name` out of the config, once the user says so; never the default
        profile nor the one the conversation on screen talks to."""
        session = self.session
        if session is None:
            return
        refusal = None
        if name == self.workspace.settings.default_profile:
            refusal = f"{name} is the default profile (default_profile in the config): make another the default first."
        elif name == session.profile.name:
            refusal = f"This conversation talks to {name}: switch to another profile first."
        elif name not in self.workspace.settings.profiles:
            refusal = f"Profile {name} is not in the config (it was given on the command line)."
        if refusal is not None:
            self.notify(refusal, severity="warning", markup=False)
            return
        from ctxchat.config.profile_edit import remove_profile
        from ctxchat.tui.screens.confirm import ConfirmScreen

        path = config_file(self.workspace)

        def removed() -> bool:
            remove_profile(path, name)
            return True

        def answered(remove: bool | None) -> None:
            if remove and self._changed_config(removed, None):
                self.notify(f"Removed profile {name} from {path}.", markup=False)

        self.app.push_screen(
            ConfirmScreen(
                f"Remove profile {name} from {path}?",
                "Remove",
                danger=True,
                detail="Its table goes, nothing else in the file. A conversation that chose it goes back to the default profile.",
            ),
            answered,
        )

    async def on_unmount(self) -> None:
        if self._loading is not None:
            # The app is ending: a model still loading stops with it (the thread loading it
            # would keep the process alive until the model was in).
            self._loading[1].set()
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
