"""The budget bar: the request's token budget split by layer, with the window and the drift."""

from __future__ import annotations

from collections.abc import Sequence

from textual.content import Content
from textual.geometry import Size
from textual.widget import Widget

from ctxchat.core.figure_words import estimate_words, room_words
from ctxchat.core.plan import ContextPlan, PlanStatus
from ctxchat.tui.text import clean, signed, tokens
from ctxchat.tui.themes import layer_variable

__all__ = ["BudgetBar", "flow", "share_text", "split_cells"]

SEPARATOR = " · "
SHOWN_WHEN_USED = frozenset({"task", "files"})


def split_cells(values: Sequence[int], width: int) -> list[int]:
    """Cells of a `width`-cell bar for each value, in proportion, adding up to `width`.

    Every non-zero value gets at least one cell (while there are cells to give), so a
    layer of 9 tokens in a budget of 123,904 is still seen; the rest goes by largest remainder.
    """
    whole = sum(values)
    if width <= 0 or whole <= 0:
        return [0] * len(values)
    exact = [value * width / whole for value in values]
    cells = [int(part) for part in exact]
    for index, value in enumerate(values):
        if value > 0 and cells[index] == 0:
            cells[index] = 1
    by_remainder = sorted(range(len(values)), key=lambda i: (cells[i] - exact[i], i))
    position = 0
    while sum(cells) < width:
        cells[by_remainder[position % len(values)]] += 1
        position += 1
    while sum(cells) > width:
        largest = max(range(len(values)), key=lambda i: (cells[i], i))
        cells[largest] -= 1
    return cells


def share_text(part: int, whole: int) -> str:
    """`part` as a share of `whole`: `10.0%`, `<0.1%` for a sliver, `0%` for nothing."""
    if part <= 0 or whole <= 0:
        return "0%"
    percent = part * 100 / whole
    return "<0.1%" if percent < 0.05 else f"{percent:.1f}%"


def flow(parts: Sequence[Content], width: int, separator: str = "  ") -> list[Content]:
    """Parts laid out left to right in lines of at most `width` cells, split inside only
    when one is wider than a line (then wrapped at its spaces: never cut)."""
    lines: list[Content] = []
    line = Content()
    for part in parts:
        if not line:
            line = part
        elif line.cell_length + len(separator) + part.cell_length <= width:
            line = line + separator + part
        else:
            lines.append(line)
            line = part
        if line.cell_length > width:
            *whole, line = line.wrap(width)
            lines.extend(whole)
    if line:
        lines.append(line)
    return lines


