"""The status line under the conversation: that the database is locked while a message
waits for it, the server's notice while it holds, else the conversation's own line."""

from __future__ import annotations

from textual.reactive import var
from textual.widgets import Static

from ctxchat.chat.write_lock import LOCKED_NOTICE
from ctxchat.tui.text import content


class StatusLine(Static):
    """Says that nothing answers at the server (`notice`, in any conversation) while that
    holds, else what the conversation on screen says (`line`: who is writing, or the
    newest reply's counts). Each is drawn when it changes."""

    notice: var[str | None] = var(None)
    """That nothing answers at the server, or None."""
    line: var[str] = var("")
    """The conversation's own line."""
    locked: var[bool] = var(False)
    """Whether a message waits for another program's write lock on the database: said
    over both, as it is why nothing happens."""

    def say_locked(self, locked: bool) -> None:
        self.locked = locked

    def watch_locked(self) -> None:
        self._draw()

    def watch_notice(self) -> None:
        self._draw()

    def watch_line(self) -> None:
        self._draw()

    def _draw(self) -> None:
        if self.locked:
            self.update(content(LOCKED_NOTICE, "$warning"))
        elif self.notice is not None:
            self.update(content(self.notice, "$error"))
        else:
            self.update(content(self.line))
