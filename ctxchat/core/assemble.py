"""Assembling a request: a pure function from conversation state to a context plan."""

from __future__ import annotations

import bisect
import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, tzinfo

from ctxchat.core.adaptive import AdaptivePolicy, shares_in_force
from ctxchat.core.budget import SHARED_LAYERS, Budget, Layer
from ctxchat.core.files import AttachedFile, plan_files
from ctxchat.core.history import HistoryMessage, MessageStatus, SummaryState, preview
from ctxchat.core.memory import (
    PLURALS,
    SWITCHED_OFF_DETAIL,
    MemoryDates,
    MemoryEntry,
    Mode,
    excluded_detail,
    in_scope,
    memory_header,
    priority_order,
    render_entry,
    render_memory,
    superseded_detail,
    switched_off,
)
from ctxchat.core.plan import (
    ContextPlan,
    LayerPlan,
    LeftOut,
    PlanItem,
    PlanMessage,
    PlanStatus,
    Reason,
    SentMessage,
)
from ctxchat.core.recall import RecallHit, plan_recall, query_terms, recall_demand
from ctxchat.core.summary import (
    SUMMARY_HEADER,
    SummaryRun,
    cut_at_sentence,
    summary_message,
    unsummarized_detail,
)
from ctxchat.core.summary_recall import SummaryCover
from ctxchat.core.task import TaskState, plan_task
from ctxchat.core.tokens import MESSAGE_OVERHEAD, REPLY_PRIMER, TokenCounter, count_message
from ctxchat.core.working import Selection, WorkingChoice, select_working


@dataclass(frozen=True, slots=True)
class AssemblyOptions:
    """How working memory is chosen."""

    min_recent: int = 10
    selection: Selection = Selection.RECENCY


def _split_at(
    run: Sequence[HistoryMessage], apart: Sequence[int]
) -> Iterable[Sequence[HistoryMessage]]:
    """The run cut wherever a message listed apart (a failed reply, by id) lies between two
    of its neighbours, so that no `messages:A-B` range also covers that message."""
    if len(run) < 2 or not apart:
        yield run
        return
    start = 0
    inside = apart[bisect.bisect_right(apart, run[0].id) : bisect.bisect_left(apart, run[-1].id)]
    for message_id in inside:
        cut = bisect.bisect_left(run, message_id, key=_message_id)
        if cut > start:
            yield run[start:cut]
        start = cut
    yield run[start:]


def _collapse(
    runs: Iterable[Sequence[HistoryMessage]],
    reason: Reason,
    detail: str,
    apart: Sequence[int] = (),
) -> list[LeftOut]:
    """Each run of adjacent left-out messages becomes one item, so a 10,000-message history
    does not make a 10,000-item plan. `apart` holds the ids (ascending) of messages listed
    on their own, which no run may span."""
    items = []
    for run in (piece for whole in runs for piece in _split_at(whole, apart)):
        if len(run) == 1:
            message = run[0]
            items.append(
                LeftOut(message.ref, message.tokens, reason, detail, preview(message.content))
            )
        elif run:
            ref = f"messages:{run[0].id}-{run[-1].id}"
            tokens = sum(m.tokens for m in run)
            items.append(LeftOut(ref, tokens, reason, detail, f"{len(run)} messages"))
    return items


def _message_id(message: HistoryMessage) -> int:
    return message.id


def _runs(candidates: Sequence[HistoryMessage], chosen: set[int]) -> list[list[HistoryMessage]]:
    """The candidates not chosen, grouped into runs of neighbours."""
    runs: list[list[HistoryMessage]] = []
    previous = -2
    for index, message in enumerate(candidates):
        if index in chosen:
            continue
        if index == previous + 1:
            runs[-1].append(message)
        else:
            runs.append([message])
        previous = index
    return runs


