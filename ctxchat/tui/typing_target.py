"""Which keys typed outside the composer are typing meant for it."""

from __future__ import annotations

from textual import events
from textual.widget import Widget

from ctxchat.tui.widgets.conversation import ConversationView
from ctxchat.tui.widgets.layer_panel import ContextPanels, LayerPanel
from ctxchat.tui.widgets.memory_panel import MemoryPanel
from ctxchat.tui.widgets.queued_messages import QueuedRow

DRAFT_EDITING_KEYS = frozenset({"backspace", "delete", "ctrl+w", "ctrl+u"})
"""Keys that edit the draft and have no meaning in the conversation."""


def typing_for_composer(event: events.Event, focused: Widget | None) -> bool:
    """Whether `event`, about to reach `focused`, is typing meant for the composer: a
    printable key (or a paste) while the conversation, a queued message, the memory panel or a layer panel
    has focus, or one of the draft's editing keys typed in the conversation, where it means
    nothing (left there, it reached the composer's bindings after the keys that followed)."""
    # Alt with a letter is a command (alt+x leaves a question and answer out), never typing,
    # though the key carries the letter.
    typing = (
        isinstance(event, events.Key)
        and event.is_printable
        and not event.key.startswith(("alt+", "ctrl+"))
    ) or isinstance(event, events.Paste)
    edits_draft = (
        isinstance(event, events.Key)
        and event.key in DRAFT_EDITING_KEYS
        and isinstance(focused, ConversationView)
    )
    if not (typing or edits_draft) or focused is None:
        return False
    if isinstance(focused, ConversationView | QueuedRow) or isinstance(focused.parent, MemoryPanel):
        return True
    # A focused layer panel folds on space (and enter): every other key is typing.
    in_context = any(isinstance(node, ContextPanels) for node in focused.ancestors_with_self)
    folds = isinstance(event, events.Key) and event.key == "space"
    return in_context and not (folds and isinstance(focused, LayerPanel))
