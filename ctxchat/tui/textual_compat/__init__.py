"""Every use of a private Textual internal in ctxchat, in one place: this package.

Textual is pinned exactly; each internal named here is checked, by name and signature, in
`tests/tui_widgets/test_textual_compat.py`, which says which one changed when Textual is
updated. Code elsewhere uses only Textual's public API and these names.

The footer's internals are here; the Markdown ones are in `textual_compat.markdown`, apart,
because importing Textual's Markdown (markdown-it, Pygments) would cost the first frame
about 45 ms: it waits for the first turn to draw. What each is for, and what it buys
(figures from `bench/ui.py`), is said where it is used: `ctxchat/tui/widgets/footer.py`
(the footer's keys) and `ctxchat/tui/widgets/reply_markdown.py` (a streamed reply, and a
stored reply drawn in the first frame that shows it).
"""

from __future__ import annotations

from textual.widget import Widget
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

__all__ = ["FooterKey", "follows_compose_parent", "set_footer_bindings_ready"]


# --- Footer ------------------------------------------------------------------------------


def set_footer_bindings_ready(footer: Footer, ready: bool) -> None:
    """Whether `footer` composes its keys (Textual's waits for the first binding change)."""
    footer._bindings_ready = ready


def follows_compose_parent(widget: Widget, name: str) -> bool:
    """Whether `widget`'s reactive `name` is bound to its compose parent's (`data_bind`)."""
    return name in (widget._reactive_connect or {})
