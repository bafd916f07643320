"""AskAgainFlow: ask a reply again with a change (F8) and compare; a reply's variants (F7)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message

from ctxchat.chat.options import SessionOptions
from ctxchat.chat.session import ChatSession
from ctxchat.chat.session_factory import Connect, follows_choice, open_session
from ctxchat.chat.workspace import Workspace
from ctxchat.config.errors import MissingApiKey, UnknownProfile
from ctxchat.tui.parts.part import Flow

if TYPE_CHECKING:
    from ctxchat.core.counterfactual import Change
    from ctxchat.tui.screens.variant_compare import VariantKept
    from ctxchat.tui.screens.variant_list import VariantChoice


def reply_to_ask_again(session: ChatSession, selected: int | None) -> int | None:
    """The selected message if it is a reply, else the conversation's newest reply."""
    if selected is not None and session.store.messages.get_message(selected).role == "assistant":
        return selected
    replies = [m for m in session.history() if m.role == "assistant"]
    return replies[-1].id if replies else None


class AskAgainFlow(Flow):
    """The dialogs of asking again (the comparison screen sends the request itself); this
    part closes the session a comparison with another profile opened, in its worker, and
    says when a variant became the reply (`ReplyReplaced`)."""

    @dataclass
    class ReplyReplaced(Message):
        """A variant became the reply in `session`'s conversation: it is drawn again."""

        session: ChatSession
        reply_id: int

    @dataclass
    class VariantChosen(Message):
        """The user chose a variant in the list: to keep, or to open beside the reply."""

        choice: VariantChoice

    def __init__(self, workspace: Workspace) -> None:
        super().__init__()
        self.workspace = workspace

    def ask_again(self, selected: int | None) -> None:
        """Ask the `selected` reply (or the newest) of the conversation on screen again,
        with a change the dialog asks for."""
        session = self.session
        if session is None:
            return
        reply_id = reply_to_ask_again(session, selected)
        plan = None if reply_id is None else session.store.plans.load_plan(reply_id)
        if reply_id is None or plan is None:
            self.notify("There is no reply with a stored request to ask again.", markup=False)
            return
        # The model chosen for the conversation (F4) is the one it asks, unless changed
        # there: a change from the reply's own model, said so in the variant.
        reply_model = session.store.messages.get_message(reply_id).model or session.model
        model = session.model if self._follows_choice(session) else reply_model
        profiles = [(p.name, p.base_url, p.model) for p in session.settings.profiles.values()]
        from ctxchat.tui.screens.ask_again import AskAgainDialog

        dialog = AskAgainDialog(
            reply_id,
            plan,
            model,
            profiles=profiles,
            profile=session.profile.name,
            reply_model=reply_model,
        )
        self.app.push_screen(dialog, lambda change: self._asked(session, reply_id, change))

    @staticmethod
    def _follows_choice(session: ChatSession) -> bool:
        """Whether `session` talks to a profile or model chosen for its conversation."""
        if session.conversation_id is None:
            return False
        conversation = session.store.conversations.get_conversation(session.conversation_id)
        return follows_choice(session.settings, conversation)

    def _asked(self, session: ChatSession, reply_id: int, change: Change | None) -> None:
        if change is None:
            return
        try:
            asking = self._session_asking(session, change)
        except (MissingApiKey, UnknownProfile) as error:
            self.notify(str(error), severity="error", markup=False)
            return
        if asking.backend is None:
            self.notify("No model server is configured.", severity="error", markup=False)
            return
        from ctxchat.chat.ask_again import AskAgainError, prepare_variant

        try:
            prepared = prepare_variant(asking, reply_id, change)
        except AskAgainError as error:
            self._close_other(asking)
            self.notify(str(error), severity="error", markup=False)
            return
        from ctxchat.tui.screens.variant_compare import VariantComparison

        def done(result: VariantKept | None) -> None:
            self._close_other(asking)
            self._kept(session, result)

        self.app.push_screen(VariantComparison(asking, prepared), done)

    def _session_asking(self, session: ChatSession, change: Change) -> ChatSession:
        """`session`, or for another profile one on the same conversation that talks to
        that profile's server (its base URL, key and headers). Raises MissingApiKey and
        UnknownProfile."""
        if not change.profile:
            return session
        options = SessionOptions(
            profile=change.profile, model=change.model, conversation=session.conversation_id
        )
        return open_session(self.workspace, options, session.conversation_id, connect=Connect.MUST)

    def _close_other(self, session: ChatSession) -> None:
        """Close a session opened for another profile (its connections)."""
        if self.shown is None or session is not self.shown.session:
            self.run_worker(session.aclose(), group="close-variant-session", exit_on_error=False)

    def _kept(self, session: ChatSession, result: VariantKept | None) -> None:
        """A variant became the reply: say so (its conversation is drawn again)."""
        if result is None or self.shown is None:
            return
        self.notify(
            f"Reply {result.reply.id} now continues from the variant; the former answer is "
            "kept as a variant.",
            markup=False,
        )
        self.post_up(lambda: self.ReplyReplaced(session, result.reply.id))

    # --- a reply's variants ---------------------------------------------------------------

    def show_variants(self, selected: int | None) -> None:
        """List the variants of the `selected` reply (or the newest) of the conversation on
        screen: open one beside it, or keep it."""
        session = self.session
        if session is None:
            return
        reply_id = reply_to_ask_again(session, selected)
        variants = [] if reply_id is None else session.store.variants.variants(reply_id)
        if reply_id is None or not variants:
            self.notify(
                "This reply has no variants: F8 asks it again with a change, regenerating "
                "keeps the reply it replaces as one.",
                markup=False,
            )
            return
        from ctxchat.tui.screens.variant_list import VariantList

        def chosen(choice: VariantChoice | None) -> None:
            if choice is not None:
                self.post_up(lambda: self.VariantChosen(choice))

        self.app.push_screen(VariantList(reply_id, variants), chosen)

    def open_variant(self, session: ChatSession, choice: VariantChoice) -> None:
        """Keep the variant `choice` names as the reply, or open it beside the reply."""
        from ctxchat.chat.ask_again import stored_comparison
        from ctxchat.tui.screens.variant_compare import VariantComparison, VariantKept

        if choice.keep:
            self._kept(session, VariantKept(session.keep_variant(choice.variant_id)))
            return
        store = session.store
        variant = store.variants.get_variant(choice.variant_id)
        stored = (stored_comparison(store, variant), variant)
        self.app.push_screen(
            VariantComparison(session, stored=stored),
            lambda result: self._kept(session, result),
        )
