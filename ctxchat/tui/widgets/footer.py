"""Textual's footer, brought up to date once per burst of binding changes, key by key."""

from __future__ import annotations

import asyncio
from difflib import SequenceMatcher

from textual import events
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer

from ctxchat.tui.textual_compat import FooterKey, set_footer_bindings_ready


class KeyFooter(Footer):
    """A `Footer` that coalesces the rebuilds a burst of binding changes asks for.

    Textual's footer queues a full rebuild (a widget per key) for every binding change;
    focusing the composer at start-up and starting or ending a reply each send several,
    and each rebuild costs about 25 ms. The rebuild reads the bindings as they are when
    it runs, so one rebuild after the burst shows the same keys.

    It shows whole keys only: those that do not fit beside the palette key are hidden
    (the last ones first: the focused widget's keys come first), never cut at the edge.
    The palette lists every command with its key.
    """

    def __init__(self, *, keys_at_first_frame: bool = False) -> None:
        """`keys_at_first_frame`: draw the keys in the first frame, not after the first binding change.

        Only for a screen whose `check_action` reads state, not widgets: when the footer
        composes, the screen's other widgets may not be mounted yet.
        """
        super().__init__()
        self._rebuild_queued = False
        self._keys_ready = keys_at_first_frame
        set_footer_bindings_ready(self, keys_at_first_frame)
        self._shown: tuple[object, ...] | None = None  # the keys the last build drew

    def bindings_changed(self, screen: Screen) -> None:  # type: ignore[type-arg]
        self._keys_ready = True
        set_footer_bindings_ready(self, True)
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen and not self._rebuild_queued:
            self._rebuild_queued = True
            self.call_after_refresh(self._rebuild)

    async def draw_keys_now(self) -> None:
        """Draw the keys of the bindings as they are now, before the next frame: a screen
        that moves focus while it mounts has the focused widget's keys in its first frame,
        not the keys it composed with and then, a frame later, others."""
        self._keys_ready = True
        set_footer_bindings_ready(self, True)
        drawn = asyncio.Event()

        async def rebuild() -> None:
            try:
                await self._rebuild()
            finally:
                drawn.set()

        # In the footer's own queue: its keys are composed in its context, not the caller's.
        self.call_next(rebuild)
        await drawn.wait()

    async def _rebuild(self) -> None:
        self._rebuild_queued = False
        # Under a dialog, the keys would be checked on the dialog (Textual resolves the
        # `screen.` actions on the screen on top), which may not be composed yet: this
        # footer's screen asks again when it is back on top.
        if not self.is_attached or self.screen is not self.app.screen:
            return
        keys = self._keys()
        if keys == self._shown:
            return
        if not await self._patch():
            await self.recompose()
        self._shown = keys
        self.call_after_refresh(self._fit)

    def on_mount(self) -> None:
        self.call_after_refresh(self._fit)

    def on_resize(self, event: events.Resize) -> None:
        self.call_after_refresh(self._fit)

    def _fit(self) -> None:
        """Show the keys, from the first, while they fit whole beside the palette key."""
        keys = [key for key in self.query_children(FooterKey)]
        room = self.scrollable_content_region.width
        fitted: list[tuple[FooterKey, int]] = []
        for key in keys:
            width = key.get_content_width(self.size, self.app.size) + key.styles.gutter.width
            width += key.styles.margin.width
            if key.has_class("-command-palette"):
                room -= width
            else:
                fitted.append((key, width))
        for key, width in fitted:
            room -= width
            key.display = room >= 0

    async def _patch(self) -> bool:
        """Draw the keys a rebuild would draw by adding, removing or replacing only the keys
        that changed (False if the footer has key groups, which only a rebuild draws).

        A reply starting or ending adds or removes one key (Esc stops it); rebuilding the
        footer for that restyled and remounted every key, about 20 ms each time.
        """
        fresh = list(self._composed_keys())
        drawn = list(self.children)
        if not all(isinstance(widget, FooterKey) for widget in (*fresh, *drawn)):
            return False
        matcher = SequenceMatcher(
            a=[_drawn_as(key) for key in drawn],  # type: ignore[arg-type]
            b=[_drawn_as(key) for key in fresh],  # type: ignore[arg-type]
            autojunk=False,
        )
        # From the end, so the keys that anchor earlier changes are still in place.
        for tag, start, end, new_start, new_end in reversed(matcher.get_opcodes()):
            if tag == "equal":
                continue
            if new_start < new_end:
                if end < len(drawn):
                    await self.mount_all(fresh[new_start:new_end], before=drawn[end])
                else:
                    await self.mount_all(fresh[new_start:new_end])
            if start < end:
                await self.remove_children(drawn[start:end])
        return True

    def compose(self) -> ComposeResult:
        if self._keys_ready:
            self._shown = self._keys()
        yield from self._composed_keys()

    def _composed_keys(self) -> ComposeResult:
        """The keys Textual's footer composes for the screen's bindings now.

        A key bound to the footer's `compact` is composed as compact as the footer already:
        Textual's key starts compact and then takes the footer's value, and each change
        restyles the key once it is mounted (about 0.5 ms a key, before the first frame).
        The palette key is not bound: it stays as Textual makes it.
        """
        for widget in Footer.compose(self):
            if isinstance(widget, FooterKey) and not widget.has_class("-command-palette"):
                widget.set_reactive(FooterKey.compact, self.compact)
                widget.set_class(self.compact, "-compact", update=False)
            yield widget

    def _keys(self) -> tuple[object, ...]:
        """What the keys drawn from the screen's bindings now would show.

        Most binding changes (a reply starting, a turn selected) leave the keys as they
        are; rebuilding then would only cost time.
        """
        app = self.app
        return tuple(
            (
                app.get_key_display(binding),
                binding.action,
                binding.description,
                binding.group,
                binding.show,
                enabled,
                tooltip,
                binding.tooltip,
            )
            for _, binding, enabled, tooltip in self.screen.active_bindings.values()
        )


def _drawn_as(key: FooterKey) -> tuple[object, ...]:
    """What a footer key shows and does: equal for two keys that look and act the same."""
    return (
        key.key,
        key.key_display,
        key.description,
        key.action,
        key.tooltip,
        key.has_class("-disabled"),  # how FooterKey marks a key whose action is off
        key.has_class("-command-palette"),
    )
