"""MessageDialogs: the dialogs about one message: why a reply failed, editing yours, a link in
a reply, the request a reply came from (or the next one)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.message import Message

from ctxchat.chat.session import ChatSession
from ctxchat.core.history import MessageStatus
from ctxchat.core.next_message import NEXT_MESSAGE
from ctxchat.core.plan import ContextPlan
from ctxchat.model.errors import ErrorKind
from ctxchat.tui.parts.part import Part

if TYPE_CHECKING:
    from ctxchat.model.errors import ProviderError
    from ctxchat.tui.screens.edit_message import EditResult
    from ctxchat.tui.screens.inspector import Render


class MessageDialogs(Part):
    """Opens a message's dialogs; what they decide that changes the conversation is asked
    of the screen: `RetryRequested`, `EditDone`."""

    @dataclass
    class RetryRequested(Message):
        """Ask `session`'s reply `reply_id` again (from its details)."""

        session: ChatSession
        reply_id: int

    @dataclass
    class RegenerateRequested(Message):
        """The user saw the request a regenerate of `session`'s reply `reply_id` sends, and
        sends it."""

        session: ChatSession
        reply_id: int

    @dataclass
    class EditDone(Message):
        """The user edited one of their messages in `session`'s conversation: send it."""

        session: ChatSession
        result: EditResult

    def details(
        self,
        session: ChatSession,
        message_id: int,
        error: ProviderError | None,
        *,
        can_retry: bool,
    ) -> None:
        """Why the reply failed or stopped: `error` as told this run, else as stored."""
        message = session.store.messages.get_message(message_id)
        if error is not None:
            text, action, detail = error.message, error.action, error.detail
            if error.kind is ErrorKind.UNKNOWN_MODEL and error.available_models:
                action += " Press F4 to pick one."
        else:  # ended in an earlier run: the store keeps the sentence, the action and
            # what the server said
            text, action = message.error or "The reply did not finish.", ""
            detail = message.error_detail or ""

        def closed(retry: bool | None) -> None:
            if retry:
                self.post_up(lambda: self.RetryRequested(session, message.id))

        from ctxchat.tui.screens.error_details import ErrorDetails

        stopped = message.status is MessageStatus.INTERRUPTED
        title = "The reply stopped early" if stopped else "The request failed"
        screen = ErrorDetails(text, action, detail=detail, can_retry=can_retry, title=title)
        self.app.push_screen(screen, closed)

    def edit(self, session: ChatSession, message_id: int) -> None:
        """Edit one of the user's messages, then send it again (replacing or branching)."""
        store = session.store
        message = store.messages.get_message(message_id)
        if message.role != "user":
            self.notify("Only your own messages can be edited.", markup=False)
            return
        later = store.messages.count_messages(message.conversation_id, after=message.id)

        def edited(result: EditResult | None) -> None:
            if result is not None:
                self.post_up(lambda: self.EditDone(session, result))

        from ctxchat.tui.screens.edit_message import EditMessageScreen

        preview = EditPreview(session, message.id, rendering(session))
        self.app.push_screen(
            EditMessageScreen(message.id, message.content, later, preview=preview), edited
        )

    def copy(self, text: str) -> None:
        """Copy `text` (a message, a code block) and say where it went."""
        from ctxchat.tui.clipboard import copy_and_say

        self.run_worker(copy_and_say(self, text), group="copy")

    def copy_code(self, text: str) -> None:
        """Copy a code block of the message `text`: its only one, or the one the user picks."""
        from ctxchat.tui.code_blocks import code_blocks

        blocks = code_blocks(text)
        if len(blocks) <= 1:
            if blocks:
                self.copy(blocks[0].code)
            else:
                self.notify("That message has no code block.", markup=False)
            return

        def picked(index: int | None) -> None:
            if index is not None:
                self.copy(blocks[index].code)

        from ctxchat.tui.screens.code_block_picker import CodeBlockPicker

        self.app.push_screen(CodeBlockPicker(blocks), picked)

    def open_link(self, href: str) -> None:
        """Open a reply's link, once the user says so."""

        def opened(confirmed: bool | None) -> None:
            if confirmed:
                self.app.open_url(href)

        from ctxchat.tui.screens.confirm import ConfirmScreen

        self.app.push_screen(ConfirmScreen("Open this link?", "Open", detail=href), opened)

    def inspect(self, selected: int | None, draft: str | None) -> None:
        """The next request of the conversation on screen (with `draft`); or, with a reply
        `selected`, its request."""
        session = self.session
        if session is None:
            return
        if (
            selected is not None
            and session.store.messages.get_message(selected).role == "assistant"
        ):
            self.inspect_reply(session, selected)
            return
        # Nothing typed yet: a placeholder stands for the message, so what is shown is a
        # request (ending with a user's turn), not a rendering that stops mid-turn.
        placeholder = NEXT_MESSAGE if draft is None else None
        plan = session.with_request(session.plan(draft or NEXT_MESSAGE))
        assert plan.request is not None
        from ctxchat.tui.screens.inspector import RequestInspector

        self.app.push_screen(
            RequestInspector(
                plan.request["body"],
                plan,
                previous=session.cache.last_request(),
                title="Next request",
                render=rendering(session),
                placeholder=placeholder,
            )
        )

    def inspect_reply(self, session: ChatSession, message_id: int) -> None:
        """The request a past reply was produced from."""
        plan = session.store.plans.load_plan(message_id)
        if plan is None:
            self.notify("No request was stored for that message.", markup=False)
            return
        if plan.request is not None:
            body = plan.request["body"]
        else:
            # Stored before requests were kept with their plans: built again from the plan.
            model = session.store.messages.get_message(message_id).model or session.model
            body = session.request_for(plan, model=model).body
        from ctxchat.tui.screens.planned_request import ReplyInspector

        newest = session.store.messages.count_messages(session.stored_id, after=message_id) == 0
        self.app.push_screen(
            ReplyInspector(
                body,
                plan,
                title=f"Request of reply {message_id}",
                render=rendering(session),
                regenerate=(lambda: self.preview_regenerate(session, message_id))
                if newest
                else None,
            )
        )

    def preview_regenerate(self, session: ChatSession, reply_id: int) -> None:
        """The request a regenerate of reply `reply_id` sends, before it goes: its Diff
        against the reply's request; ctrl+g there sends it (`RegenerateRequested`)."""
        from ctxchat.chat.answering import Resend, last_question, plan_answer
        from ctxchat.tui.screens.planned_request import PlannedRequest

        plan = session.with_request(plan_answer(session, last_question(session), Resend.REGENERATE))
        assert plan.request is not None
        self.app.push_screen(
            PlannedRequest(
                plan.request["body"],
                plan,
                original=original_request(session, reply_id),
                title=f"Regenerating reply {reply_id} sends",
                render=rendering(session),
                send=lambda: self.post_up(lambda: self.RegenerateRequested(session, reply_id)),
            )
        )


