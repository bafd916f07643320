"""`ctxchat`: parse the command line and hand over to the command (imports stay lazy).

`ctxchat --help` and `--version` import nothing but argparse, so they answer at once;
each command imports what it needs when it runs.
"""

from __future__ import annotations

import argparse
import gc
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from ctxchat import __version__
from ctxchat.cli.exits import EXIT_USAGE
from ctxchat.cli.utf8 import text_argument

KINDS = ("fact", "constraint", "preference", "hypothesis")
MODES = ("personalization", "objective")
# The names `import --from` takes (ctxchat.store.importers.SOURCES, not imported here so that
# --help stays light; a test keeps the two the same).
IMPORT_SOURCES = ("chatgpt", "claude", "llm", "open-webui", "ctxchat")


LARGEST_ID = 2**63 - 1  # SQLite's integers are 64-bit
_SHOWN_ARGUMENT = 40  # characters of a bad argument quoted back
EMBED_ALL_HELP = (
    "embed every message that has no vector yet before planning (else about a second's "
    "worth, and recall by meaning searches what is embedded)"
)


def record_id(text: str) -> int:
    """An id from the command line (a conversation, message, variant or memory entry): a
    whole number from 1 that SQLite can hold."""
    digits = text.strip().removeprefix("+")
    try:
        value = int(digits)
    except ValueError:  # not a number, or more digits than Python converts
        value = LARGEST_ID + 1 if digits.isdigit() else 0
    shown = text if len(text) <= _SHOWN_ARGUMENT else text[: _SHOWN_ARGUMENT - 1] + "…"
    if value > LARGEST_ID:
        raise argparse.ArgumentTypeError(
            f"{shown!r} is too large for an id (the largest is {LARGEST_ID})"
        )
    if value < 1:
        raise argparse.ArgumentTypeError(f"{shown!r} is not an id (a whole number from 1)")
    return value


class _Parser(argparse.ArgumentParser):
    """Parses ctxchat's command line; a mistake in it is one line, as every other error
    is, not the usage text (`--help` shows that)."""

    def error(self, message: str) -> NoReturn:
        from ctxchat.safe_text import clean

        # The message quotes what was typed, which may hold control sequences.
        self.exit(EXIT_USAGE, clean(f"{self.prog}: {message}") + "\n")


def _options(parser: argparse.ArgumentParser, default: object) -> None:
    """The options every command takes, before or after the command's name."""
    parser.add_argument(
        "--config",
        type=Path,
        default=default,
        help="the config file (default: CTXCHAT_CONFIG or the user config dir)",
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=default,
        help="where the database lives (default: CTXCHAT_DATA_DIR or the user data dir)",
    )
    parser.add_argument(
        "--conversation", type=record_id, metavar="ID", default=default, help="the conversation"
    )
    parser.add_argument(
        "--profile", type=text_argument, default=default, help="the provider profile to use"
    )
    parser.add_argument(
        "--model", type=text_argument, default=default, help="the model (overrides the profile's)"
    )
    parser.add_argument(
        "--preset",
        type=text_argument,
        metavar="NAME",
        default=default,
        help="the preset ([presets.NAME] in the config) for the conversation; a command that "
        "sends or the app remembers it for the conversation",
    )
    parser.add_argument(
        "--base-url",
        type=text_argument,
        default=default,
        help="the server's OpenAI base URL (overrides the profile's)",
    )
    parser.add_argument("--mode", choices=MODES, default=default, help="the mode to use")
    parser.add_argument(
        "--offline",
        action="store_true",
        default=default if default is argparse.SUPPRESS else False,
        help="do not ask the server about itself: plan with the window found last time, "
        "the config or the known-models table",
    )


