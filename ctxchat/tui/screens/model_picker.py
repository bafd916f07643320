"""Choose another provider profile, or another model on the current server."""

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

from ctxchat.redaction import shown_url
from ctxchat.tui.actions import bindings_for
from ctxchat.tui.screens.result_dialog import ResultDialog
from ctxchat.tui.text import content
from ctxchat.tui.widgets.footer import KeyFooter


@dataclass(frozen=True, slots=True)
class ModelChoice:
    """The profile to use and, if the user picked one, the model on its server."""

    profile: str
    model: str | None = None


class ModelPicker(ResultDialog[ModelChoice | None]):
    """Profiles from the config first, then the models the current server offers.

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
    ) -> None:
        """`profiles` are (name, base URL, model); `models` the current server's model ids;
        `unasked`: opened when the list came, not at a keypress."""
        super().__init__(unasked=unasked)
        self._profiles = list(profiles)
        self._models = list(models)
        self._current_profile = current_profile
        self._current_model = current_model
        self._note = note

    def compose(self) -> ComposeResult:
        options: list[Option | None] = []
        for name, base_url, model in self._profiles:
            mark = "● " if name == self._current_profile else "  "
            shown = f"{mark}profile {name} — {model} at {shown_url(base_url)}"
            options.append(Option(content(shown), id=f"p:{name}"))
        if self._models:
            options.append(None)
            for model in self._models:
                mark = "● " if model == self._current_model else "  "
                options.append(Option(content(f"{mark}model {model}"), id=f"m:{model}"))
        with Vertical():
            yield Static("Switch profile or model", classes="dialog--title")
            yield OptionList(*options, id="model-options")
            note = self._note or "Enter picks; Esc keeps the current one."
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

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Before it is seen, an enter was meant for the composer (see `ResultDialog`).
        return self.seen or action != "pick"

    def action_pick(self) -> None:
        self.query_one(OptionList).action_select()

    def action_cancel(self) -> None:
        self.dismiss(None)
