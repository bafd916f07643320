"""What every plan says of a summary nobody reviewed: one held for review (not in force,
the turns it would fold sent as they were), or one in force its check found something in
(accepted as it came): in the plan's warnings and the summary layer's notes, which the
panel, the inspector and `context --json` all show."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from ctxchat.core.budget import Layer
from ctxchat.core.plan import ContextPlan
from ctxchat.core.summary_loss import LostDetail
from ctxchat.store import Store, SummaryVersion

REVIEW_KEY = "f3"
"""Where the app reviews it (the summary versions)."""


def loss_flag(lost: int, key: str) -> str:
    """The flag on a summary that lost details (or that its check found faults in) nobody
    reviewed yet."""
    return f"⚑ {lost} detail{'s' if lost != 1 else ''} lost — {key} to review"


def what_it_lost(lost: Sequence[LostDetail], faults: Sequence[str], shown: int = 3) -> str:
    """What a summary's check found, in one sentence part: the details it lost (the first
    `shown` of them, what matters most first) and its faults; "" for nothing."""
    parts = []
    if lost:
        named = ", ".join(f"{item.kind.value} “{item.text}”" for item in lost[:shown])
        more = f" and {len(lost) - shown} more" if len(lost) > shown else ""
        parts.append(f"it lost {len(lost)} detail{'s' if len(lost) != 1 else ''} ({named}{more})")
    parts.extend(f"it {fault}" for fault in faults)
    return "; ".join(parts)


def waiting_words(version: SummaryVersion) -> str:
    """The plan's warning of a summary held for review."""
    found = what_it_lost(version.lost, version.faults)
    return (
        f"Summary v{version.version} waits for your review, not in force"
        + (f": {found}" if found else "")
        + f". The turns it would fold are sent as they were; review it with {REVIEW_KEY}."
    )


def unreviewed_words(version: SummaryVersion) -> str:
    """The plan's warning of a summary in force that nobody reviewed though its check found
    something (put in force as it came)."""
    found = what_it_lost(version.lost, version.faults)
    return f"The summary in force (v{version.version}) was not reviewed: {found}."


def with_summary_notices(
    plan: ContextPlan, store: Store, conversation_id: int | None, active: SummaryVersion | None
) -> ContextPlan:
    """`plan` with what it should say of a summary waiting for review, or of the one in force
    that was not reviewed (unchanged when there is neither)."""
    notes: list[str] = []
    waiting = None if conversation_id is None else store.summaries.waiting_summary(conversation_id)
    if waiting is not None:
        notes.append(waiting_words(waiting))
    if active is not None and active.flagged and not active.edited:
        notes.append(unreviewed_words(active))
    if not notes:
        return plan
    layers = tuple(
        dataclasses.replace(layer, notes=(*layer.notes, *notes))
        if layer.layer is Layer.SUMMARY
        else layer
        for layer in plan.layers
    )
    return dataclasses.replace(plan, warnings=(*plan.warnings, *notes), layers=layers)
