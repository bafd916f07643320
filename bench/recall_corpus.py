"""Builds the recall-quality corpora: long dated conversations and questions with evidence.

Deterministic (seeded). Three corpora: `recall_corpus.json` (the one recall is tuned on),
`recall_superseded.json` (tuned on too: decisions changed in more shapes, with the first
corpus's facts as filler) and `recall_heldout.json` (a disjoint bank: other names, topics,
phrasing and seed; only ever reported). Run: python bench/recall_corpus.py
"""

from __future__ import annotations

import datetime
import json
import random
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from recall_bank_dev import DEV_BANK
from recall_bank_heldout import HELDOUT_BANK
from recall_bank_superseded import SUPERSEDED_BANK
from recall_bank_types import Bank, FactSpec, Persona

from ctxchat.core.recall import PREFIX_LENGTH, query_terms

DATA = Path(__file__).resolve().parent / "data"


@dataclass
class Built:
    """One conversation being generated: messages, and the questions about them."""

    kind: str
    names: dict[str, str]
    messages: list[dict[str, str]] = field(default_factory=list)
    questions: list[dict[str, Any]] = field(default_factory=list)


def _shares_word(question: str, evidence: str) -> bool:
    """Whether the question and the evidence share a content word (prefix-matched as recall
    matches it)."""
    evidence_words = set(re.findall(r"\w+", evidence.casefold()))
    for term in query_terms(question, limit=100):
        if term in evidence_words:
            return True
        if len(term) >= PREFIX_LENGTH and any(w.startswith(term) for w in evidence_words):
            return True
    return False


def _fill(template: str, values: dict[str, str]) -> str:
    return template.format_map(values)


def _day(date: datetime.date) -> str:
    return f"{date:%A} {date.day} {date:%B}"


def _sessions(rng: random.Random, count: int, start: datetime.date) -> list[datetime.date]:
    dates = []
    day = start
    for _ in range(count):
        dates.append(day)
        day += datetime.timedelta(days=rng.randint(2, 6))
    return dates


