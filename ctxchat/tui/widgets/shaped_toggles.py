"""Check boxes and radio buttons whose state shows by shape (☑/☐, ◉/○), not by colour alone."""

from __future__ import annotations

from typing import TypeVar

from rich.segment import Segment
from textual.strip import Strip
from textual.widgets import Checkbox, RadioButton, SelectionList
from textual.widgets.option_list import OptionDoesNotExist

CHECKED, UNCHECKED = "☑", "☐"
CHOSEN, NOT_CHOSEN = "◉", "○"

T = TypeVar("T")


class ShapedRadioButton(RadioButton):
    """A radio button drawn ◉ when chosen and ○ when not (Textual's reads ● both ways)."""

    # Textual draws `self.BUTTON_INNER` between the button's sides: read per instance, it
    # follows the value (a change of value repaints the button).
    @property
    def BUTTON_INNER(self) -> str:  # type: ignore[override]
        return CHOSEN if self.value else NOT_CHOSEN


class ShapedCheckbox(Checkbox):
    """A check box drawn ☑ when ticked and ☐ when not (Textual's reads X both ways)."""

    @property
    def BUTTON_INNER(self) -> str:  # type: ignore[override]
        return CHECKED if self.value else UNCHECKED


class ShapedSelectionList(SelectionList[T]):
    """A selection list whose boxes read ☑ when selected and ☐ when not (Textual's reads ▐X▌
    both ways): the line Textual draws, its box's inner character replaced."""

    def render_line(self, y: int) -> Strip:
        line = super().render_line(y)
        # As Textual's own list does: one line per option, counted from the scroll offset.
        try:
            selection = self.get_option_at_index(self.scroll_offset.y + y)
        except OptionDoesNotExist:
            return line
        segments = list(line)
        if len(segments) < 3:
            return line
        inner = segments[1]
        mark = CHECKED if selection.value in self.selected else UNCHECKED
        segments[1] = Segment(mark, inner.style, inner.control)
        return Strip(segments, line.cell_length)
