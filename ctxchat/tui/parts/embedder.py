"""Embedder: recall by meaning made ready for the conversation on screen (the embeddings extra)."""

from __future__ import annotations

from textual import on

from ctxchat.chat.session import ChatSession
from ctxchat.chat.session_factory import semantic_recall_for
from ctxchat.tui.parts.part import Part
from ctxchat.tui.semantic_catch_up import SemanticCatchUp


class Embedder(Part):
    """Loads the encoder and embeds what of a conversation has no vector yet, in a thread
    worker (`SemanticCatchUp`), one per conversation; each time recall by meaning can serve
    it with more than before, the session is given it (and the planner follows)."""

    def embed(self, session: ChatSession) -> None:
        """Embed `session`'s conversation, off the UI thread (nothing without the extra)."""
        # The same recall the commands get (see chat/session_factory.py).
        semantic = session.semantic or semantic_recall_for(session)
        if semantic is None:
            return
        job = SemanticCatchUp(
            session,
            semantic,
            tell=self,
            still_shown=lambda: self.shows(session),
            others=session.recaller.others(),
        )
        group = f"semantic-{session.stored_id}"
        self.run_worker(job.run, thread=True, group=group, exclusive=True, exit_on_error=False)

    @on(SemanticCatchUp.Ready)
    def _ready(self, event: SemanticCatchUp.Ready) -> None:
        event.stop()
        # The conversation's session for the run (`RunSessions`), on screen or not.
        event.session.semantic = event.semantic  # its recall is worked out again
