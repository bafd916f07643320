"""Edit a sent message and send it again, replacing the turns after it or keeping them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Literal

from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, RadioSet, Static, TextArea

from ctxchat.tui.actions import bindings_for
from ctxchat.tui.screens.dialog import Dialog
from ctxchat.tui.text import clean, plain
from ctxchat.tui.widgets.footer import KeyFooter
from ctxchat.tui.widgets.shaped_toggles import ShapedRadioButton

if TYPE_CHECKING:
    from textual.timer import Timer

    from ctxchat.core.plan import ContextPlan
    from ctxchat.tui.parts.message_dialogs import EditPreview

# Planning again waits for a pause in the typing: a long conversation plans in a while.
PLAN_AFTER = 0.3

LaterTurns = Literal["replace", "branch"]


@dataclass(frozen=True, slots=True)
class EditResult:
    """The new text, and what happens to the turns after the edited message.

    "replace": they are set aside and the conversation goes on from the edit; "branch": they
    are kept as a branch the user can go back to.
    """

    message_id: int
    text: str
    later: LaterTurns


class EditMessageScreen(Dialog[EditResult | None]):
    """The message's text in an editor and the choice about later turns; None on cancel."""

    DEFAULT_CSS = """
    EditMessageScreen {
        & > Vertical {
            width: 84;
            max-width: 100%;
            height: auto;
            max-height: 100%;
            padding: 0 1;
        }
        TextArea {
            height: 10;
            max-height: 50vh;
        }
        #edit-later-label {
            margin-top: 1;
            color: $text-muted;
        }
        RadioSet {
            width: 1fr;
        }
        #edit-error {
            color: $error;
            height: auto;
        }
        #edit-plan {
            margin-top: 1;
            color: $text-muted;
            height: auto;
        }
        #edit-buttons {
            margin-top: 1;
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("EditMessageScreen")

    def __init__(
        self,
        message_id: int,
        text: str,
        later_count: int,
        *,
        preview: EditPreview | None = None,
    ) -> None:
        """`preview` plans the request the edit sends, shown under the text (its layers'
        tokens) and in the inspector (f2) before it goes."""
        super().__init__()
        self._message_id = message_id
        self._text = text
        self._later_count = later_count
        self._preview = preview
        self._planned: ContextPlan | None = None
        self._plan_timer: Timer | None = None

    def compose(self) -> ComposeResult:
        with Vertical() as dialog:
            dialog.border_title = "Edit and resend"
            yield TextArea(clean(self._text), soft_wrap=True, id="edit-text")
            if self._later_count:
                count = self._later_count
                turns = f"{count} message{'s' if count != 1 else ''}"
                yield Static(plain(f"The {turns} after this one:"), id="edit-later-label")
                with RadioSet(id="edit-later"):
                    yield ShapedRadioButton(
                        plain("keep them as a branch beside the new one"),
                        value=True,
                        name="branch",
                        id="later-branch",
                    )
                    yield ShapedRadioButton(
                        plain("replace them: the conversation goes on from the edited message"),
                        name="replace",
                        id="later-replace",
                    )
            if self._preview is not None:
                yield Static("", id="edit-plan")
            yield Static("", id="edit-error")
            with Horizontal(id="edit-buttons", classes="dialog--buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Send", id="send", variant="primary")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()
        if self._preview is not None:
            self._plan_timer = self.set_timer(PLAN_AFTER, self._show_plan, pause=True)
            self._show_plan()

    @on(TextArea.Changed)
    @on(RadioSet.Changed)
    def _changed(self) -> None:
        if self._plan_timer is not None:
            self._plan_timer.reset()
            self._plan_timer.resume()

    def _branching(self) -> bool:
        if not self._later_count:
            return False
        pressed = self.query_one(RadioSet).pressed_button
        return pressed is not None and pressed.name == "branch"

    def planned(self) -> ContextPlan | None:
        """The plan of the request the edit sends as typed now (None: nothing to send)."""
        text = self.query_one(TextArea).text.strip()
        if self._preview is None or not text:
            return None
        return self._preview.plan(text, self._branching())

    def _show_plan(self) -> None:
        if self._plan_timer is not None:
            self._plan_timer.pause()
        if self._preview is None:
            return
        from ctxchat.tui.screens.planned_request import layer_line

        plan = self._planned = self.planned()
        line = "" if plan is None else f"It sends: {layer_line(plan)} · f2 shows the request"
        self.query_one("#edit-plan", Static).update(plain(line))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Without a session to plan in, there is no request to show: no f2 in the footer.
        return self._preview is not None if action == "inspect_request" else True

    def action_inspect_request(self) -> None:
        """The request the edit sends, in the inspector, with its Diff from the original."""
        preview = self._preview
        plan = self.planned()
        if preview is None or plan is None or plan.request is None:
            return
        from ctxchat.tui.screens.planned_request import PlannedRequest

        self.app.push_screen(
            PlannedRequest(
                plan.request["body"],
                plan,
                original=preview.original,
                title="The request this edit sends",
                render=preview.render,
            )
        )

    @on(Button.Pressed, "#send")
    def action_send(self) -> None:
        text = self.query_one(TextArea).text
        if not text.strip():
            self.query_one("#edit-error", Static).update("The message cannot be empty.")
            return
        later: LaterTurns = "replace"
        if self._later_count:
            pressed = self.query_one(RadioSet).pressed_button
            later = "branch" if pressed is not None and pressed.name == "branch" else "replace"
        self.dismiss(EditResult(self._message_id, text.strip(), later))

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
