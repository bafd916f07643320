"""The jobs line under the conversation: every job running (a summary, an extraction, the
model list, an import, a summary another ctxchat makes of this conversation), its seconds,
and the key that cancels it, until it ends."""

from __future__ import annotations

from collections.abc import Iterable

from textual.reactive import var
from textual.timer import Timer
from textual.widgets import Static

from ctxchat.chat.summary_job import current_job
from ctxchat.tui.actions import key_for
from ctxchat.tui.job_words import CANCEL, job_line, other_line
from ctxchat.tui.on_screen import OnScreen
from ctxchat.tui.parts.part import Flow
from ctxchat.tui.text import content

TICK = 1.0
"""Seconds between two redraws while a job runs: its seconds count, another process's
record is read again."""


class JobsLine(Static):
    """Watches the flows' `job` (`follow`) and the summary job of the conversation on
    screen recorded by another process (read again each second while one shows, and when
    another process wrote: `look_again`); one line per job, hidden when none runs.

    `running` is whether a job of this app runs (its cancel key means something)."""

    DEFAULT_CSS = """
    JobsLine {
        height: auto;
        max-height: 4;
        padding: 0 1;
        color: $text-accent;
        display: none;
    }
    """

    shown: var[OnScreen | None] = var(None)
    """The conversation on screen (bound to the screen's)."""
    running: var[bool] = var(False, bindings=True)
    """Whether a job of this app runs (the screen's cancel key shows only while it does)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, markup=False)
        self._flows: tuple[Flow, ...] = ()
        self._timer: Timer | None = None

    def follow(self, flows: Iterable[Flow]) -> None:
        """Show the jobs of `flows`, each time one starts or ends."""
        self._flows = tuple(flows)
        for flow in self._flows:
            self.watch(flow, "job", self.look_again, init=False)
        self.look_again()

    def cancel_jobs(self) -> None:
        """Stop every job of the flows it follows (each says so)."""
        for flow in self._flows:
            flow.cancel_job()

    def watch_shown(self) -> None:
        self.look_again()

    def look_again(self) -> None:
        """Draw the jobs as they are now."""
        lines = self.lines()
        self.running = any(flow.job is not None for flow in self._flows)
        self.display = bool(lines)
        self.update(content("\n".join(lines)))
        if lines and self._timer is None:
            self._timer = self.set_interval(TICK, self.look_again)
        elif not lines and self._timer is not None:
            self._timer.stop()
            self._timer = None

    def lines(self) -> list[str]:
        """The line of each job running: this app's, then another process's."""
        shown = self.shown
        if shown is None:
            return []
        session = shown.session
        now = session.store.now()
        key = key_for(self.app, session.settings.keymap, CANCEL)
        lines = [
            job_line(flow.job, flow.progress(flow.job), now, key)
            for flow in self._flows
            if flow.job is not None
        ]
        other = current_job(session)
        if other is not None and other.running and not other.here:
            lines.append(other_line(other, now))
        return lines
