"""ContextSide: what the model will see: the context panels, the memory panel and its curation."""

from __future__ import annotations

from textual import getters, on
from textual.containers import Vertical
from textual.reactive import var

from ctxchat.chat.session import ChatSession
from ctxchat.chat.summary_notice import loss_flag
from ctxchat.core.budget import Layer
from ctxchat.core.plan import ContextPlan
from ctxchat.tui.actions import key_for
from ctxchat.tui.on_screen import OnScreen
from ctxchat.tui.parts.memory_curation import MemoryCuration
from ctxchat.tui.widgets.layer_panel import ContextPanels
from ctxchat.tui.widgets.memory_panel import MemoryPanel, PanelMessage

VERSIONS = "context.summaries"
"""The key that opens the summary's versions, where a flagged one is reviewed."""


def system_source(session: ChatSession) -> str:
    """The line under the system layer once a preset or the conversation's own prompt is in
    force: the preset and sampling, and whose prompt the request sends (`preset precise
    (temperature 0.2) · prompt: the conversation's own`); "" with neither (the config's)."""
    preset = session.preset_name
    if preset is None and session.own_system_prompt is None:
        return ""
    words = session.sampling.words()
    chosen = f"preset {preset}" if preset is not None else "no preset"
    sampling = f" ({' · '.join(words)})" if words else ""
    return f"{chosen}{sampling} · prompt: {session.system_prompt_source}"


class ContextSide(Vertical):
    """The context side of the conversation on screen (`shown`, bound to the screen's):
    the plan's panels and the memory panel, drawn from the plan it is given (`show_plan`).
    The memory panel's requests come here and go through `MemoryCuration` (the planner
    follows what it changes); its estimate of
    what the replies used is marked in the panels too. Leaving the panel (Esc) and going to
    an entry's source are the screen's."""

    shown: var[OnScreen | None] = var(None)
    """The conversation on screen."""

    context_panels = getters.query_one("#context", ContextPanels)
    memory_panel = getters.query_one("#memory", MemoryPanel)
    memory_curation = getters.query_one(MemoryCuration)

    def show_plan(self, plan: ContextPlan, previous: ContextPlan | None) -> None:
        """Draw `plan` (beside `previous`, the plan drawn before it: a mode switch's effect)."""
        shown = self.shown
        if shown is None:
            return
        facts = shown.reply_facts()
        self.context_panels.update_plan(
            plan,
            previous,
            window_source=shown.session.window.source,
            server_prompt_tokens=facts.server_prompt_tokens,
            sent_tokens=facts.sent_tokens,
            cached_tokens=facts.cached_tokens,
        )
        self.memory_panel.show_memory(shown.session, plan)
        self.context_panels.panels[Layer.SYSTEM].show_source(system_source(shown.session))
        active = shown.session.active_summary()
        flag = ""
        if active is not None and active.flagged:
            flag = loss_flag(
                len(active.lost), key_for(self.app, shown.session.settings.keymap, VERSIONS)
            )
        self.context_panels.flag_summary(flag)

    def forget_mode_change(self) -> None:
        """Drop the last mode switch's note (another conversation, or a message was sent)."""
        self.context_panels.forget_mode_change()

    def toggle(self) -> None:
        """Show or hide the side."""
        self.toggle_class("-hidden")

    def focus_memory(self) -> None:
        """Go to the memory panel (its list: the panel's keys work from it)."""
        self.memory_panel.option_list.focus()

    def add_memory(self) -> None:
        if self.shown is not None:
            self.memory_curation.add(self.shown.session)

    def pin_message(self, message_id: int, text: str) -> None:
        """Pin a message of the conversation (or the text selected in it) as an entry."""
        if self.shown is not None:
            self.memory_curation.pin_message(self.shown.session, message_id, text)

    def restore_memory(self) -> None:
        """Restore the highlighted entry if superseded, else the one superseded last."""
        if self.shown is not None:
            self.memory_curation.restore_latest(self.shown.session, self.memory_panel)

    @on(PanelMessage)
    def _memory_request(self, event: PanelMessage) -> None:
        if self.shown is not None:
            self.memory_curation.handle(self.shown.session, event)

    @on(MemoryPanel.UsageShown)
    def _usage_shown(self, event: MemoryPanel.UsageShown) -> None:
        event.stop()
        self.context_panels.mark_used(event.used)