class BudgetBar(Widget):
    """One line split by layer (system, memory, summary, working, input, free), then the legend.

    Call `update_plan` with each new plan; the bar redraws without being remounted.
    """

    DEFAULT_CSS = """
    BudgetBar {
        height: auto;
        padding: 0 1;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    def __init__(
        self, *, name: str | None = None, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._plan: ContextPlan | None = None
        self._window_source = ""
        self._server_tokens: int | None = None
        self._sent_tokens: int | None = None
        self._lines_cache: tuple[int, list[Content]] | None = None

    @property
    def plan(self) -> ContextPlan | None:
        """The plan on show."""
        return self._plan

    def update_plan(
        self,
        plan: ContextPlan,
        *,
        window_source: str,
        server_prompt_tokens: int | None = None,
        sent_tokens: int | None = None,
    ) -> None:
        """Show `plan`.

        `window_source` says where the context window size came from (`server`, `table`,
        `config`). `server_prompt_tokens` is the server's `usage.prompt_tokens` for the last
        reply; the drift is measured against `sent_tokens`, our count of that same request
        (the plan's own total when not given).
        """
        old_height = len(self._lines(self.size.width)) if self.size.width else 0
        self._plan = plan
        self._window_source = window_source
        self._server_tokens = server_prompt_tokens
        self._sent_tokens = sent_tokens
        self._lines_cache = None
        new_height = len(self._lines(self.size.width)) if self.size.width else 0
        self.refresh(layout=new_height != old_height)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._lines(width))

    def render(self) -> Content:
        return Content("\n").join(self._lines(self.size.width))

    def _lines(self, width: int) -> list[Content]:
        if self._lines_cache is not None and self._lines_cache[0] == width:
            return self._lines_cache[1]
        lines = self._build(max(width, 1))
        self._lines_cache = (width, lines)
        return lines

    def _build(self, width: int) -> list[Content]:
        plan = self._plan
        if plan is None:
            return [Content.styled("no context plan yet", "$foreground-muted")]
        over = plan.status is PlanStatus.OVER_BUDGET
        layer_tokens = [layer_plan.tokens for layer_plan in plan.layers]
        names = [layer_plan.layer.value for layer_plan in plan.layers]
        # Shares are of the input budget, so an input that does not fit shows as over 100%.
        whole = plan.total_budget
        lines = [self._bar(names, layer_tokens, plan, width, over)]

        used_style = "bold $error" if over or plan.over_window else "bold"
        if plan.server_tokens is not None and not over:
            # The server's count is the figure; ctxchat's estimate is said as such beside it.
            room = plan.context_window - plan.output_reserve
            usage = [
                Content.assemble(
                    "used ",
                    (tokens(plan.server_tokens), used_style),
                    f" of {tokens(room)} by the server's count",
                ),
                Content(estimate_words(plan)),
            ]
        else:
            usage = [
                Content.assemble(
                    "used ", (tokens(plan.tokens), used_style), f" of {tokens(plan.total_budget)}"
                ),
            ]
        if over:
            usage.append(Content.styled(f"over budget by {tokens(plan.over_by)}", "bold $error"))
        elif plan.over_window:
            usage.append(Content.styled(room_words(plan), "bold $error"))
        else:
            usage.append(Content.assemble("free ", (tokens(plan.free), "bold")))
        lines.extend(flow(usage, width, SEPARATOR))

        legend = [
            Content.assemble(
                ("■", layer_variable(name)),
                f" {name} ",
                (tokens(count), "bold"),
                f" {share_text(count, whole)}",
            )
            for name, count in zip(names, layer_tokens, strict=True)
            # The task and files layers are named only while they send something.
            if count or name not in SHOWN_WHEN_USED
        ]
        if not over and not plan.over_window:
            legend.append(
                Content.assemble(
                    ("■", layer_variable("free")),
                    " free ",
                    (tokens(plan.free), "bold"),
                    f" {share_text(plan.free, whole)}",
                )
            )
        lines.extend(flow(legend, width))

        marker = "exact" if plan.exact else "estimate"
        # The note's later clauses (what the template adds, a calibration) are parts of
        # their own, so a narrow panel wraps them rather than cutting them off.
        note, *clauses = clean(plan.counter_note).removeprefix(f"{marker}: ").split("; ")
        window = [
            Content(f"window {tokens(plan.context_window)} ({_window_from(self._window_source)})"),
            Content(f"{tokens(plan.output_reserve)} kept for the reply"),
            Content.assemble(
                (
                    "exact counts" if plan.exact else "estimated counts",
                    "bold $success" if plan.exact else "bold $warning",
                ),
                f" ({note})",
            ),
            *(Content(clause) for clause in clauses),
        ]
        lines.extend(flow(window, width, SEPARATOR))

        if self._server_tokens is not None:
            lines.extend(flow(self._drift(plan), width, SEPARATOR))
        for warning in plan.warnings:
            # Wrapped: a note is read whole, never cut at the panel's edge.
            lines.extend(Content.styled(clean(warning), "$warning").wrap(width))
        return lines

    def _bar(
        self, names: list[str], counts: list[int], plan: ContextPlan, width: int, over: bool
    ) -> Content:
        values = [*counts, 0 if over else plan.free]
        cells = split_cells(values, width)
        parts: list[tuple[str, str]] = [
            (" " * count, f"on {layer_variable(name)}")
            for name, count in zip([*names, "free"], cells, strict=True)
            if count
        ]
        bar = Content.assemble(*parts)
        if over and plan.tokens:
            # The cells past the end of the budget are what cannot be sent.
            fits = min(width, plan.total_budget * width // plan.tokens)
            bar = bar.stylize("on $error", fits, width)
        return bar

    def _drift(self, plan: ContextPlan) -> list[Content]:
        assert self._server_tokens is not None
        sent = plan.tokens if self._sent_tokens is None else self._sent_tokens
        drift = self._server_tokens - sent
        parts = [Content(f"server counted {tokens(self._server_tokens)}")]
        # Said as the difference from ctxchat's own count of the same request.
        than = (
            f"{tokens(abs(drift))} {'more' if drift > 0 else 'fewer'} than ctxchat"
            if drift
            else "as ctxchat did"
        )
        if sent > 0:
            percent = drift * 100 / sent
            style = (
                "$success" if abs(percent) < 2 else "$warning" if abs(percent) < 10 else "$error"
            )
            parts.append(Content.assemble((than, f"bold {style}"), f" ({signed(percent, 1)}%)"))
        else:
            parts.append(Content(than))
        return parts


_WINDOW_SOURCES = {
    "server": "from the server",
    "table": "known for the model",
    "config": "from the config",
    "model file": "read from the model file",
    "probed": "measured at the server",
    "default": "a guess: unknown model",
}


def _window_from(source: str) -> str:
    """Where the window's size came from, in words (`config` → `from the config`)."""
    return _WINDOW_SOURCES.get(source, clean(source))
