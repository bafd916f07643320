"""The "ask again without…" dialog: what to leave out of a reply's request, the mode, and the
profile and model to ask (the same context)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, RadioSet, Select, SelectionList, Static
from textual.widgets.selection_list import Selection

from ctxchat.core.counterfactual import LEAVABLE_LAYERS, Change
from ctxchat.core.memory import Mode
from ctxchat.core.plan import ContextPlan
from ctxchat.redaction import shown_url
from ctxchat.tui.actions import bindings_for
from ctxchat.tui.screens.dialog import Dialog
from ctxchat.tui.text import content, tokens
from ctxchat.tui.widgets.footer import KeyFooter
from ctxchat.tui.widgets.shaped_toggles import ShapedRadioButton, ShapedSelectionList

__all__ = ["AskAgainDialog", "leavable_choices"]


def leavable_choices(plan: ContextPlan) -> list[tuple[str, str]]:
    """(label, value) of every layer and item of the plan a variant can leave out."""
    choices: list[tuple[str, str]] = []
    for layer in plan.layers:
        if layer.layer not in LEAVABLE_LAYERS or not layer.items:
            continue
        name = layer.layer.value
        choices.append((f"{name}: the whole layer ({tokens(layer.tokens)} tokens)", name))
        for item in layer.items:
            if item.ref != "date":
                label = f"  {item.ref} · {item.label}" if item.label else f"  {item.ref}"
                choices.append((label, item.ref))
    return choices


class AskAgainDialog(Dialog[Change | None]):
    """Choose the change; dismiss with it, or None on cancel."""

    DEFAULT_CSS = """
    AskAgainDialog {
        & > Vertical {
            width: 80;
            max-width: 95%;
            height: auto;
            max-height: 90%;
            padding: 1 2;
        }
        SelectionList {
            height: auto;
            max-height: 12;
        }
        RadioSet {
            width: 100%;
        }
        #ask-again-asked {
            height: auto;
            & > Select {
                width: 3fr;
            }
            & > Input {
                width: 2fr;
            }
        }
        .ask-again--label {
            margin-top: 1;
            color: $foreground-muted;
        }
        #ask-again-error {
            color: $error;
            height: auto;
        }
        .dialog--buttons {
            margin-top: 1;
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("AskAgainDialog")

    def __init__(
        self,
        reply_id: int,
        plan: ContextPlan,
        model: str,
        *,
        profiles: Sequence[tuple[str, str, str]] = (),
        profile: str = "",
        reply_model: str | None = None,
    ) -> None:
        """`model` is the one to ask unless changed here (the reply's, or the one chosen
        for the conversation); `reply_model` the reply's, when that differs (asking another
        is a change); `profiles` the config's (name, base URL, model), `profile` the one the
        conversation talks to."""
        super().__init__()
        self._reply_id = reply_id
        self._plan = plan
        self._model = model
        self._reply_model = reply_model or model
        self._mode = Mode(plan.mode)
        self._profiles = {name: (base_url, default) for name, base_url, default in profiles}
        self._profile = profile

    def compose(self) -> ComposeResult:
        choices = leavable_choices(self._plan)
        with Vertical():
            yield Static(
                content(f"Ask reply {self._reply_id} again without…"), classes="dialog--title"
            )
            if choices:
                yield ShapedSelectionList[str](
                    *(Selection(content(label), value) for label, value in choices),
                    id="ask-again-without",
                )
            else:
                yield Static(
                    content("This request has no memory, summary or recall to leave out."),
                    classes="ask-again--label",
                )
            yield Static(content("Mode"), classes="ask-again--label")
            with RadioSet(id="ask-again-mode"):
                yield ShapedRadioButton(content(f"as asked ({self._mode.value})"), value=True)
                yield ShapedRadioButton(content(f"{self._mode.toggled().value} mode"))
            yield Static(content("Profile and model (same context)"), classes="ask-again--label")
            with Horizontal(id="ask-again-asked"):
                if self._profiles:
                    yield Select[str](
                        (
                            (content(f"{name} — {default} at {shown_url(base_url)}"), name)
                            for name, (base_url, default) in self._profiles.items()
                        ),
                        value=self._profile if self._profile in self._profiles else Select.NULL,
                        allow_blank=self._profile not in self._profiles,
                        id="ask-again-profile",
                    )
                yield Input(self._model, id="ask-again-model")
            yield Static("", id="ask-again-error")
            with Horizontal(classes="dialog--buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Ask again", id="ask", variant="primary")
        yield KeyFooter()

    def change(self) -> Change:
        """The change as chosen so far."""
        without: tuple[str, ...] = ()
        for selections in self.query("#ask-again-without").results(SelectionList):
            without = tuple(str(value) for value in selections.selected)
        other = self.query_one("#ask-again-mode", RadioSet).pressed_index == 1
        profile = self._chosen_profile()
        model = self.query_one("#ask-again-model", Input).value.strip()
        as_is = self._reply_model if profile is None else self._profiles[profile][1]
        return Change(
            without=without,
            mode=self._mode.toggled() if other else None,
            model=model if model and model != as_is else None,
            profile=profile,
        )

    def _chosen_profile(self) -> str | None:
        """Another profile than the conversation's, if one is chosen."""
        for select in self.query("#ask-again-profile").results(Select):
            value = select.value
            if isinstance(value, str) and value != self._profile:
                return value
        return None

    @on(Select.Changed, "#ask-again-profile")
    def _profile_changed(self, event: Select.Changed) -> None:
        """The model follows the profile: its own, or the reply's for the conversation's."""
        if isinstance(event.value, str) and event.value in self._profiles:
            model = self._model if event.value == self._profile else self._profiles[event.value][1]
            self.query_one("#ask-again-model", Input).value = model

    @on(Input.Submitted)
    @on(Button.Pressed, "#ask")
    def action_ask(self) -> None:
        change = self.change()
        if change == Change():
            self.query_one("#ask-again-error", Static).update(
                content(
                    "Choose something to leave out, the other mode, or another profile or model."
                )
            )
            return
        self.dismiss(change)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