def rendering(session: ChatSession) -> Render:
    """The inspector's Rendered tab's question: `session`'s server renders the messages."""
    from ctxchat.chat.rendered import render_request

    return lambda messages: render_request(session, messages)


def original_request(session: ChatSession, reply_id: int | None) -> Mapping[str, Any] | None:
    """The body reply `reply_id` was sent with (None: no reply, or no request stored)."""
    plan = None if reply_id is None else session.store.plans.load_plan(reply_id)
    if plan is None or plan.request is None:
        return None
    body = plan.request.get("body")
    return body if isinstance(body, Mapping) else None


class EditPreview:
    """What the edit dialog shows of the request an edit sends: planned as the send of the
    edited text after the turns before it (`plan_edit`), beside the original's request."""

    def __init__(self, session: ChatSession, message_id: int, render: Render) -> None:
        self.session = session
        self.message_id = message_id
        self.render = render
        # The original request is the one the reply to the edited message came from.
        history = session.history()
        reply = next((m.id for m in history if m.id > message_id and m.role == "assistant"), None)
        self.original = original_request(session, reply)

    def plan(self, text: str, branch: bool) -> ContextPlan:
        """The plan (with its request) of the edit sent as `text`, in a branch or in place."""
        from ctxchat.chat.answering import Resend, plan_edit

        why = Resend.BRANCH if branch else Resend.EDIT
        return self.session.with_request(plan_edit(self.session, self.message_id, text, why))
