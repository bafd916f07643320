"""First run without a config: explain the choices, check the answer, hand it to the app. The
same form adds a server, or fixes a profile's, from F4 (`SetupPurpose`)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Grid, Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.suggester import SuggestFromList
from textual.widgets import Button, Checkbox, Input, Label, RadioButton, RadioSet, Static

from ctxchat.config.schema import OPENAI_DEFAULT_BASE_URL
from ctxchat.config.settings import ProviderProfile, sendable_key
from ctxchat.engine.found import FoundModel
from ctxchat.model.discovery import UrlAnswer, probe_url, url_problem
from ctxchat.redaction import shown_url
from ctxchat.tui.actions import bindings_for
from ctxchat.tui.screens.setup_answers import answer_line, key_hint, server_label
from ctxchat.tui.screens.setup_engine import (
    ENGINE_CHOICE,
    FILE_CHOICE,
    EngineOffer,
    engine_hint,
    engine_label,
    file_hint,
    file_label,
)
from ctxchat.tui.text import clean, content, plain
from ctxchat.tui.views import ServerView
from ctxchat.tui.widgets.footer import KeyFooter
from ctxchat.tui.widgets.shaped_toggles import ShapedCheckbox, ShapedRadioButton

__all__ = [
    "OPENAI_KEY_ENV",
    "SetupChoice",
    "SetupPurpose",
    "SetupScreen",
    "check_choice",
    "server_label",
]

OPENAI_KEY_ENV = "OPENAI_API_KEY"
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_KEY_SHAPED = re.compile(r"^(?:sk|rk|gsk|xai)[-_]")
PROBE_PAUSE = 0.4
"""Seconds of no typing before a typed URL is asked: one probe per pause, not per key."""

Probe = Callable[[str, str | None], Awaitable[UrlAnswer]]


def _field(field_id: str, placeholder: str, *, password: bool = False) -> Input:
    """One of setup's fields. Tabbing into it and typing adds to it: a value typed earlier
    is never replaced whole by keys that arrive with the focus (keys in a burst)."""
    return Input(
        placeholder=placeholder,
        id=field_id,
        password=password,
        compact=True,
        select_on_focus=False,
    )


@dataclass(frozen=True, slots=True)
class SetupChoice:
    """The provider the user chose; the app writes it to the config.

    `provider` is "openai", a found (or probed) server's kind, "custom", or "engine" (the
    model on this machine: `model` is "" for the small one, else a .gguf file's path). `base_url` is
    None for OpenAI's own endpoint. `api_key_env` names the environment variable that holds
    the key (None: no key, or the key is stored). `api_key` is the key typed (never shown:
    not even in the repr); `store_key` says it goes into the config file (mode 0600), else
    it is used for this run only and the config names `api_key_env`.
    """

    provider: str
    base_url: str | None
    model: str
    api_key_env: str | None
    api_key: str | None = field(default=None, repr=False)
    store_key: bool = False

    def lend_key(self, env: dict[str, str]) -> None:
        """A key typed but not stored: put it in `env` for this run only, as if it had been
        exported (the config names the variable)."""
        if self.api_key and not self.store_key and self.api_key_env:
            env[self.api_key_env] = self.api_key


@dataclass(frozen=True, slots=True)
class SetupPurpose:
    """The form opened from F4, not at first run: to add a server (`profile` None), or to
    fix `profile`'s."""

    profile: ProviderProfile | None = None

    @property
    def title(self) -> str:
        return "Add a server" if self.profile is None else f"Fix profile {self.profile.name}"

    def prose(self, config_path: str) -> str:
        where = config_path or "the config file"
        if self.profile is None:
            return (
                f"Choose where messages go: it is added to {where} as a profile of its own, "
                "and this conversation switches to it. Nothing else in the file changes."
            )
        kept = (
            " A key is stored for it: type one only to replace it." if self.profile.api_key else ""
        )
        return (
            f"Change the server, model or key of profile {self.profile.name}: its table in "
            f"{where} changes, nothing else in the file.{kept}"
        )

    @property
    def button(self) -> str:
        return "Add and switch" if self.profile is None else "Save"