def assemble_context(
    *,
    budget: Budget,
    counter: TokenCounter,
    mode: Mode,
    system_prompt: str,
    memory: Sequence[MemoryEntry],
    summary: SummaryState | None,
    history: Sequence[HistoryMessage],
    new_input: str | None,
    conversation_id: int | None = None,
    project_id: int | None = None,
    options: AssemblyOptions = AssemblyOptions(),
    recall: Sequence[RecallHit] = (),
    adaptive: AdaptivePolicy | None = None,
    turns: int | None = None,
    dates: MemoryDates | None = None,
    zone: tzinfo = UTC,
    task: TaskState | None = None,
    files: Sequence[AttachedFile] = (),
    excluded_ids: Sequence[int] | None = None,
    summary_run: SummaryRun | None = None,
) -> ContextPlan:
    """Decide exactly what the next request sends.

    Layers go in fixed order (system, memory, summary, task, files, recall, working, input),
    the rarely changing ones first, so the start of the request stays byte-identical while
    they are unchanged. `new_input` None plans the request without a new message (a
    preview). `recall` holds search hits for the new input, best first; `adaptive` shifts
    the shares (`turns` is the number of user turns, counted from `history` when not given).
    `dates` puts today's date and each entry's date in the memory layer; `zone` is the time
    zone dates are read in (the day an entry was superseded, say). `task` is the
    conversation's task state, `files` the files attached to it (in the order attached).
    Messages the user excluded (`HistoryMessage.excluded`) are listed as left out, and
    recall never brings them back; `excluded_ids` (ascending) are their ids when the caller
    keeps them, which spares a scan of the summarized history on every plan. `summary_run`
    says whether a summary is being made or the last one failed: the turns waiting for it
    say so.
    """
    if turns is None and adaptive is not None:
        turns = sum(1 for m in history if m.role == "user") + (new_input is not None)
    recall, recalled_excluded = _without_excluded(recall, history)
    demand = recall_demand(recall, budget.total)
    in_force = shares_in_force(
        budget.shares,
        turns=turns or 0,
        has_recall=bool(recall),
        policy=adaptive,
        has_task=task is not None and not task.empty,
        files=len(files),
        demand=demand,
    )
    if in_force.reasons:
        budget = dataclasses.replace(budget, shares=in_force.shares)  # the margin stays
    total = budget.total
    warnings: list[str] = []

    system_cost = count_message(counter, "system", system_prompt).tokens if system_prompt else 0
    input_cost = count_message(counter, "user", new_input).tokens if new_input is not None else 0
    fixed = system_cost + input_cost + REPLY_PRIMER

    system_layer = LayerPlan(
        Layer.SYSTEM,
        budget.nominal(Layer.SYSTEM),
        budget.shares.system,
        system_cost,
        items=(PlanItem("system", system_cost, preview(system_prompt)),) if system_prompt else (),
        notes=(
            (f"over its share by {system_cost - budget.nominal(Layer.SYSTEM)} tokens",)
            if system_cost > budget.nominal(Layer.SYSTEM)
            else ()
        ),
    )
    input_items = [PlanItem("reply-primer", REPLY_PRIMER, "primes the reply")]
    if new_input is not None:
        input_items.insert(0, PlanItem("input", input_cost, preview(new_input)))
    input_layer = LayerPlan(Layer.INPUT, 0, 0.0, input_cost + REPLY_PRIMER, tuple(input_items))

    base = dict(
        mode=mode.value,
        context_window=budget.context_window,
        output_reserve=budget.output_reserve,
        total_budget=total,
        shares=budget.shares.as_dict(),
        counter=counter.name,
        exact=counter.exact,
        counter_note=counter.note,
        share_notes=in_force.reasons,
    )

    if fixed > total:
        over = fixed - total
        what = "message" if input_cost > system_cost else "system prompt and message"
        warnings.append(f"The {what} is {over:,} tokens over the budget of {total:,} tokens.")
        empty = [
            LayerPlan(layer, budget.nominal(layer), budget.shares.of(layer), 0)
            for layer in SHARED_LAYERS
            if layer is not Layer.SYSTEM
        ]
        return ContextPlan(
            status=PlanStatus.OVER_BUDGET,
            layers=(system_layer, *empty, input_layer),
            messages=(),
            tokens=fixed,
            over_by=over,
            warnings=tuple(warnings),
            **base,  # type: ignore[arg-type]
        )

    remaining = total - fixed
    memory_layer, memory_text = _plan_memory(
        budget,
        counter,
        mode,
        memory,
        (conversation_id, project_id),
        min(budget.nominal(Layer.MEMORY), remaining),
        dates,
        dates.zone if dates is not None else zone,
    )
    remaining -= memory_layer.tokens
    summary_layer, summary_text = _plan_summary(
        budget, counter, summary, min(budget.nominal(Layer.SUMMARY), remaining)
    )
    remaining -= summary_layer.tokens
    task_layer, task_text = plan_task(
        budget, counter, task, min(budget.nominal(Layer.TASK), remaining)
    )
    remaining -= task_layer.tokens
    files_layer, files_text = plan_files(
        budget, counter, files, min(budget.nominal(Layer.FILES), remaining), new_input
    )
    remaining -= files_layer.tokens

    # Recall is decided after working memory (it must not repeat what working memory
    # holds), so its share is set aside first and whatever it leaves flows back.
    split = _split_history(history, summary, excluded_ids)
    recall_allowance = min(budget.nominal(Layer.RECALL), remaining) if recall else 0
    lent = 0
    if recall and adaptive is not None and adaptive.recall_enabled:
        unused = (
            budget.nominal(Layer.SYSTEM)
            - system_cost
            + sum(
                budget.nominal(layer.layer) - layer.tokens
                for layer in (memory_layer, summary_layer, task_layer, files_layer)
            )
        )
        lent = recall_loan(
            min(adaptive.recall_most, demand.share) * total - recall_allowance,
            unused,
            remaining - recall_allowance - _recent_tokens(split.candidates, options.min_recent),
        )
        recall_allowance += lent
    choice, working_messages = _choose_working(
        split.candidates, remaining - recall_allowance, options
    )
    # What the summary sent holds is not recalled again without a reason (see summary_recall).
    cover = SummaryCover.of(summary, summary_text)
    asked = query_terms(new_input) if new_input else []
    recall_layer, recall_text = plan_recall(
        budget,
        counter,
        recall,
        working_messages,
        memory_layer,
        recall_allowance,
        lent,
        cover,
        asked,
    )
    if recall_layer.tokens < recall_allowance:
        # Whatever the other layers did not use flows to working memory.
        lent = max(0, lent - (recall_allowance - recall_layer.tokens))
        choice, working_messages = _choose_working(
            split.candidates, remaining - recall_layer.tokens, options
        )
        recall_layer, recall_text = plan_recall(
            budget,
            counter,
            recall,
            working_messages,
            memory_layer,
            recall_layer.tokens,
            lent,
            cover,
            asked,
        )
    if lent:
        base["share_notes"] = (
            *in_force.reasons,
            f"recall's strong matches also take {lent:,} tokens the other layers left unused",
        )
    working_layer = _working_layer(
        budget, summary, split, choice, working_messages, options, warnings, summary_run
    )
    if recalled_excluded:
        recall_layer = dataclasses.replace(
            recall_layer, left_out=(*recall_layer.left_out, *recalled_excluded)
        )

    messages: list[SentMessage] = []
    if system_prompt:
        messages.append(PlanMessage("system", system_prompt, Layer.SYSTEM, system_cost, "system"))
    if memory_text is not None:
        messages.append(
            PlanMessage("system", memory_text, Layer.MEMORY, memory_layer.tokens, "memory")
        )
    if summary_text is not None and summary is not None:
        messages.append(
            PlanMessage("system", summary_text, Layer.SUMMARY, summary_layer.tokens, summary.ref)
        )
    if task_text is not None:
        messages.append(PlanMessage("system", task_text, Layer.TASK, task_layer.tokens, "task"))
    if files_text is not None:
        messages.append(PlanMessage("system", files_text, Layer.FILES, files_layer.tokens, "files"))
    if recall_text is not None:
        messages.append(
            PlanMessage("system", recall_text, Layer.RECALL, recall_layer.tokens, "recall")
        )
    messages.extend(working_messages)
    if new_input is not None:
        messages.append(PlanMessage("user", new_input, Layer.INPUT, input_cost, "input"))

    used = (
        fixed
        + memory_layer.tokens
        + summary_layer.tokens
        + task_layer.tokens
        + files_layer.tokens
        + recall_layer.tokens
        + working_layer.tokens
    )
    return ContextPlan(
        status=PlanStatus.OK,
        layers=(
            system_layer,
            memory_layer,
            summary_layer,
            task_layer,
            files_layer,
            recall_layer,
            working_layer,
            input_layer,
        ),
        messages=tuple(messages),
        tokens=used,
        warnings=tuple(warnings),
        **base,  # type: ignore[arg-type]
    )


