"""Recall: query terms, ranking by relevance and recency, and the recall layer in a plan."""

import dataclasses
import math
from collections.abc import Callable
from typing import Any

import pytest

from ctxchat.core.adaptive import AdaptivePolicy
from ctxchat.core.assemble import AssemblyOptions, assemble_context
from ctxchat.core.budget import Budget, Layer
from ctxchat.core.history import HistoryMessage
from ctxchat.core.memory import MemoryEntry, MemoryKind, Mode
from ctxchat.core.plan import LayerPlan, Reason
from ctxchat.core.recall import (
    RECALL_HEADER,
    REFERENCES_OF,
    TAG_TOKENS,
    ConversationTerms,
    RecallCandidate,
    asked_names,
    fts_query,
    local_relevance,
    meaning_query,
    plan_recall,
    query_terms,
    rank_recall,
    recall_demand,
    stem,
    uncommon_terms,
    with_neighbours,
    with_references,
)
from ctxchat.core.tokens import TokenCounter
from ctxchat.core.when import Date, dates_in

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
    kwargs: dict[str, Any] = dict(
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
    with_hits = assemble_context(recall=hits, **kwargs)
    without = assemble_context(**kwargs)
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


# --- weights from the conversation itself -------------------------------------------------


def test_a_word_most_of_the_conversation_holds_weighs_nothing() -> None:
    texts = [f"Thanks, Maya! Message {i}." for i in range(40)] + [
        "Maya, we adopted a dog called Biscuit.",
        "The dog park was full.",
    ]
    stats = ConversationTerms(texts)
    assert (stats.messages, stats.documents("maya"), stats.documents("dog")) == (42, 41, 2)
    assert stats.weight("maya") == pytest.approx(math.log(1 + 1.5 / 41.5))
    assert stats.weight("dog") == pytest.approx(math.log(1 + 40.5 / 2.5))
    # Long words count as prefixes, as the full-text query matches them.
    assert ConversationTerms(["databases", "database", "data"]).documents("database") == 2
    assert uncommon_terms(["maya", "dog"], stats) == (["dog"], ["maya"])
    # In a short conversation shares mean little: every word is kept.
    assert uncommon_terms(["maya", "dog"], ConversationTerms(texts[:20])) == (["maya", "dog"], [])


def test_candidates_are_scored_by_the_conversation_not_the_store() -> None:
    stats = ConversationTerms([f"Thanks, Maya! Message {i}." for i in range(40)])
    stats.add("We adopted a dog.")
    chit_chat = RecallCandidate("message:1", "user", "Thanks, Maya!", 5, -9.0, 5, 1)
    answer = RecallCandidate("message:41", "user", "We adopted a dog.", 6, -1.0, 50, 41)
    ranked = local_relevance([chit_chat, answer], ["maya", "dog"], stats)
    assert [c.ref for c in ranked] == ["message:41", "message:1"]
    assert ranked[0].bm25 < ranked[1].bm25 < 0


def test_query_words_lose_their_english_endings_when_enough_is_left() -> None:
    assert [stem(w) for w in ("flooring", "caterers", "decided", "plans", "going")] == [
        "floor",
        "caterer",
        "decid",
        "plans",
        "going",
    ]
    assert query_terms("What flooring did we choose?") == ["floor", "choose"]


def test_the_meaning_query_leaves_out_the_speakers_names() -> None:
    stats = ConversationTerms(
        [f"What luck, Jon! Message {i}." for i in range(30)] + ["Big news: I got promoted."] * 10
    )
    # "message" is as common as "Jon"; "what", as common too, is a function word and stays.
    assert (
        meaning_query("What is Jon's new position? The message said so.", stats)
        == "What is new position? The said so."
    )
    assert meaning_query("Jon?", stats) == "Jon?"  # nothing would be left


# --- ranking: recency breaks ties, never buries the only answer -----------------------------


def test_an_old_answer_outranks_a_weaker_new_match() -> None:
    old = RecallCandidate("message:1", "user", "a", 5, -6.0, 1_000, 1)
    new = RecallCandidate("message:2", "user", "b", 5, -4.0, 0, 2)
    ranked = rank_recall([new, old], [])
    assert [hit.ref for hit in ranked] == ["message:1", "message:2"]
    assert ranked[0].recency == pytest.approx(1 - 0.25 * (1 - 0.5 ** (1_000 / 150)))
    assert ranked[1].recency == 1.0


def test_a_recalled_question_brings_its_answer_and_an_answer_its_question(
    make_history: History,
) -> None:
    history = make_history(
        [
            "Which database should we use?",
            "PostgreSQL: it has the transactions you need.",
            "What about the cache?",
            "Redis, with a short expiry.",
        ]
    )
    positions = {m.id: i for i, m in enumerate(history)}
    question = rank_recall([_hit(history[0], 3)], ["database"])
    answer = rank_recall([_hit(history[3], 0)], ["redis"])
    hits = with_neighbours([*question, *answer], history, positions)
    assert [(hit.ref, hit.neighbour_of) for hit in hits] == [
        ("message:1", None),
        ("message:2", 1),
        ("message:3", 4),
        ("message:4", None),
    ]
    assert hits[1].why == "neighbour of #1 (question and answer); 2 messages ago"
    assert hits[2].why == "neighbour of #4 (question and answer); 1 messages ago"


# --- a changed decision comes with the decision ---------------------------------------------


def _chat_with(lines: dict[int, str], length: int = 120) -> list[str]:
    """`length` messages of varied small talk, with `lines` at their indices."""
    talk = [
        f"Small talk number {i}, about the weather {i % 7} and lunch {i % 5}."
        for i in range(length)
    ]
    return [lines.get(i, text) for i, text in enumerate(talk)]


def _terms_of(history: list[HistoryMessage]) -> ConversationTerms:
    stats = ConversationTerms()
    for message in history:
        stats.add(message.content, message.id)
    return stats


def test_a_later_change_that_names_the_old_choice_follows_the_recalled_decision(
    make_history: History,
) -> None:
    history = make_history(
        _chat_with(
            {
                3: "August is always too hot for me, even in the shade.",
                10: "Booked our summer holiday at last: a week in Naples in August!",
                60: "Scratch Naples, the flights doubled overnight. We're doing Malaga instead.",
                # Shares August with the decision, but more with an older message.
                90: "The weather in August is always too hot for me.",
            }
        )
    )
    positions = {m.id: i for i, m in enumerate(history)}
    decision = rank_recall([_hit(history[10], 109)], ["holiday", "summer"])
    hits = with_references(decision, history, positions, _terms_of(history))
    assert [(hit.ref, hit.follows) for hit in hits] == [("message:11", None), ("message:61", 11)]
    assert hits[1].why == "later on the topic of #11 (shares naples); 59 messages ago"


def test_a_decision_changed_twice_brings_both_changes_and_nothing_unrelated(
    make_history: History,
) -> None:
    history = make_history(
        _chat_with(
            {
                5: "Signed up for the gym on Mill Road, thirty pounds a month.",
                40: "Cancelled the gym membership, it was packed. Swimming at the lido instead.",
                70: "The lido closed for repairs, so I'm back to running in the park.",
                # Shares a rare word with the gym, but a rarer one with an earlier message.
                80: "The dog park was packed today, so many puppies.",
                85: "The dog park was packed again today.",
            }
        )
    )
    positions = {m.id: i for i, m in enumerate(history)}
    decision = rank_recall([_hit(history[5], 114)], ["gym"])
    hits = with_references(decision, history, positions, _terms_of(history))
    assert [(hit.ref, hit.follows) for hit in hits] == [
        ("message:6", None),
        ("message:41", 6),
        ("message:71", 41),
    ]


def test_a_later_message_found_on_its_own_keeps_its_reasons_and_comes_sooner(
    make_history: History,
) -> None:
    history = make_history(
        _chat_with(
            {
                10: "Let's write the mobile app in Flutter, the team knows it.",
                50: "Flutter is too heavy for old phones, rewriting the prototype in Kotlin.",
            }
        )
    )
    positions = {m.id: i for i, m in enumerate(history)}
    unrelated = _hit(history[30], 89)
    found = [_hit(history[10], 109), unrelated, _hit(history[50], 69)]
    ranked = rank_recall(
        [
            dataclasses.replace(found[0], bm25=-9.0),
            dataclasses.replace(unrelated, bm25=-5.0),
            found[2],
        ],
        ["mobile", "app"],
    )
    hits = with_references(ranked, history, positions, _terms_of(history))
    assert [(hit.ref, hit.follows) for hit in hits] == [
        ("message:11", None),
        ("message:51", None),
        ("message:31", None),
    ]


def test_an_answer_naming_someone_brings_the_message_that_introduced_them(
    make_history: History,
) -> None:
    history = make_history(
        _chat_with(
            {
                8: "My cofounder Tariq handles sales; I handle the product.",
                70: "Tariq closed our first paying customer, a bakery chain.",
            }
        )
    )
    positions = {m.id: i for i, m in enumerate(history)}
    answer = rank_recall([_hit(history[70], 49)], ["paying", "customer"])
    hits = with_references(answer, history, positions, _terms_of(history))
    assert [(hit.ref, hit.referred_by) for hit in hits] == [("message:71", None), ("message:9", 71)]
    assert hits[1].why == "what #71 refers back to (shares tariq); 111 messages ago"


def test_a_hit_already_placed_beside_another_still_brings_its_later_change(
    make_history: History,
) -> None:
    history = make_history(
        _chat_with(
            {
                10: "Signed up for the Spanish evening class at the college.",
                30: "Dropped out of Spanish, the teacher read from slides.",
                60: "Signed up for a pottery class at the college too.",
            }
        )
    )
    positions = {m.id: i for i, m in enumerate(history)}
    # The pottery class is found first and brings the Spanish class it refers back to.
    found = [
        dataclasses.replace(_hit(history[60], 59), bm25=-9.0),
        _hit(history[10], 109),
    ]
    hits = with_references(rank_recall(found, ["class"]), history, positions, _terms_of(history))
    assert [hit.ref for hit in hits] == ["message:61", "message:11", "message:31"]


# --- the recall layer: filled by tokens, verbatim, oldest first ------------------------------


def test_the_same_text_is_recalled_once(counter: TokenCounter, make_history: History) -> None:
    texts = [f"filler message {i} " * 40 for i in range(60)]
    texts[3] = texts[9] = texts[15] = "We should plan something for the summer."
    texts[50] = "We should plan something for the summer."  # in working memory
    texts[20] = "Booked our summer holiday in Naples."
    history = make_history(texts)
    found = [_hit(history[i], 59 - i) for i in (15, 9, 3, 20)]
    hits = rank_recall(found, ["summer"])
    layer, _ = plan_recall(
        Budget(60_000, 1_000),
        counter,
        hits,
        history[40:],
        LayerPlan(Layer.MEMORY, 0, 0.0, 0),
        2_000,
    )
    assert [item.ref for item in layer.items] == ["message:21"]
    assert [(o.ref, o.detail) for o in layer.left_out] == [
        ("message:16", "same text as #51"),
        ("message:10", "same text as #51"),
        ("message:4", "same text as #51"),
    ]


def test_the_recall_share_is_filled_by_tokens_skipping_what_does_not_fit(
    counter: TokenCounter, make_history: History
) -> None:
    texts = [f"Note {i} about the garden:\n  keep   this spacing." for i in range(30)]
    texts[5] = "A very long garden note " + "word " * 400
    history = make_history(texts)
    candidates = [_hit(m, 30 - m.id) for m in history]
    # The long note is the best match, the one after it the second best.
    candidates[5] = dataclasses.replace(candidates[5], bm25=-9.0)
    candidates[6] = dataclasses.replace(candidates[6], bm25=-8.0)
    hits = rank_recall(candidates, ["garden"])
    recall, text = plan_recall(
        Budget(16_000, 500),
        counter,
        hits,
        history[-2:],  # the last two are in working memory
        LayerPlan(Layer.MEMORY, 0, 0.0, 0),
        300,
    )
    chosen = [item.ref for item in recall.items]
    left = {o.ref: (o.reason, o.detail) for o in recall.left_out}
    assert left["message:29"][0] is Reason.DUPLICATE and left["message:30"][0] is Reason.DUPLICATE
    assert left["message:6"][0] is Reason.BUDGET
    assert left["message:6"][1].startswith("dropped: over the recall budget (matched garden;")
    # Smaller hits after the one that did not fit still come in, until the share is used.
    assert chosen[:3] == ["message:7", "message:28", "message:27"]
    assert recall.tokens <= 300 < recall.tokens + 16
    assert text is not None
    # Oldest first, each text exactly as stored.
    assert "\n[#7 user, 23 ago] Note 6 about the garden:\n  keep   this spacing.\n[#" in text
    tags = [text.index(f"[#{ref.split(':')[1]} ") for ref in chosen]
    assert [ref for _, ref in sorted(zip(tags, chosen, strict=True))] == sorted(
        chosen, key=lambda ref: int(ref.split(":")[1])
    )


def _strong_recall_plan(
    counter: TokenCounter, make_history: History, newest: str = "", **changes: Any
) -> tuple[list[HistoryMessage], Any]:
    """A long conversation whose old messages all match the question about equally well
    (their strong matches want more than working memory's whole share), planned with an
    empty memory and no summary, the newest 4 messages kept; `newest` is added to each of
    the last 20 messages."""
    texts = [f"Old note {i} about the garden shed and its roof." for i in range(200)]
    texts += [f"A newer word {i} about nothing much. {newest}" for i in range(20)]
    history = make_history(texts)
    hits = rank_recall([_hit(m, len(texts) - m.id) for m in history[:200]], ["garden"])
    kwargs: dict[str, Any] = dict(
        budget=Budget(4_000, 500),
        counter=counter,
        mode=Mode.PERSONALIZATION,
        system_prompt="S",
        memory=[],
        summary=None,
        history=history,
        new_input="What did we say about the garden shed?",
        recall=hits,
        adaptive=AdaptivePolicy(),
        options=AssemblyOptions(min_recent=4),
    )
    return history, assemble_context(**(kwargs | changes))


def test_strong_matches_borrow_what_the_other_layers_leave_unused(
    counter: TokenCounter, make_history: History
) -> None:
    _, plan = _strong_recall_plan(counter, make_history)
    recall = plan.layer(Layer.RECALL)
    share = plan.shares["recall"]
    assert share == 0.6  # all of working's share
    # Beyond it: the system prompt, memory and summary used almost none of theirs.
    own = int(share * plan.total_budget)
    assert own < recall.tokens <= recall.budget <= 0.8 * plan.total_budget
    assert recall.tokens / plan.total_budget <= recall.share
    assert (
        f"its strong matches also took {recall.budget - own:,} tokens the other layers left "
        "unused" in recall.hints
    )
    assert plan.share_notes[-1] == (
        f"recall's strong matches also take {recall.budget - own:,} tokens the other layers "
        "left unused"
    )
    assert sum(layer.tokens for layer in plan.layers) == plan.tokens <= plan.total_budget
    # With at most working's share, recall borrows nothing.
    _, capped = _strong_recall_plan(counter, make_history, adaptive=AdaptivePolicy(recall_most=0.6))
    assert capped.layer(Layer.RECALL).budget == own
    assert not any("also took" in hint for hint in capped.layer(Layer.RECALL).hints)


def test_recall_borrows_nothing_that_the_newest_messages_need(
    counter: TokenCounter, make_history: History
) -> None:
    # The newest 4 messages take about a third of the budget: recall's own share leaves
    # them room, and what it borrows must not take that room.
    history, plan = _strong_recall_plan(counter, make_history, newest="word " * 280)
    newest = [f"message:{m.id}" for m in history[-4:]]
    working = [item.ref for item in plan.layer(Layer.WORKING).items]
    assert working[-4:] == newest
    assert not any("fit the budget" in warning for warning in plan.warnings)
    assert plan.layer(Layer.RECALL).budget > int(plan.shares["recall"] * plan.total_budget)


def test_the_demand_counts_the_hits_scoring_a_fifth_of_the_best(make_history: History) -> None:
    history = make_history([f"message {i} about the garden" for i in range(10)])
    found = [
        dataclasses.replace(_hit(message, 10 - i), bm25=-score)
        for i, (message, score) in enumerate(zip(history, (10.0, 5.0, 2.0, 1.0), strict=False))
    ]
    hits = rank_recall(found, ["garden"])
    strong = [hit for hit in hits if hit.score >= 0.2 * hits[0].score]
    demand = recall_demand(hits, total=1_000)
    assert demand.matches == len(strong) == 3
    assert demand.share == sum(hit.tokens + TAG_TOKENS for hit in strong) / 1_000
    assert recall_demand((), total=1_000).matches == 0


def test_only_the_best_hits_bring_their_references_first(make_history: History) -> None:
    """Past the first REFERENCES_OF hits, what refers back to a hit comes after every hit."""
    history = make_history(
        _chat_with(
            {
                10: "Booked our summer holiday at last: a week in Naples in August!",
                60: "Scratch Naples, the flights doubled overnight. We're doing Malaga instead.",
                **{20 + i: f"Holiday idea {i}: somewhere sunny." for i in range(REFERENCES_OF)},
            }
        )
    )
    positions = {m.id: i for i, m in enumerate(history)}
    better = [
        dataclasses.replace(_hit(history[20 + i], 99 - i), bm25=-9.0 + i)
        for i in range(REFERENCES_OF)
    ]
    weaker = dataclasses.replace(_hit(history[10], 109), bm25=-1.0)
    unrelated = dataclasses.replace(_hit(history[30], 89), bm25=-0.5)
    ranked = rank_recall([*better, weaker, unrelated], ["holiday"])
    hits = with_references(ranked, history, positions, _terms_of(history))
    assert [hit.ref for hit in hits][-3:] == ["message:11", "message:31", "message:61"]
    assert hits[-1].follows == 11


# --- what the question names: a date, a person; and a hit's neighbours ----------------------


def _candidate(message_id: int, content: str, bm25: float = -3.0, age: int = 10) -> RecallCandidate:
    return RecallCandidate(f"message:{message_id}", "user", content, 10, bm25, age, message_id)


def test_a_question_naming_last_june_ranks_a_june_turn_above_one_of_another_month() -> None:
    may = _candidate(1, "[8 May, 2023] We went camping by the lake.", age=5)
    june = _candidate(2, "[20 June, 2023] We went camping by the lake.", age=50)
    ranked = rank_recall([may, june], ["camping"], asked="Where did we go camping last June?")
    assert [hit.ref for hit in ranked] == ["message:2", "message:1"]
    assert ranked[0].dated and not ranked[1].dated
    assert "dated when asked about" in ranked[0].why
    # Without a date in the question, the newer one wins the tie, as before.
    plain = rank_recall([may, june], ["camping"], asked="Where did we go camping?")
    assert [hit.ref for hit in plain] == ["message:1", "message:2"]


def test_a_year_or_a_day_the_question_names_matches_dates_written_other_ways() -> None:
    old = _candidate(1, "Painted a sunrise on 2022-03-14, my first one.", age=5)
    new = _candidate(2, "Painted a sunrise on March 3, 2023, my best one.", age=5)
    in_2022 = rank_recall([new, old], ["sunrise"], asked="When did she paint a sunrise in 2022?")
    assert [hit.ref for hit in in_2022] == ["message:1", "message:2"]
    on_day = rank_recall([old, new], ["sunrise"], asked="What did she paint on 3 March, 2023?")
    assert [hit.ref for hit in on_day] == ["message:2", "message:1"]


def test_dates_in_reads_calendar_dates_and_leaves_may_the_verb_alone() -> None:
    assert dates_in("[1:56 pm on 8 May, 2023] Caroline: Hey!") == (Date(2023, 5, 8),)
    assert dates_in("on December 1,2023 and 8th December, 2023") == (
        Date(2023, 12, 1),
        Date(2023, 12, 8),
    )
    assert dates_in("the trip in May") == (Date(None, 5, None),)
    assert dates_in("You may go, and march on.") == ()
    assert dates_in("in summer 2021, and since 2019") == (Date(2021), Date(2019))
    assert dates_in("at 10:30 on May 8: lunch") == ()  # a time, not the 8th of May


def test_turns_holding_the_name_asked_about_outrank_those_that_do_not() -> None:
    theirs = _candidate(1, "Maya: I painted a horse last week.", bm25=-3.0, age=40)
    other = _candidate(2, "Sam: I painted a boat last week.", bm25=-3.4, age=5)
    ranked = rank_recall([other, theirs], ["painted"], asked="What has Maya painted?")
    assert [hit.ref for hit in ranked] == ["message:1", "message:2"]
    assert asked_names("What has Maya painted? Did Sam's boat sink?") == ("maya", "sam")
    # A name every candidate holds (or none does) tells none apart: the order is as before.
    both = rank_recall([other, theirs], ["painted"], asked="What has Lee painted?")
    assert [hit.ref for hit in both] == ["message:2", "message:1"]
    # A name searched for weighs by its own terms already: an answer need not hold it.
    searched = rank_recall([other, theirs], ["maya", "painted"], asked="What has Maya painted?")
    assert [hit.ref for hit in searched] == ["message:2", "message:1"]