def check_choice(
    provider: str,
    base_url: str,
    model: str,
    api_key_env: str,
    *,
    needs_key: bool = False,
    api_key: str = "",
    store_key: bool = False,
) -> list[str]:
    """What is wrong with the answer, one sentence each (empty when it can be saved)."""
    problems = []
    if provider != "openai":
        problem = url_problem(base_url)
        if problem is not None:
            problems.append(problem)
    if not model.strip():
        problems.append("Name the model to use.")
    elif any(char.isspace() for char in model.strip()):
        problems.append("A model name has no spaces.")
    key = api_key.strip()
    if any(char.isspace() for char in key):
        problems.append("A key has no spaces: paste it again.")
    elif not sendable_key(key):
        problems.append(
            "A key has only ASCII letters, digits and punctuation: look for a non-Latin "
            "letter or a typographic quote pasted with it."
        )
    env = api_key_env.strip()
    if key and store_key:
        return problems  # the variable is not used
    if _KEY_SHAPED.match(env):
        problems.append(
            "That looks like a key itself: type it under API key, and here the name of "
            "the environment variable that holds it, e.g. OPENAI_API_KEY."
        )
    elif env and not _ENV_NAME.fullmatch(env):
        problems.append(
            "An environment variable name has letters, digits and _ only, e.g. MY_API_KEY."
        )
    elif not env and not key and (provider == "openai" or needs_key):
        problems.append(
            "This server needs a key: type it, or name the environment variable that holds it."
        )
    return problems