def _top_level(parser: argparse.ArgumentParser) -> None:
    """The options of `ctxchat` itself (given before a command's name, or alone to start the
    app)."""
    parser.add_argument("--version", action="version", version=f"ctxchat {__version__}")
    _options(parser, None)
    parser.add_argument("--theme", type=text_argument, help="the theme to start with")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="ctxchat",
        description="A terminal chat that shows exactly what the model sees. "
        "Without a command, starts the TUI.",
    )
    _top_level(parser)
    # Subcommands take the same options after their name; SUPPRESS keeps a value given
    # before the name from being reset.
    shared = argparse.ArgumentParser(add_help=False)
    _options(shared, argparse.SUPPRESS)
    commands = _Commands(parser.add_subparsers(dest="command", metavar="COMMAND"), shared)

    conversations = commands.add_parser("conversations", help="list conversations")
    conversations.add_argument(
        "--search", type=text_argument, metavar="TEXT", help="only those containing TEXT"
    )
    conversations.add_argument("--json", action="store_true", help="print JSON")

    context = commands.add_parser(
        "context", help="show the context plan the next request would send"
    )
    context.add_argument(
        "--message", type=text_argument, metavar="TEXT", help="plan as if TEXT were sent next"
    )
    context.add_argument("--json", action="store_true", help="print the plan as JSON")
    context.add_argument("--embed-all", action="store_true", help=EMBED_ALL_HELP)

    send = commands.add_parser("send", help="send one message and stream the reply to stdout")
    target = send.add_mutually_exclusive_group()
    target.add_argument("--new", action="store_true", help="start a new conversation")
    send.add_argument("--title", type=text_argument, help="the title of a new conversation")
    send.add_argument(
        "text", type=text_argument, nargs="?", help="the message (default: read standard input)"
    )
    send.add_argument("--json", action="store_true", help="print reply, usage and plan as JSON")
    send.add_argument("--no-summarize", action="store_true", help="skip automatic summarization")
    send.add_argument("--embed-all", action="store_true", help=EMBED_ALL_HELP)

    ask = commands.add_parser(
        "ask-again",
        help="ask a reply's request again with a change; the answer is kept as a variant",
        description="Ask a reply's request again without a layer or item, in another mode "
        "(--mode) or to another model (--model, --profile); the rest of the request is the "
        "reply's own. The answer is stored as a variant of the reply.",
    )
    ask.add_argument("reply_id", type=record_id, metavar="REPLY_ID")
    ask.add_argument(
        "--without",
        type=text_argument,
        action="append",
        metavar="WHAT",
        help="leave out a layer (memory, summary, task, files, recall) or an item (memory:3, "
        "message:12, summary:v2); repeatable",
    )
    replay = commands.add_parser(
        "replay",
        help="re-send a reply's exact stored request (to --model if given) as a variant",
    )
    replay.add_argument("reply_id", type=record_id, metavar="REPLY_ID")
    for asking in (ask, replay):
        asking.add_argument("--diff", action="store_true", help="print the request diff first")
        asking.add_argument("--json", action="store_true", help="print variant, plan, diff as JSON")
    keep = commands.add_parser(
        "keep-variant", help="make a variant the reply that continues the conversation"
    )
    keep.add_argument("variant_id", type=record_id, metavar="VARIANT_ID")
    keep.add_argument("--json", action="store_true", help="print JSON")
    listing = commands.add_parser(
        "variants",
        help="list a reply's variants (asked again, replayed, or replaced by regenerating)",
    )
    listing.add_argument("reply_id", type=record_id, metavar="REPLY_ID")
    listing.add_argument("--json", action="store_true", help="print JSON")

    summarize = commands.add_parser("summarize", help="fold older turns into the summary now")
    summarize.add_argument("--rebuild", action="store_true", help="rebuild from the originals")
    summarize.add_argument(
        "--no-wait",
        action="store_true",
        help="refuse, rather than wait, while another process summarizes the conversation",
    )
    summarize.add_argument(
        "--json", action="store_true", help="print the new version and what it lost as JSON"
    )

    memory = commands.add_parser("memory", help="list and curate memory entries")
    memory_commands = _Commands(
        memory.add_subparsers(dest="memory_command", metavar="ACTION", required=True), shared
    )
    listing = memory_commands.add_parser("list", help="entries in scope (global + conversation)")
    listing.add_argument("--all", action="store_true", help="entries of every conversation")
    listing.add_argument("--json", action="store_true", help="print JSON")
    add = memory_commands.add_parser("add", help="add an entry")
    add.add_argument("text", type=text_argument)
    add.add_argument("--kind", choices=KINDS, default="fact")
    add.add_argument("--key", type=text_argument, help="a short key for the entry")
    add.add_argument("--importance", type=int, default=5, help="1 to 10 (default 5)")
    add.add_argument("--pin", action="store_true", help="pin it (always included first)")
    add.add_argument(
        "--scope",
        choices=("global", "conversation"),
        default="global",
        help="every conversation, or only the one given with --conversation",
    )
    add.add_argument(
        "--project",
        type=text_argument,
        metavar="NAME",
        help="for every conversation of project NAME (instead of --scope)",
    )
    add.add_argument(
        "--replaces",
        type=record_id,
        metavar="ID",
        help="keep entry ID as superseded by this one (an entry on the same key always is)",
    )
    edit = memory_commands.add_parser("edit", help="change an entry's text, key or importance")
    edit.add_argument("id", type=record_id)
    edit.add_argument("--text", type=text_argument)
    edit.add_argument("--key", type=text_argument)
    edit.add_argument("--importance", type=int)
    remove = memory_commands.add_parser("rm", help="delete an entry")
    remove.add_argument("id", type=record_id)
    for name, text in (
        ("pin", "pin an entry"),
        ("unpin", "unpin an entry"),
        ("restore", "make a superseded entry current again"),
    ):
        memory_commands.add_parser(name, help=text).add_argument("id", type=record_id)
    for name, text in (
        ("off", "switch a shared entry off for one conversation only (--conversation)"),
        ("on", "switch an entry on again in a conversation it was switched off in"),
    ):
        switch = memory_commands.add_parser(name, help=text)
        switch.add_argument("id", type=record_id)
        switch.add_argument("--json", action="store_true", help="print the entry as JSON")
    tag = memory_commands.add_parser("tag", help="change an entry's kind, scope or inclusion")
    tag.add_argument("id", type=record_id)
    tag.add_argument("kind", nargs="?", choices=KINDS)
    tag.add_argument("--scope", choices=("global", "conversation"))
    tag.add_argument("--include", dest="enabled", action="store_true", default=None)
    tag.add_argument("--exclude", dest="enabled", action="store_false")

    project = commands.add_parser(
        "project", help="projects: conversations that share memory entries"
    )
    project_commands = _Commands(
        project.add_subparsers(dest="project_command", metavar="ACTION", required=True), shared
    )
    project_commands.add_parser("list", help="every project").add_argument(
        "--json", action="store_true", help="print JSON"
    )
    project_commands.add_parser("create", help="make a project").add_argument(
        "name", type=text_argument
    )
    project_commands.add_parser(
        "add", help="put the conversation (--conversation ID) in a project"
    ).add_argument("name", type=text_argument)
    project_commands.add_parser("remove", help="take the conversation out of its project")
    delete_project = project_commands.add_parser(
        "delete", help="delete a project (its conversations are kept)"
    )
    delete_project.add_argument("name", type=text_argument)
    delete_project.add_argument(
        "--entries",
        choices=("global", "delete"),
        required=True,
        help="what to do with its memory entries: make them global, or delete them",
    )

    export = commands.add_parser("export", help="export a conversation")
    export.add_argument("id", type=record_id)
    export.add_argument("--format", choices=("md", "json"), default="md")
    export.add_argument("--output", "-o", type=Path, help="write to a file instead of stdout")
    delete = commands.add_parser(
        "delete",
        help="delete a conversation (asks first; its own memory entries are kept)",
        description="Delete a conversation and its messages, summaries and plans. Its own "
        "memory entries are kept as global entries, left out of requests until you include "
        "them; --with-memory deletes them too.",
    )
    delete.add_argument("id", type=record_id)
    delete.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    delete.add_argument(
        "--with-memory", action="store_true", help="delete its own memory entries too"
    )
    delete.add_argument("--json", action="store_true", help="print what was deleted as JSON")
    importing = commands.add_parser(
        "import",
        help="import a ctxchat JSON export, or the history of ChatGPT, Claude.ai, llm or Open WebUI",
        description="Import a conversation exported by ctxchat as JSON, ChatGPT's or Claude.ai's "
        "data export (conversations.json), simonw/llm's logs.db (read only) or an Open WebUI "
        "chat export. Which one a file is, is recognised; --from says it. Conversations "
        "imported before are left as they are; a damaged file imports nothing.",
    )
    importing.add_argument("file", type=Path)
    importing.add_argument(
        "--from",
        dest="source",
        choices=IMPORT_SOURCES,
        help="the tool the file comes from (default: recognised from the file)",
    )
    importing.add_argument(
        "--dry-run", action="store_true", help="say what would be imported; change nothing"
    )

    _context_control(commands)
    presets = commands.add_parser(
        "presets", help="list the configured presets (the conversation's marked with *)"
    )
    presets.add_argument("--json", action="store_true", help="print JSON")
    prompt = commands.add_parser(
        "system-prompt",
        help="show a conversation's system prompt, or give it its own",
        description="Without TEXT, show the system prompt the conversation sends and where "
        "it comes from (its own, its preset's, or the config's). With TEXT, give the "
        'conversation its own ("" sends none); --clear goes back to the preset\'s or the '
        "config's.",
    )
    prompt.add_argument("text", type=text_argument, nargs="?", metavar="TEXT")
    prompt.add_argument("--clear", action="store_true", help="drop the conversation's own")
    prompt.add_argument("--json", action="store_true", help="print JSON")

    config = commands.add_parser("config", help="the configuration file")
    config_commands = _Commands(
        config.add_subparsers(dest="config_command", metavar="ACTION", required=True), shared
    )
    init = config_commands.add_parser("init", help="write a commented starting config")
    init.add_argument("--force", action="store_true", help="replace an existing file")
    config_commands.add_parser("show", help="the effective settings, secrets masked")
    config_commands.add_parser("path", help="where the files are")

    engine = commands.add_parser("engine", help="the model ctxchat runs on this machine")
    engine_commands = _Commands(
        engine.add_subparsers(dest="engine_command", metavar="ACTION", required=True), shared
    )
    status = engine_commands.add_parser("status", help="whether it runs, where, and its memory")
    status.add_argument("--json", action="store_true", help="print JSON")
    start = engine_commands.add_parser("start", help="start it now (it starts when needed)")
    start.add_argument(
        "model_file", nargs="?", metavar="GGUF", help="a .gguf file (default: the small model)"
    )
    start.add_argument(
        "--port", type=int, default=0, help="the loopback port (default: a free one)"
    )
    start.add_argument("--json", action="store_true", help="print JSON")
    engine_commands.add_parser("stop", help="stop it (the next conversation starts it again)")

    db = commands.add_parser("db", help="the database file")
    db_commands = _Commands(
        db.add_subparsers(dest="db_command", metavar="ACTION", required=True), shared
    )
    aside = db_commands.add_parser(
        "move-aside", help="rename a damaged database so a new one can start"
    )
    aside.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    return parser


