"""Plans, entries and small host apps shared by the widget tests (deterministic: fixed data)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.widget import Widget

from ctxchat.core.assemble import assemble_context
from ctxchat.core.budget import Budget
from ctxchat.core.history import HistoryMessage, MessageStatus, SummaryState
from ctxchat.core.memory import MemoryEntry, MemoryKind, Mode
from ctxchat.core.plan import ContextPlan
from ctxchat.core.tokens import CachingCounter, TokenCounter, count_message, counter_for_model
from ctxchat.model.request import build_chat_request
from ctxchat.tui.themes import LAYER_VARIABLE_DEFAULTS

COUNTER: TokenCounter = CachingCounter(counter_for_model("gpt-4o"))
SYSTEM_PROMPT = "You are a careful assistant."

ENTRIES = [
    MemoryEntry(1, MemoryKind.FACT, "The service runs on PostgreSQL 16.", importance=6),
    MemoryEntry(2, MemoryKind.CONSTRAINT, "Everything must work offline.", importance=9),
    MemoryEntry(3, MemoryKind.PREFERENCE, "Prefers short answers.", pinned=True),
    MemoryEntry(4, MemoryKind.HYPOTHESIS, "The slowdown comes from the ORM.", importance=7),
    MemoryEntry(5, MemoryKind.FACT, "Deploys happen on Fridays.", importance=3, conversation_id=7),
    MemoryEntry(6, MemoryKind.CONSTRAINT, "Never touch the billing tables.", enabled=False),
]
BUDGET = Budget(128_000, 4_096)
SUMMARY = SummaryState(3, "We chose PostgreSQL. Deploys are on Fridays.", 1, 12)


def history(count: int = 20) -> list[HistoryMessage]:
    """Alternating user/assistant messages with ids 1..count, counted once like the store does."""
    messages = []
    for index in range(1, count + 1):
        role = "user" if index % 2 else "assistant"
        text = f"message {index} about the database migration"
        messages.append(
            HistoryMessage(index, role, text, count_message(COUNTER, role, text).tokens)
        )
    return messages


def make_plan(
    *,
    mode: Mode = Mode.PERSONALIZATION,
    new_input: str | None = "What did we decide?",
    memory: Sequence[MemoryEntry] = ENTRIES,
    budget: Budget = BUDGET,
    messages: int = 20,
    summary: SummaryState | None = SUMMARY,
) -> ContextPlan:
    """A realistic plan: system prompt, memory, summary v3 of messages 1-12, working memory."""
    stored = history(messages)
    if messages >= 16:
        # One failed reply, so the working layer has a left-out item of its own.
        failed = stored[15]
        stored[15] = HistoryMessage(failed.id, failed.role, "", 4, MessageStatus.FAILED)
    return assemble_context(
        budget=budget,
        counter=COUNTER,
        mode=mode,
        system_prompt=SYSTEM_PROMPT,
        memory=memory,
        summary=summary,
        history=stored,
        new_input=new_input,
        conversation_id=7,
    )


def request_body(plan: ContextPlan, model: str = "gpt-4o") -> dict[str, Any]:
    """The body the client sends for `plan` to a local server."""
    request = build_chat_request(
        base_url="http://127.0.0.1:8080/v1",
        model=model,
        messages=plan.request_messages(),
        max_tokens=plan.output_reserve,
    )
    return dict(request.body)


def sampling_change() -> tuple[dict[str, Any], ContextPlan, ContextPlan]:
    """Two requests of one conversation: the earlier sent with max_tokens 1,024; the newer
    (a preset chosen since) with 150 and a temperature of 0.3, and another question."""
    previous = make_plan(new_input="What did we decide?")
    earlier = request_body(previous)
    earlier["max_tokens"] = 1024
    previous = replace(previous, request={"url": "", "headers": {}, "body": earlier})
    plan = make_plan(new_input="And what about deploys?")
    body = request_body(plan)
    body["max_tokens"] = 150
    body["temperature"] = 0.3
    return body, plan, previous


def rendered(widget: Widget) -> str:
    """The widget's own lines as drawn (children not included), trailing blanks stripped."""
    lines = widget.render_lines(Region(0, 0, widget.outer_size.width, widget.outer_size.height))
    return "\n".join(strip.text.rstrip() for strip in lines)


class HostApp(App[None]):
    """Hosts widgets the way the real app will: layer and kind colours as theme variables."""

    def __init__(
        self, build: Callable[[], Sequence[Widget]], *, theme: str = "textual-dark"
    ) -> None:
        super().__init__()
        self._build = build
        self._theme_name = theme

    def on_mount(self) -> None:
        self.theme = self._theme_name

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(LAYER_VARIABLE_DEFAULTS)

    def compose(self) -> ComposeResult:
        yield from self._build()
