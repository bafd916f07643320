"""The files dialog: attach a file by its path, see what each attached file sends, detach."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.suggester import Suggester
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from ctxchat.chat.attachments import AttachRefused, FileStatus, complete_path
from ctxchat.chat.session import ChatSession
from ctxchat.core.files import DiskState
from ctxchat.store import StoreError
from ctxchat.tui.actions import bindings_for
from ctxchat.tui.screens.dialog import Dialog
from ctxchat.tui.text import content, plain
from ctxchat.tui.widgets.footer import KeyFooter

HINT = (
    "Enter attaches the path typed (→ completes it) · on a file: Delete detaches it, "
    "Ctrl+R reads it anew · Esc closes"
)
DISK_WORDS = {
    DiskState.SAME: "",
    DiskState.CHANGED: "changed on disk since attached",
    DiskState.GONE: "gone from disk",
}


def file_line(status: FileStatus) -> str:
    """`notes.md · 1,204 tokens · sent whole, 7.5% · changed on disk since attached`."""
    attachment = status.attachment
    parts = [attachment.name, f"{attachment.tokens:,} tokens", f"sent {status.how}"]
    if status.sent:
        parts[-1] += f", {status.share:.1%}"
    disk = DISK_WORDS.get(status.disk, status.disk.value)
    if disk:
        parts.append(disk)
    return " · ".join(parts)


class PathSuggester(Suggester):
    """Completes a path as it is typed, from the names in its folder (no file is read)."""

    def __init__(self) -> None:
        super().__init__(use_cache=False, case_sensitive=True)

    async def get_suggestion(self, value: str) -> str | None:
        found = complete_path(value, limit=1) if value else []
        return found[0] if found else None


class AttachedFiles(OptionList):
    """The attached files; its keys act on the highlighted one."""

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("AttachedFiles")

    def _act(self, detach: bool) -> None:
        dialog = self.screen
        if isinstance(dialog, FilesDialog) and self.highlighted is not None:
            dialog.act_on(self.highlighted, detach=detach)

    def action_detach(self) -> None:
        self._act(detach=True)

    def action_refresh(self) -> None:
        self._act(detach=False)


class FilesDialog(Dialog[None]):
    """Attach files to the conversation and detach them, through the session's files: each
    change is stored at once and `changed` is called (the files panel and the next request
    follow). A path that cannot be attached is one line, and the path stays to be fixed."""

    DEFAULT_CSS = """
    FilesDialog {
        & > Vertical {
            width: 90;
            max-width: 95%;
            height: auto;
            max-height: 90%;
            padding: 1 2;
        }
        #files-list {
            height: auto;
            max-height: 12;
            margin: 1 0 0 0;
        }
        #files-said {
            height: auto;
        }
        #files-said.-error { color: $error; }
        #files-said.-empty { display: none; }
        .files--hint {
            color: $text-muted;
            margin-top: 1;
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("FilesDialog")

    def __init__(self, session: ChatSession) -> None:
        super().__init__()
        self._session = session
        self._statuses: list[FileStatus] = []

    def compose(self) -> ComposeResult:
        with Vertical() as column:
            column.border_title = "Files"
            yield Static(plain("Files attached to this conversation"), classes="dialog--title")
            yield Input(
                placeholder="Path of a file to attach",
                suggester=PathSuggester(),
                id="files-path",
            )
            yield Static("", id="files-said", classes="-empty")
            yield AttachedFiles(id="files-list")
            yield Static(plain(HINT), classes="files--hint")
        yield KeyFooter()

    def on_mount(self) -> None:
        self._list_files()

    def _list_files(self) -> None:
        files = self._session.files
        self._statuses = files.statuses(self._session.plan(None))
        listing = self.query_one("#files-list", AttachedFiles)
        highlighted = listing.highlighted
        listing.clear_options()
        if not self._statuses:
            listing.add_option(Option(plain("No files are attached."), disabled=True))
            return
        listing.add_options([Option(plain(file_line(status))) for status in self._statuses])
        listing.highlighted = min(highlighted or 0, len(self._statuses) - 1)

    def _say(self, line: str, *, error: bool = False) -> None:
        said = self.query_one("#files-said", Static)
        said.update(content(line))
        said.set_class(error, "-error")
        said.set_class(not line, "-empty")

    @on(Input.Submitted, "#files-path")
    def _attach_typed(self) -> None:
        self.action_attach()

    def action_attach(self) -> None:
        """Attach the path typed in the box (Enter there, or the dialog's key from anywhere)."""
        path = self.query_one("#files-path", Input).value.strip()
        if not path:
            return
        self._attach_path(path, refresh=False)

    def _attach_path(self, path: str, *, refresh: bool) -> None:
        try:
            attached = self._session.files.attach(path, refresh=refresh)
        except (AttachRefused, StoreError) as refused:
            said = str(refused)
            self._say(said[:1].upper() + said[1:] + ".", error=True)
            return
        name = attached.attachment.name
        if attached.unchanged:
            self._say(f"{name} is attached already, unchanged.")
        else:
            verb = "Read anew" if attached.refreshed else "Attached"
            self._say(f"{verb} {name}: {attached.attachment.tokens:,} tokens.")
        if not refresh:
            self.query_one("#files-path", Input).value = ""
        self._list_files()

    def act_on(self, index: int, *, detach: bool) -> None:
        """Detach the file listed at `index`, or read it anew (`detach` False)."""
        if index >= len(self._statuses):
            return
        attachment = self._statuses[index].attachment
        if not detach:
            self._attach_path(attachment.path, refresh=True)
            return
        try:
            removed = self._session.files.detach(attachment.path)
        except StoreError as refused:
            self._say(f"Not detached: {refused}.", error=True)
            return
        self._say(f"Detached {removed.name}: the next request no longer sends it.")
        self._list_files()

    def action_close(self) -> None:
        self.dismiss(None)
