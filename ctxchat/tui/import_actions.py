"""Importing another tool's history from the conversation list: ask for the file, import it
in a thread on a connection of its own (the app stays responsive while thousands of
conversations are stored), then list the conversations that came."""

from __future__ import annotations

from collections.abc import Callable, Collection

from textual import work

from ctxchat.chat.history_import import FileImport, import_file
from ctxchat.store import Store, StoreError
from ctxchat.tui.results_in_waiting import ResultsInWaiting
from ctxchat.tui.screens.import_history import ImportChoice, ImportHistoryScreen


class ImportActions(ResultsInWaiting):
    """The conversation list's import (ctrl+o there)."""

    def ask_import(self, then: Callable[[Collection[int]], None]) -> None:
        """Ask for the file and import it; `then(ids)` lists the conversations that came."""
        from ctxchat.store.importers import SOURCES

        sources = [(source.file, name) for name, source in SOURCES.items()]

        def chosen(choice: ImportChoice | None) -> None:
            if choice is not None:
                self.notify(f"Importing {choice.path.name}…", markup=False, timeout=3)
                self._import_history(choice, then)

        self.app.push_screen(ImportHistoryScreen(sources), chosen)

    @work(thread=True, exclusive=True, group="import", exit_on_error=False)
    def _import_history(
        self, choice: ImportChoice, then: Callable[[Collection[int]], None]
    ) -> None:
        session = self.session
        try:
            with Store.open(session.store.path) as store:
                done = import_file(
                    store, choice.path, counter=session.counter, source=choice.source
                )
        except StoreError as error:
            self.app.call_from_thread(self.notify, str(error), severity="error", markup=False)
            return
        except OSError as error:
            reason = error.strerror or str(error)
            self.app.call_from_thread(
                self.notify, f"Cannot read {choice.path}: {reason}.", severity="error", markup=False
            )
            return
        self.app.call_from_thread(self._imported, done, then)

    def _imported(self, done: FileImport, then: Callable[[Collection[int]], None]) -> None:
        self.notify(done.summary(), markup=False)
        if done.conversation_ids:
            then(done.conversation_ids)
