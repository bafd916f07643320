"""Conversations (new, switch, rename, delete, export), modes and models."""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from textual import work

from ctxchat.chat.connection import same_server
from ctxchat.chat.deletion import ConversationDeletion
from ctxchat.chat.reachability import unreachable_notice
from ctxchat.chat.session import ChatSession
from ctxchat.chat.session_factory import (
    learn_server,
    make_backend,
    offered_profiles,
    profile_for_choice,
)
from ctxchat.config.errors import MissingApiKey
from ctxchat.model.errors import ProviderError
from ctxchat.store import export_text
from ctxchat.store.importers.labels import origin_label
from ctxchat.tui.import_actions import ImportActions
from ctxchat.tui.results_in_waiting import Asked
from ctxchat.tui.reveal import reveal_message
from ctxchat.tui.views import ConversationRowView, MessageHitView

if TYPE_CHECKING:
    from ctxchat.tui.screens.conversations import SwitcherResult
    from ctxchat.tui.screens.export_format import ExportChoice, ExportFormat
    from ctxchat.tui.screens.model_picker import ModelChoice


class ConversationActions(ImportActions):
    """What changes which conversation, mode or model is in front of the user."""

    def action_toggle_mode(self) -> None:
        if not self.has_session:
            return
        mode = self.session.toggle_mode()
        self.remember(mode=mode)
        self.refresh_plan()
        self.notify(f"Mode: {mode.value}", markup=False, timeout=2)

    def action_toggle_context(self) -> None:
        self.query_one("#side").toggle_class("-hidden")

    async def action_new_conversation(self) -> None:
        if not self.has_session:
            return
        # A new conversation starts on the default model: a choice belongs to its conversation.
        conversation = self.session.create_conversation()
        await self.open_conversation(conversation.id)
        self.composer.focus()

    def action_conversations(self, only: Collection[int] | None = None) -> None:
        """The conversation list (only the conversations `only` names, when given)."""
        if not self.has_session:
            return
        store = self.session.store
        rows = [
            ConversationRowView(
                c.id, c.name, c.updated_at, c.message_count, c.tokens, origin_label(c.origin)
            )
            for c in store.list_conversations()
            if only is None or c.id in only
        ]

        def chosen(result: SwitcherResult | None) -> None:
            if result is not None:
                self.call_later(self._switcher_result, result)

        from ctxchat.tui.screens.conversations import ConversationSwitcher

        def find_messages(query: str) -> dict[int, MessageHitView]:
            found = store.find_conversations(query)
            return {c: MessageHitView(h.message_id, h.content, h.count) for c, h in found.items()}

        switcher = ConversationSwitcher(
            rows,
            current_id=self.session.conversation_id,
            find_messages=find_messages,
            deletion_of=lambda conversation_id: ConversationDeletion.of(store, conversation_id),
        )
        self.app.push_screen(switcher, chosen)

    async def _switcher_result(self, result: SwitcherResult) -> None:
        session = self.session
        target = result.conversation_id
        if result.action == "new":
            await self.action_new_conversation()
        elif result.action == "switch" and target is not None:
            await self.open_conversation(target)
            found = result.message_id
            view = self.conversation_view
            if found is not None and await reveal_message(self.session, view, found):
                view.focus()
        elif result.action == "rename" and target is not None and result.title:
            session.rename_conversation(target, result.title)
            self.update_titles()
            self.notify("Renamed.", markup=False)
        elif result.action == "delete" and target is not None:
            deletion = ConversationDeletion.of(session.store, target)
            session.delete_conversation(target, with_memory=result.with_memory)
            self.notify(deletion.done(with_memory=result.with_memory), markup=False)
            if target == session.conversation_id:
                latest = session.store.latest_conversation() or session.create_conversation()
                await self.open_conversation(latest.id)
            else:
                self.refresh_plan()  # its kept memory entries show here now
        elif result.action == "export" and target is not None:
            self.ask_export(target)
        elif result.action == "import":
            self.ask_import(then=lambda ids: self.action_conversations(only=ids))

    def ask_export(self, conversation_id: int, export_format: ExportFormat = "markdown") -> None:
        """Ask the format and the folder (the data dir's `exports` unless the user types
        another), then export."""
        title = self.session.store.get_conversation(conversation_id).name

        def chosen(choice: ExportChoice | None) -> None:
            if choice is not None:
                self.export_conversation(conversation_id, choice.export_format, choice.folder)

        from ctxchat.tui.screens.export_format import ExportFormatScreen

        folder = self.workspace.locations.exports_dir
        self.app.push_screen(ExportFormatScreen(title, folder, export_format), chosen)

    def export_conversation(
        self, conversation_id: int, export_format: str, folder: Path
    ) -> Path | None:
        """Write the conversation into `folder`; say the full path (or why it failed)."""
        store = self.session.store
        data = store.export_conversation(conversation_id)
        title = store.get_conversation(conversation_id).name
        stem = re.sub(r"[^\w.-]+", "-", title).strip("-")[:60] or "conversation"
        suffix = "md" if export_format == "markdown" else "json"
        path = folder.resolve() / f"{stem}-{conversation_id}.{suffix}"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            path.write_text(export_text(data, markdown=suffix == "md"), encoding="utf-8")
        except OSError as error:
            reason = error.strerror or str(error)
            self.notify(f"Could not export to {path}: {reason}.", severity="error", markup=False)
            return None
        self.notify(f"Exported to {path}", markup=False)
        return path

    def action_rename(self) -> None:
        if not self.has_session or self.session.conversation_id is None:
            return
        session = self.session
        conversation = session.store.get_conversation(session.conversation)

        def renamed(title: str | None) -> None:
            if title:
                session.rename_conversation(conversation.id, title)
                self.update_titles()

        from ctxchat.tui.screens.rename import RenameScreen

        self.app.push_screen(RenameScreen(conversation.title), renamed)

    def action_inspect(self) -> None:
        """The next request; or, with a reply selected in the conversation, its request."""
        if not self.has_session:
            return
        session = self.session
        selected = self.conversation_view.selected_id
        if selected is not None and session.store.get_message(selected).role == "assistant":
            self.inspect_reply(selected)
            return
        plan = session.with_request(session.plan(self.draft()))
        assert plan.request is not None
        from ctxchat.chat.rendered import render_request
        from ctxchat.tui.screens.inspector import RequestInspector

        self.app.push_screen(
            RequestInspector(
                plan.request["body"],
                plan,
                previous=session.last_request(),
                title="Next request",
                render=lambda messages: render_request(session, messages),
            )
        )

    def inspect_reply(self, message_id: int) -> None:
        """The request a past reply was produced from."""
        session = self.session
        plan = session.store.load_plan(message_id)
        if plan is None:
            self.notify("No request was stored for that message.", markup=False)
            return
        if plan.request is not None:
            body = plan.request["body"]
        else:
            # Stored before requests were kept with their plans: built again from the plan.
            model = session.store.get_message(message_id).model or session.model
            body = session.request_for(plan, model=model).body
        from ctxchat.chat.rendered import render_request
        from ctxchat.tui.screens.inspector import RequestInspector

        self.app.push_screen(
            RequestInspector(
                body,
                plan,
                title=f"Request of reply {message_id}",
                render=lambda messages: render_request(session, messages),
            )
        )

    # --- models -------------------------------------------------------------------------

    def action_switch_model(self) -> None:
        # A list that came while the user was busy opens now, rather than asking again.
        if self.has_session and not self.open_waiting("models"):
            self._pick_model(self.asked())

    @work(exclusive=True, group="models", exit_on_error=False)
    async def _pick_model(self, asked: Asked) -> None:
        session = self.session
        models: list[str] = []
        note = ""
        if session.backend is not None:
            try:
                models = await session.backend.list_models()
            except ProviderError as error:
                note = f"The server did not list its models: {error.message}"
        base_url = session.profile.base_url
        from ctxchat.tui.screens.model_picker import ModelPicker

        def picker(unasked: bool) -> ModelPicker:
            # Marked as things are when it opens (it may have waited).
            now = self.session
            return ModelPicker(
                [(p.name, p.base_url, p.model) for p in offered_profiles(now)],
                models,
                current_profile=now.profile.name,
                current_model=now.model,
                note=note,
                unasked=unasked,
            )

        def chosen(choice: ModelChoice | None) -> None:
            if choice is not None:
                self.call_later(self._switch_model, choice)

        self.offer(
            "models",
            asked,
            picker,
            chosen,
            ready=f"The model list is ready: {self.key_for('model.switch')} opens it.",
            # The list is that server's: another one (picked meanwhile) is asked afresh.
            still_holds=lambda: self.session.profile.base_url == base_url,
        )

    async def _switch_model(self, choice: ModelChoice) -> None:
        session = self.session
        # The server this run talks to (a `--base-url` included) stays unless another
        # profile is picked.
        profile = profile_for_choice(session, choice.profile, choice.model)
        old = session.backend
        backend = old
        if old is None or not same_server(profile, session.profile, self.workspace.env):
            try:
                backend = make_backend(profile, self.workspace.env, session.settings.model)
            except MissingApiKey as error:
                self.notify(str(error), severity="error", markup=False)
                return
        session.switch_model(profile, backend)
        session.remember_model()
        self.update_titles()
        if old is not None and old is not backend:
            await old.aclose()
        self.detect_window()
        self.refresh_plan()
        self.notify(f"Now talking to {profile.model} ({profile.name}).", markup=False)

    @work(exclusive=True, group="window", exit_on_error=False)
    async def detect_window(self) -> None:
        session = self.session
        before, model = session.window, session.model
        # Nothing listening is said as such, once, rather than as a window the server
        # "does not report"; the next reply that comes back clears it (`server_answered`).
        notice = await unreachable_notice(session, self.workspace.loaded.path)
        if self.has_session and session is self.session:
            self.show_server_notice(notice)
        if notice is not None:
            return
        # Asked on every start; the answer is kept for `ctxchat context` and the next start.
        window = await learn_server(session, self.workspace, refresh=True)
        if self.has_session and session is self.session and session.model != model:
            self.update_titles()  # no model was named and the server's only one was taken
        if self.has_session and session is self.session and window != before:
            self.notify_lines(self._not_yet_told(session, window.warnings), severity="warning")
            self.refresh_plan()

    def server_answered(self) -> None:
        if self.server_notice is not None:
            self.server_notice = None
            self.detect_window()  # the server is up now: ask it what it is

    def _not_yet_told(self, session: ChatSession, warnings: Sequence[str]) -> list[str]:
        """The window warnings not shown before for this server and model (each once, not
        on every start); those returned are remembered as shown."""
        base_url = session.profile.base_url
        fact = f"window_notice:{session.model}"
        told = self.workspace.state.server_fact(base_url, fact)
        text = "\n".join(warnings)
        if not warnings or told == text:
            return []
        self.workspace.save_state(self.workspace.state.with_server_fact(base_url, fact, text))
        return list(warnings)