def _project_hints(chosen: Sequence[MemoryEntry]) -> tuple[str, ...]:
    """Why the entries of a project are in: the conversation belongs to it."""
    shared = [entry for entry in chosen if entry.project_id is not None]
    if not shared:
        return ()
    refs = ", ".join(entry.ref for entry in shared)
    return (
        f"{refs}: in as entries of project “{shared[0].project}”, which this conversation is in",
    )


def _plan_memory(
    budget: Budget,
    counter: TokenCounter,
    mode: Mode,
    memory: Sequence[MemoryEntry],
    where: tuple[int | None, int | None],
    allowance: int,
    dates: MemoryDates | None,
    zone: tzinfo,
) -> tuple[LayerPlan, str | None]:
    """The memory layer for the conversation and project `where` names."""
    conversation_id = where[0]
    left_out: list[LeftOut] = []
    candidates: list[tuple[MemoryEntry, int]] = []  # with the tokens of its line
    for entry in priority_order([e for e in memory if in_scope(e, *where)]):
        line_tokens = counter.count_text(render_entry(entry, dates))
        if entry.superseded:
            left_out.append(
                LeftOut(
                    entry.ref,
                    line_tokens,
                    Reason.SUPERSEDED,
                    superseded_detail(entry, zone),
                    preview(entry.text),
                )
            )
        elif not entry.enabled:
            left_out.append(
                LeftOut(
                    entry.ref,
                    line_tokens,
                    Reason.DISABLED,
                    excluded_detail(entry),
                    preview(entry.text),
                )
            )
        elif switched_off(entry, conversation_id):
            left_out.append(
                LeftOut(
                    entry.ref,
                    line_tokens,
                    Reason.DISABLED,
                    SWITCHED_OFF_DETAIL,
                    preview(entry.text),
                )
            )
        elif not mode.includes(entry.kind):
            left_out.append(
                LeftOut(
                    entry.ref,
                    line_tokens,
                    Reason.MODE,
                    f"excluded: objective mode leaves out {PLURALS[entry.kind]}",
                    preview(entry.text),
                )
            )
        else:
            candidates.append((entry, line_tokens))

    chosen: list[MemoryEntry] = []
    items: list[PlanItem] = []
    # The memory message costs its overhead and header once, then a line per entry.
    base_cost = count_message(counter, "system", memory_header()).tokens
    used = base_cost
    # The date line is an item like any other, so the user sees what it costs.
    date_item = (
        PlanItem("date", counter.count_text(dates.line), f"today's date: {dates.today.isoformat()}")
        if dates is not None
        else None
    )
    used += date_item.tokens if date_item is not None else 0
    for entry, line_tokens in candidates:
        if used + line_tokens <= allowance:
            used += line_tokens
            chosen.append(entry)
            items.append(PlanItem(entry.ref, line_tokens, preview(entry.text)))
        else:
            left_out.append(
                LeftOut(
                    entry.ref,
                    line_tokens,
                    Reason.BUDGET,
                    "dropped: over the memory budget",
                    preview(entry.text),
                )
            )
    text = render_memory(chosen, dates) if chosen else None
    tokens = used if chosen else 0
    if chosen and date_item is not None:
        items.insert(0, date_item)
    layer = LayerPlan(
        Layer.MEMORY,
        budget.nominal(Layer.MEMORY),
        budget.shares.memory,
        tokens,
        tuple(items),
        tuple(left_out),
        hints=_project_hints(chosen),
    )
    return layer, text


