"""Which project the conversation is in: pick one, none, or type a new project's name."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Button, Input, OptionList, Static
from textual.widgets.option_list import Option

from ctxchat.core.counts import counted
from ctxchat.store.records import Project
from ctxchat.tui.actions import bindings_for
from ctxchat.tui.screens.dialog import Dialog
from ctxchat.tui.text import clean, plain

NO_PROJECT = "no-project"
MAX_NAME = 100


def project_size(project: Project) -> str:
    """How many conversations and entries a project holds, in words."""
    return (
        f"{counted(project.conversations, 'conversation', 'conversations')}, "
        f"{counted(project.entries, 'entry', 'entries')}"
    )


class ProjectDialog(Dialog[int | str | bool | None]):
    """Dismissed with a project's id, a new project's name, None for no project, or False
    when cancelled."""

    DEFAULT_CSS = """
    ProjectDialog {
        & > Vertical { width: 64; max-width: 90%; height: auto; max-height: 90%; padding: 1 2; }
        #project-list { height: auto; max-height: 12; margin: 1 0; }
        #project-note { color: $foreground-muted; height: auto; }
        .dialog--buttons { margin-top: 1; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("ProjectDialog")

    def __init__(self, projects: Sequence[Project], current: int | None) -> None:
        super().__init__()
        self._projects = list(projects)
        self._current = current

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(plain("Move this conversation to a project"), classes="dialog--title")
            yield Static(
                plain(
                    "Its conversations share the project's memory entries; the entries of "
                    "the project it leaves stop going into its requests."
                ),
                id="project-note",
            )
            options = [Option(self._label(None, "no project"), id=NO_PROJECT)]
            options += [
                Option(self._label(p.id, f"{clean(p.name)} · {project_size(p)}"), id=str(p.id))
                for p in self._projects
            ]
            yield OptionList(*options, id="project-list")
            yield Input(
                placeholder="or a new project's name", max_length=MAX_NAME, id="project-name"
            )
            with Horizontal(classes="dialog--buttons"):
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        listing = self.query_one(OptionList)
        listing.highlighted = listing.get_option_index(
            NO_PROJECT if self._current is None else str(self._current)
        )
        listing.focus()

    def _label(self, project_id: int | None, text: str) -> Content:
        mark = "● " if project_id == self._current else "  "
        return Content(mark + text)

    @on(OptionList.OptionSelected, "#project-list")
    def _picked(self, event: OptionList.OptionSelected) -> None:
        option_id = event.option.id
        self.dismiss(None if option_id == NO_PROJECT or option_id is None else int(option_id))

    @on(Input.Submitted, "#project-name")
    def _named(self, event: Input.Submitted) -> None:
        name = " ".join(event.value.split())
        if name:
            self.dismiss(name)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(False)
