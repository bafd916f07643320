"""Whether the model server answers at all, and what to do when nothing listens there."""

from __future__ import annotations

from pathlib import Path

from ctxchat.chat.session import ChatSession
from ctxchat.model.errors import ErrorKind, ProviderError
from ctxchat.redaction import shown_url

__all__ = ["cannot_reach", "unreachable_notice"]


def cannot_reach(base_url: str, config: Path | None) -> str:
    """The one line that says nothing answers at `base_url`, and how to fix it."""
    where = f"change base_url in {config}" if config is not None else "set OPENAI_BASE_URL"
    return (
        f"Cannot reach the model server at {shown_url(base_url)}: start it, or {where} "
        "(or pass --base-url)."
    )


async def unreachable_notice(session: ChatSession, config: Path | None) -> str | None:
    """`cannot_reach` when nothing answers at the session's server; None when something
    does (even a refusal: a server that wants a key is there) or there is no server.

    The check asks for the server's model list, and hands the answer on to the session
    (`take_listing`): what finds the server's model and window next does not ask again."""
    if session.backend is None:
        return None
    try:
        listing = await session.backend.model_listing()
    except ProviderError as error:
        if getattr(session.backend, "is_engine", False):
            return str(error)  # the engine could not start: it says why
        if error.kind is ErrorKind.CONNECTION:
            return cannot_reach(session.profile.base_url, config)
        return None
    session.server.heard_listing(listing)
    return None