def _context_control(commands: _Commands) -> None:
    """Leaving turns out, the task state, attached files and what replies cost."""
    json_option = argparse.ArgumentParser(add_help=False)
    json_option.add_argument(
        "--json", action="store_true", default=argparse.SUPPRESS, help="print JSON"
    )
    for name, text in (
        ("exclude", "leave a message out of the requests without deleting it"),
        ("include", "send an excluded message again"),
    ):
        turn = commands.add_parser(name, help=text, parents=[json_option])
        turn.add_argument("message_id", type=record_id, metavar="MESSAGE_ID")
        turn.add_argument(
            "--pair", action="store_true", help="the question and the answer to it together"
        )

    task = commands.add_parser(
        "task",
        help="show or change the conversation's task: its goal and steps",
        parents=[json_option],
        description="The task layer: the goal, what is done and what is pending, sent as a "
        "marked block in every request of the conversation. Without an action, show it.",
    )
    steps = _Commands(
        task.add_subparsers(dest="task_command", metavar="ACTION", required=False),
        commands.shared_with(json_option),
    )
    steps.add_parser("set", help="set the goal").add_argument("text")
    steps.add_parser("add", help="add a pending step").add_argument("text")
    for name, text in (
        ("done", "mark step N done"),
        ("reopen", "mark step N pending again"),
        ("rm", "remove step N"),
    ):
        steps.add_parser(name, help=text).add_argument("number", type=int, metavar="N")
    steps.add_parser("clear", help="forget the goal and every step")

    summary = commands.add_parser(
        "summary",
        help="the summary in force and one held for review, with what each lost",
        parents=[json_option],
        description="Review the conversation's summary: without an action, show the one in "
        "force and one held for review (an automatic summary its check found something in), "
        "with what each lost.",
    )
    reviews = _Commands(
        summary.add_subparsers(dest="summary_command", metavar="ACTION", required=False),
        commands.shared_with(json_option),
    )
    reviews.add_parser("accept", help="put the summary held for review in force")
    reviews.add_parser("reject", help="delete the summary held for review")
    reviews.add_parser("keep", help="keep the summary in force as it is: plans no longer flag it")

    attach = commands.add_parser(
        "attach",
        help="attach a file to the conversation (read now; sent in every request)",
        parents=[json_option],
    )
    attach.add_argument("path")
    attach.add_argument(
        "--refresh", action="store_true", help="read an attached file anew (it changed on disk)"
    )
    detach = commands.add_parser("detach", help="detach a file", parents=[json_option])
    detach.add_argument("path")
    commands.add_parser(
        "files",
        help="the attached files: tokens, share, changed on disk",
        parents=[json_option],
    )
    costs = commands.add_parser(
        "costs",
        help="what replies cost: per day, and each reply of the conversation",
        parents=[json_option],
    )
    costs.add_argument("--days", type=int, default=7, help="how many days back (default 7)")


