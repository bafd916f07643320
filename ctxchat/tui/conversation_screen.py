"""The conversation screen: the conversation beside exactly what the model will see."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import sys
from collections.abc import Callable, Sequence
from typing import ClassVar

from textual import events, getters, on
from textual.actions import SkipAction, parse
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal
from textual.css.query import NoMatches
from textual.notifications import SeverityLevel
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import Header
from textual.worker import Worker, WorkerState

from ctxchat.chat.answering import Resend
from ctxchat.chat.counted_first import regenerate_counted
from ctxchat.chat.session import ChatSession
from ctxchat.chat.session_factory import follow_choice, session_on
from ctxchat.chat.turn import TurnFinished
from ctxchat.chat.workspace import Workspace
from ctxchat.config.state import load_state
from ctxchat.core.counts import counted
from ctxchat.core.plan import ContextPlan
from ctxchat.store import NotFound
from ctxchat.tui.action import Action, Needs
from ctxchat.tui.actions import (
    BY_ID,
    bindings_for,
    given_in_composer,
    key_for,
    keys_in,
    remapped_away,
    screen_actions,
)
from ctxchat.tui.chat_pane import ChatPane
from ctxchat.tui.context_side import ContextSide
from ctxchat.tui.on_screen import OnScreen
from ctxchat.tui.outside import outside_marks
from ctxchat.tui.parts.ask_again_flow import AskAgainFlow
from ctxchat.tui.parts.context_control import ContextControl
from ctxchat.tui.parts.conversation_dialogs import ConversationDialogs
from ctxchat.tui.parts.embedder import Embedder
from ctxchat.tui.parts.extraction_flow import ExtractionFlow
from ctxchat.tui.parts.memory_curation import MemoryCuration
from ctxchat.tui.parts.message_dialogs import MessageDialogs
from ctxchat.tui.parts.model_flow import ModelFlow
from ctxchat.tui.parts.part import Flow
from ctxchat.tui.parts.planner import Planner
from ctxchat.tui.parts.preset_dialogs import PresetDialogs
from ctxchat.tui.parts.summary_flow import SummaryFlow
from ctxchat.tui.parts.turn_runner import TurnDrawn, TurnRunner
from ctxchat.tui.results_in_waiting import Asked, ResultReady, ResultsInWaiting
from ctxchat.tui.run_sessions import RunSessions
from ctxchat.tui.stored_views import session_message_view, stored_loader
from ctxchat.tui.text import clean
from ctxchat.tui.typing_target import typing_for_composer
from ctxchat.tui.widgets.composer import Composer
from ctxchat.tui.widgets.conversation import ConversationView
from ctxchat.tui.widgets.find_bar import FindBar
from ctxchat.tui.widgets.footer import KeyFooter
from ctxchat.tui.widgets.jobs_line import JobsLine
from ctxchat.tui.widgets.layer_panel import ContextPanels, LayerPanel
from ctxchat.tui.widgets.memory_panel import MemoryPanel
from ctxchat.tui.widgets.queued_messages import QueuedMessages
from ctxchat.tui.widgets.status_line import StatusLine

NARROW = 110
# How often the app asks whether another process (a `ctxchat send`) wrote to the database.
OTHERS_POLL_SECONDS = 1.0


class ConversationScreen(Screen[None]):
    """The app's main screen, for its whole run: the conversation on the left (`ChatPane`),
    what the model will see on the right (`ContextSide`), and the flows that take a while
    (`tui/parts/`).

    It holds the conversation on screen (`shown`, to which the columns and parts are bound),
    opens conversations, draws the plan its `Planner` makes, and carries what one part says
    to another: their messages come here, and it calls their methods.
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("ConversationScreen")
    ACTIONS: ClassVar[dict[str, Action]] = screen_actions()
    """This screen's actions (bound or in the palette), by name: where each applies."""

    shown: var[OnScreen | None] = var(None, bindings=True)
    """The conversation on screen, with its session; None until first-run setup opens one.
    A new one replaces it when another conversation opens; the columns and parts are bound
    to it."""
    server_notice: var[str | None] = var(None)
    """That nothing answers at the server, while that holds (on the status line, in any
    conversation); the next reply or a server that answers clears it."""

    chat = getters.query_one("#chat", ChatPane)
    side = getters.query_one("#side", ContextSide)
    composer = getters.query_one("#composer", Composer)
    conversation_view = getters.query_one("#conversation", ConversationView)
    turn_runner = getters.query_one(TurnRunner)
    planner = getters.query_one(Planner)
    embedder = getters.query_one(Embedder)
    summary_flow = getters.query_one(SummaryFlow)
    extraction_flow = getters.query_one(ExtractionFlow)
    ask_again_flow = getters.query_one(AskAgainFlow)
    model_flow = getters.query_one(ModelFlow)
    conversation_dialogs = getters.query_one(ConversationDialogs)
    message_dialogs = getters.query_one(MessageDialogs)
    jobs_line = getters.query_one(JobsLine)
    context_control = getters.query_one(ContextControl)
    preset_dialogs = getters.query_one(PresetDialogs)

    def __init__(
        self, workspace: Workspace, session: ChatSession | None, *, offline: bool = False
    ) -> None:
        super().__init__()
        self.workspace = workspace
        self.offline = offline
        """Whether to leave the server alone at start (`--offline`): no window probe."""
        self.set_reactive(ConversationScreen.shown, None if session is None else OnScreen(session))
        self.sessions = RunSessions()
        """The session of each conversation opened in this run: opened again, it is the one."""
        if session is not None:
            self.sessions.keep(session)
        self.mounted = asyncio.Event()
        """Set once the screen's widgets are mounted, its composer focused."""
        self._first_frame_shown = False
        self._after_first_frame: list[Callable[[], object]] = []
        self.kept_results = ResultsInWaiting(
            self, where=self.asked, name_of=self._name_of, key_for=self.key_for
        )
        """Dialogs that answer late (memory proposals, the model list), kept for their key."""

    # --- layout and start-up --------------------------------------------------------------

    # The header's title (a conversation title, a server's model id) is cleaned here, once;
    # the app cleans every notification.
    def validate_title(self, title: object) -> str | None:
        return None if title is None else clean(str(title))

    def validate_sub_title(self, sub_title: object) -> str | None:
        return None if sub_title is None else clean(str(sub_title))

    def compose(self) -> ComposeResult:
        shown = ConversationScreen.shown
        # The parts that draw nothing first: found at once (`getters.query_one`).
        yield Planner(self._draft_now).data_bind(shown)
        yield Embedder().data_bind(shown)
        yield SummaryFlow().data_bind(shown)
        yield ExtractionFlow().data_bind(shown)
        yield AskAgainFlow(self.workspace).data_bind(shown)
        yield ModelFlow(self.workspace).data_bind(shown)
        yield ConversationDialogs(self.workspace).data_bind(shown)
        yield ContextControl().data_bind(shown)
        yield PresetDialogs(self.workspace).data_bind(shown)
        yield Header(icon="◧")
        with Horizontal(id="main"):
            with ChatPane(id="chat").data_bind(shown):
                yield TurnRunner().data_bind(shown)
                yield MessageDialogs().data_bind(shown)
                # A screenful and a little more: older turns page in as the user scrolls up.
                yield ConversationView(id="conversation", initial=20)
                yield QueuedMessages(id="queued")
                yield JobsLine(id="jobs-line").data_bind(shown)
                yield StatusLine("", id="status-line").data_bind(
                    notice=ConversationScreen.server_notice
                )
                keymap = self.workspace.settings.keymap
                yield Composer(
                    id="composer",
                    send_keys=keys_in(keymap, "composer.send"),
                    newline_keys=keys_in(keymap, "composer.newline"),
                    edit_last_keys=keys_in(keymap, "composer.edit_last"),
                    clear_keys=keys_in(keymap, "composer.clear"),
                    given_away=given_in_composer(keymap),
                )
            with ContextSide(id="side").data_bind(shown):
                yield MemoryCuration().data_bind(shown)
                yield ContextPanels(id="context")
                yield MemoryPanel(id="memory")
        yield KeyFooter(keys_at_first_frame=True)

    async def on_mount(self) -> None:
        self.watch(self.planner, "plan", self._draw_plan, init=False)
        self.watch(self.turn_runner, "drawn", self._turn_drawn, init=False)
        self.jobs_line.follow(self.query(Flow).results(Flow))
        # Keys typed before the conversation is drawn land in the composer: focused now, not
        # through the app's queue, which holds those keys until this screen is mounted.
        self.set_focus(self.composer)
        self.composer.restore_drafts(self.workspace.state.drafts, self._shown_id)
        self.mounted.set()
        if self.app.size.width < NARROW:
            self.side.add_class("-hidden")
        if self.has_session:  # else the app's first-run setup opens one (`show_session`)
            await self.start()  # before the first frame: it shows the conversation and plan
        await self.query_one(KeyFooter).draw_keys_now()  # the composer's keys, focused above
        # The first frame is this screen's, drawn once its widgets are: work that can wait
        # (loading the tokenizer and the client, asking the server) starts only then.
        self.call_after_refresh(self.first_frame_drawn)

    async def start(self) -> None:
        """Draw the open session's conversation, then ask the server what it is."""
        await self.show_conversation()
        self.composer.focus()
        session = self.session
        if session.backend is not None and not self.offline:
            self.after_first_frame(lambda: self.model_flow.detect_window(session))

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
        due, self._after_first_frame = self._after_first_frame, []
        for callback in due:
            callback()
        self.set_interval(OTHERS_POLL_SECONDS, self.show_other_writes)

    async def show_other_writes(self) -> None:
        """Draw the conversation again when another process wrote to the database."""
        if self.shown is None or self.session.store.data_version() == self.shown.shown_version:
            return
        if not self.streaming:  # else after the reply: the next tick sees the change still
            await self.show_conversation()  # its plan reads what the other process wrote
        self.jobs_line.look_again()  # the other process may have begun or ended a summary

    async def on_unmount(self) -> None:
        if self.has_session:
            await self.session.aclose()

    # --- the conversation on screen -------------------------------------------------------

    @property
    def session(self) -> ChatSession:
        """The session of the conversation on screen."""
        assert self.shown is not None, "no conversation is open"
        return self.shown.session

    @property
    def has_session(self) -> bool:
        return self.shown is not None

    @property
    def last_plan(self) -> ContextPlan | None:
        """The plan drawn for the conversation on screen (its next request)."""
        return self.planner.plan

    @property
    def streaming(self) -> bool:
        """Whether a reply streams (in any conversation)."""
        try:
            return self.turn_runner.streaming
        except NoMatches:  # the footer asks before the columns are mounted: none yet
            return False

    @property
    def find_bar(self) -> FindBar | None:
        """The find bar, once it has been opened."""
        return self.chat.find_bar

    def shows(self, session: ChatSession) -> bool:
        """Whether the pane shows `session`'s conversation (through any session object)."""
        return self.shown is not None and self.shown.shows(session)

    def show_session(self, session: ChatSession) -> None:
        """Make `session`'s conversation the one on screen (what the last one showed goes;
        a reply still streaming goes on)."""
        left, self.shown = self.shown, OnScreen(session)
        self.sessions.keep(session)
        if left is not None and not left.shows(session):
            for composer in self.query(Composer).results(Composer):
                composer.switch_draft(left.session.conversation_id, session.conversation_id)

    async def show_conversation(self) -> None:
        """Draw the open session's conversation from the store (newest turns only)."""
        shown, view = self.shown, self.conversation_view
        assert shown is not None, "no conversation is open"
        session = shown.session
        shown.shown_version = session.store.data_version()
        # Drawn afresh: no earlier plan to compare with, and nothing of the conversation
        # shown before stays (its mode-change note, its status).
        self.side.forget_mode_change()
        self.chat.show_status()
        # The plan first: the newest turns then arrive in the same frame, before the pane
        # mounts older pages to fill its margin.
        self.planner.afresh()
        if session.conversation_id is None:
            await view.replace_all(0, lambda offset, limit: [])
        else:
            total = session.store.messages.count_messages(session.conversation_id)
            await view.replace_all(total, stored_loader(session))
        self.after_first_frame(lambda: self.embedder.embed(session))
        await self.chat.follow_redraw()
        self.refresh_bindings()  # the footer's hints are this conversation's

    async def open_conversation(self, conversation_id: int) -> None:
        """Make `conversation_id` the open conversation (a reply still streaming elsewhere
        goes on into the store, and into the pane again once its conversation is back)."""
        # Its session of this run, else one on the model chosen for that conversation (F4),
        # or the default one. A connection left behind is not closed here: a reply or summary
        # may still be using it.
        current = self.session
        self.sessions.keep(current)  # a new conversation has an id once it is sent
        session = self.sessions.of(
            conversation_id,
            current,
            lambda: session_on(current, self.workspace, conversation_id, notes=self._warn),
            self._follow_choice,
        )
        session.take_run_choices(current)  # the mode and recall's reach are the run's
        self.show_session(session)
        self.workspace.update_state(last_conversation_id=conversation_id)  # for the next start
        await self.show_conversation()

    def _warn(self, note: str) -> None:
        self.notify(note, severity="warning", markup=False)

    def _follow_choice(self, session: ChatSession) -> None:
        """Bring a conversation's session of this run to the model chosen for it as stored
        now (another process may have chosen one since), and say so when that changed it."""
        if follow_choice(session, self.workspace, notes=self._warn):
            self.notify(
                f"Now talking to {session.model} ({session.profile.name}): the model chosen "
                "for this conversation since it was last open here.",
                markup=False,
            )

    async def reload_conversation(self) -> None:
        """Draw the open conversation again after a change that rewrote its turns."""
        await self.show_conversation()

    # --- the plan and the titles ----------------------------------------------------------

    def draft(self) -> str | None:
        text = self.composer.text
        return text if text.strip() else None

    def _draft_now(self) -> str | None:
        """The draft, for the planner (None once the app is closing: no composer)."""
        try:
            return self.draft()
        except NoMatches:
            return None

    @on(Composer.Changed)
    def _typed(self) -> None:
        self.planner.typed()

    def _draw_plan(self, previous: ContextPlan | None, plan: ContextPlan | None) -> None:
        """Draw the plan (`Planner.plan`): the context side (beside the one before: a mode
        switch's effect), the turns it leaves out, the titles."""
        if plan is not None and self.shown is not None:
            self.side.show_plan(plan, previous)
            self.conversation_view.mark_outside(outside_marks(plan))
            self.update_titles()

    def update_titles(self) -> None:
        if self.shown is None:
            self.sub_title = "setup"
        else:
            self.title, self.sub_title = self.shown.titles()

    # --- what the columns and the parts say -----------------------------------------------

    def _turn_drawn(self, drawn: TurnDrawn | None) -> None:
        """A turn's start or end is being drawn (`TurnRunner.drawn`; the planner follows
        what the turn stored on its own)."""
        if drawn is None or drawn.started is None:
            return
        if drawn.started.kept:
            self.notify(
                "The previous reply is kept as a variant: reply: variants "
                f"({self.key_for('reply.variants')}) brings it back.",
                markup=False,
            )
        if self.shows(drawn.request.session):
            self.side.forget_mode_change()  # a sent message makes its note old news

    @on(TurnRunner.Ended)
    def _turn_ended(self, event: TurnRunner.Ended) -> None:
        if isinstance(event.outcome, TurnFinished):
            if self.server_notice is not None and self.has_session:
                self.server_notice = None
                self.model_flow.detect_window(self.session)  # the server is up now: ask it
            self.embedder.embed(event.request.session)
            self.summary_flow.fold_pending(event.request.session)

    @on(ChatPane.Rewritten)
    async def _rewritten(self, event: ChatPane.Rewritten) -> None:
        if event.branch_id is not None:
            await self.open_conversation(event.branch_id)
        else:
            await self.reload_conversation()
        why = Resend.EDIT if event.branch_id is None else Resend.BRANCH
        self.chat.run_turn(self.session, lambda session: regenerate_counted(session, why))

    @on(ConversationView.PinRequested)
    def _pin_message(self, event: ConversationView.PinRequested) -> None:
        self.side.pin_message(event.message_id, event.text)

    @on(ConversationView.ExcludeRequested)
    def _exclude(self, event: ConversationView.ExcludeRequested) -> None:
        if self.has_session:
            self.context_control.exclude(
                self.session, event.message_id, event.excluded, pair=event.pair
            )

    @on(ContextControl.Excluded)
    def _excluded(self, event: ContextControl.Excluded) -> None:
        """The turns left out (or back in) are marked (the planner follows on its own)."""
        if self.shows(event.session):
            session = self.session
            for message in event.messages:
                self.conversation_view.update_message(session_message_view(message, session))

    @on(MemoryPanel.Left)
    def _back_to_composer(self) -> None:
        self.composer.focus()

    @on(MemoryPanel.SourceRequested)
    async def _go_to_source(self, event: MemoryPanel.SourceRequested) -> None:
        await self.chat.show_source(event.message_id)

    def asked(self) -> Asked:
        """Where the user is now, as they ask for something that takes a while."""
        conversation = self.session.conversation_id if self.has_session else None
        return Asked(conversation, self.composer.edits, self.focused)

    def _name_of(self, conversation_id: int) -> str | None:
        try:
            return self.session.store.conversations.get_conversation(conversation_id).name
        except NotFound:
            return None

    @on(ResultReady)
    def _result_ready(self, event: ResultReady) -> None:
        self.kept_results.offer(event)

    @on(AskAgainFlow.ReplyReplaced)
    async def _reply_replaced(self, event: AskAgainFlow.ReplyReplaced) -> None:
        if self.shows(event.session):
            await self.show_conversation()

    @on(AskAgainFlow.VariantChosen)
    def _variant_chosen(self, event: AskAgainFlow.VariantChosen) -> None:
        if self.has_session and not self.streaming:
            self.ask_again_flow.open_variant(self.session, event.choice)

    @on(ModelFlow.Reachable)
    def _reachable(self, event: ModelFlow.Reachable) -> None:
        self.server_notice = event.notice

    @on(ModelFlow.Learned)
    def _learned(self, event: ModelFlow.Learned) -> None:
        if event.model_changed:
            self.update_titles()  # no model was named and the server's only one was taken

    @on(ConversationDialogs.OpenRequested)
    async def _open_requested(self, event: ConversationDialogs.OpenRequested) -> None:
        await self.open_conversation(event.conversation_id)
        found = event.message_id
        if found is not None and await self.chat.show_message(found):
            self.conversation_view.focus()

    @on(ConversationDialogs.Renamed)
    def _renamed(self) -> None:
        self.update_titles()

    @on(PresetDialogs.Changed)
    def _preset_changed(self, event: PresetDialogs.Changed) -> None:
        """The preset or the system prompt changed (the planner follows): the header
        (preset, model) too; another model's server is asked about it."""
        if not self.shows(event.session):
            return
        self.update_titles()
        if event.model_changed and not self.offline:
            self.model_flow.detect_window(event.session)

    @on(LayerPanel.PromptAsked)
    def _prompt_asked(self, event: LayerPanel.PromptAsked) -> None:
        if event.what == "preset":
            self.preset_dialogs.choose()
        else:
            self.preset_dialogs.edit_prompt()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR and event.worker.error is not None:
            # A failure nobody expected still never reaches the user as a traceback.
            self.notify(f"Something failed: {event.worker.error}", severity="error", markup=False)

    @property
    def in_memory_panel(self) -> bool:
        """Whether the focus is in the memory panel."""
        focused = self.focused
        return focused is not None and any(
            isinstance(node, MemoryPanel) for node in focused.ancestors_with_self
        )

    def typing_goes_to_composer(self, event: events.Event) -> bool:
        """Whether `event`, about to reach the focused widget, is typing meant for the
        composer (see `typing_for_composer`). The app asks this in its own queue, before the
        key is delivered, so a burst of keys stays in order and never fires an action."""
        return self.app.screen is self and typing_for_composer(event, self.focused)

    # --- the screen's actions -------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "focus_conversation" and self.in_memory_panel:
            return False  # f5 sorts there
        row = BY_ID.get(str(parameters[0])) if action == "route" else self.ACTIONS.get(action)
        needs = Needs.NOTHING if row is None else row.needs
        if needs is Needs.STREAMING:
            return self.streaming
        if needs is Needs.JOB:
            with contextlib.suppress(NoMatches):  # none before the columns are mounted
                return self.jobs_line.running
            return False
        # Before the first-run setup opens a conversation only quitting (and the palette)
        # means anything: hide the rest from the footer.
        return self.has_session or needs is not Needs.SESSION

    async def action_route(self, action_id: str) -> None:
        """Run the action `action_id` where its `target` says (a part's or a widget's
        method): the screen's keys and the palette reach the parts through here."""
        action = BY_ID[action_id]
        where, method = action.target.split(".")
        _, _, parameters = parse(action.action)
        result = getattr(self.query_one(where), method)(*parameters)
        if inspect.isawaitable(result):
            await result

    @property
    def queued_count(self) -> int:
        """How many messages wait to be sent, in every conversation."""
        return len(self.turn_runner.queue.messages)

    def action_toggle_mode(self) -> None:
        if not self.has_session:
            return
        mode = self.session.toggle_mode()
        self.workspace.update_state(last_mode=mode)  # for the next start
        self.notify(f"Mode: {mode.value}", markup=False, timeout=2)

    async def action_at_once(self, binding_id: str) -> None:
        """A key that opens a text box, read in the composer (`Action.first_on`): the box
        opens before the keys typed after it arrive. A key `[keys]` gave to another action
        is left to that one."""
        action = BY_ID[binding_id].screen_action
        _, name, parameters = parse(action)
        if remapped_away(self.workspace.settings.keymap, binding_id) or not self.check_action(
            name, parameters
        ):
            raise SkipAction()
        await self.run_action(action)

    @on(ConversationDialogs.NewRequested)
    async def action_new_conversation(self) -> None:
        if not self.has_session:
            return
        # A new conversation starts on the default model: a choice belongs to its conversation.
        conversation = self.session.create_conversation()
        await self.open_conversation(conversation.id)
        self.composer.focus()

    def action_inspect(self) -> None:
        """The next request; or, with a reply selected in the conversation, its request."""
        self.message_dialogs.inspect(self.conversation_view.selected_id, self.draft())

    # What came while the user was busy (proposals, the model list) opens on its key,
    # rather than asking again.
    def action_extract(self) -> None:
        if not self.kept_results.open_waiting("extract"):
            self.extraction_flow.extract(self.asked())

    def action_switch_model(self) -> None:
        if not self.kept_results.open_waiting("models"):
            self.model_flow.pick(self.asked())

    def action_ask_again(self) -> None:
        self.ask_again_flow.ask_again(self.conversation_view.selected_id)

    def action_variants(self) -> None:
        """List the selected (or newest) reply's variants."""
        if self.app.screen is self:  # a priority key: not over a dialog
            self.ask_again_flow.show_variants(self.conversation_view.selected_id)

    def action_focus_conversation(self) -> None:
        if self.app.screen is self:
            self.chat.focus_turns()

    def action_task(self) -> None:
        if self.app.screen is self:
            self.context_control.edit_task(self.session)

    def action_files(self) -> None:
        if self.app.screen is self:
            self.context_control.edit_files(self.session)

    def action_focus_memory(self) -> None:
        # Never from under a dialog: the key would steer a list the user cannot see.
        if self.app.screen is self:
            self.side.focus_memory()

    async def action_composer(self, action: str) -> None:
        """Run the composer's `action` (from the palette): the draft is what it acts on."""
        self.composer.focus()
        await self.composer.run_action(action)

    @on(Composer.Cleared)
    def _draft_cleared(self, event: Composer.Cleared) -> None:
        self.notify(
            f"Cleared the draft ({counted(event.lines, 'line')}); "
            f"{self.key_for('composer.undo')} brings it back.",
            markup=False,
        )

    # --- state that outlives the run ------------------------------------------------------

    @property
    def _shown_id(self) -> int | None:
        return self.session.conversation_id if self.has_session else None

    def keep_drafts(self) -> None:
        """Keep every unsent draft in the state file for the next start (a draft another
        run left since this one started stays too)."""
        if not self.mounted.is_set():
            return
        started_with = self.workspace.state.drafts
        on_disk = load_state(self.workspace.locations.state_file).state.drafts
        others = {k: v for k, v in on_disk.items() if k not in started_with}
        drafts = {**others, **self.composer.every_draft(self._shown_id)}
        if drafts != on_disk:
            try:
                self.workspace.update_state(drafts=drafts)
            except OSError as error:
                # The app is ending, so stderr is where this goes (if the terminal is there).
                with contextlib.suppress(OSError):
                    print(f"ctxchat: could not keep the draft ({error})", file=sys.stderr)

    def key_for(self, binding_id: str) -> str:
        """The key a binding is on (the user's `[keys]` remap, else its own), as the footer
        shows it."""
        return key_for(self.app, self.workspace.settings.keymap, binding_id)

    def notify_lines(
        self, lines: Sequence[str], *, severity: SeverityLevel = "information"
    ) -> None:
        for line in lines:
            self.notify(line, severity=severity, markup=False)
