"""Benchmark: how well the "used" badge finds what a reply drew on (precision and recall).

Replies below were written to use known memory entries, summary lines and recalled turns
(some say it in other words, some use nothing); every other source in the request is a
distractor. Without embeddings only shared words count; with the embeddings extra installed
the same cases are run again with closeness in meaning. Run: python bench/attribution.py
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ctxchat.core.attribution import Source, estimate_use, summary_sources

MEMORY = [
    Source("memory:1", "The service runs on PostgreSQL 16 in production."),
    Source("memory:2", "Local development uses SQLite with WAL mode."),
    Source("memory:3", "Everything must work offline: no network calls at run time."),
    Source("memory:4", "The user prefers short answers with one code example."),
    Source("memory:5", "Deploys happen on Fridays after the 14:00 standup."),
    Source("memory:6", "The slowdown on startup probably comes from the tokenizer loading."),
    Source("memory:7", "The API listens on port 8443 behind nginx."),
    Source("memory:8", "Tests must not use mocks of the HTTP client."),
    Source("memory:9", "The team lead is Marta; she reviews every migration."),
    Source("memory:10", "Python 3.11 is the minimum supported version."),
    Source("memory:11", "The user dislikes ORMs and writes SQL by hand."),
    Source("memory:12", "Backups run nightly to an S3 bucket named ctx-backups."),
    Source("memory:13", "The user's timezone is Europe/Lisbon."),
    Source("memory:14", "Logs are kept for 30 days, then deleted."),
    Source("memory:15", "The frontend is written in Svelte."),
    Source("memory:16", "Rate limit: 60 requests per minute per API key."),
    Source("memory:17", "The user is learning Rust in their spare time."),
    Source("memory:18", "Secrets live in environment variables, never in the repository."),
]

SUMMARY = summary_sources(
    "summary:v3",
    "decision: move the search index from Elasticsearch to SQLite FTS5\n"
    "decision: keep the summary incremental, one fold per overflow\n"
    "constraint: the config file is never rewritten by the app\n"
    "open: whether to shard the messages table by year\n"
    "action: Marta writes the migration for the memory table\n"
    "decision: themes load from TOML files in the themes folder",
)

RECALLED = [
    Source("message:41", "Let's cap the context window at 32k tokens for the local model."),
    Source("message:57", "The CI runner has 2 cores and 7 GB of memory, so keep tests light."),
    Source("message:63", "I benchmarked gzip against zstd: zstd was 3x faster at level 3."),
]

SOURCES = [*MEMORY, *SUMMARY, *RECALLED]


@dataclass(frozen=True, slots=True)
class Case:
    """A reply and the refs it was written to use."""

    reply: str
    used: frozenset[str]


def case(reply: str, *used: str) -> Case:
    return Case(reply, frozenset(used))


CASES = [
    case(
        "Since production is on PostgreSQL 16, use a partial index: "
        "`CREATE INDEX ... WHERE deleted_at IS NULL`.",
        "memory:1",
    ),
    case(
        "For local work SQLite in WAL mode handles this fine; readers will not block the writer.",
        "memory:2",
    ),
    case(
        "Keep it offline: bundle the tokenizer files in the wheel so nothing is fetched at "
        "run time.",
        "memory:3",
    ),
    case(
        "Schedule it for Friday after the 14:00 standup, like the other deploys.",
        "memory:5",
    ),
    case(
        "If startup is slow, measure the tokenizer loading first; my guess matches yours.",
        "memory:6",
    ),
    case(
        "Point the health check at port 8443; nginx forwards it to the API.",
        "memory:7",
    ),
    case(
        "Run the tests against the real HTTP client and the scripted server, not mocks.",
        "memory:8",
    ),
    case(
        "Ask Marta to review it: every migration goes through her.",
        "memory:9",
        "summary:v3#5",
    ),
    case(
        "`match` statements are fine, Python 3.11 is the minimum we support.",
        "memory:10",
    ),
    case(
        "Here is the query in plain SQL, no ORM: `SELECT id FROM users WHERE active`.",
        "memory:11",
    ),
    case(
        "The nightly backup to the ctx-backups bucket on S3 already covers that table.",
        "memory:12",
    ),
    case(
        "That is 09:00 in Lisbon for you, given your timezone.",
        "memory:13",
    ),
    case(
        "Log lines older than 30 days are deleted anyway, so no need to rotate by hand.",
        "memory:14",
    ),
    case(
        "In Svelte, bind the input with `bind:value` and derive the count with `$:`.",
        "memory:15",
    ),
    case(
        "With 60 requests per minute per key, batch the lookups or you will hit the limit.",
        "memory:16",
    ),
    case(
        "Read the key from an environment variable; never commit it to the repository.",
        "memory:18",
    ),
    case(
        "FTS5 in SQLite replaces Elasticsearch here, as decided: one virtual table and a trigger.",
        "summary:v3#1",
    ),
    case(
        "Sharding messages by year is still open; at this size one table is enough.",
        "summary:v3#4",
    ),
    case(
        "Put the new theme in a TOML file in the themes folder and it loads at start.",
        "summary:v3#6",
    ),
    case(
        "With the 32k token cap on the local model's context window, keep the summary short.",
        "message:41",
    ),
    case(
        "The CI runner only has 2 cores and 7 GB, so run the heavy benchmark locally.",
        "message:57",
    ),
    case(
        "Use zstd at level 3: it was 3x faster than gzip in your benchmark.",
        "message:63",
    ),
    # Said in other words: shared words are few, meaning is close.
    case(
        "Keep your answer brief and show a single snippet, as you like it.",
        "memory:4",
    ),
    case(
        "Since you are picking up Rust on the side, here is the same loop written with iterators.",
        "memory:17",
    ),
    case(
        "The app must never overwrite the settings file the user edited.",
        "summary:v3#3",
    ),
    # Two at once.
    case(
        "Production stays on PostgreSQL 16 while local development keeps SQLite with WAL; "
        "write the migration so both accept it.",
        "memory:1",
        "memory:2",
    ),
    # Nothing from the context.
    case("A linked list gives O(1) inserts at the head but O(n) lookups."),
    case("Sure, here is a haiku about autumn leaves falling on a quiet pond."),
    case("The HTTP 418 status code is a joke from an April Fools' RFC."),
]


@dataclass(frozen=True, slots=True)
class Score:
    precision: float
    recall: float
    true_positive: int
    false_positive: int
    false_negative: int


def score(similarities: Sequence[Mapping[str, float]] | None = None) -> Score:
    tp = fp = fn = 0
    for index, item in enumerate(CASES):
        close = similarities[index] if similarities is not None else None
        found = {use.ref for use in estimate_use(item.reply, SOURCES, close)}
        tp += len(found & item.used)
        fp += len(found - item.used)
        fn += len(item.used - found)
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    return Score(precision, recall, tp, fp, fn)


def cosine_similarities() -> list[dict[str, float]] | None:
    """Each reply's closeness to each source, with the embeddings extra (None without it)."""
    from ctxchat.embeddings import available

    if not available():
        return None
    from ctxchat.embeddings import MiniLMEncoder

    encoder = MiniLMEncoder.load()
    sources = encoder.encode([source.text for source in SOURCES])
    replies = encoder.encode([item.reply for item in CASES])
    matrix = replies @ sources.T
    return [
        {source.ref: float(matrix[i, j]) for j, source in enumerate(SOURCES)}
        for i in range(len(CASES))
    ]


def report(label: str, result: Score) -> None:
    print(
        f"{label}: precision {result.precision:.2f}, recall {result.recall:.2f} "
        f"({result.true_positive} found, {result.false_positive} wrongly, "
        f"{result.false_negative} missed)"
    )


def main() -> None:
    used = sum(len(item.used) for item in CASES)
    print(
        f"{len(CASES)} replies, {len(SOURCES)} sources in each request "
        f"({len(MEMORY)} memory entries, {len(SUMMARY)} summary lines, {len(RECALLED)} "
        f"recalled turns), {used} uses to find"
    )
    report("shared words", score())
    similarities = cosine_similarities()
    if similarities is None:
        print("with meaning: skipped (the embeddings extra is not installed)", file=sys.stderr)
        return
    report("shared words + meaning", score(similarities))


if __name__ == "__main__":
    main()