class SetupScreen(Screen[SetupChoice | None]):
    """The first-run screen (or F4's form to add a server or fix a profile: `purpose`);
    dismisses with a `SetupChoice`, or None if the user quits (or cancels)."""

    DEFAULT_CSS = """
    SetupScreen {
        align-horizontal: center;
        & > VerticalScroll {
            width: 100%;
            height: 1fr;
            align-horizontal: center;
        }
        #setup-column {
            width: 100%;
            max-width: 96;
            height: auto;
            padding: 0 2;
        }
        #setup-title {
            text-style: bold;
            color: $primary;
        }
        .setup--prose {
            color: $text-muted;
            margin-bottom: 1;
        }
        .setup--question {
            text-style: bold;
        }
        RadioSet {
            width: 100%;
        }
        Grid {
            margin-top: 1;
            grid-size: 2;
            grid-columns: 16 1fr;
            grid-rows: 1;
            grid-gutter: 0 1;
            height: auto;
        }
        Grid > Label {
            color: $text-muted;
        }
        Input:disabled {
            opacity: 80%;
        }
        #setup-store-key {
            margin-left: 17;
            border: none;
            padding: 0;
            background: transparent;
        }
        #setup-probe, #setup-key-hint {
            height: auto;
        }
        #setup-key-hint {
            color: $text-muted;
        }
        #setup-hint {
            color: $text-muted;
            height: auto;
            margin-top: 1;
        }
        #setup-warning {
            color: $warning;
            height: auto;
        }
        #setup-errors {
            color: $error;
            height: auto;
        }
        #setup-buttons {
            height: auto;
            margin-top: 1;
            align-horizontal: right;
            & > Button {
                margin-left: 2;
            }
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("SetupScreen")

    def __init__(
        self,
        servers: Sequence[ServerView] = (),
        *,
        openai_key_present: bool = False,
        openai_model: str = "gpt-4o-mini",
        config_path: str = "",
        env: Mapping[str, str] | None = None,
        probe: Probe = probe_url,
        engine: EngineOffer | None = None,
        files: Sequence[FoundModel] = (),
        purpose: SetupPurpose | None = None,
    ) -> None:
        """`env` is where a named key variable is looked up for a probe; `probe` asks a
        typed URL what it is (the real one unless a test shows a fixed answer); `engine`
        offers the model on this machine (first, and chosen when nothing else is there),
        `files` the model files found on it (see `setup_engine.offered_files`); `purpose`:
        opened from F4 (None: the first run)."""
        super().__init__()
        self.purpose = purpose
        self._engine = engine
        self._files = list(files)
        self._servers = list(servers)
        self._openai_key_present = openai_key_present
        self._openai_model = openai_model
        self._config_path = config_path
        self._env = dict(env or {})
        self._probe = probe
        self._probed: ServerView | None = None
        """What the typed URL answered as, once it answered as a model server."""
        self._filled_model = ""
        """The model the last probe filled in: replaced by the next, unlike a typed one."""
        self._cursor = 0
        """The choice under the radio set's cursor (where Enter would pick)."""

    def compose(self) -> ComposeResult:
        with VerticalScroll(), Vertical(id="setup-column"):
            purpose = self.purpose
            title = "Welcome to ctxchat" if purpose is None else purpose.title
            yield Static(content(title), id="setup-title")
            where = f" in {self._config_path}" if self._config_path else ""
            prose = (
                "ctxchat talks to any OpenAI-compatible model server and shows, live, "
                "exactly what the model sees. There is no config yet: choose a server "
                f"below and it is written{where}. You can change it there later."
                if purpose is None
                else purpose.prose(self._config_path)
            )
            yield Static(plain(prose), classes="setup--prose")
            yield Static("Where should your messages go?", classes="setup--question")
            with RadioSet(id="setup-provider"):
                if self._engine is not None:
                    yield ShapedRadioButton(
                        engine_label(self._engine), name=ENGINE_CHOICE, id="provider-engine"
                    )
                for number, model in enumerate(self._files):
                    yield ShapedRadioButton(file_label(model), name=f"{FILE_CHOICE}{number}")
                key_state = "set" if self._openai_key_present else "not set"
                openai = Text.assemble(("OpenAI", "bold"))
                openai.append(f"  (uses {OPENAI_KEY_ENV}: {key_state})", style="dim")
                yield ShapedRadioButton(openai, name="openai", id="provider-openai")
                for number, server in enumerate(self._servers):
                    yield ShapedRadioButton(server_label(server), name=f"server-{number}")
                yield ShapedRadioButton(
                    Text.assemble(("Another server", "bold"), ("  (enter its base URL)", "dim")),
                    name="custom",
                    id="provider-custom",
                )
            if not self._servers and self._engine is None and not self._fixing:
                what_next = (
                    "Start one and run ctxchat again, or enter its address."
                    if purpose is None
                    else "Enter its address under Another server."
                )
                yield Static(
                    "No local model server answered on 127.0.0.1 (Ollama, LM Studio, "
                    f"llama.cpp). {what_next}",
                    classes="setup--prose",
                    markup=False,
                )
            with Grid(id="setup-fields"):
                yield Label("Base URL")
                yield _field("setup-url", "http://127.0.0.1:8080/v1")
                yield Label("Model")
                yield _field("setup-model", "the model's name on the server")
                yield Label("API key")
                yield _field(
                    "setup-key",
                    "typed hidden; empty: no key, or one from the environment",
                    password=True,
                )
                yield Label("Key variable")
                yield _field("setup-env", "e.g. OPENAI_API_KEY; empty: no key")
            yield ShapedCheckbox(
                "Save the key in the config file", value=True, id="setup-store-key", compact=True
            )
            yield Static(id="setup-key-hint")
            yield Static(id="setup-probe")
            yield Static(id="setup-hint")
            yield Static(id="setup-warning")
            yield Static(id="setup-errors")
            with Horizontal(id="setup-buttons"):
                yield Button("Quit" if purpose is None else "Cancel", id="quit")
                save = "Save and start" if purpose is None else purpose.button
                yield Button(save, id="save", variant="primary")
        yield KeyFooter()

    def on_mount(self) -> None:
        # A local server needs no account, so it comes first when there is one; with none
        # and no OpenAI key, the model on this machine, which needs nothing.
        buttons = list(self.query_one(RadioSet).query(RadioButton))
        names = [button.name for button in buttons]
        if self._servers:
            first = names.index("server-0")
        elif self._engine is not None and not self._openai_key_present:
            first = names.index(ENGINE_CHOICE)
        else:
            first = names.index("openai")
        fixing = self.purpose.profile if self.purpose is not None else None
        if fixing is not None:
            first = names.index(
                "openai" if fixing.base_url == OPENAI_DEFAULT_BASE_URL else "custom"
            )
        buttons[first].value = True
        self._cursor = first
        self._fill(buttons[first].name or "openai")
        self.query_one(RadioSet).focus()

    @property
    def _fixing(self) -> bool:
        """Whether the form fixes a profile (no servers were looked for then)."""
        return self.purpose is not None and self.purpose.profile is not None

    @property
    def provider(self) -> str:
        pressed = self.query_one(RadioSet).pressed_button
        return pressed.name if pressed is not None and pressed.name else "openai"

    def _file(self, provider: str) -> FoundModel | None:
        if provider.startswith(FILE_CHOICE):
            return self._files[int(provider.removeprefix(FILE_CHOICE))]
        return None

    def _server(self, provider: str) -> ServerView | None:
        if provider.startswith("server-"):
            return self._servers[int(provider.removeprefix("server-"))]
        return self._probed if provider == "custom" else None

    @on(RadioSet.Changed)
    def _provider_changed(self, event: RadioSet.Changed) -> None:
        self._cursor = event.index  # the radio set's cursor goes to the button pressed
        self._fill(event.pressed.name or "openai")

    def _input(self, name: str) -> Input:
        return self.query_one(f"#setup-{name}", Input)

    def _fill(self, provider: str) -> None:
        """Prefill the fields for the chosen provider; only "another server" edits the URL.
        A key typed stays: it is the user's, whichever server it is for."""
        url, model, env = self._input("url"), self._input("model"), self._input("env")
        self.workers.cancel_group(self, "setup-probe")
        self._probed = None
        self._filled_model = ""
        self.query_one("#setup-probe", Static).update("")
        server = self._server(provider)
        warning = ""
        on_engine = provider == ENGINE_CHOICE or provider.startswith(FILE_CHOICE)
        for part in ("#setup-fields", "#setup-key-hint"):
            self.query_one(part).display = not on_engine
        if on_engine:
            url.value, model.value, env.value = "", "", ""
            found = self._file(provider)
            if found is not None:
                hint = file_hint(found, self._config_path)
            else:
                assert self._engine is not None
                hint = engine_hint(self._engine, self._config_path)
        elif provider == "openai":
            url.value, model.value, env.value = (
                OPENAI_DEFAULT_BASE_URL,
                self._openai_model,
                OPENAI_KEY_ENV,
            )
            model.suggester = None
            hint = "OpenAI's own API, with the key typed above or the one in the variable."
            if not self._openai_key_present:
                warning = f"{OPENAI_KEY_ENV} is not set in this shell: type the key above, or set it before you chat."
        elif server is not None:
            url.value = clean(server.base_url)
            model.value = clean(server.models[0]) if server.models else ""
            env.value = OPENAI_KEY_ENV if server.needs_key else ""
            hint = self._models_hint(server)
            model.suggester = SuggestFromList(server.models)
            if server.needs_key:
                warning = "This server asks for a key."
        else:
            url.value, model.value, env.value = "", "", ""
            model.suggester = None
            hint = (
                "Any OpenAI-compatible server: vLLM, llama.cpp, OpenRouter… The base URL "
                "usually ends in /v1; it is asked what it serves as you type."
            )
        fixing = self.purpose.profile if self.purpose is not None else None
        if fixing is not None and provider in ("custom", "openai"):
            # The profile fixed, as it is: its server is "another server" (or OpenAI's).
            if provider == "custom":
                url.value = clean(fixing.base_url)
            model.value = clean(fixing.model)
            env.value = clean(fixing.api_key_env or "")
        url.disabled = provider != "custom"
        self.query_one("#setup-hint", Static).update(plain(hint))
        self.query_one("#setup-warning", Static).update(plain(warning))
        self.query_one("#setup-errors", Static).update("")
        self._show_key_hint()

    @staticmethod
    def _models_hint(server: ServerView) -> str:
        shown = ", ".join(clean(m) for m in server.models[:6])
        more = f" and {len(server.models) - 6} more" if len(server.models) > 6 else ""
        return (
            f"Models on this server: {shown}{more}."
            if shown
            else "The server listed no models: name one."
        )

    # --- the key ---------------------------------------------------------------------

    def _key(self) -> str:
        return self._input("key").value.strip()

    def _store_key(self) -> bool:
        return self.query_one("#setup-store-key", Checkbox).value

    @on(Input.Changed, "#setup-env")
    @on(Checkbox.Changed)
    def _show_key_hint(self) -> None:
        key = self._key()
        self.query_one("#setup-store-key", Checkbox).display = bool(key) and not (
            self.provider == ENGINE_CHOICE or self.provider.startswith(FILE_CHOICE)
        )
        hint = key_hint(
            key_typed=bool(key),
            store=self._store_key(),
            env=self._input("env").value.strip(),
            config_path=self._config_path,
        )
        self.query_one("#setup-key-hint", Static).update(plain(hint))

    @on(Input.Changed, "#setup-key")
    def _key_changed(self) -> None:
        self._show_key_hint()
        if self.provider != "openai":
            self._ask_server()  # a server that wanted a key is asked again with it

    # --- asking a typed URL ----------------------------------------------------------

    @on(Input.Changed, "#setup-url")
    def _url_changed(self) -> None:
        if self.provider == "custom":
            self._probed = None
            self._ask_server()

    def _ask_server(self) -> None:
        """Ask the URL in the box once typing pauses; a probe still running is cancelled."""
        url = self._input("url").value.strip().rstrip("/")
        if not url or url_problem(url) is not None:
            self.workers.cancel_group(self, "setup-probe")
            self.query_one("#setup-probe", Static).update("")
            return
        key = self._key() or self._env.get(self._input("env").value.strip(), "").strip()
        # A key no request can carry is not sent (saving it is refused, saying why).
        self._ask(url, key if sendable_key(key) else None)

    @work(exclusive=True, group="setup-probe", exit_on_error=False)
    async def _ask(self, url: str, key: str | None) -> None:
        await asyncio.sleep(PROBE_PAUSE)  # cancelled by the next keystroke: a debounce
        line = self.query_one("#setup-probe", Static)
        line.update(content(f"Asking {shown_url(url)}…", "$text-muted"))
        answer = await self._probe(url, key)
        line.update(answer_line(url, answer))
        found = answer.server
        if found is None:
            return
        server = ServerView(found.kind, url, found.models, found.needs_key)
        if self.provider == "custom":
            self._probed = server
        if answer.outcome != "found":
            return
        model = self._input("model")
        # A model the user typed stays; one the last probe filled in is replaced.
        if server.models and model.value.strip() in ("", self._filled_model):
            model.value = self._filled_model = clean(server.models[0])
        model.suggester = SuggestFromList(server.models)
        self.query_one("#setup-hint", Static).update(plain(self._models_hint(server)))

    # --- the answer ------------------------------------------------------------------

    def choice(self) -> SetupChoice | None:
        """The answer, or None (with the problems shown) when it cannot be saved."""
        provider = self.provider
        if provider == ENGINE_CHOICE or provider.startswith(FILE_CHOICE):
            # The engine's model: "" the small one, else the file's path.
            found = self._file(provider)
            path = str(found.path) if found is not None else ""
            return SetupChoice(provider=ENGINE_CHOICE, base_url=None, model=path, api_key_env=None)
        server = self._server(provider)
        url = self._input("url").value.strip()
        model = self._input("model").value.strip()
        env = self._input("env").value.strip()
        key = self._key()
        store = self._store_key()
        problems = check_choice(
            provider,
            url,
            model,
            env,
            needs_key=server is not None and server.needs_key,
            api_key=key,
            store_key=store,
        )
        self.query_one("#setup-errors", Static).update(plain("\n".join(problems)))
        if problems:
            return None
        # A probed URL keeps the name "server" for its profile: what the probe said may
        # still change while typing, the name should not.
        kind = server.kind if server is not None and provider != "custom" else provider
        if key and store:
            env = ""
        elif key:
            env = env or OPENAI_KEY_ENV
        return SetupChoice(
            provider=kind,
            base_url=None if provider == "openai" else url,
            model=model,
            api_key_env=env or None,
            api_key=key or None,
            store_key=bool(key) and store,
        )

    def on_key(self, event: events.Key) -> None:
        # Enter on the choices picks the one under the cursor (the radio set's own key);
        # Enter on the model on this machine, already chosen, starts: nothing is left to
        # type. The cursor is followed here as the radio set moves it (arrows wrap round).
        choices = self.query_one(RadioSet)
        if self.focused is not choices:
            return
        count = len(choices.query(RadioButton))
        if event.key in ("up", "left"):
            self._cursor = (self._cursor - 1) % count
        elif event.key in ("down", "right"):
            self._cursor = (self._cursor + 1) % count
        elif event.key == "enter" and self._cursor == choices.pressed_index and self._on_machine:
            event.stop()
            event.prevent_default()
            self.action_save()

    @property
    def _on_machine(self) -> bool:
        """Whether the choice is a model on this machine (nothing to type for it)."""
        return self.provider == ENGINE_CHOICE or self.provider.startswith(FILE_CHOICE)

    @on(Button.Pressed, "#save")
    @on(Input.Submitted)
    def action_save(self) -> None:
        choice = self.choice()
        if choice is not None:
            self.dismiss(choice)

    @on(Button.Pressed, "#quit")
    def _quit(self) -> None:
        self.dismiss(None)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Escape cancels the form F4 opened; at first run there is nothing to go back to.
        return action != "cancel" or self.purpose is not None

    def action_cancel(self) -> None:
        self.dismiss(None)
