"""A conversation's word statistics, kept between runs: recall weighs a draft's words by how
many of the conversation's messages hold them, and counting that over 20,000 messages took
most of a `ctxchat context` (a third of a second and more; see `bench/ui.py --only context`).

The statistics of the messages up to some point are kept in the cache directory with a
fingerprint of those messages (ids, and the text of each one that may be sent). The next
run checks the fingerprint against the history as it is now and counts only the messages
after that point; an edit, a deletion or an exclusion anywhere before it changes the
fingerprint, and everything is counted again. A file that cannot be read is no file.
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ctxchat.core.history import HistoryMessage
from ctxchat.core.termstats import ConversationTerms

KEEP_AFTER = 500
"""Messages counted since the kept statistics (or at all) before they are written: a long
conversation's file is written now and then, not on every command; a short one's never
(counting it costs less than reading a file)."""

_directory: Path | None = None


def use_directory(directory: Path | None) -> None:
    """Keep statistics in `directory` (None: count them on every run)."""
    global _directory
    _directory = directory


def _fingerprinted(messages: Sequence[HistoryMessage], digest: Any = None) -> Any:
    """`digest` (a new one when None) fed with `messages`' ids and texts: a fingerprint read
    back is checked on the kept messages, then the same digest goes on over the rest."""
    if digest is None:
        digest = hashlib.blake2b(digest_size=16)
    for message in messages:
        digest.update(message.id.to_bytes(8, "little", signed=True))
        digest.update(message.content.encode("utf-8", "surrogatepass"))
        digest.update(b"\x00")
    return digest


def _file(database: Path, conversation_id: int) -> Path | None:
    if _directory is None:
        return None
    where = hashlib.blake2b(str(database).encode("utf-8", "surrogatepass"), digest_size=8)
    return _directory / "terms" / f"{where.hexdigest()}-{conversation_id}.marshal"


def _read(path: Path) -> tuple[int, bytes, ConversationTerms] | None:
    with contextlib.suppress(OSError, EOFError, ValueError, TypeError):
        kept = marshal.loads(path.read_bytes())
        if isinstance(kept, tuple) and len(kept) == 3:
            count, fingerprint, state = kept
            terms = ConversationTerms.from_state(state)
            if isinstance(count, int) and isinstance(fingerprint, bytes) and terms is not None:
                return count, fingerprint, terms
    return None


def _write(path: Path, count: int, fingerprint: bytes, terms: ConversationTerms) -> None:
    with contextlib.suppress(OSError, ValueError):
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        try:
            temporary.write_bytes(marshal.dumps((count, fingerprint, terms.state())))
            os.replace(temporary, path)  # another ctxchat may write it too: whole or not at all
        finally:
            temporary.unlink(missing_ok=True)


def conversation_terms(
    database: Path, conversation_id: int | None, history: Sequence[HistoryMessage]
) -> ConversationTerms:
    """The word statistics of `history`'s messages that may be sent (as `history_terms`
    counts them), read back from the last run where they still hold."""
    sendable = [message for message in history if message.sendable]
    path = None if conversation_id is None else _file(database, conversation_id)
    kept = None if path is None else _read(path)
    start, terms, digest = 0, ConversationTerms(), None
    if kept is not None:
        count, fingerprint, kept_terms = kept
        if count <= len(sendable):
            checked = _fingerprinted(sendable[:count])
            if checked.digest() == fingerprint:
                start, terms, digest = count, kept_terms, checked
    for message in sendable[start:]:
        terms.add(message.content, message.id)
    if path is not None and len(sendable) - start >= KEEP_AFTER:
        whole = _fingerprinted(sendable[start:], digest)  # the kept part is not read again
        _write(path, len(sendable), whole.digest(), terms)
    return terms
