"""First run without a config: explain the choices, check the answer, hand it to the app."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar
from urllib.parse import urlsplit

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.suggester import SuggestFromList
from textual.widgets import Button, Input, Label, RadioButton, RadioSet, Static

from ctxchat.config.schema import OPENAI_DEFAULT_BASE_URL
from ctxchat.tui.text import clean, plain
from ctxchat.tui.views import ServerView
from ctxchat.tui.widgets.footer import KeyFooter

OPENAI_KEY_ENV = "OPENAI_API_KEY"
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_KEY_SHAPED = re.compile(r"^(?:sk|rk|gsk|xai)[-_]")
SERVER_NAMES = {
    "ollama": "Ollama",
    "lmstudio": "LM Studio",
    "llama.cpp": "llama.cpp server",
    "openai-compatible": "OpenAI-compatible server",
}


@dataclass(frozen=True, slots=True)
class SetupChoice:
    """The provider the user chose; the app writes it to the config.

    `provider` is "openai", a found server's kind, or "custom". `base_url` is None for
    OpenAI's own endpoint. `api_key_env` names the environment variable that holds the key
    (None: the server needs no key); the key itself is never asked for nor written.
    """

    provider: str
    base_url: str | None
    model: str
    api_key_env: str | None


def check_choice(
    provider: str, base_url: str, model: str, api_key_env: str, *, needs_key: bool = False
) -> list[str]:
    """What is wrong with the answer, one sentence each (empty when it can be saved)."""
    problems = []
    if provider != "openai":
        parts = urlsplit(base_url.strip())
        if parts.scheme not in ("http", "https") or not parts.netloc:
            problems.append(
                "The base URL starts with http:// or https://, e.g. http://127.0.0.1:8080/v1."
            )
    if not model.strip():
        problems.append("Name the model to use.")
    elif any(char.isspace() for char in model.strip()):
        problems.append("A model name has no spaces.")
    env = api_key_env.strip()
    if _KEY_SHAPED.match(env):
        problems.append(
            "That looks like a key itself: enter the name of the environment variable "
            "that holds it, e.g. OPENAI_API_KEY."
        )
    elif env and not _ENV_NAME.fullmatch(env):
        problems.append(
            "An environment variable name has letters, digits and _ only, e.g. MY_API_KEY."
        )
    elif not env and (provider == "openai" or needs_key):
        problems.append("This server needs a key: name the environment variable that holds it.")
    return problems


def server_label(server: ServerView) -> Text:
    """A found server as a choice: its name, address and how many models it serves."""
    label = Text()
    label.append(SERVER_NAMES.get(server.kind, clean(server.kind)), style="bold")
    label.append(" at ")
    label.append_text(plain(server.base_url))
    count = len(server.models)
    label.append(f"  ({count} model{'s' if count != 1 else ''})", style="dim")
    return label


class SetupScreen(Screen[SetupChoice | None]):
    """The first-run screen; dismisses with a `SetupChoice`, or None if the user quits."""

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

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "ctrl+s",
            "save",
            "Save and start",
            id="setup.save",
            tooltip="Check the answer and write the config",
        ),
    ]

    def __init__(
        self,
        servers: Sequence[ServerView] = (),
        *,
        openai_key_present: bool = False,
        openai_model: str = "gpt-4o-mini",
        config_path: str = "",
    ) -> None:
        super().__init__()
        self._servers = list(servers)
        self._openai_key_present = openai_key_present
        self._openai_model = openai_model
        self._config_path = config_path

    def compose(self) -> ComposeResult:
        with VerticalScroll(), Vertical(id="setup-column"):
            yield Static("Welcome to ctxchat", id="setup-title")
            where = f" in {self._config_path}" if self._config_path else ""
            yield Static(
                plain(
                    "ctxchat talks to any OpenAI-compatible model server and shows, live, "
                    "exactly what the model sees. There is no config yet: choose a server "
                    f"below and it is written{where}. You can change it there later."
                ),
                classes="setup--prose",
            )
            yield Static("Where should your messages go?", classes="setup--question")
            with RadioSet(id="setup-provider"):
                key_state = "set" if self._openai_key_present else "not set"
                openai = Text.assemble(("OpenAI", "bold"))
                openai.append(f"  (uses {OPENAI_KEY_ENV}: {key_state})", style="dim")
                yield RadioButton(openai, name="openai", id="provider-openai")
                for number, server in enumerate(self._servers):
                    yield RadioButton(server_label(server), name=f"server-{number}")
                yield RadioButton(
                    Text.assemble(("Another server", "bold"), ("  (enter its base URL)", "dim")),
                    name="custom",
                    id="provider-custom",
                )
            if not self._servers:
                yield Static(
                    "No local model server answered on 127.0.0.1 (Ollama, LM Studio, "
                    "llama.cpp). Start one and run ctxchat again, or enter its address.",
                    classes="setup--prose",
                    markup=False,
                )
            with Grid():
                yield Label("Base URL")
                yield Input(placeholder="http://127.0.0.1:8080/v1", id="setup-url", compact=True)
                yield Label("Model")
                yield Input(
                    placeholder="the model's name on the server", id="setup-model", compact=True
                )
                yield Label("Key variable")
                yield Input(
                    placeholder="e.g. OPENAI_API_KEY; empty: no key", id="setup-env", compact=True
                )
            yield Static(id="setup-hint")
            yield Static(id="setup-warning")
            yield Static(id="setup-errors")
            with Horizontal(id="setup-buttons"):
                yield Button("Quit", id="quit")
                yield Button("Save and start", id="save", variant="primary")
        yield KeyFooter()

    def on_mount(self) -> None:
        # A local server needs no account, so it comes first when there is one.
        first = 1 if self._servers else 0
        buttons = list(self.query_one(RadioSet).query(RadioButton))
        buttons[first].value = True
        self._fill(buttons[first].name or "openai")
        self.query_one(RadioSet).focus()

    @property
    def provider(self) -> str:
        pressed = self.query_one(RadioSet).pressed_button
        return pressed.name if pressed is not None and pressed.name else "openai"

    def _server(self, provider: str) -> ServerView | None:
        if provider.startswith("server-"):
            return self._servers[int(provider.removeprefix("server-"))]
        return None

    @on(RadioSet.Changed)
    def _provider_changed(self, event: RadioSet.Changed) -> None:
        self._fill(event.pressed.name or "openai")

    def _fill(self, provider: str) -> None:
        """Prefill the fields for the chosen provider; only "another server" edits the URL."""
        url = self.query_one("#setup-url", Input)
        model = self.query_one("#setup-model", Input)
        env = self.query_one("#setup-env", Input)
        server = self._server(provider)
        warning = ""
        if provider == "openai":
            url.value, model.value, env.value = (
                OPENAI_DEFAULT_BASE_URL,
                self._openai_model,
                OPENAI_KEY_ENV,
            )
            model.suggester = None
            hint = "The key is read from the environment when ctxchat starts; it is never written to the config."
            if not self._openai_key_present:
                warning = f"{OPENAI_KEY_ENV} is not set in this shell: set it before you chat."
        elif server is not None:
            url.value = clean(server.base_url)
            model.value = clean(server.models[0]) if server.models else ""
            env.value = OPENAI_KEY_ENV if server.needs_key else ""
            model.suggester = SuggestFromList(server.models)
            shown = ", ".join(clean(m) for m in server.models[:6])
            more = f" and {len(server.models) - 6} more" if len(server.models) > 6 else ""
            hint = (
                f"Models on this server: {shown}{more}."
                if shown
                else "The server listed no models: name one."
            )
            if server.needs_key:
                warning = "This server asks for a key."
        else:
            url.value, model.value, env.value = "", "", ""
            model.suggester = None
            hint = "Any OpenAI-compatible server: vLLM, llama.cpp, OpenRouter… The base URL usually ends in /v1."
        url.disabled = provider != "custom"
        self.query_one("#setup-hint", Static).update(plain(hint))
        self.query_one("#setup-warning", Static).update(plain(warning))
        self.query_one("#setup-errors", Static).update("")

    def choice(self) -> SetupChoice | None:
        """The answer, or None (with the problems shown) when it cannot be saved."""
        provider = self.provider
        server = self._server(provider)
        url = self.query_one("#setup-url", Input).value.strip()
        model = self.query_one("#setup-model", Input).value.strip()
        env = self.query_one("#setup-env", Input).value.strip()
        problems = check_choice(
            provider, url, model, env, needs_key=server is not None and server.needs_key
        )
        self.query_one("#setup-errors", Static).update(plain("\n".join(problems)))
        if problems:
            return None
        kind = server.kind if server is not None else provider
        return SetupChoice(
            provider=kind,
            base_url=None if provider == "openai" else url,
            model=model,
            api_key_env=env or None,
        )

    @on(Button.Pressed, "#save")
    @on(Input.Submitted)
    def action_save(self) -> None:
        choice = self.choice()
        if choice is not None:
            self.dismiss(choice)

    @on(Button.Pressed, "#quit")
    def _quit(self) -> None:
        self.dismiss(None)
