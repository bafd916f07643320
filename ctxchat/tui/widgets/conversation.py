"""The conversation pane: a window onto a long history, mounting only the turns near the view."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, ClassVar, Concatenate, ParamSpec, TypeAlias, TypeVar

from textual import events
from textual.binding import BindingType
from textual.containers import VerticalScroll
from textual.css.query import NoMatches
from textual.geometry import Size
from textual.reactive import var
from textual.widget import Widget

from ctxchat.core.history import MessageStatus
from ctxchat.tui.actions import bindings_for
from ctxchat.tui.live_turn import LiveTurn
from ctxchat.tui.outside import OutsideMarks
from ctxchat.tui.views import MessageView
from ctxchat.tui.widgets.conversation_messages import (
    CopyCodeRequested,
    CopyRequested,
    DetailsRequested,
    EditRequested,
    ExcludeRequested,
    Highlighted,
    Left,
    PinRequested,
    RegenerateRequested,
)

if TYPE_CHECKING:
    from ctxchat.tui.widgets.message_item import MessageItem

Loader = Callable[[int, int], Sequence[MessageView]]
"""`load(offset, limit)`: messages `offset` to `offset + limit` counted from the oldest (0),
oldest first."""

RETRYABLE = (MessageStatus.INTERRUPTED, MessageStatus.FAILED)


def _no_messages(offset: int, limit: int) -> Sequence[MessageView]:
    return []


def item_class() -> type[MessageItem]:
    """The turn widget, imported when the first turn is shown (or by `warm_widgets`): with
    it come Textual's Markdown, markdown-it and Pygments, about 45 ms a start needs only
    when its conversation has turns."""
    from ctxchat.tui.widgets.message_item import MessageItem

    return MessageItem


def warm_widgets() -> None:
    """Import what drawing turns needs, so the first one sent does not wait for it."""
    item_class()


_Args = ParamSpec("_Args")
_Result = TypeVar("_Result")


def one_change_at_a_time(
    change: Callable[Concatenate[ConversationView, _Args], Awaitable[_Result]],
) -> Callable[Concatenate[ConversationView, _Args], Awaitable[_Result]]:
    """Run `change` of the mounted turns once no other change is under way.

    Mounting and removing turns take several turns of the event loop, and the pane is
    changed from two sides: the reply worker adds turns while the pane pages in more as it
    scrolls (a resize scrolls it). A page loaded while a turn was being added found the
    window short of that turn and mounted it a second time (DuplicateIds). One change at a
    time, each sees the window (`_start`, `_end`, `_total`) agree with the mounted turns.
    """

    @functools.wraps(change)
    async def one_at_a_time(
        view: ConversationView, /, *args: _Args.args, **kwargs: _Args.kwargs
    ) -> _Result:
        async with view._changing:
            result = await change(view, *args, **kwargs)
        view.page_if_asked()
        return result

    return one_at_a_time


def page_unless_changing(
    load: Callable[[ConversationView], Awaitable[None]],
) -> Callable[[ConversationView], Awaitable[None]]:
    """Load a page as scrolling asks, unless the turns are changing: the change asks again
    when it is done (the pane's own loop never waits for the reply worker)."""

    @functools.wraps(load)
    async def unless_changing(view: ConversationView) -> None:
        if view._changing.locked():
            view._page_asked = True
            return
        async with view._changing:
            await load(view)
        view.page_if_asked()

    return unless_changing


class ConversationView(VerticalScroll, can_focus=True):
    """User and assistant turns; older turns are loaded a page at a time as the user scrolls up.

    Only a window of the history is mounted: the newest `INITIAL` turns at first, a `PAGE`
    more at either edge when the view reaches it, never more than `MAX_MOUNTED` at once.
    """

    DEFAULT_CSS = """
    ConversationView {
        height: 1fr;
        padding: 0 1;
        scrollbar-size-vertical: 1;
        &:focus {
            background-tint: $foreground 3%;
        }
    }
    """

    # No bare letters: a key typed here by mistake goes to the composer (see the app), and
    # what changes a conversation sits on a Ctrl chord that typing cannot hit.
    BINDINGS: ClassVar[list[BindingType]] = bindings_for("ConversationView")

    selected_id: var[int | None] = var(None, bindings=True, init=False)
    """The message the user selected (None: actions apply to the newest): the keys that
    apply follow it."""
    live: var[LiveTurn | None] = var(None, bindings=True, init=False)
    """The reply streaming in the conversation shown, if one is: while it streams, the keys
    that would change the conversation wait."""

    INITIAL = 40
    PAGE = 20
    MAX_MOUNTED = 120
    EDGE = 2
    """How close (in lines) to the top or bottom the view must be to load the next page."""

    # Its messages (`tui/widgets/conversation_messages.py`).
    CopyRequested: TypeAlias = CopyRequested
    CopyCodeRequested: TypeAlias = CopyCodeRequested
    PinRequested: TypeAlias = PinRequested
    EditRequested: TypeAlias = EditRequested
    DetailsRequested: TypeAlias = DetailsRequested
    ExcludeRequested: TypeAlias = ExcludeRequested
    RegenerateRequested: TypeAlias = RegenerateRequested
    Left: TypeAlias = Left
    Highlighted: TypeAlias = Highlighted

    def __init__(
        self,
        total_count: int = 0,
        loader: Loader | None = None,
        *,
        initial: int | None = None,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        """`initial` overrides how many of the newest turns are mounted at first."""
        super().__init__(name=name, id=id, classes=classes)
        if initial is not None:
            self.INITIAL = initial
        self._total = total_count
        self._loader: Loader = loader or _no_messages
        self._start = 0
        self._end = 0
        self._loading = False
        self._outside = OutsideMarks()
        self._changing = asyncio.Lock()  # see `one_change_at_a_time`
        self._page_asked = False  # scrolling asked for a page while the turns changed
        self._revealed: MessageItem | None = None  # see `watch_virtual_size`

    @property
    def total_count(self) -> int:
        return self._total

    @property
    def window(self) -> tuple[int, int]:
        """The offsets (from the oldest, end exclusive) of the mounted messages."""
        return self._start, self._end

    @property
    def items(self) -> list[MessageItem]:
        """The mounted turns, oldest first."""
        return list(self.query_children(item_class()))

    @one_change_at_a_time
    async def on_mount(self) -> None:
        await self._show_newest()

    # Method calls from the app.

    @one_change_at_a_time
    async def replace_all(self, total_count: int, loader: Loader) -> None:
        """Show another conversation (or the same one after a change that rewrote its turns)."""
        self._total = total_count
        self._loader = loader
        self.live = None  # the conversation's reply, if it streams, is followed again
        self._set_selected(None)
        await self._show_newest()

    @one_change_at_a_time
    async def add_message(self, view: MessageView) -> MessageItem:
        """Append a message the store now holds (the user's, or a reply) and show it.

        If the view is back in history, it jumps to the newest turns first.
        """
        self._total += 1
        if self._end < self._total - 1:
            # The window is back in history: show the newest turns instead.
            await self._show_newest()
            mounted = self.item(view.id)
            if mounted is not None:
                return mounted
        item = self._make(view)
        await self.mount(item)
        self._end += 1
        await self._prune_oldest()
        # A new turn is the user's doing: follow it, and let actions apply to the newest again.
        if self.selected_id is not None:
            self._set_selected(None)
        self.anchor()
        return item

    async def begin_reply(self, view: MessageView, live: LiveTurn) -> MessageItem:
        """Append the reply that is about to stream in (`live`), and start its stream."""
        item = await self.add_message(view)
        item.start_stream(live)
        self.follow(live)
        return item

    def follow(self, live: LiveTurn) -> None:
        """`live` is the reply streaming in this conversation: while it streams, its turn
        stays mounted and the keys that would change the conversation wait."""
        self.live = live

    def page_if_asked(self) -> None:
        """Load the pages scrolling asked for while the turns changed (if still needed)."""
        if self._page_asked:
            self._page_asked = False
            self.call_after_refresh(self._fill_viewport)
            self.call_after_refresh(self._load_at_edge)

    def _streaming_id(self) -> int | None:
        """The id of the reply streaming in this conversation, if one is."""
        live = self.live
        return live.reply_id if live is not None and live.streaming else None

    def update_message(self, view: MessageView) -> None:
        """Show a stored message's new state, if it is mounted (otherwise it loads fresh)."""
        item = self.item(view.id)
        if item is not None:
            item.update_view(view)
            self.refresh_bindings()

    def mark_outside(self, marks: OutsideMarks) -> None:
        """Mark the turns the next request leaves out (the plan changed)."""
        if marks == self._outside:
            return
        self._outside = marks
        for item in self.items:
            item.mark_outside(marks.run_of(item.message_id))

    def _make(self, view: MessageView) -> MessageItem:
        item = item_class()(view)
        item.mark_outside(self._outside.run_of(view.id))
        return item

    # Paging.

    async def _show_newest(self) -> None:
        # No page loads while the turns are replaced: a scroll as the old ones go would
        # load a page of the new window, and then the window itself again.
        self._loading = True
        try:
            await self.remove_children()
            start = max(0, self._total - self.INITIAL)
            views = list(self._loader(start, self._total - start))
            self._start = start
            self._end = start + len(views)
            if views:
                await self.mount_all([self._make(view) for view in views])
        finally:
            self._loading = False
        if self.selected_id is not None and not self._has_item(self.selected_id):
            self._set_selected(None)
        self.anchor()
        self.call_after_refresh(self._fill_viewport)

    async def _show_from(self, start: int) -> None:
        """Mount the oldest turns (Home), the newer ones page in as the user scrolls down."""
        self._loading = True
        try:
            await self._mount_window(start)
        finally:
            self._loading = False
        self.anchor(False)
        self.scroll_home(animate=False, immediate=True)
        self.call_after_refresh(self._sync_scrollbar)

    async def _mount_window(self, start: int) -> None:
        """Replace the mounted turns with those from offset `start` on (as many as at first)."""
        await self.remove_children()
        start = max(0, min(start, self._total - self.INITIAL))
        views = list(self._loader(start, min(self._total - start, self.INITIAL)))
        self._start, self._end = start, start + len(views)
        if views:
            await self.mount_all([self._make(view) for view in views])

    @page_unless_changing
    async def _fill_viewport(self) -> None:
        """Load older pages until the view can scroll: what is visible plus a margin."""
        if self._start > 0 and not self._loading and self.max_scroll_y <= self.size.height:
            await self._load_older()

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if self._loading or not self.is_mounted:
            return
        if new_value <= self.EDGE and self._start > 0 and self.max_scroll_y > 0:
            self.call_later(self._load_at_edge)
        elif new_value >= self.max_scroll_y - self.EDGE:
            if self._end < self._total:
                self.call_later(self._load_at_edge)
            elif not self.is_anchored and self.selected_id is None:
                # Back at the newest turn: follow new text again.
                self.anchor()

    @page_unless_changing
    async def _load_at_edge(self) -> None:
        # Checked again here: several scroll steps may have asked before the first load ran.
        if self._loading:
            return
        if self.scroll_y <= self.EDGE and self._start > 0:
            await self._load_older()
        elif self.scroll_y >= self.max_scroll_y - self.EDGE and self._end < self._total:
            await self._load_newer()

    async def _load_older(self) -> None:
        if self._loading or self._start == 0:
            return
        self._loading = True
        start = max(0, self._start - self.PAGE)
        views = list(self._loader(start, self._start - start))
        if not views:
            self._start = 0
            self._loading = False
            return
        items = self.items
        keep = self._position_of(items[0]) if items else None
        await self.mount_all([self._make(view) for view in views], before=0)
        self._start -= len(views)
        surplus = len(items) + len(views) - self.MAX_MOUNTED
        # A reply still streaming stays mounted, even past the cap.
        streaming = self._streaming_id()
        if surplus > 0 and not any(item.message_id == streaming for item in items[-surplus:]):
            # Far from the newest turns now: stop following them.
            self.anchor(False)
            await self._unmount(items[-surplus:])
            self._end -= surplus
        self.call_after_refresh(self._restore, keep)

    async def _load_newer(self) -> None:
        if self._loading or self._end >= self._total:
            return
        self._loading = True
        # No further than the turns the pane was told of: one the store holds already (a
        # reply just begun) is added by `add_message`, once.
        views = list(self._loader(self._end, min(self.PAGE, self._total - self._end)))
        if not views:
            # The store has fewer messages than we were told: believe the store.
            self._total = self._end
            self._loading = False
            return
        items = self.items
        surplus = len(items) + len(views) - self.MAX_MOUNTED
        keep = self._position_of(items[surplus]) if 0 < surplus < len(items) else None
        await self.mount_all([self._make(view) for view in views])
        self._end += len(views)
        if surplus > 0:
            await self._unmount(items[:surplus])
            self._start += surplus
        self.call_after_refresh(self._restore, keep)

    async def _prune_oldest(self) -> None:
        items = self.items
        surplus = len(items) - self.MAX_MOUNTED
        if surplus > 0:
            await self._unmount(items[:surplus])
            self._start += surplus

    async def _unmount(self, items: Sequence[MessageItem]) -> None:
        if self.selected_id is not None and any(i.message_id == self.selected_id for i in items):
            self._set_selected(None)
        await self.remove_children(items)

    def _sync_scrollbar(self) -> None:
        """Put the scrollbar's thumb where the view is. Textual moves it only on a scroll
        while the bar is shown: when the turns are replaced, the view may go back to the top
        while there is nothing to scroll, and the thumb came back where it was (at the bottom,
        over a view at the top)."""
        self.vertical_scrollbar.position = self.scroll_y

    def _position_of(self, item: MessageItem) -> tuple[MessageItem, float]:
        """Where `item` is on screen, to put it back there after the turns above it change."""
        return item, item.virtual_region.y - self.scroll_y

    def _restore(self, keep: tuple[MessageItem, float] | None) -> None:
        revealed = self._revealed
        if revealed is not None and revealed.is_mounted:
            # A turn just opened (a search hit) stays the one on show as a page loads and
            # the far end is let go: the page may weigh what it replaces, and then no size
            # changes to centre it again.
            self._centre(revealed)
        elif keep is not None:
            item, offset = keep
            self.scroll_to(
                y=item.virtual_region.y - offset,
                animate=False,
                immediate=True,
                release_anchor=False,
            )
        self._loading = False
        self.call_after_refresh(self._fill_viewport)

    # Selection.

    def item(self, message_id: int | None) -> MessageItem | None:
        """The mounted item of `message_id` (found by its widget id), if there is one."""
        if message_id is None:
            return None
        try:
            return self.get_child_by_id(f"message-{message_id}", item_class())
        except NoMatches:
            return None

    def _newest_item(self) -> MessageItem | None:
        """The conversation's newest turn, if it is mounted."""
        items = self.items
        return items[-1] if items and self._end == self._total else None

    def _has_item(self, message_id: int) -> bool:
        return self.item(message_id) is not None

    def _selected_item(self) -> MessageItem | None:
        return self.item(self.selected_id)

    def _target(self) -> MessageItem | None:
        """The message an action applies to: the selected one, else the newest."""
        selected = self._selected_item()
        if selected is not None:
            return selected
        return self._newest_item()

    def _set_selected(self, item: MessageItem | None) -> None:
        if item is not self._revealed:
            self._revealed = None
        old = self._selected_item()
        if old is not None:
            old.remove_class("-selected")
        changed = self.selected_id != (None if item is None else item.message_id)
        self.selected_id = None if item is None else item.message_id
        if item is not None:
            item.add_class("-selected")
            taller = item.outer_size.height > self.scrollable_content_region.height
            self.scroll_to_widget(item, animate=False, top=taller)
        if changed:
            self.post_message(self.Highlighted(self.selected_id))

    def select(self, message_id: int) -> None:
        """Select a mounted message (the app may also select one, e.g. after a search)."""
        item = self.item(message_id)
        if item is not None:
            self._set_selected(item)

    @one_change_at_a_time
    async def reveal(self, message_id: int, position: int) -> bool:
        """Select `message_id`, the conversation's message at offset `position` from the
        oldest, and scroll it into view, mounting it with the turns around it when it is
        not mounted (a search hit far up). False when there is no such message."""
        item = self.item(message_id)
        mounted_now = item is None
        if item is None and 0 <= position < self._total:
            # No page loads until it is in view: the window's edges are near the top at first.
            self._loading = True
            try:
                await self._mount_window(position - self.PAGE // 2)
            except BaseException:
                self._loading = False
                raise
            item = self.item(message_id)
            if item is None:
                self._loading = False
                return False
        elif item is None:
            return False
        self.anchor(False)
        self._revealed = item
        self._set_selected(item)
        # Its place is known once the turns just mounted are laid out.
        self.call_after_refresh(self._bring_into_view, item, mounted_now)
        return True

    def _bring_into_view(self, item: MessageItem, mounted_now: bool) -> None:
        """Centre `item`, then let pages load."""
        self._centre(item)
        if mounted_now:
            self._loading = False
            self.call_after_refresh(self._fill_viewport)

    def _centre(self, item: MessageItem) -> None:
        """Centre `item` (its top, when it is taller than the view)."""
        if item.is_mounted:
            if item.outer_size.height > self.scrollable_content_region.height:
                self.scroll_to_widget(item, animate=False, top=True, immediate=True)
            else:
                # Centred by its place alone: Textual's centring rounds by where the view was,
                # so the same hit came out a row apart from one time to the next.
                above = (self.scrollable_content_region.height - item.outer_size.height) // 2
                self.scroll_to(
                    y=item.virtual_region.y - above, animate=False, immediate=True, force=True
                )
            self._sync_scrollbar()

    def watch_virtual_size(self, old: Size, new: Size) -> None:
        """Keep a revealed turn on show while the turns are laid out again.

        The first layout after a reveal is not the last: a reply's blocks are arranged at
        the pane's width, a page loads at an edge, and the turns above the one centred grow,
        so the view showed turns above the selected one. Its place is taken again after
        each change, until the user moves the view or the selection."""
        revealed = self._revealed
        if revealed is not None and old != new:
            self.call_after_refresh(self._keep_revealed, revealed)

    def _keep_revealed(self, item: MessageItem) -> None:
        if item is self._revealed and item.is_mounted:
            self._centre(item)

    def _moved_by_user(self) -> None:
        """The user scrolled: a revealed turn is no longer held on show."""
        self._revealed = None

    def on_mouse_scroll_up(self) -> None:
        self._moved_by_user()

    def on_mouse_scroll_down(self) -> None:
        self._moved_by_user()

    def on_mouse_down(self) -> None:
        self._moved_by_user()

    def action_page_up(self) -> None:
        self._moved_by_user()
        super().action_page_up()

    def action_page_down(self) -> None:
        self._moved_by_user()
        super().action_page_down()

    @one_change_at_a_time
    async def action_select_previous(self) -> None:
        items = self.items
        if not items:
            return
        selected = self._selected_item()
        if selected is None:
            self._set_selected(items[-1])
            return
        index = items.index(selected)
        if index == 0 and self._start > 0:
            await self._load_older()
            items = self.items
            index = items.index(selected)
        self._set_selected(items[max(0, index - 1)])

    @one_change_at_a_time
    async def action_select_next(self) -> None:
        selected = self._selected_item()
        if selected is None:
            return
        items = self.items
        index = items.index(selected)
        if index == len(items) - 1 and self._end < self._total:
            await self._load_newer()
            items = self.items
            index = items.index(selected)
        self._set_selected(items[min(len(items) - 1, index + 1)])

    @one_change_at_a_time
    async def action_select_last(self) -> None:
        if self._end < self._total:
            await self._show_newest()
        items = self.items
        if items:
            self._set_selected(items[-1])
            self.scroll_end(animate=False)

    @one_change_at_a_time
    async def action_select_first(self) -> None:
        if self._start > 0:
            await self._show_from(0)
        items = self.items
        if items:
            self._set_selected(items[0])
            self.scroll_home(animate=False)

    def action_clear_selection(self) -> None:
        self._set_selected(None)
        self.anchor()

    def action_leave(self) -> None:
        self.action_clear_selection()
        self.post_message(self.Left())

    def on_click(self, event: events.Click) -> None:
        clicked: Widget | None = event.widget
        widget = clicked
        while widget is not None and widget is not self:
            if isinstance(widget, item_class()):
                self._set_selected(widget)
                # A click on a failed or stopped reply's marker line opens its details.
                on_marker = clicked is not None and clicked.has_class("message--status")
                if on_marker and widget.view.status in RETRYABLE:
                    self.post_message(self.DetailsRequested(widget.message_id))
                return
            parent = widget.parent
            widget = parent if isinstance(parent, Widget) else None

    # Actions on the selected (or newest) message.

    def _streaming(self) -> bool:
        return self.live is not None and self.live.streaming

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "leave":
            # While a reply streams, Esc is the app's: it stops the reply.
            return not self._streaming()
        target = self._target()
        if action in ("copy", "pin", "copy_code"):
            return None if target is None else True
        if action == "exclude":
            # Not the reply being written: it is not stored whole yet.
            ok = target is not None and not target.is_streaming
            return True if ok else None
        if action == "edit":
            ok = target is not None and target.view.role == "user" and not self._streaming()
            return True if ok else None
        if action == "details":
            # Shown only beside a reply that ended badly: the footer has no room to spare.
            return target is not None and target.view.status in RETRYABLE
        if action == "regenerate":
            last = self._newest_item()
            ok = last is not None and last.view.role == "assistant" and not self._streaming()
            return True if ok else None
        return True

    def action_copy(self) -> None:
        target = self._target()
        if target is not None:
            self.post_message(self.CopyRequested(target.message_id, target.view.content))

    def action_copy_code(self) -> None:
        target = self._target()
        if target is not None:
            self.post_message(self.CopyCodeRequested(target.message_id, target.view.content))

    def action_pin(self) -> None:
        target = self._target()
        if target is not None:
            text = target.selected_text() or target.view.content
            self.post_message(self.PinRequested(target.message_id, text))

    def action_exclude(self) -> None:
        self._exclude(pair=False)

    def action_exclude_pair(self) -> None:
        self._exclude(pair=True)

    def _exclude(self, *, pair: bool) -> None:
        target = self._target()
        if target is not None and not target.is_streaming:
            excluded = not target.view.excluded
            self.post_message(self.ExcludeRequested(target.message_id, excluded, pair))

    def action_edit(self) -> None:
        target = self._target()
        if target is not None and target.view.role == "user":
            self.post_message(self.EditRequested(target.message_id))

    def action_details(self) -> None:
        target = self._target()
        if target is not None and target.view.status in RETRYABLE:
            self.post_message(self.DetailsRequested(target.message_id))

    def action_regenerate(self) -> None:
        self.post_message(self.RegenerateRequested())
