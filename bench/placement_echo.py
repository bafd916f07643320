"""Benchmark: how often a small model repeats the words that frame context moved into the
first user message, and whether it still uses what memory holds.

A chat template with no system role (Gemma's) gets the system prompt and memory at the
start of the first user message (`ctxchat.core.placement`). For each way of framing that
context, every scenario is a new conversation: a first message, then a follow-up that only
memory answers, each planned and sent by ctxchat itself (`send_message`, the real client),
at temperature 0 so runs compare. A reply "echoes" when it holds any line of the framing;
it "uses memory" when the follow-up's answer names the fact memory holds.

Run against a real server, e.g. Gemma 3 270M on llama-cpp-python:
    python bench/placement_echo.py --base-url http://127.0.0.1:18765/v1
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ctxchat.chat.options import SessionOptions
from ctxchat.chat.session import ChatSession
from ctxchat.chat.session_factory import Connect, open_session
from ctxchat.chat.turn import ReplyDelta, send_message
from ctxchat.core import placement
from ctxchat.core.memory import MEMORY_HEADER, MemoryKind
from ctxchat.core.placement import ContextFrame
from ctxchat.testing import harness

SYSTEM_PROMPT = "You are a helpful assistant. Answer briefly."

BEFORE = ContextFrame(
    "[Context from ctxchat. This server's chat template has no system role, so the "
    "instructions and context below come here, at the start of the first user message.]",
    "[End of context. The user's message follows.]",
    "[End of context.]",
)
"""The frame ctxchat used until this benchmark chose another."""

FRAMES = {
    "bracketed marker (before)": BEFORE,
    "blank line (Gemma's own template)": ContextFrame("", "", ""),
    "Context: / Message: headings (now)": placement.FRAME,
    "<context> tags": ContextFrame("<context>", "</context>", "</context>"),
    "a rule (---) before the message": ContextFrame("", "---", "---"),
}


@dataclass(frozen=True)
class Scenario:
    memory: tuple[str, str]
    """Two facts the user told the app before."""
    first: str
    follow_up: str
    """Answered only by the first fact."""
    answer: str
    """A word of the first fact the follow-up's reply names when it uses memory."""


SCENARIOS = (
    Scenario(
        ("The user's dog is called Biscuit.", "The user lives in Lyon."),
        "Can you suggest a short walk routine for a dog?",
        "What is my dog's name?",
        "Biscuit",
    ),
    Scenario(
        ("The user's favourite colour is teal.", "The user works as a nurse."),
        "Give me an idea for painting my bedroom.",
        "Which colour do I like best?",
        "teal",
    ),
    Scenario(
        ("The user's sister is named Marguerite.", "The user plays the cello."),
        "What is a good birthday present for a sibling?",
        "What is my sister's name?",
        "Marguerite",
    ),
    Scenario(
        ("The user's car is a green Volvo.", "The user is vegetarian."),
        "How often should a car's oil be changed?",
        "What make is my car?",
        "Volvo",
    ),
    Scenario(
        ("The user's team deploys every Thursday.", "The user's editor is Vim."),
        "Write one tip for a calm release day.",
        "On which day does my team deploy?",
        "Thursday",
    ),
    Scenario(
        ("The user was born in Porto.", "The user drinks green tea."),
        "Name a city in Europe worth visiting in spring.",
        "In which city was I born?",
        "Porto",
    ),
    Scenario(
        ("The user's cat is called Pixel.", "The user runs on Sundays."),
        "What should I feed a kitten?",
        "What is my cat called?",
        "Pixel",
    ),
    Scenario(
        ("The user's manager is called Okafor.", "The user writes Rust."),
        "How do I ask for feedback at work?",
        "What is my manager's name?",
        "Okafor",
    ),
    Scenario(
        ("The user's database is PostgreSQL.", "The user lives near the sea."),
        "What is an index in a database?",
        "Which database do I use?",
        "PostgreSQL",
    ),
    Scenario(
        ("The user's daughter is seven years old.", "The user likes jazz."),
        "Suggest a board game for a family evening.",
        "How old is my daughter?",
        "seven",
    ),
    Scenario(
        ("The user's laptop runs Debian.", "The user bakes bread."),
        "How do I keep a laptop battery healthy?",
        "Which operating system does my laptop run?",
        "Debian",
    ),
    Scenario(
        ("The user's flight leaves from Gate 42.", "The user dislikes coffee."),
        "What should I pack for a short trip?",
        "Which gate does my flight leave from?",
        "42",
    ),
    Scenario(
        ("The user's bike is blue.", "The user speaks Dutch."),
        "How do I fix a flat bicycle tyre?",
        "What colour is my bike?",
        "blue",
    ),
    Scenario(
        ("The user's wifi network is called Lighthouse.", "The user has two plants."),
        "Why is my internet slow in the evening?",
        "What is my wifi network called?",
        "Lighthouse",
    ),
    Scenario(
        ("The user's favourite author is Ursula Le Guin.", "The user cycles to work."),
        "Recommend a genre of novel for a long train ride.",
        "Who is my favourite author?",
        "Le Guin",
    ),
    Scenario(
        ("The user's dentist appointment is on Monday.", "The user owns a kayak."),
        "How often should I see a dentist?",
        "On which day is my dentist appointment?",
        "Monday",
    ),
    Scenario(
        ("The user's garden grows tomatoes.", "The user reads at night."),
        "When should vegetables be watered?",
        "What grows in my garden?",
        "tomato",
    ),
    Scenario(
        ("The user's son is named Tariq.", "The user plays chess."),
        "How can a child learn to swim?",
        "What is my son's name?",
        "Tariq",
    ),
    Scenario(
        ("The user's phone is a Pixel 7.", "The user lives in Oslo."),
        "How do I free space on a phone?",
        "Which phone do I have?",
        "Pixel 7",
    ),
    Scenario(
        ("The user's band is called The Lanterns.", "The user keeps bees."),
        "How do I practise a song before a concert?",
        "What is my band called?",
        "Lanterns",
    ),
)


