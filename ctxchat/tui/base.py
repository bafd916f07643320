"""The conversation screen's layout, its owner of the conversation on screen and the live
plan; the action mixins build on it."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Header, Static
from textual.worker import get_current_worker

from ctxchat.chat.semantic import SemanticRecall
from ctxchat.chat.session import ChatSession
from ctxchat.chat.session_factory import given_server, semantic_recall_for, session_on
from ctxchat.chat.summarizer import Summarizer, SummaryFailed
from ctxchat.chat.workspace import Workspace
from ctxchat.core.budget import BudgetError
from ctxchat.core.memory import Mode
from ctxchat.core.plan import ContextPlan
from ctxchat.core.tokens import TokenCounter
from ctxchat.store import StoredMessage, SummaryVersion
from ctxchat.tui.on_screen import OnScreen
from ctxchat.tui.outside import outside_marks
from ctxchat.tui.text import clean, content, model_name, shown_server
from ctxchat.tui.views import MessageView
from ctxchat.tui.widgets.composer import NEWLINE_KEYS, SEND_KEYS, Composer
from ctxchat.tui.widgets.conversation import ConversationView
from ctxchat.tui.widgets.footer import KeyFooter
from ctxchat.tui.widgets.layer_panel import ContextPanels
from ctxchat.tui.widgets.memory_panel import MemoryPanel

# Drafts longer than this are planned in a thread, so a huge paste never stalls typing.
BIG_DRAFT = 50_000
NARROW = 110
# How often the app asks whether another process (a `ctxchat send`) wrote to the database.
OTHERS_POLL_SECONDS = 1.0
# How often the plan is redrawn while a long history's vectors come in.
VECTORS_SHOWN_EVERY = 1.0


def message_view(message: StoredMessage, counter: TokenCounter | None = None) -> MessageView:
    """How the pane shows a stored message; `counter` counts its reasoning, if any."""
    reasoning_tokens = counter.count_text(message.reasoning) if counter and message.reasoning else 0
    return MessageView(
        id=message.id,
        role=message.role,
        content=message.content,
        status=message.status,
        error=message.error or "",
        model=message.model or "",
        tokens=message.tokens,
        reasoning=message.reasoning,
        reasoning_tokens=reasoning_tokens,
        cut=message.finish_reason == "length",
    )


def _keys(remapped: str | None, default: Sequence[str]) -> list[str]:
    """The keys of a binding: those `[keys]` gives it, else its own."""
    if not remapped:
        return list(default)
    return [key.strip() for key in remapped.split(",") if key.strip()]


class ConversationBase(Screen[None]):
    """The conversation beside its context: holds the owner of the conversation on screen
    (`OnScreen`) and draws the live plan. Its widgets' messages come here, not to the app,
    which keeps only what is global (workspace, theme, key map, first-run setup)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        # The app's own ctrl+q (see CtxChatApp), here too so the footer shows it first, as
        # Textual's footer lists a screen's keys before the app's.
        Binding("ctrl+q", "app.quit", "Quit", id="app.quit", tooltip="Quit ctxchat", priority=True),
        Binding(
            "ctrl+o",
            "toggle_mode",
            "Mode",
            id="mode.toggle",
            tooltip="Switch between personalization and objective mode",
        ),
        Binding("escape", "stop", "Stop", id="reply.stop", tooltip="Stop the reply being written"),
        Binding(
            "ctrl+r",
            "retry",
            "Retry",
            show=False,  # the status line says "Ctrl+R retries" when there is a failure
            id="reply.retry",
            tooltip="Ask again for the newest reply, if it was interrupted or failed",
        ),
        Binding(
            "f2",
            "inspect",
            "Inspect",
            id="context.inspect",
            tooltip="The exact request the next message will send",
        ),
        Binding(
            "ctrl+s",
            "summarize",
            "Summarize",
            id="context.summarize",
            tooltip="Fold older turns into the summary now",
        ),
        Binding(
            "f3",
            "summaries",
            "Summaries",
            id="context.summaries",
            tooltip="Summary versions: roll back, edit, rebuild",
        ),
        Binding(
            "ctrl+t",
            "extract",
            "Extract",
            id="memory.extract",
            tooltip="Ask the model to propose memory entries from recent turns",
        ),
        # Priority: the composer (a TextArea) has focus most of the time and binds f6 itself.
        Binding(
            "f6",
            "focus_memory",
            "Memory",
            id="memory.focus",
            tooltip="Go to the memory panel",
            priority=True,
        ),
        Binding(
            "ctrl+l",
            "conversations",
            "Chats",
            id="conversation.switch",
            tooltip="Switch, rename, delete or export conversations",
        ),
        Binding(
            "ctrl+n",
            "new_conversation",
            "New",
            id="conversation.new",
            tooltip="Start a new conversation",
        ),
        Binding(
            "f4",
            "switch_model",
            "Model",
            id="model.switch",
            tooltip="Switch provider profile or model",
        ),
        Binding(
            "ctrl+b",
            "toggle_context",
            "Context",
            id="view.context",
            tooltip="Show or hide the context side",
        ),
    ]

    def __init__(
        self, workspace: Workspace, session: ChatSession | None, *, offline: bool = False
    ) -> None:
        super().__init__()
        self.workspace = workspace
        self.offline = offline
        """Whether to leave the server alone at start (`--offline`): no window probe."""
        self._on_screen = None if session is None else OnScreen(session)
        self._plan_timer: Timer | None = None
        self.server_notice: str | None = None
        """The "cannot reach the server" line on the status line, while it holds."""
        self._first_frame_shown = False
        self._after_first_frame: list[Callable[[], object]] = []

    # --- start-up -----------------------------------------------------------------------

    def after_first_frame(self, callback: Callable[[], object]) -> None:
        """Run `callback` once the first frame is on screen (at once if it already is).

        Background work (importing the model client, loading the embedding encoder, asking
        the server its window) takes the interpreter's lock from the thread that draws.
        """
        if self._first_frame_shown:
            callback()
        else:
            self._after_first_frame.append(callback)

    def first_frame_drawn(self) -> None:
        """The screen's first frame is drawn: what waited for it runs (called once)."""
        self._first_frame_shown = True
        waiting, self._after_first_frame = self._after_first_frame, []
        for callback in waiting:
            callback()
        self.set_interval(OTHERS_POLL_SECONDS, self.catch_up_with_others)

    async def catch_up_with_others(self) -> None:
        """Draw the conversation again when another process wrote to the database."""
        if not self.has_session or self.streaming:
            return  # after the reply: the next tick sees the change still
        if self.session.store.data_version() != self.on_screen.shown_version:
            await self.show_conversation()  # its plan reads what the other process wrote

    # --- layout -------------------------------------------------------------------------

    # The header's title (a conversation title, a server's model id) is cleaned here, once;
    # the app cleans every notification.
    def validate_title(self, title: object) -> str | None:
        return None if title is None else clean(str(title))

    def validate_sub_title(self, sub_title: object) -> str | None:
        return None if sub_title is None else clean(str(sub_title))

    def compose(self) -> ComposeResult:
        yield Header(icon="◧")
        with Horizontal(id="main"):
            with Vertical(id="chat"):
                # A screenful and a little more: older turns page in as the user scrolls up.
                yield ConversationView(id="conversation", initial=20)
                yield Static("", id="status-line")
                keymap = self.workspace.settings.keymap
                yield Composer(
                    id="composer",
                    send_keys=_keys(keymap.get("composer.send"), SEND_KEYS),
                    newline_keys=_keys(keymap.get("composer.newline"), NEWLINE_KEYS),
                )
            with Vertical(id="side"):
                yield ContextPanels(id="context")
                yield MemoryPanel(id="memory")
        yield KeyFooter(at_once=True)

    @property
    def on_screen(self) -> OnScreen:
        """The conversation on screen (with its session)."""
        assert self._on_screen is not None, "no conversation is open"
        return self._on_screen

    @property
    def session(self) -> ChatSession:
        return self.on_screen.session

    @property
    def has_session(self) -> bool:
        return self._on_screen is not None

    @property
    def last_plan(self) -> ContextPlan | None:
        """The plan drawn for the conversation on screen (its next request)."""
        return None if self._on_screen is None else self._on_screen.plan

    @property
    def streaming(self) -> bool:
        """Whether a reply streams: asked of the conversation on screen, which holds it."""
        return self._on_screen is not None and self._on_screen.streaming

    def show_session(self, session: ChatSession) -> None:
        """Make `session`'s conversation the one on screen (what the last one showed goes;
        a reply still streaming goes on)."""
        on_screen = self._on_screen
        if on_screen is None:
            self._on_screen = OnScreen(session)
            return
        self._on_screen = on_screen.replaced_by(session)
        if on_screen.session.conversation_id == session.conversation_id:
            return
        # A draft belongs to its conversation: it stays there, and the one this
        # conversation was left with comes back.
        composers = self.query("#composer").results(Composer)
        for composer in composers:
            on_screen.keep_draft(composer.text)
            composer.load_text(self._on_screen.take_draft())
            composer.move_cursor(composer.document.end)

    # --- the live plan ------------------------------------------------------------------

    @property
    def composer(self) -> Composer:
        return self.query_one("#composer", Composer)

    @property
    def conversation_view(self) -> ConversationView:
        return self.query_one("#conversation", ConversationView)

    def draft(self) -> str | None:
        text = self.composer.text
        return text if text.strip() else None

    def schedule_plan(self) -> None:
        """Re-plan shortly: keystrokes in a burst make one update."""
        if self._plan_timer is not None:
            self._plan_timer.stop()
        self._plan_timer = self.set_timer(0.05, self.refresh_plan)

    def refresh_plan(self) -> None:
        if not self.has_session:
            return
        try:
            draft = self.draft()
        except NoMatches:
            return  # the app is closing and its screen is gone: nothing to plan for
        if draft is not None and len(draft) > BIG_DRAFT:
            self.run_worker(
                lambda: self._plan_in_thread(self.session, draft),
                thread=True,
                exclusive=True,
                group="plan",
            )
            return
        self.show_plan(self._safe_plan(self.session, draft))

    def _plan_in_thread(self, session: ChatSession, draft: str) -> None:
        plan = self._safe_plan(session, draft)
        self.app.call_from_thread(self.show_plan, plan, session)

    def _safe_plan(self, session: ChatSession, draft: str | None) -> ContextPlan | None:
        try:
            return session.plan(draft)
        except BudgetError as error:
            self.call_later(
                self.notify, f"Budget settings: {error}", severity="error", markup=False
            )
            return None

    def show_plan(self, plan: ContextPlan | None, session: ChatSession | None = None) -> None:
        if plan is None or (session is not None and session is not self.session):
            return
        facts = self.on_screen.reply_facts()
        panels = self.query_one("#context", ContextPanels)
        panels.update_plan(
            plan,
            self.last_plan,
            window_source=self.session.window.source,
            server_prompt_tokens=facts.server_prompt_tokens,
            sent_tokens=facts.sent_tokens,
            cached_tokens=facts.cached_tokens,
        )
        self.conversation_view.mark_outside(outside_marks(plan))
        self.on_screen.plan = plan
        self.show_memory(plan)
        self.update_titles()

    def show_memory(self, plan: ContextPlan) -> None:
        """Draw the memory panel for `plan` (the memory actions add their notes)."""
        self.query_one("#memory", MemoryPanel).update_entries(self.session.memory(), plan)

    def update_titles(self) -> None:
        if not self.has_session:
            self.sub_title = "setup"
            return
        session = self.session
        title = "new conversation"
        if session.conversation_id is not None:
            conversation = session.store.get_conversation(session.conversation_id)
            title = conversation.name
        self.title = title
        model = model_name(session.model)
        # A server given on the command line is named: the one the messages go to.
        server = given_server(session)
        at = f" at {shown_server(server)}" if server else ""
        self.sub_title = f"{session.profile.name} · {model}{at} · mode: {session.mode.value}"

    def open_session_for(self, session: ChatSession) -> ChatSession | None:
        """The open session if it shows `session`'s conversation, else None.

        Opening a conversation makes a new session, so work begun on one (a reply, a
        summary) finds its conversation's session again through this.
        """
        if self.has_session and self.session.conversation_id == session.conversation_id:
            return self.session
        return None

    async def conversation_shown(self) -> None:
        """Called once the pane shows the open conversation afresh."""

    def server_answered(self) -> None:
        """Called when a reply came back: a "cannot reach the server" notice no longer holds."""

    def show_server_notice(self, notice: str | None) -> None:
        """Say on the status line that nothing answers at the server (None: it answers
        again, and the line goes back to the conversation's own)."""
        told, self.server_notice = self.server_notice, notice
        if notice is not None or told is not None:
            self.show_status()

    def set_status(self, text: str, style: str = "") -> None:
        self.query_one("#status-line", Static).update(content(text, style))

    def show_status(self) -> None:
        """Draw the status line: that nothing answers at the server, while that holds (in
        any conversation), else the one the conversation on screen gives."""
        if self.server_notice is not None:
            self.set_status(self.server_notice, "$error")
        else:
            self.set_status(self.on_screen.status_line())

    # --- summarizing in the background -------------------------------------------------

    @work(exclusive=True, group="summary", exit_on_error=False)
    async def summarize_in_background(
        self,
        session: ChatSession,
        job: Callable[[Summarizer], Awaitable[SummaryVersion]],
        done: Callable[[SummaryVersion], str],
        *,
        started: str | None = None,
        failure: SeverityLevel = "error",
    ) -> None:
        """Run `job` with the session's summarizer; tell the user how it went."""
        if started is not None:
            self.notify(started, markup=False)
        try:
            version = await job(Summarizer.for_session(session))
        except SummaryFailed as error:
            self.notify(
                f"{error} The previous summary stays in force.", severity=failure, markup=False
            )
            return
        self.notify(done(version), markup=False)
        if self.open_session_for(session) is not None:
            self.refresh_plan()

    # --- semantic recall (the embeddings extra) -------------------------------------------

    def start_semantic(self, session: ChatSession) -> None:
        """Load the encoder and embed what has no vector yet, off the UI thread."""
        # The same recall the commands get (see chat/session_factory.py).
        semantic = session.semantic or semantic_recall_for(session)
        if semantic is None:
            return
        self.run_worker(
            lambda: self._semantic_in_thread(session, semantic),
            thread=True,
            group=f"semantic-{session.conversation}",
            exclusive=True,
            exit_on_error=False,
        )

    def _semantic_in_thread(self, session: ChatSession, semantic: SemanticRecall) -> None:
        worker = get_current_worker()

        def stop() -> bool:
            # The app is quitting, or the user has moved to another conversation.
            return worker.is_cancelled or self.open_session_for(session) is None

        def use_it() -> None:
            # The conversation may have been left and opened again: its session is a new one.
            shown = self.open_session_for(session) or session
            shown.semantic = semantic  # its recall is worked out again (see ChatSession)
            self.refresh_plan()

        def refresh() -> None:
            if not worker.is_cancelled:  # else the app is closing: nothing to show
                self.app.call_from_thread(use_it)
            refreshed[0] = time.monotonic()

        def embedded(wanted: bool) -> None:
            # What a query wanted changes its results now; the rest, once in a while.
            if wanted or time.monotonic() - refreshed[0] >= VECTORS_SHOWN_EVERY:
                refresh()

        refreshed = [0.0]
        semantic.prepare()
        # Recall searches by meaning from now on, among the vectors there are: a long history
        # is embedded newest first, and what a query finds before the rest.
        refresh()
        if semantic.catch_up(cancelled=stop, embedded=embedded):
            refresh()

    # --- opening conversations -------------------------------------------------------

    def _loader(self, session: ChatSession) -> object:
        store, conversation = session.store, session.conversation

        def load(offset: int, limit: int) -> list[MessageView]:
            messages = store.messages(conversation, offset=offset, limit=limit)
            # The reasoning's counts are kept too: a start that shows a reasoning reply
            # then draws it without waiting for the tokenizer.
            with session.keeping():
                return [message_view(m, session.counter) for m in messages]

        return load

    async def show_conversation(self) -> None:
        """Draw the open session's conversation from the store (newest turns only)."""
        session = self.session
        view = self.conversation_view
        self.on_screen.shown_version = session.store.data_version()
        self.on_screen.plan = None  # drawn afresh: no earlier plan to compare with
        # Nothing of the conversation shown before stays: its mode-change note, its status.
        self.query_one("#context", ContextPanels).forget_mode_change()
        self.show_status()
        # The plan first: the newest turns then arrive in the same frame, before the pane
        # mounts older pages to fill its margin.
        self.refresh_plan()
        if session.conversation_id is None:
            await view.replace_all(0, lambda offset, limit: [])
        else:
            total = session.store.count_messages(session.conversation_id)
            await view.replace_all(total, self._loader(session))  # type: ignore[arg-type]
        self.after_first_frame(lambda: self.start_semantic(session))
        await self.conversation_shown()
        self.refresh_bindings()  # the footer's hints are this conversation's

    async def open_conversation(self, conversation_id: int) -> None:
        """Make `conversation_id` the open conversation (a reply still streaming elsewhere
        goes on into the store, and into the pane again once its conversation is back)."""
        # On the model chosen for that conversation (F4), else the default one. A connection
        # left behind is not closed here: a reply or summary may still be using it.
        self.show_session(
            session_on(
                self.session,
                self.workspace,
                conversation_id,
                notes=lambda note: self.notify(note, severity="warning", markup=False),
            )
        )
        self.remember(conversation=conversation_id)
        await self.show_conversation()

    async def reload_conversation(self) -> None:
        """Draw the open conversation again after a change that rewrote its turns."""
        await self.show_conversation()

    # --- state that outlives the run ----------------------------------------------------

    def remember(self, *, mode: Mode | None = None, conversation: int | None = None) -> None:
        """Keep the mode or the conversation in the state file for the next start."""
        changes = {"last_mode": mode, "last_conversation_id": conversation}
        self.workspace.update_state(**{k: v for k, v in changes.items() if v is not None})

    def key_for(self, binding_id: str) -> str:
        """The key a binding of this screen is on (the user's `[keys]` remap, else its own), as the
        footer shows it."""
        for cls in type(self).__mro__:
            for binding in getattr(cls, "BINDINGS", ()):
                if isinstance(binding, Binding) and binding.id == binding_id:
                    keys = _keys(self.workspace.settings.keymap.get(binding_id), [binding.key])
                    return self.app.get_key_display(dataclasses.replace(binding, key=keys[0]))
        return binding_id

    def notify_lines(
        self, lines: Sequence[str], *, severity: SeverityLevel = "information"
    ) -> None:
        for line in lines:
            self.notify(line, severity=severity, markup=False)
