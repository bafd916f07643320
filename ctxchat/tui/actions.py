"""Every key and command of the app, declared once (`ACTIONS`, with the dialogs' rows of
`tui/dialog_actions.py` and the widgets' of `tui/widget_actions.py`): the classes' bindings,
the command palette, the screen's check of where each applies and its routes to the part or
widget that runs an action (`Action.target`), and the lists users read (the id table in
docs/keys.md and the config template, written by `scripts/binding_ids.py`) are made from it."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from textual.binding import BindingType

from ctxchat.config.names_check import key_problem, typing_problem
from ctxchat.tui.action import Action, Needs
from ctxchat.tui.dialog_actions import DIALOG_ACTIONS
from ctxchat.tui.palette_only_actions import PALETTE_ONLY_ACTIONS
from ctxchat.tui.widget_actions import WIDGET_ACTIONS

if TYPE_CHECKING:
    from textual.app import App


ACTIONS: tuple[Action, ...] = (
    # --- CtxChatApp ---
    # Priority, as in Textual: ctrl+q quits from every dialog too (a modal screen blocks the
    # app's other bindings). On the screen too, so the footer shows it first: Textual's
    # footer lists a screen's keys before the app's.
    Action(
        "app.quit",
        "CtxChatApp",
        "quit",
        keys="ctrl+q",
        label="Quit",
        help="Quit ctxchat",
        priority=True,
        also_on=("ConversationScreen",),
    ),
    # --- ConversationScreen ---
    Action(
        "mode.toggle",
        "ConversationScreen",
        "toggle_mode",
        keys="ctrl+o",
        label="Mode",
        help="Switch between personalization and objective mode",
        needs=Needs.SESSION,
        palette="mode: {other}",
    ),
    Action(
        "reply.stop",
        "ConversationScreen",
        "stop",
        keys="escape",
        label="Stop",
        help="Stop the reply being written",
        needs=Needs.STREAMING,
        palette="reply: stop",
        target="TurnRunner.stop",
    ),
    # Not escape: escape stops a reply, and a second press must not stop a minute's summary.
    Action(
        "jobs.cancel",
        "ConversationScreen",
        "cancel_jobs",
        keys="f9",
        label="Cancel job",
        help="Stop the summary, extraction, model list or import running in the background",
        needs=Needs.JOB,
        palette="jobs: cancel",
        target="JobsLine.cancel_jobs",
    ),
    # Not in the footer: the status line says "Ctrl+R retries" when there is a failure.
    Action(
        "reply.retry",
        "ConversationScreen",
        "retry",
        keys="ctrl+r",
        label="Retry",
        help="Ask again for the newest reply, if it was interrupted or failed",
        show=False,
        needs=Needs.SESSION,
        palette="reply: retry",
        palette_help="Ask again for the newest reply if it failed or stopped",
        target="ChatPane.retry",
    ),
    Action(
        "queued.cancel_all",
        "ConversationScreen",
        "cancel_queued",
        help="Cancel the messages queued in this conversation: they are not sent",
        needs=Needs.SESSION,
        palette="reply: cancel queued messages",
        target="ChatPane.cancel_queued",
    ),
    Action(
        "context.inspect",
        "ConversationScreen",
        "inspect",
        keys="f2",
        label="Inspect",
        help="The exact request the next message will send",
        needs=Needs.SESSION,
        palette="context: inspect request",
        palette_help="The exact JSON the next request will send",
    ),
    Action(
        "context.summarize",
        "ConversationScreen",
        "summarize",
        keys="ctrl+s",
        label="Summarize",
        help="Fold older turns into the summary now",
        needs=Needs.SESSION,
        palette="context: summarize now",
        palette_help="Fold older turns into the summary (shows them first)",
        target="SummaryFlow.summarize",
    ),
    Action(
        "context.summaries",
        "ConversationScreen",
        "summaries",
        keys="f3",
        label="Summaries",
        help="Summary versions: roll back, edit, rebuild",
        needs=Needs.SESSION,
        palette="context: summary versions",
        palette_help="Roll back, edit or rebuild the summary",
        target="SummaryFlow.show_versions",
    ),
    Action(
        "memory.extract",
        "ConversationScreen",
        "extract",
        keys="ctrl+t",
        label="Extract",
        help="Ask the model to propose memory entries from recent turns",
        needs=Needs.SESSION,
        palette="memory: extract facts",
        palette_help="Let the model propose entries from recent turns; you decide",
    ),
    # Priority: the composer (a TextArea) has focus most of the time and binds f6 itself.
    Action(
        "memory.focus",
        "ConversationScreen",
        "focus_memory",
        keys="f6",
        label="Memory",
        help="Go to the memory panel",
        priority=True,
        needs=Needs.SESSION,
        palette="memory: focus panel",
    ),
    Action(
        "conversation.switch",
        "ConversationScreen",
        "conversations",
        keys="ctrl+l",
        label="Chats",
        help="Switch, rename, delete or export conversations",
        needs=Needs.SESSION,
        palette="conversation: switch",
        palette_help="Search and switch conversations",
        target="ConversationDialogs.switch",
    ),
    Action(
        "conversation.new",
        "ConversationScreen",
        "new_conversation",
        keys="ctrl+n",
        label="New",
        help="Start a new conversation",
        needs=Needs.SESSION,
        palette="conversation: new",
    ),
    Action(
        "model.switch",
        "ConversationScreen",
        "switch_model",
        keys="f4",
        label="Model",
        help="Switch provider profile or model",
        needs=Needs.SESSION,
        palette="model: switch",
    ),
    Action(
        "view.context",
        "ConversationScreen",
        "toggle_context",
        keys="ctrl+b",
        label="Context",
        help="Show or hide the context side",
        needs=Needs.SESSION,
        palette="context: show or hide panels",
        palette_help="Toggle the context side",
        target="ContextSide.toggle",
    ),
    # Priority, so the keys typed right after it reach the conversation (a binding that is
    # not runs after them); beside f6. In the memory panel f5 sorts (the screen's
    # `check_action` lets the panel have it).
    Action(
        "conversation.focus",
        "ConversationScreen",
        "focus_conversation",
        keys="f5",
        label="Turns",
        help="Go to the conversation: select a message (Esc goes back to the composer)",
        show=False,
        priority=True,
        needs=Needs.SESSION,
        palette="conversation: go to the turns",
        palette_help="Select a message in the conversation",
    ),
    Action(
        "conversation.find",
        "ConversationScreen",
        "find",
        keys="ctrl+f",
        label="Find",
        help="Find words in this conversation: enter/F3 next, shift+enter/shift+F3 previous, Esc closes",
        show=False,
        palette="conversation: find",
        palette_help="Find words in this conversation and step through the messages holding them",
        target="ChatPane.find",
    ),
    Action(
        "reply.ask_again",
        "ConversationScreen",
        "ask_again",
        keys="f8",
        label="Ask again",
        help="Ask the selected reply (or the newest) again without a layer or item, in the other mode or to another profile or model",
        show=False,
        palette="reply: ask again without…",
        palette_help="Ask the selected reply (or the newest) again with a change; compare both",
        first_on=("Composer",),
    ),
    # Priority: the composer (a TextArea) has focus most of the time and binds f7 itself.
    Action(
        "reply.variants",
        "ConversationScreen",
        "variants",
        keys="f7",
        label="Variants",
        help="The selected reply's (or the newest's) variants: open one beside it, or keep one as the reply",
        show=False,
        priority=True,
        palette="reply: variants",
        palette_help="The selected reply's (or the newest's) variants: open one, or keep it as the reply",
    ),
    # Not in the footer (no room left there): docs/keys.md and the palette name them.
    Action(
        "context.task",
        "ConversationScreen",
        "task",
        keys="f10",
        label="Task",
        help="The task: set its goal, add steps, mark them done, remove them",
        show=False,
        needs=Needs.SESSION,
        palette="context: task",
        palette_help="Set the task's goal and steps, sent in every request",
        first_on=("Composer",),
    ),
    Action(
        "context.files",
        "ConversationScreen",
        "files",
        keys="f12",
        label="Files",
        help="Files attached to this conversation: attach by path, detach, read anew",
        show=False,
        needs=Needs.SESSION,
        palette="context: attached files",
        palette_help="Attach a file by its path, see what each sends, detach it",
        first_on=("Composer",),
    ),
    *PALETTE_ONLY_ACTIONS,
    *DIALOG_ACTIONS,
    *WIDGET_ACTIONS,
)


BY_ID: Mapping[str, Action] = {action.id: action for action in ACTIONS}


def bindings_for(where: str) -> list[BindingType]:
    """The bindings of class `where` (its `BINDINGS`), in the table's order."""
    return [
        action.binding(where)
        for action in ACTIONS
        if action.keys
        and (action.where == where or where in action.also_on or where in action.first_on)
    ]


