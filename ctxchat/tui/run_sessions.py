"""RunSessions: one session object per conversation for the app's run."""

from __future__ import annotations

from collections.abc import Callable

from ctxchat.chat.session import ChatSession


class RunSessions:
    """The session of each conversation opened in this run (`ConversationScreen.sessions`).

    Opening a conversation again gives back the session it had, with the mode, model and
    what it learned of the server there: a reply still streaming, a summary folding, a
    message queued or an embedding worker all hold the session the screen shows once the
    conversation is back, so none of them has to find "its conversation's session" again.
    (Conversation ids are never reused: the store's ids are AUTOINCREMENT.) A session made
    before the profiles were changed in the app (a server fixed, a profile dropped) gives
    way to a new one, made as the configuration is now; one kept is told to follow the
    model its conversation has chosen now (another process may have chosen one since).
    """

    def __init__(self) -> None:
        self._sessions: dict[int, ChatSession] = {}

    def of(
        self,
        conversation_id: int,
        current: ChatSession,
        make: Callable[[], ChatSession],
        follow: Callable[[ChatSession], object] = lambda session: None,
    ) -> ChatSession:
        """The session of `conversation_id`, opened from `current` (`make` builds it the
        first time, or when the profiles changed since it was made; `follow` brings one
        kept up to its conversation's choice of model as stored now)."""
        session = self._sessions.get(conversation_id)
        if session is None or not configured_alike(session, current):
            session = self._sessions[conversation_id] = make()
        else:
            follow(session)
        return session

    def keep(self, session: ChatSession) -> None:
        """Hold `session` as its conversation's (a session that has no conversation yet is
        held once its first message gave it one)."""
        if session.conversation_id is not None:
            self._sessions[session.conversation_id] = session


def configured_alike(session: ChatSession, current: ChatSession) -> bool:
    """Whether `session` was made with the profiles `current` has now (the app updates the
    session on screen when the user changes a profile)."""
    return (
        session.settings.profiles == current.settings.profiles
        and session.default_profile == current.default_profile
    )
