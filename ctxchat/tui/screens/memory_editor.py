"""The memory entry editor: text, key, kind, scope, importance and pin, checked before saving."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Grid, Horizontal, Vertical
from textual.widgets import Button, Checkbox, Input, Label, RadioSet, Static, TextArea

from ctxchat.core.memory import MemoryKind
from ctxchat.tui.actions import bindings_for
from ctxchat.tui.screens.dialog import Dialog
from ctxchat.tui.text import clean, content, plain
from ctxchat.tui.views import MemoryDraft, Scope
from ctxchat.tui.widgets.footer import KeyFooter
from ctxchat.tui.widgets.shaped_toggles import ShapedCheckbox, ShapedRadioButton

MAX_KEY = 40
KIND_HINTS = {
    MemoryKind.FACT: "verified, stated as true",
    MemoryKind.CONSTRAINT: "a rule the work must respect",
    MemoryKind.PREFERENCE: "taste or belief; left out in objective mode",
    MemoryKind.HYPOTHESIS: "an unverified guess; left out in objective mode",
}
SCOPES: tuple[tuple[Scope, str], ...] = (
    ("global", "every conversation"),
    ("project", "project"),
    ("conversation", "this conversation"),
)


def validate(text: str, key: str, importance: str) -> list[str]:
    """What is wrong with the form, one sentence each (empty when it can be saved)."""
    problems = []
    if not text.strip():
        problems.append("The text cannot be empty.")
    if len(key.strip()) > MAX_KEY:
        problems.append(f"A key is short: at most {MAX_KEY} characters.")
    if not importance.strip().isdigit() or not 1 <= int(importance) <= 10:
        problems.append("Importance is a whole number from 1 to 10.")
    return problems


class MemoryEditor(Dialog[MemoryDraft | None]):
    """Edit one memory entry; dismiss with the filled-in `MemoryDraft`, or None on cancel."""

    DEFAULT_CSS = """
    MemoryEditor {
        & > Vertical {
            width: 84;
            max-width: 100%;
            height: auto;
            max-height: 100%;
            padding: 0 1;
        }
        #memory-note {
            color: $text-muted;
            height: auto;
        }
        TextArea {
            height: 7;
            margin-bottom: 1;
        }
        Grid {
            grid-size: 2;
            grid-columns: 12 1fr;
            grid-rows: 1;
            grid-gutter: 0 1;
            height: auto;
        }
        Grid > Label {
            color: $text-muted;
        }
        Grid Input {
            background: $boost;
        }
        RadioSet {
            layout: horizontal;
            height: 1;
            width: 1fr;
            & > RadioButton {
                width: auto;
                margin-right: 2;
            }
        }
        #memory-importance {
            width: 6;
        }
        #memory-importance-row {
            height: 1;
            & > Static {
                color: $text-muted;
                padding-left: 2;
            }
        }
        #memory-kind-hint {
            color: $text-muted;
        }
        #memory-errors {
            color: $error;
            height: auto;
            margin-top: 1;
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("MemoryEditor")

    def __init__(
        self,
        draft: MemoryDraft | None = None,
        *,
        heading: str = "New memory entry",
        note: str = "",
        allow_conversation_scope: bool = True,
        project: str | None = None,
    ) -> None:
        super().__init__()
        self._draft = draft or MemoryDraft()
        self._heading = heading
        self._note = note
        self._allow_conversation = allow_conversation_scope
        self._project = project
        """The name of the project the entry belongs to: offered as its scope (None: none)."""

    def compose(self) -> ComposeResult:
        draft = self._draft
        with Vertical() as dialog:
            dialog.border_title = plain(self._heading)
            if self._note:
                yield Static(plain(self._note), id="memory-note")
            yield TextArea(clean(draft.text), soft_wrap=True, id="memory-text")
            with Grid():
                yield Label("Key")
                yield Input(
                    clean(draft.key or ""),
                    placeholder="optional short name, e.g. python-version",
                    compact=True,
                    id="memory-key",
                )
                yield Label("Kind")
                with RadioSet(compact=True, id="memory-kind"):
                    for kind in MemoryKind:
                        yield ShapedRadioButton(
                            kind.value,
                            value=kind is draft.kind,
                            name=kind.value,
                            id=f"kind-{kind.value}",
                        )
                yield Label("")
                yield Static(KIND_HINTS[draft.kind], id="memory-kind-hint")
                yield Label("Scope")
                with RadioSet(compact=True, id="memory-scope"):
                    for scope, label in SCOPES:
                        if scope == "project":
                            if self._project is None:
                                continue
                            label = f"project {self._project}"
                        yield ShapedRadioButton(
                            content(label),  # a project's name is never markup
                            value=scope == draft.scope,
                            name=scope,
                            id=f"scope-{scope}",
                            disabled=scope == "conversation" and not self._allow_conversation,
                        )
                yield Label("Importance")
                with Horizontal(id="memory-importance-row"):
                    yield Input(
                        str(draft.importance),
                        type="integer",
                        max_length=2,
                        compact=True,
                        id="memory-importance",
                    )
                    yield Static("1 trivia … 10 essential")
                yield Label("Pinned")
                yield ShapedCheckbox(
                    "always include it, before unpinned entries",
                    draft.pinned,
                    compact=True,
                    id="memory-pinned",
                )
            yield Static("", id="memory-errors")
            with Horizontal(id="memory-buttons", classes="dialog--buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Save", id="save", variant="primary")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    @on(RadioSet.Changed, "#memory-kind")
    def _kind_changed(self, event: RadioSet.Changed) -> None:
        kind = MemoryKind(event.pressed.name or MemoryKind.FACT.value)
        self.query_one("#memory-kind-hint", Static).update(KIND_HINTS[kind])

    def _chosen(self, radio_set_id: str, default: str) -> str:
        pressed = self.query_one(radio_set_id, RadioSet).pressed_button
        return pressed.name if pressed is not None and pressed.name else default

    def draft(self) -> MemoryDraft | None:
        """The form as a draft, or None (with the problems shown) when it cannot be saved."""
        text = self.query_one(TextArea).text
        key = self.query_one("#memory-key", Input).value
        importance = self.query_one("#memory-importance", Input).value
        problems = validate(text, key, importance)
        self.query_one("#memory-errors", Static).update(plain("\n".join(problems)))
        if problems:
            return None
        chosen = self._chosen("#memory-scope", "global")
        scope: Scope = "conversation" if chosen == "conversation" else "global"
        if chosen == "project" and self._project is not None:
            scope = "project"
        return MemoryDraft(
            text=text.strip(),
            key=key.strip() or None,
            kind=MemoryKind(self._chosen("#memory-kind", MemoryKind.FACT.value)),
            scope=scope,
            importance=int(importance),
            pinned=self.query_one(Checkbox).value,
        )

    @on(Button.Pressed, "#save")
    @on(Input.Submitted)
    def action_save(self) -> None:
        draft = self.draft()
        if draft is not None:
            self.dismiss(draft)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
