"""Textual's footer, rebuilt once per burst of binding changes instead of once per change."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer


class KeyFooter(Footer):
    """A `Footer` that coalesces the rebuilds a burst of binding changes asks for.

    Textual's footer queues a full rebuild (a widget per key) for every binding change;
    focusing the composer at start-up and starting or ending a reply each send several,
    and each rebuild costs about 25 ms. The rebuild reads the bindings as they are when
    it runs, so one rebuild after the burst shows the same keys.
    """

    def __init__(self, *, at_once: bool = False) -> None:
        """`at_once`: draw the keys in the first frame, not after the first binding change.

        Only for a screen whose `check_action` reads state, not widgets: when the footer
        composes, the screen's other widgets may not be mounted yet.
        """
        super().__init__()
        self._rebuild_queued = False
        self._bindings_ready = at_once
        self._shown: tuple[object, ...] | None = None  # the keys the last build drew

    def bindings_changed(self, screen: Screen) -> None:  # type: ignore[type-arg]
        self._bindings_ready = True
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen and not self._rebuild_queued:
            self._rebuild_queued = True
            self.call_after_refresh(self._rebuild)

    async def _rebuild(self) -> None:
        self._rebuild_queued = False
        if self.is_attached and self._keys() != self._shown:
            await self.recompose()

    def compose(self) -> ComposeResult:
        if self._bindings_ready:
            self._shown = self._keys()
        yield from super().compose()

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
