"""Summarization policy: which messages fold, the prompts, and cutting at sentences."""

from collections.abc import Callable

from ctxchat.core.history import HistoryMessage, MessageStatus, SummaryState
from ctxchat.core.summary import (
    FoldRange,
    SummaryPolicy,
    SummaryStrategy,
    batches_for_summarizer,
    build_fold_request,
    cut_at_sentence,
    pending_fold,
)
from ctxchat.core.tokens import TokenCounter

History = Callable[[list[str]], list[HistoryMessage]]


def ids(messages: FoldRange) -> list[int]:
    return [m.id for m in messages.messages]


def test_manual_fold_keeps_the_last_min_recent(make_history: History) -> None:
    history = make_history([f"m{i}" for i in range(1, 16)])
    fold = pending_fold(history, None, set(), SummaryPolicy(), min_recent=10, manual=True)
    assert fold is not None
    assert ids(fold) == [1, 2, 3, 4, 5]
    assert (fold.first_id, fold.last_id) == (1, 5)


def test_manual_fold_starts_after_the_summary(make_history: History) -> None:
    history = make_history([f"m{i}" for i in range(1, 16)])
    summary = SummaryState(1, "S", 1, 3)
    fold = pending_fold(history, summary, set(), SummaryPolicy(), min_recent=10, manual=True)
    assert fold is not None
    assert ids(fold) == [4, 5]


def test_nothing_to_fold_manually_when_everything_is_recent(make_history: History) -> None:
    history = make_history(["a", "b"])
    assert pending_fold(history, None, set(), SummaryPolicy(), min_recent=10, manual=True) is None


def test_auto_fold_waits_for_the_threshold(make_history: History) -> None:
    history = make_history([f"m{i}" for i in range(1, 31)])
    working = {m.id for m in history[5:]}  # messages 1-5 left working memory
    policy = SummaryPolicy(min_messages=6, min_tokens=10_000)
    assert pending_fold(history, None, working, policy, min_recent=10) is None
    working.discard(6)
    fold = pending_fold(history, None, working, policy, min_recent=10)
    assert fold is not None
    assert ids(fold) == [1, 2, 3, 4, 5, 6]


def test_auto_fold_by_tokens(make_history: History) -> None:
    history = make_history(["long " * 500, "reply", *[f"m{i}" for i in range(20)]])
    working = {m.id for m in history[2:]}
    fold = pending_fold(history, None, working, SummaryPolicy(min_tokens=400), min_recent=10)
    assert fold is not None
    assert ids(fold) == [1, 2]


def test_auto_fold_off(make_history: History) -> None:
    history = make_history([f"m{i}" for i in range(40)])
    policy = SummaryPolicy(auto=False)
    assert pending_fold(history, None, set(), policy, min_recent=10) is None


def test_max_unsummarized_folds_even_what_still_fits(make_history: History) -> None:
    history = make_history([f"m{i}" for i in range(1, 41)])
    working = {m.id for m in history}
    policy = SummaryPolicy(max_unsummarized=30, min_messages=100)
    fold = pending_fold(history, None, working, policy, min_recent=10)
    assert fold is not None
    assert ids(fold) == list(range(1, 11))


def test_fold_skips_failed_replies(make_history: History) -> None:
    history = make_history([f"m{i}" for i in range(1, 13)])
    history[1] = HistoryMessage(2, "assistant", "", 4, MessageStatus.FAILED)
    fold = pending_fold(history, None, set(), SummaryPolicy(), min_recent=10, manual=True)
    assert fold is not None
    assert ids(fold) == [1]


def test_each_message_folds_once_over_a_conversation(make_history: History) -> None:
    history = make_history([f"turn {i}" for i in range(1, 101)])
    summary: SummaryState | None = None
    folded: list[int] = []
    for end in range(20, 101, 7):
        visible = history[:end]
        working = {m.id for m in visible[-12:]}
        fold = pending_fold(visible, summary, working, SummaryPolicy(min_messages=3), min_recent=10)
        if fold is not None:
            folded.extend(ids(fold))
            summary = SummaryState(len(folded), "s", 1, fold.last_id)
    assert folded == list(range(1, len(folded) + 1))
    assert len(folded) == 85  # the last 12 of 97 stay in working memory


def test_batches_fit_the_summarizer(make_history: History) -> None:
    history = make_history(["word " * 45] * 10)  # 50 tokens each
    batches = batches_for_summarizer(history, 120)
    assert [len(batch) for batch in batches] == [2, 2, 2, 2, 2]
    assert batches_for_summarizer(history[:1], 10) == [tuple(history[:1])]


def test_incremental_prompt_holds_previous_summary_and_new_messages_only(
    make_history: History,
) -> None:
    history = make_history(["We pick SQLite.", "Noted.", "Also Python 3.11.", "Fine."])
    request = build_fold_request(SummaryStrategy.KEYVALUE, "decision: use SQLite", history[2:])
    assert request[0]["role"] == "system"
    assert "`decision: …`" in request[0]["content"]
    assert request[1]["content"] == (
        "Current summary:\ndecision: use SQLite\n\n"
        "New messages to fold into it:\n[user] Also Python 3.11.\n\n[assistant] Fine.\n\n"
        "Write the updated summary: the current summary with the new messages folded in."
    )
    first = build_fold_request(SummaryStrategy.SUMMARIZE, None, history[:2])
    assert first[1]["content"] == (
        "Messages:\n[user] We pick SQLite.\n\n[assistant] Noted.\n\nWrite the summary."
    )


def test_strategies_have_distinct_instructions() -> None:
    prompts = {build_fold_request(s, None, [])[0]["content"] for s in SummaryStrategy}
    assert len(prompts) == 3


def test_cut_at_sentence(counter: TokenCounter) -> None:
    text = "First sentence here. Second one follows! Third is a question? Fourth ends it."
    assert cut_at_sentence(text, 100, counter).cut is False
    cut = cut_at_sentence(text, 9, counter)
    assert cut.cut is True
    assert cut.text == "First sentence here. Second one follows!"
    assert counter.count_text(cut.text) <= 9


def test_cut_falls_back_to_words(counter: TokenCounter) -> None:
    text = "one two three four five six seven eight nine ten eleven twelve"
    cut = cut_at_sentence(text, 4, counter)
    assert cut.text == "one two three four"
