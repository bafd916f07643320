"""The conversation screen's actions only the command palette offers (no key): their part of
the table of every key and command (`ACTIONS` in `tui/actions.py`, which lists them where they
stand, after the screen's keyed actions)."""

from __future__ import annotations

from ctxchat.tui.action import Action, Needs

PALETTE_ONLY_ACTIONS: tuple[Action, ...] = (
    Action(
        "conversation.rename",
        "ConversationScreen",
        "rename",
        help="Rename this conversation",
        palette="conversation: rename",
        target="ConversationDialogs.rename",
    ),
    Action(
        "conversation.project",
        "ConversationScreen",
        "move_to_project",
        help="Put this conversation in a project (its conversations share memory), or none",
        palette="project: move this conversation…",
        needs=Needs.SESSION,
        target="ConversationDialogs.move_to_project",
    ),
    Action(
        "conversation.export_markdown",
        "ConversationScreen",
        "export('markdown')",
        help="Write this conversation to a Markdown file",
        palette="conversation: export markdown",
        target="ConversationDialogs.export_shown",
    ),
    Action(
        "conversation.export_json",
        "ConversationScreen",
        "export('json')",
        help="Write this conversation to a JSON file",
        palette="conversation: export json",
        target="ConversationDialogs.export_shown",
    ),
    Action(
        "recall.across",
        "ConversationScreen",
        "switch_recall_across",
        help="Switch where recall looks besides this conversation: its project's, all, none",
        needs=Needs.SESSION,
        palette="recall: across conversations → {next}",
        target="ContextControl.switch_recall_across",
    ),
)