def _plan_summary(
    budget: Budget, counter: TokenCounter, summary: SummaryState | None, allowance: int
) -> tuple[LayerPlan, str | None]:
    nominal = budget.nominal(Layer.SUMMARY)
    share = budget.shares.summary
    if summary is None or not summary.text.strip():
        return LayerPlan(Layer.SUMMARY, nominal, share, 0), None
    label = f"v{summary.version}, messages {summary.first_id}-{summary.last_id}"
    if summary.edited:
        label += ", edited by you"
    text = summary_message(summary)
    overhead = MESSAGE_OVERHEAD + counter.count_text("system")
    cost = overhead + counter.count_text(text)
    notes: tuple[str, ...] = ()
    if cost > allowance:
        cut = cut_at_sentence(text, allowance - overhead, counter)
        cut_cost = overhead + counter.count_text(cut.text) if cut.text else 0
        if cut.text.strip() in ("", SUMMARY_HEADER):
            left = LeftOut(
                summary.ref, cost, Reason.BUDGET, "dropped: over the summary budget", label
            )
            return LayerPlan(Layer.SUMMARY, nominal, share, 0, left_out=(left,)), None
        notes = (f"cut at a sentence boundary to fit its share ({cost:,} → {cut_cost:,} tokens)",)
        text, cost = cut.text, cut_cost
    item = PlanItem(summary.ref, cost, label)
    return LayerPlan(Layer.SUMMARY, nominal, share, cost, (item,), notes=notes), text


