"""The task dialog: the conversation's goal and steps, each edit stored as it is made."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from ctxchat.chat.task_book import TaskBook, TaskError
from ctxchat.core.task import TaskState
from ctxchat.tui.actions import bindings_for
from ctxchat.tui.screens.dialog import Dialog
from ctxchat.tui.text import content, plain
from ctxchat.tui.widgets.footer import KeyFooter

HINT = (
    "Enter on the goal saves it · Enter on a step marks it done or pending, "
    "Delete removes it · Enter on the last line adds a step · Ctrl+S or Esc closes, "
    "keeping what is typed"
)


def step_prompt(number: int, text: str, done: bool) -> str:
    """`2. [done] Write the tests`: a step as the dialog lists it (and the model reads it)."""
    return f"{number}. [{'done' if done else 'pending'}] {text}"


class TaskSteps(OptionList):
    """The task's steps; its keys act on the highlighted one."""

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("TaskSteps")

    def action_toggle_done(self) -> None:
        self.action_select()  # as Enter does

    def action_remove(self) -> None:
        dialog = self.screen
        if isinstance(dialog, TaskDialog) and self.highlighted is not None:
            dialog.remove_step(self.highlighted + 1)


class TaskDialog(Dialog[None]):
    """Edit the conversation's task through its task book (`book`): every change is stored
    at once and `changed` is called, so the task panel and the next request follow while
    the dialog is open. A change the book refuses is one line, in the dialog."""

    DEFAULT_CSS = """
    TaskDialog {
        & > Vertical {
            width: 76;
            max-width: 95%;
            height: auto;
            max-height: 90%;
            padding: 1 2;
        }
        #task-steps {
            height: auto;
            max-height: 12;
            margin: 1 0;
        }
        #task-error {
            color: $error;
            height: auto;
        }
        #task-error.-empty { display: none; }
        .task--hint {
            color: $text-muted;
            margin-top: 1;
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("TaskDialog")

    def __init__(self, book: TaskBook) -> None:
        super().__init__()
        self._book = book

    def compose(self) -> ComposeResult:
        task = self._book.state
        with Vertical() as column:
            column.border_title = "Task"
            yield Static(plain("The task: its goal, and its steps"), classes="dialog--title")
            yield Input(task.goal, placeholder="The goal (empty: no goal)", id="task-goal")
            yield TaskSteps(*self._options(task), id="task-steps")
            yield Input(placeholder="A new step", id="task-new-step")
            yield Static("", id="task-error", classes="-empty")
            yield Static(plain(HINT), classes="task--hint")
        yield KeyFooter()

    @staticmethod
    def _options(task: TaskState) -> list[Option]:
        if not task.items:
            return [Option(plain("No steps yet."), disabled=True)]
        return [
            Option(plain(step_prompt(number, item.text, item.done)))
            for number, item in enumerate(task.items, 1)
        ]

    @property
    def steps(self) -> TaskSteps:
        return self.query_one("#task-steps", TaskSteps)

    def _change(self, change: Callable[[TaskBook], TaskState]) -> bool:
        """Make one change, then show the task as stored; False (and the reason) if refused."""
        error = self.query_one("#task-error", Static)
        try:
            task = change(self._book)
        except TaskError as refused:
            error.update(content(f"Not changed: {refused}."))
            error.remove_class("-empty")
            return False
        error.update("")
        error.add_class("-empty")
        steps = self.steps
        highlighted = steps.highlighted
        steps.clear_options()
        steps.add_options(self._options(task))
        if task.items:
            steps.highlighted = min(highlighted or 0, len(task.items) - 1)
        return True

    @on(Input.Submitted, "#task-goal")
    def _save_goal(self) -> None:
        self._save_typed_goal()

    def _save_typed_goal(self) -> bool:
        goal = self.query_one("#task-goal", Input).value
        if goal.strip() == self._book.state.goal:
            return True
        return self._change(lambda book: book.set_goal(goal))

    @on(Input.Submitted, "#task-new-step")
    def _add_step(self) -> None:
        self._add_typed_step()

    def _add_typed_step(self) -> bool:
        box = self.query_one("#task-new-step", Input)
        if not box.value.strip():
            return True
        text = box.value
        if self._change(lambda book: book.add_step(text)):
            box.value = ""
            return True
        return False

    @on(OptionList.OptionSelected, "#task-steps")
    def _toggle_done(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        items = self._book.state.items
        index = event.option_index
        if index < len(items):
            self._change(lambda book: book.mark_done(index + 1, not items[index].done))

    def remove_step(self, number: int) -> None:
        if number <= len(self._book.state.items):
            self._change(lambda book: book.remove_step(number))

    def action_close(self) -> None:
        """Close, keeping a goal or a step typed but not entered (unless the book refuses
        it: then the dialog stays, saying why)."""
        if self._save_typed_goal() and self._add_typed_step():
            self.dismiss(None)

    def action_done(self) -> None:
        """The dialog's main key: as Escape, shown apart in the footer."""
        self.action_close()