def framing_lines(frame: ContextFrame) -> list[str]:
    """The lines of the frame a reply should never repeat."""
    text = "\n".join((frame.opening, frame.closing, frame.alone_closing))
    return [line.strip() for line in text.splitlines() if line.strip()]


def repeats(reply: str, lines: Sequence[str]) -> bool:
    """Whether `reply` holds one of `lines` (a short one only as a whole line)."""
    said = reply.lower()
    own_lines = {line.strip() for line in said.splitlines()}
    return any(
        line.lower() in said if len(line) > 3 else line.lower() in own_lines for line in lines
    )


@dataclass
class Tally:
    replies: int = 0
    framed: int = 0
    """Replies repeating the frame (the marker)."""
    echoed: int = 0
    """Replies repeating the frame, the system prompt or the memory's heading."""
    follow_ups: int = 0
    remembered: int = 0
    sample: str = ""


async def reply_to(session: ChatSession, text: str) -> str:
    parts = []
    async for event in send_message(session, text):
        if isinstance(event, ReplyDelta):
            parts.append(event.text)
    return "".join(parts)


async def run_frame(
    name: str,
    frame: ContextFrame,
    base_url: str,
    model: str,
    scenarios: Sequence[Scenario],
    show: bool,
) -> Tally:
    placement.FRAME = frame
    # The frame tried and the one before; then also what ctxchat writes around the facts.
    frame_lines = [*framing_lines(frame), *framing_lines(BEFORE)]
    scaffolding = [*frame_lines, SYSTEM_PROMPT, MEMORY_HEADER]
    tally = Tally()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        config = harness.write_config(
            root,
            base_url,
            model=model,
            context_window=4096,
            output_reserve=160,
            extra=(
                f'[context]\nsystem_placement = "user"\nsystem_prompt = "{SYSTEM_PROMPT}"\n'
                "[summary]\nauto = false\n"
            ),
        )
        config.write_text(config.read_text() + "temperature = 0\n")
        workspace = harness.open_test_workspace(root, config)
        try:
            for scenario in scenarios:
                conversation = workspace.store.conversations.create_conversation(scenario.first).id
                for fact in scenario.memory:
                    workspace.store.memory.add_memory(
                        MemoryKind.FACT, fact, conversation_id=conversation
                    )
                session = open_session(
                    workspace, SessionOptions(), conversation, connect=Connect.MUST
                )
                try:
                    for text in (scenario.first, scenario.follow_up):
                        reply = await reply_to(session, text)
                        tally.replies += 1
                        if show:
                            print(f"[{name}] {text!r} -> {reply!r}", flush=True)
                        if repeats(reply, frame_lines):
                            tally.framed += 1
                            tally.sample = tally.sample or reply
                        tally.echoed += repeats(reply, scaffolding)
                    tally.follow_ups += 1
                    if scenario.answer.lower() in reply.lower():
                        tally.remembered += 1
                finally:
                    await session.aclose()
        finally:
            workspace.close()
    print(
        f"| {name} | {tally.framed}/{tally.replies} | {tally.echoed}/{tally.replies} "
        f"| {tally.remembered}/{tally.follow_ups} |",
        flush=True,
    )
    return tally


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", required=True, help="the server's /v1 URL")
    parser.add_argument("--model", help="the model id (default: the server's first)")
    parser.add_argument("--scenarios", type=int, default=len(SCENARIOS))
    parser.add_argument("--frame", action="append", choices=list(FRAMES), help="only these")
    parser.add_argument("--show", action="store_true", help="print every reply")
    args = parser.parse_args()
    if args.model:
        model = args.model
    else:
        with urllib.request.urlopen(f"{args.base_url}/models") as response:
            model = json.load(response)["data"][0]["id"]
    print(
        "| framing | replies repeating the frame | repeating any scaffolding "
        "| follow-ups using memory |"
    )
    print("|---|---|---|---|")
    tallies = {}
    for name in args.frame or FRAMES:
        tallies[name] = asyncio.run(
            run_frame(
                name, FRAMES[name], args.base_url, model, SCENARIOS[: args.scenarios], args.show
            )
        )
    for name, tally in tallies.items():
        if tally.sample:
            print(f"\n{name}, a reply repeating it: {tally.sample[:300]!r}")


if __name__ == "__main__":
    main()