EXCLUDED_DETAIL = "excluded by you"


def _without_excluded(
    hits: Sequence[RecallHit], history: Sequence[HistoryMessage]
) -> tuple[Sequence[RecallHit], tuple[LeftOut, ...]]:
    """The recall hits but those of messages the user excluded, and those as left out: recall
    still finds an excluded message, and never brings it back."""
    if not hits:
        return hits, ()
    kept: list[RecallHit] = []
    left: list[LeftOut] = []
    for hit in hits:
        # History is in id order: a hit's message is found by bisection, not a scan.
        at = (
            -1
            if hit.message_id is None
            else bisect.bisect_left(history, hit.message_id, key=_message_id)
        )
        if 0 <= at < len(history) and history[at].id == hit.message_id and history[at].excluded:
            detail = f"{EXCLUDED_DETAIL}: recall found it and leaves it out"
            left.append(LeftOut(hit.ref, hit.tokens, Reason.EXCLUDED, detail, preview(hit.content)))
        else:
            kept.append(hit)
    return (kept, tuple(left)) if left else (hits, ())


@dataclass(frozen=True, slots=True)
class _HistorySplit:
    summarized: Sequence[HistoryMessage]
    """The prefix the summary covers."""
    candidates: list[HistoryMessage]
    """The later messages that may be sent."""
    failed: list[HistoryMessage]
    """The later failed replies, never sent."""
    excluded: list[HistoryMessage]
    """The messages the user excluded (in the summarized prefix too), never sent."""


def _split_history(
    history: Sequence[HistoryMessage],
    summary: SummaryState | None,
    excluded_ids: Sequence[int] | None = None,
) -> _HistorySplit:
    # History is in id order, so the summarized prefix is found by bisection, not a scan.
    covered = summary.last_id if summary is not None else None
    split = 0 if covered is None else bisect.bisect_right(history, covered, key=_message_id)
    failed: list[HistoryMessage] = []
    candidates: list[HistoryMessage] = []
    excluded = _excluded_before(history, split, excluded_ids)
    for message in history[split:]:
        if message.sendable:
            candidates.append(message)
        elif message.excluded:
            excluded.append(message)
        else:
            failed.append(message)
    return _HistorySplit(history[:split], candidates, failed, excluded)


def _excluded_before(
    history: Sequence[HistoryMessage], split: int, excluded_ids: Sequence[int] | None
) -> list[HistoryMessage]:
    """The excluded messages among the first `split` of `history`: found by their ids when
    known, else by a scan."""
    if not split:
        return []
    if excluded_ids is None:
        return [m for m in history[:split] if m.excluded]
    found = []
    for message_id in excluded_ids:
        at = bisect.bisect_left(history, message_id, 0, split, key=_message_id)
        if at < split and history[at].id == message_id and history[at].excluded:
            found.append(history[at])
    return found