def screen_actions() -> dict[str, Action]:
    """The conversation screen's own actions (not routed: `Action.target`), by the name its
    `check_action` is asked."""
    return {a.action: a for a in ACTIONS if a.where == "ConversationScreen" and not a.target}


def palette_actions() -> list[Action]:
    """The actions the command palette offers."""
    return [action for action in ACTIONS if action.palette]


def shipped_bindings() -> dict[str, tuple[str, str]]:
    """Every binding id with the keys it ships with (comma-separated) and what it does
    (the id table in docs/keys.md and the config template's list are made from it)."""
    return {
        a.id: (a.keys, a.help or a.label) for a in sorted(ACTIONS, key=lambda a: a.id) if a.keys
    }


def keys_of(remapped: str | None, default: Iterable[str]) -> list[str]:
    """The keys of a binding: those `[keys]` gives it, else its own."""
    if not remapped:
        return list(default)
    return [key.strip() for key in remapped.split(",") if key.strip()]


def keys_in(keymap: Mapping[str, str], binding_id: str) -> list[str]:
    """The keys binding `binding_id` is on: the user's `[keys]` remap, else its own."""
    return keys_of(keymap.get(binding_id), default_keys(binding_id))


def remapped_away(keymap: Mapping[str, str], binding_id: str) -> bool:
    """Whether `[keys]` gave a key of `binding_id` to another action (which then has it)."""
    mine = set(keys_in(keymap, binding_id))
    return any(
        other != binding_id and mine & set(keys_of(keys, ())) for other, keys in keymap.items()
    )


