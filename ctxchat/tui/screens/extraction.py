"""Review what fact extraction proposed: accept, edit, reject or update an entry, one by one."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import ClassVar, Literal

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, OptionList, Static
from textual.widgets.option_list import Option

from ctxchat.chat.extractor import Decision, ProposalDecision
from ctxchat.core.history import preview
from ctxchat.tui.actions import bindings_for
from ctxchat.tui.screens.memory_editor import MemoryEditor
from ctxchat.tui.screens.result_dialog import ResultDialog
from ctxchat.tui.text import clean, plain
from ctxchat.tui.views import MemoryDraft, ProposalView
from ctxchat.tui.widgets.footer import KeyFooter

DecisionAction = Literal["accept", "update", "reject"]


BADGES: dict[Decision | None, tuple[str, str]] = {
    None: ("  ·  ", "dim"),
    Decision.ACCEPT: (" ✓ ", "bold green"),
    Decision.UPDATE: (" ↻ ", "bold cyan"),
    Decision.REJECT: (" ✗ ", "bold red"),
}


def proposal_prompt(proposal: ProposalView, decision: ProposalDecision | None) -> Text:
    """A proposal in the list: decision mark, kind, importance, text; its match below."""
    action = decision.action if decision else None
    mark, style = BADGES[action]
    if action is None and proposal.matches_entry_id is not None:
        mark, style = " ↻? ", "cyan"  # undecided: updating that entry is what is proposed
    kind = decision.kind if decision else proposal.kind
    text = decision.text if decision else proposal.text
    importance = decision.importance if decision else proposal.importance
    prompt = Text()
    prompt.append(f"{mark:<5}", style=style)
    prompt.append(f"{kind.value:<11}", style="bold")
    prompt.append(f"{importance:>2}/10  ", style="dim")
    body = plain(text)
    if action == "reject":
        body.stylize("strike dim")
    prompt.append_text(body)
    if decision is not None and decision.edited:
        prompt.append("  (edited)", style="yellow")
    notes = []
    if proposal.source_message_id is not None:
        notes.append(f"from message #{proposal.source_message_id}")
    if proposal.matches_entry_id is not None and action is None:
        # Not a duplicate: the proposal is offered as the new version of that entry.
        notes.append(f"proposed: update memory #{proposal.matches_entry_id} (enter)")
    elif proposal.matches_entry_id is not None:
        existing = preview(clean(proposal.matches_text), 60) if proposal.matches_text else ""
        notes.append(f"like memory #{proposal.matches_entry_id}: {existing}".rstrip(": "))
    if notes:
        prompt.append("\n     " + " · ".join(notes), style="dim")
    return prompt


def problems_text(problems: Sequence[str]) -> Text:
    """The line about malformed model output (the proposals shown are what could be read)."""
    count = len(problems)
    line = Text()
    line.append(f"⚠ {count} problem{'s' if count != 1 else ''} in the model's reply: ", "bold")
    line.append_text(plain(" ".join(problems)))
    return line


class ExtractionReview(ResultDialog[list[ProposalDecision] | None]):
    """Proposals from fact extraction; dismisses with the decisions made (None on cancel).

    Proposals left undecided are not in the list: nothing is stored for them. It opens when
    the model has answered: typing never lands here (see `ResultDialog`).
    """

    DEFAULT_CSS = """
    ExtractionReview {
        & > Vertical {
            width: 95%;
            max-width: 130;
            height: 90%;
            padding: 0 1;
        }
        #extraction-problems {
            height: auto;
            max-height: 4;
            color: $warning;
            margin-top: 1;
        }
        #extraction-conflict {
            height: auto;
            max-height: 8;
            margin-top: 1;
            display: none;
            &.-shown { display: block; }
            & > Static { width: 1fr; padding: 0 1; border: round $primary-muted; }
        }
        #extraction-empty {
            height: auto;
            color: $text-muted;
            margin-top: 1;
        }
        OptionList {
            height: 1fr;
            margin-top: 1;
        }
        #extraction-bottom {
            height: auto;
            margin-top: 1;
            & > #extraction-tally {
                width: 1fr;
                color: $text-muted;
                padding-top: 1;
            }
            & > Button {
                margin-left: 2;
            }
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("ExtractionReview")

    def __init__(
        self,
        proposals: Sequence[ProposalView],
        problems: Sequence[str] = (),
        *,
        allow_conversation_scope: bool = True,
        unasked: bool = False,
    ) -> None:
        super().__init__(unasked=unasked)
        self._proposals = list(proposals)
        self._problems = list(problems)
        self._allow_conversation = allow_conversation_scope
        self._decisions: dict[int, ProposalDecision] = {}

    @property
    def decisions(self) -> list[ProposalDecision]:
        """The decisions so far, in the order of the proposals."""
        return [self._decisions[p.index] for p in self._proposals if p.index in self._decisions]

    def compose(self) -> ComposeResult:
        with Vertical() as dialog:
            dialog.border_title = "Review extracted memory"
            if self._problems:
                yield Static(problems_text(self._problems), id="extraction-problems")
            if not self._proposals:
                yield Static("The model proposed no entries.", id="extraction-empty", markup=False)
            yield OptionList(
                *(Option(proposal_prompt(p, None), id=str(p.index)) for p in self._proposals),
                id="extraction-list",
            )
            with Horizontal(id="extraction-conflict"):
                yield Static(id="conflict-now")
                yield Static(id="conflict-proposed")
            with Horizontal(id="extraction-bottom"):
                yield Static(id="extraction-tally")
                yield Button("Cancel", id="cancel")
                yield Button("Done", id="done", variant="primary")
        yield KeyFooter()

    def on_mount(self) -> None:
        self._update_tally()
        self.query_one(OptionList).focus()
        self._show_conflict()

    def _current(self) -> ProposalView | None:
        index = self.query_one(OptionList).highlighted
        return self._proposals[index] if index is not None and self._proposals else None

    def _update_tally(self) -> None:
        counts = dict.fromkeys(Decision, 0)
        for decision in self._decisions.values():
            counts[decision.action] += 1
        undecided = len(self._proposals) - len(self._decisions)
        self.query_one("#extraction-tally", Static).update(
            f"{counts[Decision.ACCEPT]} to add · {counts[Decision.UPDATE]} to update · "
            f"{counts[Decision.REJECT]} rejected · {undecided} undecided"
        )

    def _record(self, proposal: ProposalView, decision: ProposalDecision) -> None:
        self._decisions[proposal.index] = decision
        option_list = self.query_one(OptionList)
        position = self._proposals.index(proposal)
        option_list.replace_option_prompt_at_index(position, proposal_prompt(proposal, decision))
        self._update_tally()
        # On to the next proposal still waiting for a decision.
        pending = [i for i, p in enumerate(self._proposals) if p.index not in self._decisions]
        after = [i for i in pending if i > position]
        if after or pending:
            option_list.highlighted = (after or pending)[0]
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        proposal = self._current()
        if action in ("decide", "edit"):
            if proposal is None:
                return None
            if parameters and parameters[0] == "update":
                return True if proposal.matches_entry_id is not None else None
        return True

    @on(OptionList.OptionHighlighted)
    def _highlighted(self) -> None:
        self.refresh_bindings()
        self._show_conflict()

    def _show_conflict(self) -> None:
        """The entry in memory and the proposal that would replace it, side by side."""
        proposal = self._current()
        conflict = self.query_one("#extraction-conflict")
        shown = proposal is not None and proposal.matches_entry_id is not None
        conflict.set_class(shown, "-shown")
        if proposal is None or proposal.matches_entry_id is None:
            return
        decision = self._decisions.get(proposal.index)
        now = self.query_one("#conflict-now", Static)
        now.border_title = f"memory #{proposal.matches_entry_id} now"
        now.update(plain(proposal.matches_text))
        proposed = self.query_one("#conflict-proposed", Static)
        proposed.border_title = "proposed (ctrl+u: update, ctrl+a: add as new)"
        proposed.update(plain(decision.text if decision else proposal.text))

    def action_decide(self, action: DecisionAction) -> None:
        proposal = self._current()
        if proposal is None:
            return
        if action == "update" and proposal.matches_entry_id is None:
            return
        previous = self._decisions.get(proposal.index)
        base = previous or ProposalDecision(
            proposal.index,
            Decision(action),
            proposal.kind,
            proposal.text,
            proposal.importance,
            message_id=proposal.source_message_id,
        )
        target = proposal.matches_entry_id if action == "update" else None
        self._record(proposal, replace(base, action=Decision(action), target_entry_id=target))

    def action_edit(self) -> None:
        proposal = self._current()
        if proposal is None:
            return
        previous = self._decisions.get(proposal.index)
        draft = MemoryDraft(
            text=previous.text if previous else proposal.text,
            key=previous.key if previous else None,
            kind=previous.kind if previous else proposal.kind,
            scope=previous.scope if previous else "global",
            importance=previous.importance if previous else proposal.importance,
            pinned=previous.pinned if previous else False,
        )
        updating = previous is not None and previous.action == "update"
        note = (
            f"Saving updates memory #{proposal.matches_entry_id}."
            if updating
            else "Saving accepts it as a new entry."
        )

        def edited(result: MemoryDraft | None) -> None:
            if result is None:
                return
            self._record(
                proposal,
                ProposalDecision(
                    proposal.index,
                    Decision.UPDATE if updating else Decision.ACCEPT,
                    result.kind,
                    result.text,
                    result.importance,
                    proposal.matches_entry_id if updating else None,
                    key=result.key,
                    # No project is offered here: an entry is global or this conversation's.
                    scope="conversation" if result.scope == "conversation" else "global",
                    pinned=result.pinned,
                    edited=True,
                    message_id=proposal.source_message_id,
                ),
            )

        self.app.push_screen(
            MemoryEditor(
                draft,
                heading=f"Edit proposal {self._proposals.index(proposal) + 1} of {len(self._proposals)}",
                note=note,
                allow_conversation_scope=self._allow_conversation,
            ),
            edited,
        )

    @on(OptionList.OptionSelected)
    def _accept_selected(self) -> None:
        proposal = self._current()
        matched = proposal is not None and proposal.matches_entry_id is not None
        self.action_decide("update" if matched else "accept")

    @on(Button.Pressed, "#done")
    def action_done(self) -> None:
        self.dismiss(self.decisions)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
