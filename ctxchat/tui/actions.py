"""Every key and command of the app, declared once (`ACTIONS`): the classes' bindings, the
command palette, the screen's check of where each applies, and the lists users read (the
id table in docs/keys.md and the config template, written by `scripts/binding_ids.py`) are made
from it."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from textual.binding import BindingType

from ctxchat.config.names_check import key_problem, typing_problem
from ctxchat.tui.action import Action, Needs
from ctxchat.tui.dialog_actions import DIALOG_ACTIONS
from ctxchat.tui.palette_only_actions import PALETTE_ONLY_ACTIONS

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
    ),
    Action(
        "queued.cancel_all",
        "ConversationScreen",
        "cancel_queued",
        help="Cancel the messages queued in this conversation: they are not sent",
        needs=Needs.SESSION,
        palette="reply: cancel queued messages",
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
    # --- Composer ---
    # Shown in the footer and named for `[keys]`; the keys themselves are handled in the
    # composer's `on_key`, in order with the typing.
    Action(
        "composer.send",
        "Composer",
        "submit",
        keys="enter",
        label="Send",
        help="Send the message",
        palette="composer: send",
        palette_action="composer('submit')",
    ),
    # The same Enter while a reply is written: the footer says what it will do then.
    Action(
        "composer.queue",
        "Composer",
        "queue",
        keys="enter",
        label="Queue",
        help="Queue the message: it is sent once the reply being written ends",
        palette="composer: queue",
        palette_action="composer('queue')",
    ),
    Action(
        "composer.newline",
        "Composer",
        "newline",
        keys="shift+enter,ctrl+j",
        label="New line",
        help="Start a new line in the message",
        show=False,
        palette="composer: new line",
        palette_action="composer('newline')",
    ),
    # ctrl+u, as in a shell where it kills the line before the cursor: here the whole draft,
    # which undo brings back (f9 cancels a job). The new composer keys are not in the
    # footer, which is full: the palette names them.
    Action(
        "composer.clear",
        "Composer",
        "clear_draft",
        keys="ctrl+u",
        label="Clear",
        show=False,
        help="Clear the whole draft (undo brings it back)",
        palette="composer: clear draft",
        palette_action="composer('clear_draft')",
    ),
    Action(
        "composer.undo",
        "Composer",
        "undo",
        keys="ctrl+z",
        label="Undo",
        help="Undo the last change to the draft (a clear, a paste, the editor's text)",
        show=False,
        palette="composer: undo",
        palette_action="composer('undo')",
    ),
    # Handled with the keys, in the composer's own queue, and only in an empty composer:
    # with text, ↑ moves the cursor.
    Action(
        "composer.edit_last",
        "Composer",
        "edit_last",
        keys="up",
        label="Edit last",
        help="In an empty composer: edit your last message and send it again",
        show=False,
        palette="composer: edit last message",
        palette_help="Edit your last message and send it again (its reply is kept as a branch, or replaced)",
        palette_action="composer('edit_last')",
    ),
    Action(
        "composer.editor",
        "Composer",
        "open_in_editor",
        keys="ctrl+g",
        label="Editor",
        show=False,
        help="Write the draft in $VISUAL or $EDITOR; it comes back when the editor exits",
        palette="composer: open draft in $EDITOR",
        palette_action="composer('open_in_editor')",
    ),
    # --- QueuedRow ---
    Action(
        "queued.edit",
        "QueuedRow",
        "edit",
        keys="enter",
        label="Edit",
        help="Take the queued message back into the composer (Enter there queues it again, last)",
    ),
    Action(
        "queued.cancel",
        "QueuedRow",
        "cancel",
        keys="delete,backspace",
        label="Cancel",
        help="Cancel the queued message: it is not sent",
    ),
    # The composer's own page keys would move its cursor a page: a draft is rarely that long,
    # the conversation above it often is.
    Action(
        "composer.page_up",
        "Composer",
        "page(-1)",
        keys="pageup",
        label="Page up",
        help="Scroll the conversation a page up, from the composer",
        show=False,
        palette="composer: scroll the conversation a page up",
        palette_action="composer('page(-1)')",
    ),
    Action(
        "composer.page_down",
        "Composer",
        "page(1)",
        keys="pagedown",
        label="Page down",
        help="Scroll the conversation a page down, from the composer",
        show=False,
        palette="composer: scroll the conversation a page down",
        palette_action="composer('page(1)')",
    ),
    # --- ConversationView ---
    Action(
        "message.previous",
        "ConversationView",
        "select_previous",
        keys="up",
        label="Previous",
        help="Select the message before the selected one",
        show=False,
    ),
    Action(
        "message.next",
        "ConversationView",
        "select_next",
        keys="down",
        label="Next",
        help="Select the message after the selected one",
        show=False,
    ),
    Action(
        "message.oldest",
        "ConversationView",
        "select_first",
        keys="home",
        label="Oldest",
        help="Jump to the very first message and select it",
        show=False,
    ),
    Action(
        "message.newest",
        "ConversationView",
        "select_last",
        keys="end",
        label="Newest",
        help="Jump to the newest message and select it",
        show=False,
    ),
    Action(
        "message.unselect",
        "ConversationView",
        "leave",
        keys="escape",
        label="Back",
        help="Clear the selection and go back to the composer",
        show=False,
    ),
    Action(
        "message.copy",
        "ConversationView",
        "copy",
        keys="ctrl+c",
        label="Copy",
        help="Copy the selected message (or the newest) to the clipboard",
        palette="message: copy",
        palette_action="copy_message",
    ),
    Action(
        "message.copy_code",
        "ConversationView",
        "copy_code",
        keys="ctrl+y",
        label="Copy code",
        show=False,
        help="Copy a code block of the selected message (or the newest); asks which when there are several",
        palette="message: copy code block",
        palette_action="copy_code",
    ),
    Action(
        "message.pin",
        "ConversationView",
        "pin",
        keys="ctrl+k",
        label="Pin",
        help="Pin the selected message, or the text selected in it, as a memory entry",
        palette="memory: pin message",
        palette_help="Pin the selected message (or the newest) as a memory entry",
        palette_action="pin_message",
    ),
    Action(
        "message.edit",
        "ConversationView",
        "edit",
        keys="ctrl+e",
        label="Edit",
        help="Edit the selected message of yours and send it again",
    ),
    Action(
        "message.regenerate",
        "ConversationView",
        "regenerate",
        keys="ctrl+g",
        label="Regenerate",
        help="A new answer to the last message; the reply it replaces is kept as a variant",
        palette="reply: regenerate",
        palette_action="regenerate",
    ),
    Action(
        "message.details",
        "ConversationView",
        "details",
        keys="ctrl+d",
        label="Details",
        help="Show why the selected reply failed or stopped, in the server's own words",
    ),
    Action(
        "message.exclude",
        "ConversationView",
        "exclude",
        keys="ctrl+x",
        label="Leave out",
        help="Leave the selected message out of the requests (kept, still found), or include it again",
        palette="context: leave message out or include it",
        palette_help="Leave the selected message (or the newest) out of the requests, or include it again",
        palette_action="exclude_message",
    ),
    # Not in the footer, which is full: the palette and docs/keys.md name it.
    Action(
        "message.exclude_pair",
        "ConversationView",
        "exclude_pair",
        keys="alt+x",
        label="Leave out Q&A",
        show=False,
        help="Leave the selected question and the answer to it out of the requests together, or include them again",
        palette="context: leave question and answer out or include them",
        palette_help="The selected message's question and answer (or the newest pair), together",
        palette_action="exclude_pair",
    ),
    # --- FindBar ---
    Action(
        "find.next",
        "FindBar",
        "step(1)",
        keys="up,f3",
        label="Next",
        help="Go to the next message up (older) holding the words; enter does too",
        key_display="↑ f3",
    ),
    # Most terminals send shift+enter as enter, and shift+F3 as a sequence Textual reads as
    # a cursor position report (F15 in some): ↓ always works.
    Action(
        "find.previous",
        "FindBar",
        "step(-1)",
        keys="down,shift+enter,shift+f3,f15",
        label="Previous",
        help="Go to the previous message, down (newer), holding the words",
        key_display="↓",
    ),
    Action(
        "find.close",
        "FindBar",
        "close",
        keys="escape",
        label="Close",
        help="Close the find bar and go back to the composer",
    ),
    # --- TaskDialog ---
    Action(
        "task.close",
        "TaskDialog",
        "close",
        keys="escape",
        label="Close",
        help="Close the task dialog (a goal or step typed is kept)",
    ),
    Action(
        "task.done",
        "TaskDialog",
        "done",
        keys="ctrl+s",
        label="Done",
        help="Close the task dialog, saving a goal or step typed",
    ),
    Action(
        "task.step_done",
        "TaskSteps",
        "toggle_done",
        keys="space",
        label="Done",
        help="Mark the highlighted step done, or pending again (Enter does too)",
    ),
    Action(
        "task.step_remove",
        "TaskSteps",
        "remove",
        keys="delete",
        label="Remove",
        help="Remove the highlighted step",
        key_display="del",
    ),
    # --- FilesDialog ---
    Action(
        "files.close",
        "FilesDialog",
        "close",
        keys="escape",
        label="Close",
        help="Close the files dialog",
    ),
    Action(
        "files.attach",
        "FilesDialog",
        "attach",
        keys="ctrl+s",
        label="Attach",
        help="Attach the file whose path is typed in the box (Enter there does too)",
    ),
    Action(
        "files.detach",
        "AttachedFiles",
        "detach",
        keys="delete",
        label="Detach",
        help="Detach the highlighted file: the next request no longer sends it",
        key_display="del",
    ),
    Action(
        "files.refresh",
        "AttachedFiles",
        "refresh",
        keys="ctrl+r",
        label="Read anew",
        help="Read the highlighted file again from disk (after it changed)",
    ),
    # --- LayerPanel ---
    Action(
        "layer.toggle",
        "LayerPanel",
        "toggle_collapsed",
        keys="enter,space",
        label="Fold",
        help="Fold or unfold this layer's content",
    ),
    # On the system layer's panel (the others leave them off), and in the palette.
    Action(
        "preset.choose",
        "LayerPanel",
        "choose_preset",
        keys="ctrl+k",
        label="Preset",
        help="Choose this conversation's preset: its system prompt, model and sampling",
        palette="preset: choose",
        palette_action="choose_preset",
    ),
    Action(
        "system_prompt.edit",
        "LayerPanel",
        "edit_prompt",
        keys="ctrl+e",
        label="Edit prompt",
        help="Edit this conversation's system prompt (its token count shown as you type)",
        palette="system prompt: edit",
        palette_action="edit_system_prompt",
    ),
    Action(
        "layer.scroll_down",
        "LayerPanel",
        "scroll_body(1)",
        keys="down",
        label="Scroll",
        help="Scroll this layer's items down a line (a long layer scrolls on its own)",
        show=False,
    ),
    Action(
        "layer.scroll_up",
        "LayerPanel",
        "scroll_body(-1)",
        keys="up",
        label="Scroll up",
        help="Scroll this layer's items up a line",
        show=False,
    ),
    Action(
        "layer.page_down",
        "LayerPanel",
        "page_body(1)",
        keys="pagedown",
        label="Page down",
        help="Scroll this layer's items down a page",
        show=False,
    ),
    Action(
        "layer.page_up",
        "LayerPanel",
        "page_body(-1)",
        keys="pageup",
        label="Page up",
        help="Scroll this layer's items up a page",
        show=False,
    ),
    # --- MemoryPanel ---
    Action(
        "memory.back",
        "MemoryPanel",
        "leave",
        keys="escape",
        label="Back",
        help="Go back to the composer",
        show=False,
    ),
    Action(
        "memory.add",
        "MemoryPanel",
        "add",
        keys="ctrl+a,insert",
        label="Add",
        help="Add a memory entry",
        palette="memory: add entry",
        palette_help="Write a new memory entry",
        palette_action="add_memory",
    ),
    Action(
        "memory.edit",
        "MemoryPanel",
        "edit",
        keys="ctrl+e",
        label="Edit",
        help="Edit the highlighted entry (Enter does too)",
    ),
    Action(
        "memory.delete",
        "MemoryPanel",
        "delete",
        keys="delete",
        label="Delete",
        help="Delete the entry (asks first)",
        key_display="del",
    ),
    Action(
        "memory.pin",
        "MemoryPanel",
        "pin",
        keys="ctrl+k",
        label="Pin",
        help="Pin or unpin the entry",
    ),
    Action(
        "memory.kind",
        "MemoryPanel",
        "kind",
        keys="shift+right",
        label="Kind",
        help="Change the entry's kind (fact → constraint → preference → hypothesis)",
    ),
    Action(
        "memory.scope",
        "MemoryPanel",
        "scope",
        keys="ctrl+g",
        label="Scope",
        help="Make the entry global, its project's (when this conversation is in one) or this conversation's only",
    ),
    Action(
        "memory.toggle",
        "MemoryPanel",
        "include",
        keys="ctrl+x",
        label="In/out",
        help="Include the entry in the context or exclude it",
    ),
    Action(
        "memory.switch_here",
        "MemoryPanel",
        "switch_here",
        keys="ctrl+d",
        label="Off/on here",
        help="Switch a shared entry off for this conversation only, or on again here",
    ),
    Action(
        "memory.importance_up",
        "MemoryPanel",
        "importance(1)",
        keys="shift+up",
        label="Importance +",
        help="Raise the entry's importance",
    ),
    Action(
        "memory.importance_down",
        "MemoryPanel",
        "importance(-1)",
        keys="shift+down",
        label="Importance −",
        help="Lower the entry's importance",
    ),
    Action(
        "memory.new_version",
        "MemoryPanel",
        "new_version",
        keys="ctrl+u",
        label="New version",
        help="Write a new version of the entry; the old one is kept as superseded",
    ),
    Action(
        "memory.restore",
        "MemoryPanel",
        "restore",
        keys="ctrl+z",
        label="Restore",
        help="Make a superseded entry current again (its replacement is kept)",
        palette="memory: restore superseded entry",
        palette_help="Make the highlighted (or the last) superseded entry current again",
        palette_action="restore_memory",
    ),
    Action(
        "memory.confirm",
        "MemoryPanel",
        "confirm",
        keys="ctrl+y",
        label="Confirm as fact",
        help="The hypothesis is confirmed: make it a fact",
    ),
    Action(
        "memory.keep",
        "MemoryPanel",
        "keep",
        keys="ctrl+w",
        label="Keep waiting",
        help="Keep the hypothesis unconfirmed; its count of turns starts again",
    ),
    Action(
        "memory.source",
        "MemoryPanel",
        "source",
        keys="ctrl+j",
        label="Go to source",
        help="Show the message the entry came from",
    ),
    Action(
        "memory.hide_left_out",
        "MemoryPanel",
        "hide_left_out",
        keys="shift+left",
        label="Hide/show left out",
        help="Hide the superseded and excluded entries (and those off here), or show them again",
        palette="memory: hide or show superseded and excluded entries",
        palette_help="Hide the entries left out by you or superseded, or show them again",
        palette_action="memory_panel('hide_left_out')",
    ),
    Action(
        "memory.order",
        "MemoryPanel",
        "order",
        keys="f5",
        label="Order",
        help="Sort the entries no recent reply used first (an estimate), or as stored",
        palette="memory: sort by use",
        palette_help="Entries no recent reply used first (an estimate), or back to stored order",
        palette_action="memory_panel('order')",
    ),
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
    """The conversation screen's actions, by the name its `check_action` is asked."""
    return {a.action: a for a in ACTIONS if a.where == "ConversationScreen"}


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
        for key in keys_of(keys, ()):
            given[key] = prefix[action.where] + action.action
    return given


def key_for(app: App[object], keymap: Mapping[str, str], binding_id: str) -> str:
    """The key binding `binding_id` is on (the user's `[keys]` remap, else its first), as
    the footer shows it."""
    key = keys_in(keymap, binding_id)[0]
    return app.get_key_display(dataclasses.replace(BY_ID[binding_id].binding(), key=key))


def default_keys(binding_id: str) -> Sequence[str]:
    """The keys `binding_id` ships with."""
    return BY_ID[binding_id].keys.split(",")