class _Commands:
    """Adds subcommands that all accept the shared options."""

    def __init__(self, actions: Any, shared: argparse.ArgumentParser) -> None:
        self._actions = actions
        self._shared = shared

    def add_parser(
        self, name: str, *, parents: Sequence[argparse.ArgumentParser] = (), **kwargs: Any
    ) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = self._actions.add_parser(
            name, parents=[self._shared, *parents], **kwargs
        )
        return parser

    def shared_with(self, extra: argparse.ArgumentParser) -> argparse.ArgumentParser:
        """The shared options and `extra`'s, for the actions of a command."""
        both = argparse.ArgumentParser(add_help=False, parents=[self._shared, extra])
        return both


class _NotTheAppAlone(Exception):
    """The command line is not one `_AppParser` reads as `build_parser` would."""


class _AppParser(argparse.ArgumentParser):
    """The top-level options only: a mistake is left to the whole parser to tell."""

    def error(self, message: str) -> NoReturn:
        raise _NotTheAppAlone(message)


def parse_command_line(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """What `build_parser().parse_args(argv)` gives, without building the parsers of the
    commands (about 60 of them, some 12 ms) when `argv` starts the app.

    The top-level options alone read a start of the app as the whole parser does (the same
    options take the same words; a command's name left over is a word they refuse). A
    command, `--help`, `--` or a mistake goes to the whole parser, so what it answers and
    says is the same."""
    words = sys.argv[1:] if argv is None else list(argv)
    if "--" not in words:
        parser = _AppParser(prog="ctxchat", add_help=False)
        _top_level(parser)
        try:
            args = parser.parse_args(words)
        except _NotTheAppAlone:
            pass
        else:
            args.command = None
            return args
    return build_parser().parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_command_line(argv)
    keep_compiled_code()
    if args.command is None:
        # Starting the TUI allocates a great many objects that all live on; the cycle
        # collector would scan them again and again. The app turns it back on (and moves
        # what start-up made out of its sight) once the first frame is drawn.
        gc.disable()
        from ctxchat.cli.typeahead import typed_keys_kept

        with typed_keys_kept():
            from ctxchat.cli.run import run

            return run(args)
    from ctxchat.cli.run import run

    return run(args)


def keep_compiled_code() -> None:
    """Read the methods dataclasses generate from the cache instead of compiling them on
    every start (`ctxchat.cli.dataclass_code`); a command's first import of a dataclass
    comes after this."""
    from ctxchat.cli.dataclass_code import keep_dataclass_code
    from ctxchat.config.locations import cache_dir

    keep_dataclass_code(cache_dir())


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