def _excluded_detail(message: HistoryMessage, summary: SummaryState | None) -> str:
    """Why an excluded message is not sent; within the summary's range, that the summary may
    still hold what it said (it may have been folded in before it was excluded)."""
    if summary is not None and message.id <= summary.last_id:
        return f"{EXCLUDED_DETAIL} (summary v{summary.version} covers it and may hold what it said)"
    return EXCLUDED_DETAIL


def _unsent_detail(message: HistoryMessage) -> str:
    """Why a stored reply is never sent: it failed or stopped, or it came back empty."""
    if message.status is MessageStatus.COMPLETE:
        return "excluded: empty reply"
    return f"excluded: {message.status.value} reply"


def _choose_working(
    candidates: list[HistoryMessage], allowance: int, options: AssemblyOptions
) -> tuple[WorkingChoice, Sequence[HistoryMessage]]:
    choice = select_working(candidates, allowance, options.min_recent, options.selection)
    if choice.contiguous:
        # Recency keeps a run up to the newest message: slices, no per-message work.
        start = choice.start if choice.chosen else len(candidates)
        return choice, candidates[start:]
    return choice, [candidates[i] for i in choice.chosen]


def recall_loan(wanted: int | float, unused: int, room: int) -> int:
    """The tokens recall borrows beyond its share: what its strong matches still want
    (`wanted`), out of what the system prompt, memory, summary, task and files left of their
    shares (`unused`), never cutting into the room the newest messages need (`room`: what
    the budget holds beyond recall's share and those messages)."""
    return max(0, min(int(wanted), unused, room))


def _recent_tokens(candidates: Sequence[HistoryMessage], min_recent: int) -> int:
    """What the newest `min_recent` messages that may be sent cost."""
    return sum(m.tokens for m in candidates[-min_recent:]) if min_recent > 0 else 0


def _working_layer(
    budget: Budget,
    summary: SummaryState | None,
    split: _HistorySplit,
    choice: WorkingChoice,
    working: Sequence[HistoryMessage],
    options: AssemblyOptions,
    warnings: list[str],
    summary_run: SummaryRun | None = None,
) -> LayerPlan:
    """The working layer for the final choice, with what it left out and why."""
    candidates = split.candidates
    dropped_runs: list[Sequence[HistoryMessage]]
    if choice.contiguous:
        start = len(candidates) - len(working)
        dropped_runs = [candidates[:start]] if start else []
    else:
        dropped_runs = list(_runs(candidates, set(choice.chosen)))

    left_out: list[LeftOut] = []
    if split.summarized and summary is not None:
        # What the user excluded is listed on its own, not inside a summarized run.
        summarized: Iterable[Sequence[HistoryMessage]] = [split.summarized]
        if split.excluded and split.excluded[0].id <= summary.last_id:
            summarized = _runs(
                split.summarized, {i for i, m in enumerate(split.summarized) if m.excluded}
            )
        left_out.extend(_collapse(summarized, Reason.SUMMARIZED, f"in summary v{summary.version}"))
    apart = [m.id for m in split.failed]
    if split.excluded:
        apart = sorted([*apart, *(m.id for m in split.excluded)])
    left_out.extend(
        _collapse(
            dropped_runs,
            Reason.BUDGET,
            unsummarized_detail(summary_run),
            apart,
        )
    )
    left_out.extend(
        LeftOut(m.ref, m.tokens, Reason.FAILED, _unsent_detail(m), preview(m.content))
        for m in split.failed
    )
    left_out.extend(
        LeftOut(m.ref, m.tokens, Reason.EXCLUDED, _excluded_detail(m, summary), preview(m.content))
        for m in split.excluded
    )
    if choice.recent_shortfall:
        kept = min(options.min_recent, len(candidates)) - choice.recent_shortfall
        warnings.append(
            f"Only {kept} of the last {options.min_recent} messages fit the budget; "
            "summarize or shorten them."
        )
    # The stored messages themselves are the items (labelled by role): nothing is copied.
    return LayerPlan(
        Layer.WORKING,
        budget.nominal(Layer.WORKING),
        budget.shares.working,
        choice.tokens,
        tuple(working),
        tuple(left_out),
    )
