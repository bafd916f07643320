"""Importing a history file, for the command line and the TUI alike: which tool it comes from
(or the one named), its conversations stored with each message counted once, in one
transaction, and what happened said in a sentence."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ctxchat.core.tokens import TokenCounter
from ctxchat.store import Store
from ctxchat.store.connection import is_database_file
from ctxchat.store.export_check import describe_problems, export_problems
from ctxchat.store.history_import import ImportOutcome, ImportReport, Progress
from ctxchat.store.importers import (
    CTXCHAT,
    SOURCES,
    HistoryFormatError,
    HistorySource,
    NotJson,
    detect_source,
    read_history,
)


@dataclass(frozen=True, slots=True)
class FileImport:
    """What importing a file did: its tool, the report of its conversations (or, for ctxchat's
    own export, the one conversation's new id), and whether it was only a dry run."""

    path: Path
    source: HistorySource | None
    report: ImportReport | None = None
    conversation_id: int | None = None
    dry_run: bool = False

    @property
    def conversation_ids(self) -> list[int]:
        """The conversations it added (none in a dry run)."""
        if self.conversation_id is not None:
            return [self.conversation_id]
        if self.report is None:
            return []
        return [o.conversation_id for o in self.report.added if o.conversation_id is not None]

    def summary(self) -> str:
        """One sentence (two when some were there before) on what was or would be imported."""
        if self.source is None or (self.report is None and self.conversation_id is None):
            return f"{self.path.name} holds no conversations; nothing to import."
        if self.report is None:
            return f"Imported as conversation {self.conversation_id}."
        report, label = self.report, self.source.label
        added = len(report.added)
        counts = f"{report.messages:,} message{'s' * (report.messages != 1)}"
        if report.answers:
            counts += f", {report.answers:,} other answer{'s' * (report.answers != 1)} as variants"
        verb = "Would import" if self.dry_run else "Imported"
        if added:
            line = f"{verb} {added:,} conversation{'s' * (added != 1)} from {label} ({counts})"
            ids = self.conversation_ids
            if ids:
                line += f" as conversation{'s' * (len(ids) != 1)} {_span(ids)}"
            line += "."
        else:
            line = f"Nothing new to import from {label}."
        notes = []
        if report.already:
            before = len(report.already)
            notes.append(
                f"{before:,} {'was' if before == 1 else 'were'} imported before and "
                f"{'is' if before == 1 else 'are'} left as {'it is' if before == 1 else 'they are'}."
            )
        if report.empty:
            notes.append(
                f"{report.empty:,} without any message {'was' if report.empty == 1 else 'were'} left out."
            )
        if self.dry_run:
            notes.append("Nothing was changed.")
        return " ".join([line, *notes])


def _span(ids: list[int]) -> str:
    first, last = min(ids), max(ids)
    if first == last:
        return str(first)
    return f"{first}–{last}" if last - first + 1 == len(ids) else f"{first}–{last} (not all)"


def import_file(
    store: Store,
    path: Path,
    *,
    counter: TokenCounter,
    source: str | None = None,
    dry_run: bool = False,
    progress: Progress | None = None,
) -> FileImport:
    """Import `path` (from the tool `source` names, else the one it is recognised as).

    Raises StoreError (a HistoryFormatError for a file that is not the history it was taken
    for, damaged, or unknown: one line naming the first place that is wrong; nothing of it is
    stored) and OSError when the file cannot be read.
    """
    if is_database_file(path, store.path):
        # Never opened by path: closing the descriptor would drop this process's SQLite locks.
        raise HistoryFormatError(
            f"{path} is ctxchat's own database (or one of its files); nothing was imported"
        )
    name = source or _detect(path)
    if name is None:
        return FileImport(path, None, dry_run=dry_run)
    chosen = SOURCES[name]
    if name == CTXCHAT:
        return _ctxchat_export(store, path, chosen, dry_run)
    try:
        report = store.imports.import_history(
            read_history(path, name), name, counter, dry_run=dry_run, progress=progress
        )
    except HistoryFormatError as error:
        raise HistoryFormatError(
            f"{path} is not {chosen.file} as ctxchat reads it: {error}; nothing was imported"
        ) from None
    return FileImport(path, chosen, report, dry_run=dry_run)


def _detect(path: Path) -> str | None:
    try:
        return detect_source(path)
    except NotJson as error:
        raise HistoryFormatError(
            f"{path} is not a JSON export: {error}; nothing was imported"
        ) from None
    except HistoryFormatError as error:
        raise HistoryFormatError(f"{path}: {error}; nothing was imported") from None


def _ctxchat_export(store: Store, path: Path, source: HistorySource, dry_run: bool) -> FileImport:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise HistoryFormatError(f"{path} is not a JSON export: {error}") from None
    if not isinstance(data, dict):
        raise HistoryFormatError(f"{path} is not a ctxchat JSON export")
    if not dry_run:
        return FileImport(path, source, conversation_id=store.transfer.import_conversation(data))
    problems = export_problems(data)
    if problems:
        raise HistoryFormatError(
            f"{path} does not match ctxchat's format, so nothing would be imported: "
            f"{describe_problems(problems)}"
        )
    conversation = data["conversation"]
    report = ImportReport(CTXCHAT)
    report.outcomes.append(
        ImportOutcome(
            str(conversation.get("title") or ""),
            "",
            len(data["messages"]),
            len(data.get("variants", ())),
            None,
            False,
        )
    )
    return FileImport(path, source, report, dry_run=True)
