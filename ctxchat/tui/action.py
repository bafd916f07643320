"""An action of the app (`Action`): one thing the user can do, declared once; and what an
action of the conversation screen needs to mean anything (`Needs`). The table of them all is
`tui/actions.py`'s `ACTIONS`."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from textual.binding import Binding


class Needs(Enum):
    """What an action of the conversation screen needs to mean anything (the footer hides
    it otherwise). Keys of a widget or a dialog are checked by that widget or dialog."""

    NOTHING = "nothing"
    SESSION = "an open conversation"
    """Hidden before the first-run setup opens one."""
    STREAMING = "a reply being written"
    JOB = "a job running in the background"
    """A summary, an extraction or the model list this app is making."""


@dataclass(frozen=True, slots=True)
class Action:
    """One thing the user can do: its id (what `[keys]` remaps), where it is bound (a
    class name: `ConversationScreen`, `MemoryPanel`, a dialog…), the action it runs there
    or the part or widget that runs it (`target`, as harlequin's `Action(target=...)`),
    its keys (comma-separated; none for an action only the palette offers), the footer's
    word for it, what it does (the tooltip and docs/keys.md), and its entry in the command
    palette, if it has one."""

    id: str
    where: str
    action: str
    keys: str = ""
    label: str = ""
    help: str = ""
    show: bool = True
    priority: bool = False
    key_display: str | None = None
    needs: Needs = Needs.NOTHING
    palette: str = ""
    """Its title in the command palette ("memory: add entry"); "" if not there."""
    palette_help: str = ""
    """The palette's line about it, when it says more than `help`."""
    palette_action: str = ""
    """The conversation screen's action the palette runs, when neither `action` nor
    `target` (the composer's: focused first, `ConversationScreen.action_composer`)."""
    target: str = ""
    """What runs it from the conversation screen (its key there, the palette), when not
    `action` on the class it is bound on: a part or widget of the screen and its method,
    `"SummaryFlow.summarize"`, called with `action`'s parameters. The screen's binding and
    the palette route to it (`ConversationScreen.action_route`), and its `check_action` is
    asked about it by id."""
    also_on: tuple[str, ...] = ()
    """Other classes it is bound on too (the app's quit on the screen, for the footer)."""
    first_on: tuple[str, ...] = ()
    """Widgets it is bound on too with priority, for a conversation screen's action that
    opens a text box: run as soon as the key is read there, the box is open before the
    keys typed right after it reach that widget, so they go into the box."""

    def binding(self, where: str | None = None) -> Binding:
        """The binding of this action on `where` (its own class unless given)."""
        action = self.action
        if where is not None and where != self.where and self.where == "CtxChatApp":
            action = f"app.{action}"
        if where is not None and where in self.first_on:
            action = f"screen.at_once({self.id!r})"
        elif self.where == "ConversationScreen":
            action = self.screen_action
        return Binding(
            self.keys,
            action,
            self.label,
            # Shown once, where the footer lists the screen's keys.
            show=self.show and where not in self.first_on,
            key_display=self.key_display,
            priority=self.priority or where in self.first_on,
            tooltip=self.help,
            id=self.id,
        )

    @property
    def screen_action(self) -> str:
        """The conversation screen's action that runs it (its key there, the palette): the
        route to its `target`, else its own."""
        if self.target:
            return f"route({self.id!r})"
        return self.palette_action or self.action
