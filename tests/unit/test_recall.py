"""Recall: query terms, ranking by relevance and recency, and the recall layer in a plan."""

from collections.abc import Callable

from ctxchat.core.adaptive import AdaptivePolicy
from ctxchat.core.assemble import AssemblyOptions, assemble_context
from ctxchat.core.budget import Budget, Layer
from ctxchat.core.history import HistoryMessage
from ctxchat.core.memory import MemoryEntry, MemoryKind, Mode
from ctxchat.core.plan import Reason
from ctxchat.core.recall import (
    RECALL_HEADER,
    RecallCandidate,
    fts_query,
    query_terms,
    rank_recall,
)
from ctxchat.core.tokens import TokenCounter

History = Callable[[list[str]], list[HistoryMessage]]


def test_query_terms_drop_stopwords_and_short_words() -> None:
    assert query_terms("What did we decide about the database?") == ["decide", "database"]
    assert query_terms("Что мы решили про базу данных?") == ["решили", "базу", "данных"]
    assert fts_query(["decide", "db", 'qu"ote']) == '"decide"* OR "db" OR "qu""ote"*'


def test_newer_outranks_older_at_equal_relevance() -> None:
    older = RecallCandidate(
        "message:10", "user", "We decided on MySQL for the database.", 12, -4.0, 290, 10
    )
    newer = RecallCandidate(
        "message:200", "user", "We decided on PostgreSQL for the database.", 12, -4.0, 100, 200
    )
    ranked = rank_recall([older, newer], ["decided", "database"])
    assert [hit.ref for hit in ranked] == ["message:200", "message:10"]
    assert ranked[0].terms == ("decided", "database")
    assert ranked[0].why == (
        "matched decided, database; score 3.63 (relevance 4.00 × recency 0.91, 100 messages ago)"
    )


def test_a_much_better_old_match_still_wins() -> None:
    old = RecallCandidate("message:1", "user", "x", 5, -12.0, 150, 1)
    new = RecallCandidate("message:2", "user", "y", 5, -2.0, 0, 2)
    assert [h.ref for h in rank_recall([old, new], [])] == ["message:1", "message:2"]


def _hit(message: HistoryMessage, age: int) -> RecallCandidate:
    return RecallCandidate(
        message.ref, message.role, message.content, message.tokens, -3.0, age, message.id
    )


def test_recall_layer_never_repeats_working_memory(
    counter: TokenCounter, make_history: History
) -> None:
    texts = ["We decided the database is PostgreSQL."] + [
        f"filler message {i} " * 40 for i in range(60)
    ]
    history = make_history(texts)
    hits = rank_recall([_hit(history[0], 60), _hit(history[-1], 0)], ["database"])
    plan = assemble_context(
        budget=Budget(4_000, 500),
        counter=counter,
        mode=Mode.PERSONALIZATION,
        system_prompt="S",
        memory=[],
        summary=None,
        history=history,
        new_input="What did we decide about the database?",
        recall=hits,
        adaptive=AdaptivePolicy(),
        options=AssemblyOptions(min_recent=4),
    )
    recall = plan.layer(Layer.RECALL)
    assert [item.ref for item in recall.items] == ["message:1"]
    assert [(o.ref, o.reason) for o in recall.left_out] == [
        (f"message:{len(texts)}", Reason.DUPLICATE)
    ]
    working_refs = {item.ref for item in plan.layer(Layer.WORKING).items}
    assert "message:1" not in working_refs
    assert plan.messages[1].layer is Layer.RECALL
    assert plan.messages[1].content.startswith(RECALL_HEADER)
    assert "[#1 user, 60 ago] We decided the database is PostgreSQL.\n" in plan.messages[1].content
    assert plan.shares["recall"] == 0.15  # turn 31 > 20: the long-conversation shift too
    assert plan.share_notes[0] == "recall found earlier messages: it takes 10% from working"
    assert sum(layer.tokens for layer in plan.layers) == plan.tokens <= plan.total_budget


def test_unused_recall_share_flows_back_to_working(
    counter: TokenCounter, make_history: History
) -> None:
    history = make_history([f"message {i}" for i in range(40)])
    hits = rank_recall([_hit(history[-1], 0)], [])  # only a hit that is in working memory
    kwargs = dict(
        budget=Budget(8_000, 1_000),
        counter=counter,
        mode=Mode.PERSONALIZATION,
        system_prompt="S",
        memory=[],
        summary=None,
        history=history,
        new_input="hello",
        adaptive=AdaptivePolicy(long_after_turns=1000),
    )
    with_hits = assemble_context(recall=hits, **kwargs)  # type: ignore[arg-type]
    without = assemble_context(**kwargs)  # type: ignore[arg-type]
    assert with_hits.layer(Layer.RECALL).tokens == 0
    assert with_hits.layer(Layer.WORKING).items == without.layer(Layer.WORKING).items


def test_memory_is_recalled_only_when_dropped_for_budget(counter: TokenCounter) -> None:
    big = [
        MemoryEntry(
            i, MemoryKind.FACT, f"Fact {i} about the database " + "word " * 100, importance=10 - i
        )
        for i in range(1, 4)
    ]
    hidden = MemoryEntry(9, MemoryKind.PREFERENCE, "Prefers the database to be MySQL.")
    hits = rank_recall(
        [
            RecallCandidate("memory:3", "memory", big[2].text, 70, -2.0, 0),
            RecallCandidate("memory:9", "memory", hidden.text, 10, -5.0, 0),
        ],
        ["database"],
    )
    plan = assemble_context(
        budget=Budget(3_000, 500),
        counter=counter,
        mode=Mode.OBJECTIVE,
        system_prompt="S",
        memory=[*big, hidden],
        summary=None,
        history=[],
        new_input="Which database?",
        recall=hits,
        adaptive=AdaptivePolicy(),
    )
    memory_out = {o.ref: o.reason for o in plan.layer(Layer.MEMORY).left_out}
    assert memory_out == {"memory:9": Reason.MODE, "memory:3": Reason.BUDGET}
    assert [item.ref for item in plan.layer(Layer.RECALL).items] == ["memory:3"]
