"""Whether the model server answers at all, and what to do when nothing listens there."""

from __future__ import annotations

from pathlib import Path

from ctxchat.chat.session import ChatSession
from ctxchat.model.errors import ErrorKind, ProviderError

__all__ = ["cannot_reach", "unreachable_notice"]


def cannot_reach(base_url: str, config: Path | None) -> str:
    """The one line that says nothing answers at `base_url`, and how to fix it."""
    where = f"change base_url in {config}" if config is not None else "set OPENAI_BASE_URL"
    return (
        f"Cannot reach the model server at {base_url}: start it, or {where} (or pass --base-url)."
    )


async def unreachable_notice(session: ChatSession, config: Path | None) -> str | None:
    """`cannot_reach` when nothing answers at the session's server; None when something
    does (even a refusal: a server that wants a key is there) or there is no server."""
    if session.backend is None:
        return None
    try:
        await session.backend.list_models()
    except ProviderError as error:
        if error.kind is ErrorKind.CONNECTION:
            return cannot_reach(session.profile.base_url, config)
    return None
