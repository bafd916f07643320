"""Ask a reply again with a change (`f8`, or the palette): the dialog, then both answers side
by side with the request diff; a reply's earlier variants (`f7`): open one beside the reply,
or keep it; keeping a variant redraws the conversation from it."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual.binding import Binding, BindingType

from ctxchat.chat.ask_again import AskAgainError, prepare_variant, stored_comparison
from ctxchat.chat.options import SessionOptions
from ctxchat.chat.session import ChatSession
from ctxchat.chat.session_factory import Connect, follows_choice, open_session
from ctxchat.config.errors import MissingApiKey, UnknownProfile
from ctxchat.core.counterfactual import Change
from ctxchat.tui.base import ConversationBase

if TYPE_CHECKING:
    from ctxchat.tui.screens.variant_compare import VariantKept
    from ctxchat.tui.screens.variant_list import VariantChoice


class AskAgainActions(ConversationBase):
    """The app's part in asking a reply again (the screens do the rest)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "f8",
            "ask_again",
            "Ask again",
            id="reply.ask_again",
            show=False,
            tooltip="Ask the selected reply (or the newest) again without a layer or item, "
            "in the other mode or to another profile or model",
        ),
        # Priority: the composer (a TextArea) has focus most of the time and binds f7 itself.
        Binding(
            "f7",
            "variants",
            "Variants",
            id="reply.variants",
            show=False,
            priority=True,
            tooltip="The selected reply's (or the newest's) variants: open one beside it, "
            "or keep one as the reply",
        ),
    ]

    def reply_to_ask_again(self) -> int | None:
        """The selected reply, else the newest one."""
        session = self.session
        selected = self.conversation_view.selected_id
        if selected is not None and session.store.get_message(selected).role == "assistant":
            return selected
        replies = [m for m in session.history() if m.role == "assistant"]
        return replies[-1].id if replies else None

    def action_ask_again(self) -> None:
        if not self.has_session:
            return
        session = self.session
        reply_id = self.reply_to_ask_again()
        plan = None if reply_id is None else session.store.load_plan(reply_id)
        if reply_id is None or plan is None:
            self.notify("There is no reply with a stored request to ask again.", markup=False)
            return
        # The model chosen for the conversation (F4) is the one it asks, unless changed
        # there: a change from the reply's own model, said so in the variant.
        reply_model = session.store.get_message(reply_id).model or session.model
        model = session.model if self._follows_choice() else reply_model
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
        self.app.push_screen(dialog, lambda change: self._ask_again(reply_id, change))

    def _follows_choice(self) -> bool:
        """Whether the open session talks to a profile or model chosen for its conversation."""
        session = self.session
        if session.conversation_id is None:
            return False
        conversation = session.store.get_conversation(session.conversation_id)
        return follows_choice(session.settings, conversation)

    def _ask_again(self, reply_id: int, change: Change | None) -> None:
        if change is None:
            return
        try:
            session = self._session_asking(change)
        except (MissingApiKey, UnknownProfile) as error:
            self.notify(str(error), severity="error", markup=False)
            return
        if session.backend is None:
            self.notify("No model server is configured.", severity="error", markup=False)
            return
        try:
            prepared = prepare_variant(session, reply_id, change)
        except AskAgainError as error:
            self._close_other(session)
            self.notify(str(error), severity="error", markup=False)
            return
        from ctxchat.tui.screens.variant_compare import VariantComparison

        def done(result: VariantKept | None) -> None:
            self._close_other(session)
            self._variant_kept(result)

        self.app.push_screen(VariantComparison(session, prepared), done)

    def _session_asking(self, change: Change) -> ChatSession:
        """The open session, or for another profile one on the same conversation that talks
        to that profile's server (its base URL, key and headers). Raises MissingApiKey and
        UnknownProfile."""
        session = self.session
        if not change.profile:
            return session
        options = SessionOptions(
            profile=change.profile, model=change.model, conversation=session.conversation_id
        )
        return open_session(self.workspace, options, session.conversation_id, connect=Connect.MUST)

    def _close_other(self, session: ChatSession) -> None:
        """Close a session opened for another profile (its connections)."""
        if not self.has_session or session is not self.session:
            self.run_worker(session.aclose(), group="close-variant-session", exit_on_error=False)

    def _variant_kept(self, result: VariantKept | None) -> None:
        """A variant became the reply: the conversation is drawn again from it."""
        if result is None or not self.has_session:
            return
        self.notify(
            f"Reply {result.reply.id} now continues from the variant; the former answer is "
            "kept as a variant.",
            markup=False,
        )
        self.call_later(self.show_conversation)

    # --- a reply's variants ---------------------------------------------------------------

    def action_variants(self) -> None:
        """List the selected (or newest) reply's variants."""
        if not self.has_session or self.app.screen is not self:
            return  # a priority key: not over a dialog
        reply_id = self.reply_to_ask_again()
        variants = [] if reply_id is None else self.session.store.variants(reply_id)
        if reply_id is None or not variants:
            self.notify(
                "This reply has no variants: F8 asks it again with a change, regenerating "
                "keeps the reply it replaces as one.",
                markup=False,
            )
            return
        from ctxchat.tui.screens.variant_list import VariantList

        self.app.push_screen(
            VariantList(reply_id, variants), lambda choice: self._variant_chosen(choice)
        )

    def _variant_chosen(self, choice: VariantChoice | None) -> None:
        if choice is None or self.streaming:
            return
        from ctxchat.tui.screens.variant_compare import VariantComparison, VariantKept

        store = self.session.store
        if choice.keep:
            self._variant_kept(VariantKept(self.session.keep_variant(choice.variant_id)))
            return

        variant = store.get_variant(choice.variant_id)
        stored = (stored_comparison(store, variant), variant)
        self.app.push_screen(VariantComparison(self.session, stored=stored), self._variant_kept)
