"""Every use of a private Textual internal in ctxchat, in one place: this package.

Textual is pinned exactly; `tests/tui_widgets/test_textual_compat.py` checks each internal
named here by name and signature, and when Textual changes one, says which, what ctxchat
uses it for and what to do. Code elsewhere uses only Textual's public API and these names
(the same test checks the package, its tests and benchmarks for any other use; the tests'
own, reading a frame's cells, is `tests/textual_internals.py`).
Each stays only for a gain measured with `bench/ui.py` that a user sees:

- the footer (here): its keys in the first frame (`set_footer_bindings_ready`; Textual's
  footer drew them at 1.81 s instead of 0.93 s) and a reply's start and end patched key by
  key (`FooterKey`; with Textual's rebuilds the final frame came 0.45-1.04 s after the
  last delta instead of 0.24-0.44 s);
- the Markdown (`textual_compat.markdown`, apart, because importing Textual's Markdown
  would cost the first frame about 45 ms): a stored reply parsed as it composes (the
  newest turn of a 10,000-message conversation on screen at 1.61 s instead of 2.00 s),
  lists drawn by one widget (a streamed reply's delta on screen 0.14-0.16 s after it
  arrives instead of 0.20 s) and inline styles resolved once a reply (a 4,000-chunk
  reply at full speed done 1.1x the bare client instead of 1.7-1.9x);
- the input parser (`textual_compat.paste`): a bracketed paste holding escape characters
  (coloured terminal output, a log) arrives as one paste (`keep_pastes_whole`); Textual's
  parser turned what followed an escape into key presses, and a pasted line break into
  Enter, which sent a half-pasted draft;
- the output thread (`textual_compat.output`): an app whose terminal went away while a
  reply streamed ends as quitting does; Textual's writing thread ended at the first
  failed write, and the app froze on a later one, orphaned, holding its database;
- the stylesheet parser (`textual_compat.parsed_css`): the app's CSS and its widgets'
  read back from the cache directory instead of parsed on every start (13-22 ms of
  parsing; the start's wall time about 20 ms shorter).

Streaming itself is public API: `Markdown.get_stream`, then one `update` when a full
render could differ from what streamed (`ctxchat/tui/widgets/reply_markdown.py`).
"""

from __future__ import annotations

from textual.widgets import Footer
from textual.widgets._footer import FooterKey

__all__ = ["FooterKey", "set_footer_bindings_ready"]


# --- Footer ------------------------------------------------------------------------------


def set_footer_bindings_ready(footer: Footer, ready: bool) -> None:
    """Whether `footer` composes its keys (Textual's waits for the first binding change)."""
    footer._bindings_ready = ready
