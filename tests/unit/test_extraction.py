"""Fact extraction: the request and parsing good and malformed model output."""

from ctxchat.core.extraction import build_extraction_request, parse_proposals
from ctxchat.core.history import HistoryMessage
from ctxchat.core.memory import MemoryEntry, MemoryKind

KNOWN = [MemoryEntry(7, MemoryKind.FACT, "The service runs on PostgreSQL 15.")]


def test_request_lists_messages_with_ids_and_known_entries() -> None:
    messages = [HistoryMessage(3, "user", "We use PostgreSQL 16 now.", 10)]
    request = build_extraction_request(messages, KNOWN)
    assert "merely believes or wants is a preference or a hypothesis" in request[0]["content"]
    assert request[1]["content"] == (
        "Conversation:\n[3] user: We use PostgreSQL 16 now.\n\n"
        "Already known:\n- (fact) The service runs on PostgreSQL 15.\n\n"
        "Return the JSON array now."
    )


def test_good_output() -> None:
    reply = (
        '[{"kind": "fact", "text": "The service runs on PostgreSQL 16.", "importance": 8,'
        ' "message_id": 3},'
        ' {"kind": "preference", "text": "The user likes terse answers", "importance": 4,'
        ' "message_id": 4}]'
    )
    result = parse_proposals(reply, KNOWN, valid_ids=[3, 4])
    assert result.problems == ()
    assert [
        (p.kind, p.text, p.importance, p.message_id, p.matches_entry_id) for p in result.proposals
    ] == [
        (MemoryKind.FACT, "The service runs on PostgreSQL 16.", 8, 3, 7),
        (MemoryKind.PREFERENCE, "The user likes terse answers", 4, 4, None),
    ]


def test_fenced_and_wrapped_output() -> None:
    reply = (
        'Here you go:\n```json\n{"entries": [{"kind": "constraint", "text": "No network."}]}\n```'
    )
    result = parse_proposals(reply)
    assert [(p.kind, p.text, p.importance) for p in result.proposals] == [
        (MemoryKind.CONSTRAINT, "No network.", 5)
    ]


def test_not_json_at_all() -> None:
    result = parse_proposals("I could not find any facts, sorry.")
    assert result.proposals == ()
    assert result.problems == ("The model's reply held no JSON entries.",)


def test_partial_json_keeps_the_complete_objects() -> None:
    reply = '[{"kind": "fact", "text": "Deploys on Fridays.", "importance": 6}, {"kind": "fa'
    result = parse_proposals(reply)
    assert [p.text for p in result.proposals] == ["Deploys on Fridays."]


def test_wrong_fields_are_reported_not_fatal() -> None:
    reply = (
        '[{"kind": "rumour", "text": "The ORM is slow", "importance": "high"},'
        ' {"kind": "fact"}, 42, {"kind": "fact", "text": "A", "importance": 99, "message_id": 5}]'
    )
    result = parse_proposals(reply, valid_ids=[1, 2])
    assert [(p.kind, p.text, p.importance, p.message_id) for p in result.proposals] == [
        (MemoryKind.HYPOTHESIS, "The ORM is slow", 5, None),
        (MemoryKind.FACT, "A", 10, None),
    ]
    assert result.problems == (
        "Entry 1 has kind 'rumour'; taken as a hypothesis.",
        "Entry 1 has importance 'high'; using 5.",
        "Entry 2 has no text; skipped.",
        "Entry 3 is not an object; skipped.",
    )


def test_duplicates_are_proposed_once() -> None:
    reply = '[{"kind": "fact", "text": "Uses Python."}, {"kind": "fact", "text": "uses  python."}]'
    assert len(parse_proposals(reply).proposals) == 1
