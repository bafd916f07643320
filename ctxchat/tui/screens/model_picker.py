"""Choose another provider profile, another model on the current server, or a model file on
this machine; add a server, fix or remove a profile."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ctxchat.engine.found import FoundModel
from ctxchat.redaction import shown_url
from ctxchat.tui.actions import bindings_for
from ctxchat.tui.screens.result_dialog import ResultDialog
from ctxchat.tui.screens.setup_engine import file_label
from ctxchat.tui.text import content
from ctxchat.tui.widgets.footer import KeyFooter


@dataclass(frozen=True, slots=True)
class ModelChoice:
    """The profile to use and, if the user picked one, the model on its server."""

    profile: str
    model: str | None = None


@dataclass(frozen=True, slots=True)
class FileChoice:
    """A model file on this machine, to load in the engine and talk to."""

    model: FoundModel


@dataclass(frozen=True, slots=True)
class ServerEdit:
    """Add a server (`profile` None) or fix the profile named."""

    profile: str | None = None


@dataclass(frozen=True, slots=True)
class ProfileRemoval:
    """Take the profile named out of the config."""

    profile: str


PickerResult = ModelChoice | FileChoice | ServerEdit | ProfileRemoval
ADD_SERVER = "add"
"""The option that adds a server."""


class ModelList(OptionList):
    """What the picker offers: Enter picks the highlighted entry (the list's own key, so
    one typed right after an arrow key picks where the arrow moved to), once the picker has
    been seen."""

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("ModelList")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        screen = self.screen
        return action != "select" or not isinstance(screen, ResultDialog) or screen.seen


class ModelPicker(ResultDialog[PickerResult | None]):
    """Profiles from the config first, then the models the current server offers, the model
    files found on this machine, and a way to add a server.

    It opens when the server has listed its models: typing never lands here (see
    `ResultDialog`).
    """

    DEFAULT_CSS = """
    ModelPicker {
        & > Vertical {
            width: 72;
            max-width: 95%;
            height: auto;
            max-height: 90%;
            padding: 1 2;
        }
        .dialog--note {
            color: $text-muted;
            height: auto;
        }
        OptionList {
            height: auto;
            max-height: 20;
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("ModelPicker")

    def __init__(
        self,
        profiles: Sequence[tuple[str, str, str]],
        models: Sequence[str],
        *,
        current_profile: str,
        current_model: str,
        note: str = "",
        unasked: bool = False,
        files: Sequence[FoundModel] = (),
        current_file: str = "",
    ) -> None:
        """`profiles` are (name, base URL, model), the URL "" for a model in ctxchat's engine
        (its address changes with each start); `models` the current server's model ids;
        `files` the model files found on this machine (`current_file`: the one in use);
        `unasked`: opened when the list came, not at a keypress."""
        super().__init__(unasked=unasked)
        self._profiles = list(profiles)
        self._models = list(models)
        self._files = list(files)
        self._current_file = current_file
        self._current_profile = current_profile
        self._current_model = current_model
        self._note = note

    def compose(self) -> ComposeResult:
        options: list[Option | None] = []
        for name, base_url, model in self._profiles:
            mark = "● " if name == self._current_profile else "  "
            where = f"at {shown_url(base_url)}" if base_url else "in ctxchat's engine"
            shown = f"{mark}profile {name} — {model} {where}"
            options.append(Option(content(shown), id=f"p:{name}"))
        if self._models:
            options.append(None)
            for model in self._models:
                mark = "● " if model == self._current_model else "  "
                options.append(Option(content(f"{mark}model {model}"), id=f"m:{model}"))
        if self._files:
            options.append(None)
            for number, found in enumerate(self._files):
                mark = "● " if str(found.path) == self._current_file else "  "
                shown = f"{mark}file {file_label(found).plain}"
                options.append(Option(content(shown), id=f"f:{number}"))
        options.append(None)
        options.append(Option(content("  + add a server…"), id=ADD_SERVER))
        with Vertical():
            yield Static("Switch profile or model", classes="dialog--title")
            yield ModelList(*options, id="model-options")
            keys = (
                "Enter picks (a file loads in ctxchat's engine); on a profile, ctrl+e fixes "
                "it and delete removes it. Esc keeps the current one."
            )
            note = f"{self._note}\n{keys}" if self._note else keys
            yield Static(content(note), classes="dialog--note")
        yield KeyFooter()

    @on(OptionList.OptionSelected)
    def _picked(self, event: OptionList.OptionSelected) -> None:
        option_id = event.option.id or ""
        kind, _, value = option_id.partition(":")
        if kind == "p":
            self.dismiss(ModelChoice(value))
        elif kind == "m":
            self.dismiss(ModelChoice(self._current_profile, value))
        elif kind == "f":
            self.dismiss(FileChoice(self._files[int(value)]))
        elif option_id == ADD_SERVER:
            self.dismiss(ServerEdit())

    def _highlighted_profile(self) -> str | None:
        options = self.query_one(OptionList)
        index = options.highlighted
        if index is None:
            return None
        kind, _, value = (options.get_option_at_index(index).id or "").partition(":")
        return value if kind == "p" else None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Before it is seen, a key was meant for the composer (see `ResultDialog`).
        return self.seen or action not in ("fix", "remove")

    def action_fix(self) -> None:
        """Fix the highlighted profile: its server, model and key, in the setup's form."""
        self._on_profile("fix", ServerEdit)

    def action_remove(self) -> None:
        """Take the highlighted profile out of the config (asked first)."""
        self._on_profile("remove", ProfileRemoval)

    def _on_profile(self, verb: str, result: type[ServerEdit | ProfileRemoval]) -> None:
        name = self._highlighted_profile()
        if name is None:
            self.notify(f"Highlight a profile to {verb} it.", severity="warning", markup=False)
            return
        self.dismiss(result(name))

    def action_cancel(self) -> None:
        self.dismiss(None)
