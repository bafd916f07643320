"""The "used" estimate: which context a reply drew on, by shared distinctive words and meaning."""

from datetime import date

from ctxchat.core.assemble import assemble_context
from ctxchat.core.attribution import (
    Source,
    Use,
    estimate_use,
    never_used,
    request_sources,
    summary_sources,
)
from ctxchat.core.budget import Budget
from ctxchat.core.history import HistoryMessage, SummaryState
from ctxchat.core.memory import MemoryDates, MemoryEntry, MemoryKind, Mode
from ctxchat.core.tokens import TokenCounter

SOURCES = [
    Source("memory:1", "The service runs on PostgreSQL 16 in production."),
    Source("memory:2", "Local development uses SQLite with WAL mode."),
    Source("memory:3", "The frontend is written in Svelte."),
    Source("memory:4", "The user prefers short answers with one code example."),
]


def refs(uses: list[Use]) -> list[str]:
    return [use.ref for use in uses]


def test_a_reply_using_an_entry_marks_it_with_the_shared_words() -> None:
    (use,) = estimate_use("Production runs PostgreSQL, so use a partial index.", SOURCES)
    assert use.ref == "memory:1"
    assert set(use.words) == {"production", "postgresql", "runs"}
    assert use.evidence.startswith('shares "')
    assert use.similarity is None


def test_one_word_no_other_source_holds_is_enough() -> None:
    assert refs(estimate_use("In Svelte, bind the input with bind:value.", SOURCES)) == ["memory:3"]


def test_a_common_word_alone_marks_nothing() -> None:
    assert estimate_use("A linked list has O(n) lookups; the user asked before.", SOURCES) == []


def test_plurals_and_long_words_match_their_stems() -> None:
    sources = [Source("memory:9", "The user dislikes ORMs and writes SQL by hand.")]
    assert refs(estimate_use("Plain SQL, no ORM, for these users.", sources)) == ["memory:9"]


def test_meaning_marks_what_shares_no_words() -> None:
    reply = "Be brief and show a single snippet."
    assert estimate_use(reply, SOURCES) == []
    (use,) = estimate_use(reply, SOURCES, {"memory:4": 0.62, "memory:1": 0.1})
    assert (use.ref, use.words, use.similarity) == ("memory:4", (), 0.62)
    assert use.evidence == "meaning 0.62 close"


def test_summary_lines_are_sources_of_their_own() -> None:
    assert summary_sources("summary:v3", "decision: SQLite\n\nopen: sharding") == [
        Source("summary:v3#1", "decision: SQLite"),
        Source("summary:v3#3", "open: sharding"),
    ]


def test_never_used_counts_replies_back_from_the_newest() -> None:
    replies = [
        [Use("memory:1", (), 1.0)],
        [Use("memory:2", (), 1.0)],
        [],
    ]
    assert never_used(["memory:1", "memory:2", "memory:3"], replies, last=2) == {
        "memory:1": None,  # used, but three replies ago: not within the last two
        "memory:2": 1,
        "memory:3": None,
    }


def test_a_requests_sources_are_its_entries_summary_lines_and_recalled_turns(
    counter: TokenCounter,
) -> None:
    entries = [
        MemoryEntry(1, MemoryKind.FACT, "The service runs on PostgreSQL 16."),
        MemoryEntry(2, MemoryKind.FACT, "Old fact.", superseded_by=1),
    ]
    summary = SummaryState(3, "decision: SQLite FTS5\nopen: sharding", 1, 2, False)
    history = [HistoryMessage(i, "user", f"message {i}", 5) for i in range(1, 5)]
    plan = assemble_context(
        budget=Budget(8_000, 1_000),
        counter=counter,
        mode=Mode.PERSONALIZATION,
        system_prompt="",
        memory=entries,
        summary=summary,
        history=history,
        new_input="Hi",
        dates=MemoryDates(date(2026, 11, 25)),
    )
    texts = {e.ref: e.text for e in entries} | {m.ref: m.content for m in history}
    assert request_sources(plan, texts) == [
        Source("memory:1", "The service runs on PostgreSQL 16."),
        Source("summary:v3#1", "decision: SQLite FTS5"),
        Source("summary:v3#2", "open: sharding"),
    ]
