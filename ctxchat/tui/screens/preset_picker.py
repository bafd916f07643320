"""Choose the conversation's preset: the config's presets, or none."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, OptionList, Static
from textual.widgets.option_list import Option

from ctxchat.config.settings import Preset
from ctxchat.core.history import preview
from ctxchat.model.request import Sampling
from ctxchat.tui.actions import bindings_for
from ctxchat.tui.screens.dialog import Dialog
from ctxchat.tui.text import clean, content
from ctxchat.tui.widgets.footer import KeyFooter

NO_PRESET = "none"
"""The option id of "no preset"; a preset's id is `p:` and its name."""

EXAMPLE = '[presets.precise]\nsystem_prompt = "Answer briefly and exactly."\ntemperature = 0.2'
"""What a preset looks like in the config, for the dialog with none to offer."""


@dataclass(frozen=True, slots=True)
class PresetChoice:
    """The preset chosen for the conversation (None: no preset)."""

    name: str | None


def preset_words(preset: Preset) -> str:
    """The model and sampling a preset asks for, in words (`gpt-4o-mini · temperature 0.2 ·
    max 300 tokens`); "" when it leaves them all to the profile."""
    words = [preset.model] if preset.model else []
    words += Sampling(preset.temperature, preset.top_p).words()
    if preset.max_output_tokens:
        words.append(f"max {preset.max_output_tokens:,} tokens")
    return " · ".join(words)


FIRST_LINE_WIDTH = 64
"""The most characters of a prompt's first line the list shows: one row in the dialog."""


def first_line(prompt: str | None) -> str:
    """A system prompt's first line with text, as the list shows it (cut to one row)."""
    if prompt is None:
        return "no system prompt of its own"
    lines = [line.strip() for line in prompt.splitlines() if line.strip()]
    if not lines:
        return "sends no system prompt"
    return f"“{preview(lines[0], FIRST_LINE_WIDTH)}”" + (" …" if len(lines) > 1 else "")


def _label(name: str, current: bool, lines: Sequence[str]) -> Text:
    """An option: its name (marked when in force), then its lines, quieter."""
    label = Text(end="")
    label.append("● " if current else "  ", style="green" if current else "")
    label.append(clean(name), style="bold")
    for line in lines:
        label.append(f"\n    {clean(line)}", style="dim")
    return label


def _option(preset: Preset, current: bool) -> Option:
    words = preset_words(preset)
    lines = [words] if words else []
    lines.append(first_line(preset.system_prompt))
    return Option(_label(preset.name, current, lines), id=f"p:{preset.name}")


class PresetList(OptionList):
    """The presets to choose from: Enter chooses the highlighted one (the list's own key,
    so one typed right after an arrow key chooses where the arrow moved to)."""

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("PresetList")


class PresetPicker(Dialog[PresetChoice | None]):
    """The config's presets (name, model, sampling, the first line of the prompt) and "no
    preset", the one in force marked; dismisses with a `PresetChoice`, or None. With no
    presets configured it says where and how to add one."""

    DEFAULT_CSS = """
    PresetPicker {
        & > Vertical {
            width: 80;
            max-width: 100%;
            height: auto;
            max-height: 100%;
            padding: 0 1;
        }
        OptionList {
            height: auto;
            max-height: 20;
        }
        #preset-note {
            color: $text-muted;
            height: auto;
            margin-bottom: 1;
        }
        #preset-example {
            background: $boost;
            height: auto;
            padding: 0 1;
            margin-bottom: 1;
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("PresetPicker")

    def __init__(self, presets: Sequence[Preset], current: str | None, config_path: Path) -> None:
        super().__init__()
        self._presets = list(presets)
        self._current = current
        self._config_path = config_path

    def compose(self) -> ComposeResult:
        with Vertical() as dialog:
            dialog.border_title = "Preset for this conversation"
            if self._presets:
                yield from self._compose_list()
            else:
                yield from self._compose_how_to_add()
        yield KeyFooter()

    def _compose_list(self) -> ComposeResult:
        options: list[Option] = [_option(p, p.name == self._current) for p in self._presets]
        unchosen = "the profile's model and sampling, the config's prompt"
        options.append(Option(_label("no preset", self._current is None, [unchosen]), id=NO_PRESET))
        yield PresetList(*options, id="preset-options")
        if self._current is not None and self._current not in {p.name for p in self._presets}:
            yield Static(
                content(f'The conversation\'s preset "{self._current}" is not in the config.'),
                id="preset-note",
            )
        with Horizontal(classes="dialog--buttons"):
            yield Button("Cancel", id="cancel")
            yield Button("Choose", id="choose", variant="primary")

    def _compose_how_to_add(self) -> ComposeResult:
        yield Static(
            content(
                f"No presets yet. Add a [presets.NAME] table to {self._config_path} "
                "and start ctxchat again; for example:"
            ),
            id="preset-note",
        )
        yield Static(content(EXAMPLE), id="preset-example")
        with Horizontal(classes="dialog--buttons"):
            yield Button("Close", id="cancel", variant="primary")

    def on_mount(self) -> None:
        if not self._presets:
            self.query_one("#cancel", Button).focus()
            return
        option_list = self.query_one(OptionList)
        ids = [option.id for option in option_list.options]
        current = NO_PRESET if self._current is None else f"p:{self._current}"
        option_list.highlighted = ids.index(current) if current in ids else 0
        option_list.focus()

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self._dismiss_with(event.option.id)

    @on(Button.Pressed, "#choose")
    def _choose_highlighted(self) -> None:
        self.query_one(PresetList).action_select()

    def _dismiss_with(self, option_id: str | None) -> None:
        if option_id == NO_PRESET:
            self.dismiss(PresetChoice(None))
        elif option_id is not None:
            self.dismiss(PresetChoice(option_id.removeprefix("p:")))

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
