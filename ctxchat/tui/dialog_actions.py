"""The dialogs' actions: their part of the table of every key and command (`ACTIONS` in
`tui/actions.py`, which lists them where they stand, between the screen's and the widgets')."""

from __future__ import annotations

from ctxchat.tui.action import Action

DIALOG_ACTIONS: tuple[Action, ...] = (
    # --- AskAgainDialog ---
    Action(
        "ask_again.ask",
        "AskAgainDialog",
        "ask",
        keys="ctrl+s",
        label="Ask again",
        help="Ask the reply again with the change chosen",
    ),
    Action(
        "ask_again.cancel",
        "AskAgainDialog",
        "cancel",
        keys="escape",
        label="Cancel",
        help="Do not ask again",
    ),
    # --- CodeBlockPicker ---
    Action(
        "code_blocks.cancel",
        "CodeBlockPicker",
        "cancel",
        keys="escape",
        label="Cancel",
        help="Copy nothing",
    ),
    # --- ConfirmScreen ---
    Action(
        "confirm.cancel", "ConfirmScreen", "cancel", keys="escape", label="Cancel", help="Answer no"
    ),
    Action(
        "confirm.yes",
        "ConfirmScreen",
        "confirm",
        keys="y",
        label="Yes",
        help="Answer yes (not a question that deletes)",
        show=False,
    ),
    Action(
        "confirm.no", "ConfirmScreen", "cancel", keys="n", label="No", help="Answer no", show=False
    ),
    # A chord, not a letter: it answers yes to a question that deletes too.
    Action(
        "confirm.ok",
        "ConfirmScreen",
        "accept",
        keys="ctrl+s",
        label="Yes",
        help="Answer yes (the confirm button)",
    ),
    # --- ConversationSwitcher ---
    # The search box's and the list's own Enter, named for the footer: keys typed in one
    # burst after Ctrl+L (a search, an arrow) are in before it opens what they chose.
    Action(
        "conversations.open",
        "SwitcherSearch",
        "submit",
        keys="enter",
        label="Open",
        help="Open the highlighted conversation (at the message found)",
        also_on=("SwitcherList",),
    ),
    Action(
        "conversations.close",
        "ConversationSwitcher",
        "close",
        keys="escape",
        label="Close",
        help="Close (clears the search first)",
    ),
    Action(
        "conversations.down",
        "ConversationSwitcher",
        "move(1)",
        keys="down",
        label="Down",
        help="Highlight the next conversation",
        show=False,
    ),
    Action(
        "conversations.up",
        "ConversationSwitcher",
        "move(-1)",
        keys="up",
        label="Up",
        help="Highlight the previous conversation",
        show=False,
    ),
    # No bare letters: a letter typed in the list goes to the search box, so the
    # commands sit on keys typing cannot hit. The ids are those of the letters these
    # keys replace (n, r, d, e, /), so `[keys]` remaps still apply. Ctrl+N, Ctrl+R and
    # Ctrl+S work from the search box too (the box does not use them).
    Action(
        "conversations.new",
        "ConversationSwitcher",
        "new",
        keys="ctrl+n",
        label="New",
        help="Start a new conversation",
    ),
    Action(
        "conversations.rename",
        "ConversationSwitcher",
        "rename",
        keys="ctrl+r",
        label="Rename",
        help="Rename the highlighted conversation",
    ),
    Action(
        "conversations.delete",
        "ConversationSwitcher",
        "delete",
        keys="delete",
        label="Delete",
        help="Delete the highlighted conversation (asks first; in the list)",
    ),
    Action(
        "conversations.export",
        "ConversationSwitcher",
        "export",
        keys="ctrl+s",
        label="Export",
        help="Export the highlighted conversation as Markdown or JSON",
    ),
    Action(
        "conversations.import",
        "ConversationSwitcher",
        "import",
        keys="ctrl+o",
        label="Import",
        help="Import conversations: ChatGPT's, Claude.ai's, llm's, Open WebUI's or ctxchat's",
    ),
    Action(
        "conversations.search",
        "ConversationSwitcher",
        "search",
        keys="ctrl+f",
        label="Search",
        help="Type to find conversations by title or by what their messages say",
    ),
    # --- DeleteConversationScreen ---
    Action(
        "delete_conversation.delete",
        "DeleteConversationScreen",
        "delete",
        keys="ctrl+s",
        label="Delete, keep memory",
        help="Delete the conversation; its own memory entries are kept (global, left out)",
    ),
    Action(
        "delete_conversation.cancel",
        "DeleteConversationScreen",
        "cancel",
        keys="escape",
        label="Cancel",
        help="Keep it",
    ),
    # --- EditMessageScreen ---
    Action(
        "edit_message.send",
        "EditMessageScreen",
        "send",
        keys="ctrl+s",
        label="Send",
        help="Send the edited message",
    ),
    Action(
        "edit_message.request",
        "EditMessageScreen",
        "inspect_request",
        keys="f2",
        label="Request",
        help="The request this edit sends, with its diff from the original, before it goes",
    ),
    Action(
        "edit_message.cancel",
        "EditMessageScreen",
        "cancel",
        keys="escape",
        label="Cancel",
        help="Close without sending",
    ),
    # --- ErrorDetails ---
    # The main screen's key for retrying.
    Action(
        "error.retry",
        "ErrorDetails",
        "retry",
        keys="ctrl+r",
        label="Retry",
        help="Ask for the reply again",
    ),
    Action(
        "error.close",
        "ErrorDetails",
        "close",
        keys="escape",
        label="Close",
        help="Close this message",
    ),
    # --- ExportFormatScreen ---
    Action(
        "export.save",
        "ExportFormatScreen",
        "export",
        keys="ctrl+s",
        label="Export",
        help="Export in the highlighted format",
    ),
    Action(
        "export.cancel",
        "ExportFormatScreen",
        "cancel",
        keys="escape",
        label="Cancel",
        help="Do not export",
    ),
    # No bare letters: the folder box takes typing, and a letter typed on a button
    # must not export. The ids are those of the letters these keys replace (m, j).
    Action(
        "export.markdown",
        "ExportFormatScreen",
        "choose('markdown')",
        keys="ctrl+t",
        label="Markdown",
        help="Export as Markdown (text), to read",
    ),
    Action(
        "export.json",
        "ExportFormatScreen",
        "choose('json')",
        keys="ctrl+j",
        label="JSON",
        help="Export as JSON, with every stored field",
    ),
    # --- ExtractionReview ---
    # No bare letters: the review opens when the model has answered, maybe under
    # someone typing their next message, whose letters must decide nothing. The ids
    # are those of the letters these keys replace (a, e, x, u).
    Action(
        "extraction.accept",
        "ExtractionReview",
        "decide('accept')",
        keys="ctrl+a",
        label="Accept",
        help="Add the highlighted proposal to memory",
    ),
    Action(
        "extraction.edit",
        "ExtractionReview",
        "edit",
        keys="ctrl+e",
        label="Edit",
        help="Edit the highlighted proposal, then accept it",
    ),
    Action(
        "extraction.reject",
        "ExtractionReview",
        "decide('reject')",
        keys="ctrl+x",
        label="Reject",
        help="Store nothing for the highlighted proposal",
    ),
    Action(
        "extraction.update",
        "ExtractionReview",
        "decide('update')",
        keys="ctrl+u",
        label="Update existing",
        help="Make it the new version of the entry it restates (the old one is kept)",
    ),
    Action(
        "extraction.done",
        "ExtractionReview",
        "done",
        keys="ctrl+s",
        label="Done",
        help="Store the decisions made (undecided proposals are skipped)",
    ),
    Action(
        "extraction.cancel",
        "ExtractionReview",
        "cancel",
        keys="escape",
        label="Cancel",
        help="Close and store nothing",
    ),
    # --- ImportHistoryScreen ---
    Action(
        "import.import",
        "ImportHistoryScreen",
        "import",
        keys="ctrl+s",
        label="Import",
        help="Import the file",
    ),
    Action(
        "import.cancel",
        "ImportHistoryScreen",
        "cancel",
        keys="escape",
        label="Cancel",
        help="Import nothing",
    ),
    # --- RequestInspector ---
    Action(
        "inspector.close",
        "RequestInspector",
        "close",
        keys="escape",
        label="Close",
        help="Close the inspector",
    ),
    # Not a letter: someone still typing when the inspector opened must not
    # replace their clipboard.
    Action(
        "inspector.copy",
        "RequestInspector",
        "copy",
        keys="ctrl+c",
        label="Copy JSON",
        help="Copy the request JSON to the clipboard",
    ),
    # No bare letters: a letter typed here is someone going on with their message (it
    # closes the inspector and reaches the composer), never a tab switch. The ids are
    # those of the letters these keys replace (j, m, d), so `[keys]` remaps still apply.
    Action(
        "inspector.json",
        "RequestInspector",
        "show('json')",
        keys="ctrl+j",
        label="JSON",
        help="Show the JSON",
    ),
    Action(
        "inspector.messages",
        "RequestInspector",
        "show('messages')",
        keys="ctrl+t",
        label="Messages",
        help="Show each message's layer and tokens (a table)",
    ),
    Action(
        "inspector.diff",
        "RequestInspector",
        "show('diff')",
        keys="ctrl+d",
        label="Diff",
        help="Show what changed since the previous request",
    ),
    Action(
        "inspector.rendered",
        "RequestInspector",
        "show('rendered')",
        keys="ctrl+r",
        label="Rendered",
        help="Show the prompt as the server's chat template renders it, and its tokens",
    ),
    Action(
        "inspector.regenerate",
        "PlannedRequest",
        "regenerate",
        keys="ctrl+g",
        label="Regenerate",
        help="Of the newest reply: the request a regenerate sends, shown first; there, send it",
        also_on=("ReplyInspector",),
    ),
    Action(
        "inspector.next",
        "RequestInspector",
        "step(1)",
        keys="right",
        label="Next tab",
        help="Show the next tab",
        show=False,
    ),
    Action(
        "inspector.previous",
        "RequestInspector",
        "step(-1)",
        keys="left",
        label="Previous tab",
        help="Show the previous tab",
        show=False,
    ),
    # --- MemoryEditor ---
    Action(
        "memory_editor.save",
        "MemoryEditor",
        "save",
        keys="ctrl+s",
        label="Save",
        help="Save the entry (after checking it)",
    ),
    Action(
        "memory_editor.cancel",
        "MemoryEditor",
        "cancel",
        keys="escape",
        label="Cancel",
        help="Close without saving",
    ),
    # --- ModelPicker ---
    # The list's own Enter, named for the footer: an arrow and Enter typed in one burst pick
    # where the arrow moved to. Off until the picker has been seen (an Enter typed before
    # then goes back to the composer).
    Action(
        "model_picker.pick",
        "ModelList",
        "select",
        keys="enter",
        label="Pick",
        help="Use the highlighted profile, model or file",
    ),
    Action(
        "model_picker.fix",
        "ModelPicker",
        "fix",
        keys="ctrl+e",
        label="Fix",
        help="Fix the highlighted profile's server, model or key",
    ),
    Action(
        "model_picker.remove",
        "ModelPicker",
        "remove",
        keys="delete",
        label="Remove",
        help="Take the highlighted profile out of the config (asked first)",
    ),
    Action(
        "model_picker.cancel",
        "ModelPicker",
        "cancel",
        keys="escape",
        label="Cancel",
        help="Keep the model",
    ),
    # --- PresetPicker ---
    Action(
        "preset_picker.cancel",
        "PresetPicker",
        "cancel",
        keys="escape",
        label="Cancel",
        help="Keep the preset in force",
    ),
    # The list's own Enter, named for the footer.
    Action(
        "preset_picker.choose",
        "PresetList",
        "select",
        keys="enter",
        label="Choose",
        help="Use the highlighted preset for this conversation",
    ),
    # --- RenameScreen ---
    Action(
        "rename.save",
        "RenameScreen",
        "save",
        keys="ctrl+s",
        label="Rename",
        help="Save the new title",
    ),
    Action(
        "rename.cancel",
        "RenameScreen",
        "cancel",
        keys="escape",
        label="Cancel",
        help="Keep the old title",
    ),
    Action(
        "project_dialog.cancel",
        "ProjectDialog",
        "cancel",
        keys="escape",
        label="Cancel",
        help="Leave the conversation where it is",
    ),
    # --- SetupScreen ---
    Action(
        "setup.save",
        "SetupScreen",
        "save",
        keys="ctrl+s",
        label="Save",
        help="Check the answer and write the config",
    ),
    Action(
        "setup.cancel",
        "SetupScreen",
        "cancel",
        keys="escape",
        label="Cancel",
        help="Close the form F4 opened, the config as it was",
    ),
    # --- SummarizePreview ---
    # The key that opened it.
    Action(
        "summarize_preview.confirm",
        "SummarizePreview",
        "confirm",
        keys="ctrl+s",
        label="Summarize",
        help="Fold the listed messages into the summary",
    ),
    Action(
        "summarize_preview.cancel",
        "SummarizePreview",
        "cancel",
        keys="escape",
        label="Cancel",
        help="Do not summarize",
    ),
    # --- SummaryScreen ---
    Action(
        "summary.close",
        "SummaryScreen",
        "close",
        keys="escape",
        label="Close",
        help="Close (or stop editing without saving)",
    ),
    # No bare letters: F3 opens this over the composer, and someone still typing must
    # not roll back, rebuild or summarize. The ids are those of the letters these keys
    # replace (a, e, b, s), so `[keys]` remaps still apply.
    Action(
        "summary.activate",
        "SummaryScreen",
        "activate",
        keys="ctrl+r",
        label="Roll back",
        help="Make the selected version the one in force",
    ),
    Action(
        "summary.edit",
        "SummaryScreen",
        "edit",
        keys="ctrl+e",
        label="Edit",
        help="Edit the selected version's text (saved as a new version)",
    ),
    Action(
        "summary.rebuild",
        "SummaryScreen",
        "rebuild",
        keys="ctrl+b",
        label="Rebuild",
        help="Summarize the original messages again, to undo drift",
    ),
    # The same key as on the main screen; while editing, ctrl+s saves instead.
    Action(
        "summary.summarize",
        "SummaryScreen",
        "summarize",
        keys="ctrl+s",
        label="Summarize now",
        help="Fold the messages outside working memory into the summary now",
    ),
    Action(
        "summary.cancel",
        "SummaryScreen",
        "cancel_job",
        keys="f9",
        label="Cancel",
        help="Stop the summary this app is making",
    ),
    Action(
        "summary.save",
        "SummaryScreen",
        "save",
        keys="ctrl+s",
        label="Save",
        help="Save the edited text as a new version",
    ),
    # --- SystemPromptEditor ---
    Action(
        "system_prompt.save",
        "SystemPromptEditor",
        "save",
        keys="ctrl+s",
        label="Save",
        help="Keep the text as this conversation's own system prompt",
    ),
    Action(
        "system_prompt.default",
        "SystemPromptEditor",
        "default",
        keys="ctrl+r",
        label="Default",
        help="Drop this conversation's own prompt: its preset's, else the config's, applies",
    ),
    Action(
        "system_prompt.cancel",
        "SystemPromptEditor",
        "cancel",
        keys="escape",
        label="Cancel",
        help="Close without saving (asks first if the text changed)",
    ),
    Action(
        "summary.review",
        "SummaryScreen",
        "review",
        keys="ctrl+l",
        label="Review",
        help="Review what the selected version lost: add details back, edit, or keep it",
    ),
    # --- SummaryReview ---
    Action(
        "summary_review.accept",
        "SummaryReview",
        "accept",
        keys="ctrl+s",
        label="Keep",
        help="Keep the summary as shown, edited or not",
    ),
    # Enter on the list of lost details (in the text, Enter is a new line): the list's own
    # select, named for what it does there.
    Action(
        "summary_review.add_back",
        "LostList",
        "select",
        keys="enter",
        label="Add back",
        help="Add the highlighted lost detail's sentence back into the summary",
    ),
    Action(
        "summary_review.reject",
        "SummaryReview",
        "reject",
        keys="escape",
        label="Reject",
        help="Keep nothing of this review (asks first if you edited the text)",
    ),
    # --- VariantComparison ---
    Action(
        "variant.close",
        "VariantComparison",
        "close",
        keys="escape",
        label="Keep the reply",
        help="Close; the reply stays, the variant is kept as a variant",
    ),
    # Not the letter: this opens while the variant streams, maybe under someone typing.
    Action(
        "variant.keep",
        "VariantComparison",
        "keep",
        keys="ctrl+k",
        label="Keep the variant",
        help="Make the variant the reply that continues the conversation",
    ),
    Action(
        "variant.inspect",
        "VariantComparison",
        "inspect",
        keys="f2",
        label="Inspect",
        help="The variant's whole request, with the diff against the reply's",
    ),
    # --- VariantList ---
    Action(
        "variants.close",
        "VariantList",
        "close",
        keys="escape",
        label="Close",
        help="Close the list",
    ),
    # The list's own Enter, named for the footer: one typed right after an arrow opens
    # where the arrow moved to.
    Action(
        "variants.open",
        "VariantOptions",
        "select",
        keys="enter",
        label="Open",
        help="Show the highlighted variant beside the reply, with the request diff",
    ),
    # Not the letter: a key typed here by someone still typing must keep nothing.
    Action(
        "variants.keep",
        "VariantList",
        "keep",
        keys="ctrl+k",
        label="Keep",
        help="Make the highlighted variant the reply that continues the conversation",
    ),
)
