"""The loss report: what folded turns held that a summary does not, and what it must keep."""

from __future__ import annotations

import pytest

from ctxchat.core.detail_kind import DetailKind
from ctxchat.core.history import HistoryMessage, MessageStatus
from ctxchat.core.memory import MemoryEntry, MemoryKind
from ctxchat.core.summary import SummaryStrategy
from ctxchat.core.summary_loss import (
    LostDetail,
    add_back,
    holds_text,
    loss_report,
    must_keep,
    still_lost,
)

TURNS = [
    "We decided to use PostgreSQL 16 instead of MySQL for the orders service. "
    "The deadline is March 15, 2024, and the budget is $12,500.",
    "Good. Run `pip install -r requirements.txt`, then edit /etc/nginx/nginx.conf. "
    "The docs are at https://example.com/docs/setup.",
    "Maria Lopez will review it on Friday at 3pm. Set max_retries to 5.",
]


def turns(*texts: str, first: int = 1) -> list[HistoryMessage]:
    return [
        HistoryMessage(first + i, "user" if i % 2 == 0 else "assistant", text, 10)
        for i, text in enumerate(texts)
    ]


def lost_texts(summary: str, texts: list[str] = TURNS) -> list[tuple[str, str, int]]:
    report = loss_report(turns(*texts), summary)
    return [(item.kind.value, item.text, item.message_id) for item in report.lost]


def test_a_summary_that_keeps_everything_loses_nothing() -> None:
    summary = (
        "The team chose Postgres 16 over MySQL for orders; deadline 2024-03-15, budget "
        "twelve thousand five hundred dollars. Install with `pip install -r requirements.txt` "
        "and edit /etc/nginx/nginx.conf (docs: example.com/docs/setup). Maria reviews on "
        "Friday at 15:00; max_retries is set to 5."
    )
    assert lost_texts(summary) == []


def test_a_summary_that_drops_details_names_each_with_its_message() -> None:
    summary = "They chose Postgres over MySQL for the orders service and set a budget."
    # What matters most first: names, then dates, links and paths; numbers last.
    assert lost_texts(summary) == [
        ("name", "Maria Lopez", 3),
        ("date", "March 15, 2024", 1),
        ("date", "Friday", 3),
        ("date", "3pm", 3),
        ("url", "https://example.com/docs/setup", 2),
        ("path", "/etc/nginx/nginx.conf", 2),
        ("command", "pip install -r requirements.txt", 2),
        ("identifier", "max_retries", 3),
        ("number", "16", 1),
        ("number", "$12,500", 1),
    ]


def test_each_detail_is_reported_once_from_the_first_message() -> None:
    report = loss_report(turns("Port 8771 is free.", "Yes, 8771 is free."), "A port is free.")
    assert [(i.text, i.message_id) for i in report.lost] == [("8771", 1)]
    assert report.checked == 1


def test_failed_replies_are_not_checked() -> None:
    failed = HistoryMessage(2, "assistant", "Use port 8771.", 5, MessageStatus.FAILED)
    report = loss_report([*turns("Which port?"), failed], "They asked for a port.")
    assert report.lost == ()


def test_the_report_carries_the_sentence_to_add_back() -> None:
    report = loss_report(turns("Hello. The cache lives in /var/cache/app now."), "Hello.")
    (item,) = report.lost
    assert item.context == "The cache lives in /var/cache/app now."
    assert item.to_dict() == {
        "text": "/var/cache/app",
        "kind": "path",
        "message_id": 1,
        "context": "The cache lives in /var/cache/app now.",
    }
    assert LostDetail.from_dict(item.to_dict()) == item


@pytest.mark.parametrize(
    ("strategy", "expected"),
    [
        (SummaryStrategy.SUMMARIZE, "Hello.\nThe cache lives in /var/cache/app now."),
        (SummaryStrategy.KEYVALUE, "Hello.\nfact: The cache lives in /var/cache/app now."),
    ],
)
def test_adding_back_a_lost_item_clears_it(strategy: SummaryStrategy, expected: str) -> None:
    messages = turns("Hello. The cache lives in /var/cache/app now.")
    (item,) = loss_report(messages, "Hello.").lost
    added = add_back("Hello.", item, strategy)
    assert added == expected
    assert still_lost(messages, [item], added) == ()
    assert still_lost(messages, [item], "Hello again.") == (item,)


def entry(entry_id: int, kind: MemoryKind, text: str, source: str, *, pinned: bool) -> MemoryEntry:
    return MemoryEntry(entry_id, kind, text, pinned=pinned, source=source)


def test_what_a_fold_must_keep() -> None:
    messages = turns(
        "Never push directly to main.",
        "Understood, I will open pull requests.",
        "The staging host is db-2.internal.",
        first=10,
    )
    memory = [
        entry(1, MemoryKind.FACT, "Staging host is db-2.internal", "message:12", pinned=True),
        entry(2, MemoryKind.CONSTRAINT, "Open pull requests", "messages:11-11", pinned=False),
        entry(3, MemoryKind.FACT, "Unpinned fact", "message:12", pinned=False),
        entry(4, MemoryKind.FACT, "Pinned elsewhere", "message:3", pinned=True),
    ]
    kept = must_keep(messages, memory)
    assert [(k.text, k.message_id, k.why) for k in kept] == [
        ("Staging host is db-2.internal", 12, "pinned"),
        ("Open pull requests", 11, "constraint"),
        ("Never push directly to main.", 10, "rule"),
    ]


def test_a_rule_is_held_by_a_paraphrase_but_not_by_its_opposite_details() -> None:
    rule = "Never deploy on Fridays after 16:00."
    assert holds_text("Rule: no deploys on Friday after 16:00.", rule)
    assert not holds_text("Rule: no deploys on Friday.", rule)
    assert not holds_text("The team likes Fridays.", rule)


def test_kinds_round_trip() -> None:
    assert {kind.value for kind in DetailKind} >= {
        "number",
        "date",
        "name",
        "path",
        "url",
        "command",
        "identifier",
        "decision",
    }


def test_a_topic_that_disappears_is_reported_though_its_details_are_minor() -> None:
    texts = [
        "Let us plan the garden first: tomatoes along the south fence.",
        "The garden needs watering twice a week in summer.",
        "Now the kitchen: we want a new oven and a bigger fridge.",
        "For the kitchen, the oven should be electric.",
    ]
    summary = "They plan a kitchen with a new electric oven and a bigger fridge."
    topics = [i for i in loss_report(turns(*texts), summary).lost if i.kind is DetailKind.TOPIC]
    assert [(i.text, i.message_id) for i in topics] == [("garden", 1)]
    assert topics[0].context == "Let us plan the garden first: tomatoes along the south fence."


def test_names_lost_come_before_a_looping_replys_list_numbers() -> None:
    looping = "\n".join(f"{n}. Step {n}: check the log again." for n in range(1, 40))
    texts = ["Sven Olsen owns the billing service.", looping]
    report = loss_report(turns(*texts), "Steps to check the log.")
    assert report.lost[0].kind is DetailKind.NAME and report.lost[0].text == "Sven Olsen"
    kinds = [item.kind for item in report.lost]
    numbers = kinds.index(DetailKind.NUMBER)
    assert numbers > 0 and set(kinds[numbers:]) == {DetailKind.NUMBER}