def build_conversation(
    bank: Bank, persona: Persona, rng: random.Random, facts: Sequence[FactSpec], sessions: int
) -> Built:
    """One conversation of `sessions` dated sessions holding `facts`, with small talk between."""
    friends = persona.kind == "friends"
    names = {"U": persona.user, "A": persona.other}
    built = Built(persona.kind, names)
    dates = _sessions(rng, sessions, datetime.date(2025, rng.randint(1, 6), rng.randint(1, 20)))
    # Where each fact's lines go: line 0 in one session, later lines a few sessions on.
    plan: dict[int, list[tuple[FactSpec, int, dict[str, str]]]] = {}
    instances = []
    for fact in facts:
        values = {slot: rng.choice(options) for slot, options in fact.slots.items()}
        subject_is_user = (not friends) or rng.random() < 0.5
        values["S"] = persona.user if subject_is_user else persona.other
        values["O"] = persona.other if subject_is_user else persona.user
        values["U"], values["A"] = persona.user, persona.other
        span = (len(fact.lines) - 1) * fact.gap
        first = rng.randint(0, sessions - 3 - span)
        record: dict[str, Any] = {"values": values, "subject_is_user": subject_is_user, "at": []}
        instances.append((fact, record))
        for line in range(len(fact.lines)):
            plan.setdefault(first + line * fact.gap, []).append((fact, line, values))
            record["at"].append(first + line * fact.gap)
        for mention_at in range(first + 1, sessions):
            if fact.mentions and rng.random() < fact.mention_rate:
                plan.setdefault(mention_at, []).append((fact, -1, values))
    evidence_index: dict[tuple[int, int], int] = {}
    instance_ids = {id(fact): number for number, (fact, _) in enumerate(instances)}

    def say(speaker_is_user: bool, text: str) -> int:
        role = "user" if speaker_is_user else "assistant"
        built.messages.append({"role": role, "content": text, "date": str(date)})
        return len(built.messages) - 1

    def small_talk(count: int) -> None:
        for _ in range(count):
            speaker_is_user = len(built.messages) % 2 == 0
            other = persona.other if speaker_is_user else persona.user
            pool = bank.chat if friends else (bank.user_chat if speaker_is_user else bank.replies)
            # Friends send a sentence or three; the assistant answers at length.
            if friends:
                parts, glue = rng.sample(pool, rng.randint(1, 3)), " "
            else:
                parts, glue = rng.sample(pool, 1 if speaker_is_user else 2), "\n\n"
            say(speaker_is_user, glue.join(_fill(p, {"O": other, "D": _day(date)}) for p in parts))

    for session, date in enumerate(dates):
        opener = rng.choice(bank.openers)
        if len(built.messages) % 2 == 1:
            small_talk(1)
        say(True, _fill(opener, {"O": persona.other, "D": _day(date)}))
        small_talk(1)
        events = plan.get(session, [])
        rng.shuffle(events)
        for fact, line, values in events:
            small_talk(rng.randint(3, 8) if friends else rng.randint(0, 3))
            subject = values["S"] == persona.user
            # Lines alternate speakers: the subject must be the one to speak.
            if (len(built.messages) % 2 == 0) != subject:
                small_talk(1)
            day_values = dict(values, D=_day(date))
            if line < 0:
                say(subject, _fill(rng.choice(fact.mentions), day_values))
            else:
                index = say(subject, _fill(fact.lines[line], day_values))
                evidence_index[(instance_ids[id(fact)], line)] = index
            reply = (
                rng.choice(fact.replies) if friends else "\n\n".join(rng.sample(bank.replies, 2))
            )
            say(not subject, _fill(reply, {"O": values["S"], "D": _day(date)}))
        small_talk(rng.randint(8, 16) if friends else rng.randint(2, 6))
        say(True, _fill(rng.choice(bank.closers), {"O": persona.other, "D": _day(date)}))
    for number, (fact, record) in enumerate(instances):
        values = record["values"]
        for kind, template, lines in fact.questions:
            question = _fill(template, values)
            evidence = [evidence_index[(number, line)] for line in lines]
            if kind == "paraphrase":
                for index in evidence:
                    if _shares_word(question, built.messages[index]["content"]):
                        print(f"paraphrase shares a word: {question!r}", file=sys.stderr)
            built.questions.append(
                {"type": kind, "question": question, "evidence": evidence, "fact": fact.key}
            )
    return built


def build_corpus(bank: Bank, seed: int) -> dict[str, Any]:
    """Every persona of the bank as one conversation, its facts drawn from the bank."""
    rng = random.Random(seed)
    conversations = []
    for persona in bank.personas:
        pool = bank.friend_facts if persona.kind == "friends" else bank.assistant_facts
        always = [fact for fact in pool if fact.key in bank.always]
        rest = [fact for fact in pool if fact.key not in bank.always]
        facts = always + rng.sample(rest, min(persona.facts - len(always), len(rest)))
        built = build_conversation(bank, persona, rng, facts, persona.sessions)
        conversations.append(
            {
                "title": persona.title,
                "kind": built.kind,
                "names": built.names,
                "messages": built.messages,
                "questions": built.questions,
            }
        )
    return {"seed": seed, "bank": bank.name, "conversations": conversations}


def main() -> None:
    DATA.mkdir(exist_ok=True)
    for bank, seed, name in (
        (DEV_BANK, 16, "recall_corpus"),
        (SUPERSEDED_BANK, 1616, "recall_superseded"),
        (HELDOUT_BANK, 9016, "recall_heldout"),
    ):
        corpus = build_corpus(bank, seed)
        path = DATA / f"{name}.json"
        path.write_text(json.dumps(corpus, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        questions = sum(len(c["questions"]) for c in corpus["conversations"])
        messages = sum(len(c["messages"]) for c in corpus["conversations"])
        print(
            f"{path.name}: {len(corpus['conversations'])} conversations, {messages:,} messages, "
            f"{questions} questions"
        )


if __name__ == "__main__":
    main()
