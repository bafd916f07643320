"""From the pieces a tool keeps (a question, a call to a tool, its output, the answer) to the
messages ctxchat keeps: a tool's calls and outputs become part of the reply they served,
what is not text becomes a placeholder, and other answers hang on their reply."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ctxchat.core.history import MessageStatus
from ctxchat.store.importers.records import ImportedAnswer, ImportedMessage

REPLY_ROLES = frozenset({"assistant", "tool"})


@dataclass(frozen=True, slots=True)
class Piece:
    """What one node of a tool's history holds, in ctxchat's words. `role` is user, system,
    assistant or tool; assistant and tool pieces in a row make one reply."""

    role: str
    text: str
    reasoning: str = ""
    created_at: float | None = None
    model: str | None = None
    status: MessageStatus = MessageStatus.COMPLETE
    error: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


def placeholder(kind: str, detail: str = "") -> str:
    """What stands in for what ctxchat does not keep: `[image not imported: cat.png]`."""
    detail = " ".join(detail.split())
    return f"[{kind} not imported{': ' + detail if detail else ''}]"


def fenced(text: str, language: str = "") -> str:
    """Code kept as text, in a Markdown fence longer than any run of backticks inside it."""
    longest = max((len(run) for run in re.findall("`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text.rstrip()}\n{fence}"


def tool_call(name: str, arguments: object) -> str:
    """A call the model made to a tool, as text."""
    if isinstance(arguments, str):
        body = arguments
    else:
        body = json.dumps(arguments, ensure_ascii=False, indent=2)
    return f"[called {name or 'a tool'}]\n{fenced(body, 'json')}"


def tool_output(name: str, output: str) -> str:
    """What a tool gave back, as text."""
    return f"[{name or 'tool'} output]\n{fenced(output)}"


def join(*texts: str) -> str:
    return "\n\n".join(text for text in texts if text.strip())


def merged(pieces: Sequence[Piece]) -> list[tuple[ImportedMessage, list[int]]]:
    """The messages the pieces make, each with the places of the pieces in it. Empty
    pieces are left out; a reply is every assistant and tool piece in a row."""
    messages: list[tuple[ImportedMessage, list[int]]] = []
    for index, piece in enumerate(pieces):
        if not piece.text.strip() and not piece.reasoning.strip() and piece.error is None:
            continue
        last = messages[-1] if messages else None
        if piece.role in REPLY_ROLES and last is not None and last[0].role == "assistant":
            reply, places = last
            messages[-1] = (_added(reply, piece), [*places, index])
            continue
        messages.append((_message(piece), [index]))
    return messages


def _message(piece: Piece) -> ImportedMessage:
    role = "assistant" if piece.role in REPLY_ROLES else piece.role
    return ImportedMessage(
        role,
        piece.text.strip("\n"),
        piece.created_at,
        piece.model if role == "assistant" else None,
        piece.reasoning.strip(),
        piece.status,
        piece.error,
        piece.prompt_tokens,
        piece.completion_tokens,
    )


def _added(reply: ImportedMessage, piece: Piece) -> ImportedMessage:
    """A reply with one more piece: its text after the reply's, the newest model and usage."""
    return replace(
        reply,
        content=join(reply.content, piece.text.strip("\n")),
        reasoning=join(reply.reasoning, piece.reasoning.strip()),
        model=piece.model or reply.model,
        status=piece.status if piece.status is not MessageStatus.COMPLETE else reply.status,
        error=piece.error or reply.error,
        prompt_tokens=_sum(reply.prompt_tokens, piece.prompt_tokens),
        completion_tokens=_sum(reply.completion_tokens, piece.completion_tokens),
    )


def _sum(first: int | None, second: int | None) -> int | None:
    if first is None:
        return second
    return first if second is None else first + second


def branch_messages(
    path: Sequence[Piece],
    answers: Sequence[tuple[int, Sequence[Piece]]],
    change: str,
) -> tuple[ImportedMessage, ...]:
    """The messages of a branch, with each other answer (the place of the user message it
    answers, and its pieces) kept on the reply that follows that message on the branch."""
    made = merged(path)
    owner = {place: at for at, (_, places) in enumerate(made) for place in places}
    extra: dict[int, list[ImportedAnswer]] = {}
    for asked, pieces in answers:
        question = owner.get(asked)
        if question is None or question + 1 >= len(made):
            continue
        if made[question + 1][0].role != "assistant":
            continue
        answer = merged(pieces)
        if not answer:
            continue
        reply = answer[0][0]
        for other, _ in answer[1:]:
            reply = _added(reply, Piece("assistant", other.content, other.reasoning))
        extra.setdefault(question + 1, []).append(
            ImportedAnswer(reply.content, reply.reasoning, reply.model, reply.created_at, change)
        )
    return tuple(
        replace(message, answers=tuple(extra[at])) if at in extra else message
        for at, (message, _) in enumerate(made)
    )
