"""Requests shown before they go: the inspector on what a regenerate or an edit would send,
its layers' tokens and what it keeps, its Diff against the reply's own request."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from textual.binding import BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from ctxchat.core.budget import Layer
from ctxchat.core.plan import ContextPlan
from ctxchat.tui.actions import bindings_for
from ctxchat.tui.screens.inspector import Render, RequestInspector
from ctxchat.tui.text import clean, tokens


def layer_line(plan: ContextPlan) -> str:
    """The plan's tokens per layer in one line ("system 12 · recall 1,126 · … = 1,840 of
    6,976 tokens"), each layer that sends something."""
    parts = [f"{layer.layer.value} {tokens(layer.tokens)}" for layer in plan.layers if layer.tokens]
    return f"{' · '.join(parts)} = {tokens(plan.tokens)} of {tokens(plan.total_budget)} tokens"


def kept_notes(plan: ContextPlan) -> tuple[str, ...]:
    """What the plan says it kept of the original request (its input layer's notes)."""
    try:
        return plan.layer(Layer.INPUT).notes
    except KeyError:
        return ()


class ReplyInspector(RequestInspector):
    """The request a reply came from; for the newest reply, ctrl+g shows the request a
    regenerate would send (`regenerate` is then called) before anything goes."""

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("ReplyInspector")

    def __init__(
        self,
        body: Mapping[str, Any],
        plan: ContextPlan,
        *,
        title: str,
        render: Render | None,
        regenerate: Callable[[], None] | None,
    ) -> None:
        super().__init__(body, plan, title=title, render=render)
        self._regenerate = regenerate

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Only the newest reply can be regenerated: the key is not offered on another.
        return self._regenerate is not None if action == "regenerate" else True

    def action_regenerate(self) -> None:
        regenerate = self._regenerate
        if regenerate is not None:
            self.dismiss(None)
            regenerate()


class PlannedRequest(RequestInspector):
    """A request not sent yet (a regenerate, an edit sent again): the inspector on it, with
    its layers' tokens and what it keeps of the original request above the tabs, the Diff
    against that request; `send` (when given) sends it on ctrl+g, Esc closes unsent."""

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("PlannedRequest")

    DEFAULT_CSS = """
    PlannedRequest .planned--layers { padding: 0 1; }
    PlannedRequest .planned--kept { padding: 0 1; color: $foreground-muted; }
    PlannedRequest .planned--send { padding: 0 1; color: $accent; text-style: bold; }
    """

    def __init__(
        self,
        body: Mapping[str, Any],
        plan: ContextPlan,
        *,
        original: Mapping[str, Any] | ContextPlan | None,
        title: str,
        render: Render | None,
        send: Callable[[], None] | None = None,
    ) -> None:
        super().__init__(body, plan, previous=original, title=title, tab="diff", render=render)
        self._send = send

    def on_mount(self) -> None:
        dialog = self.query_one("#inspector-dialog", Vertical)
        lines = [Static(Content(clean(layer_line(self.plan))), classes="planned--layers")]
        lines += [
            Static(Content(clean(note)), classes="planned--kept") for note in kept_notes(self.plan)
        ]
        if self._send is not None:
            lines.append(
                Static(
                    Content("Not sent yet: ctrl+g sends it, Esc closes without sending."),
                    classes="planned--send",
                )
            )
        dialog.mount_all(lines, after=".inspector--summary")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self._send is not None if action == "regenerate" else True

    def action_regenerate(self) -> None:
        send = self._send
        if send is not None:
            self.dismiss(None)
            send()
