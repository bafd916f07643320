"""The status line under the conversation: the server's notice while it holds, else the
conversation's own line."""

from __future__ import annotations

from textual.reactive import var
from textual.widgets import Static

from ctxchat.tui.text import content


class StatusLine(Static):
    """Says that nothing answers at the server (`notice`, in any conversation) while that
    holds, else what the conversation on screen says (`line`: who is writing, or the
    newest reply's counts). Each is drawn when it changes."""

    notice: var[str | None] = var(None)
    """That nothing answers at the server, or None."""
    line: var[str] = var("")
    """The conversation's own line."""

    def watch_notice(self) -> None:
        self._draw()

    def watch_line(self) -> None:
        self._draw()

    def _draw(self) -> None:
        if self.notice is not None:
            self.update(content(self.notice, "$error"))
        else:
            self.update(content(self.line))