COMPOSER_OWN_KEYS = frozenset(
    {"composer.send", "composer.newline", "composer.clear", "composer.edit_last"}
)
"""The composer's actions it runs with the keys themselves (`Composer.on_key`), wherever
`[keys]` puts them."""


def given_in_composer(keymap: Mapping[str, str]) -> dict[str, str]:
    """The keys `[keys]` gives to an action a key in the composer reaches (the screen's,
    the app's, the composer's own bound ones), each with that action as the composer runs
    it: the composer's own meaning of such a key (an editing key, ctrl+u) gives way."""
    prefix = {"ConversationScreen": "screen.", "CtxChatApp": "app.", "Composer": ""}
    given: dict[str, str] = {}
    for binding_id, keys in keymap.items():
        action = BY_ID.get(binding_id)
        if action is None or action.where not in prefix or binding_id in COMPOSER_OWN_KEYS:
            continue
        if key_problem(keys) or typing_problem(binding_id, keys):
            continue  # told at start, and not applied
        run = action.screen_action if action.where == "ConversationScreen" else action.action
        for key in keys_of(keys, ()):
            given[key] = prefix[action.where] + run
    return given


def key_for(app: App[object], keymap: Mapping[str, str], binding_id: str) -> str:
    """The key binding `binding_id` is on (the user's `[keys]` remap, else its first), as
    the footer shows it."""
    key = keys_in(keymap, binding_id)[0]
    return app.get_key_display(dataclasses.replace(BY_ID[binding_id].binding(), key=key))


def default_keys(binding_id: str) -> Sequence[str]:
    """The keys `binding_id` ships with."""
    return BY_ID[binding_id].keys.split(",")
