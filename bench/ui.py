"""Benchmark of the TUI: first paint of a real process, a 4,000-chunk reply streamed at full
speed and at a model's speed, opening a 10,000-message conversation, and `ctxchat context`
on a 20,000-message one.

Run: python bench/ui.py [--only paint|stream|model|open|context]

Every figure is printed next to a baseline measured in the same run: a bare `python -c pass`
under the same pseudo-terminal, and the bare `openai` client reading the same stream from the
same scripted server. Nothing is asserted: the numbers are for people to read.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import fcntl
import json
import os
import re
import select
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from openai import AsyncOpenAI
from textual.app import App, ComposeResult
from textual.await_complete import AwaitComplete
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import Markdown

from ctxchat.chat.options import SessionOptions
from ctxchat.core.tokens import CachingCounter, count_message, counter_for_model
from ctxchat.testing import harness
from ctxchat.testing.server import ScriptedModelServer
from ctxchat.tui.app import CtxChatApp, build_app
from ctxchat.tui.live_turn import LiveTurn
from ctxchat.tui.widgets.message_item import MessageItem
from ctxchat.tui.widgets.reply_markdown import ReplyMarkdown

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _corpus import synthetic_texts, varied_texts

COLUMNS, ROWS = 160, 50
PAINT_RUNS = 5
CHUNKS = 4_000
CHUNK_CHARS = 6
BARE_RUNS = 3
APP_RUNS = 5
NAIVE_CHUNKS = (200, 400)
MODEL_SPEED = 200  # chunks a second: a fast model, as a user sees one
MODEL_CHUNKS = 1_000
MODEL_RUNS = 3
MESSAGES = 10_000
OPEN_RUNS = 3
MODEL = "gpt-4o"
NO_SEMANTIC = "[recall]\nsemantic = false\n"
QUESTION = "Which database should we use for the sync service, and how do we set it up?"

# --- a realistic reply -----------------------------------------------------------------------

_SECTIONS = [
    """## {n}. Write-ahead logging

PostgreSQL writes every change to its write-ahead log before it touches the table files, so a
crash in the middle of a write loses nothing that was committed. SQLite does the same in WAL
mode, with one writer at a time and readers that never block it.

- **Durability:** both fsync the log on commit; `synchronous = NORMAL` in SQLite trades the
  last transaction after a power cut for fewer fsyncs.
- **Concurrency:** PostgreSQL takes row locks; SQLite locks the whole database for a write.
- **Operations:** PostgreSQL needs a server, backups and upgrades; SQLite is a file you copy.

""",
    """## {n}. Opening the database

```python
def open_db(path: str) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA foreign_keys = ON")
    return conn
```

Open one connection per thread and keep it: connecting is cheap, but the page cache lives in
the connection, so a fresh one per request reads everything from disk again.

""",
    """## {n}. Indexes

Measure before you decide. Run the slowest query with `EXPLAIN QUERY PLAN` and check that it
uses the index you expect; if it scans the table, add the index and measure again.

```sql
CREATE INDEX IF NOT EXISTS events_by_device
    ON events (device_id, created_at);
EXPLAIN QUERY PLAN
SELECT * FROM events WHERE device_id = ? ORDER BY created_at DESC LIMIT 50;
```

""",
    """## {n}. Migrations

Keep the schema version in `PRAGMA user_version` and apply numbered scripts in order, each in
its own transaction. Never edit a migration that has shipped; add a new one instead.

1. Read `user_version`.
2. Apply every script with a higher number, in one transaction each.
3. Write the new `user_version` in the same transaction as its script.

""",
    """## {n}. Backups

Copying the file while the app writes can catch it half-way. Use the online backup API, which
copies page by page and retries pages that change under it:

```python
with sqlite3.connect("backup.db") as target:
    source.backup(target, pages=1024, sleep=0.05)
```

On PostgreSQL, `pg_dump` gives a consistent snapshot; for point-in-time recovery, archive the
WAL as well.

""",
    """## {n}. When to move to PostgreSQL

Move when more than one machine must write at the same time, when you need row-level locks for
long transactions, or when the data outgrows one disk. Until then, SQLite in WAL mode handles
thousands of writes a second on a laptop, and the app stays one file to deploy.

> Rule of thumb: if every write comes through one service, start with SQLite.

""",
]


def reply_text(chars: int) -> str:
    """A Markdown reply about choosing a database, cut to exactly `chars` characters."""
    parts: list[str] = []
    length = 0
    number = 0
    while length < chars:
        part = _SECTIONS[number % len(_SECTIONS)].format(n=number + 1)
        parts.append(part)
        length += len(part)
        number += 1
    return "".join(parts)[:chars]


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:,.0f} ms"


# --- 1. first paint under a pseudo-terminal ------------------------------------------------

_ESCAPE = re.compile(rb"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")
FIRST_FRAME = {
    "composer": re.compile(rb"Write a message"),
    "plan": re.compile(rb"used [\d,]+ of [\d,]+"),
}
FULL_FRAME = {**FIRST_FRAME, "footer": re.compile(rb"\^q Quit")}


def run_in_pty(
    argv: Sequence[str],
    env: dict[str, str],
    markers: dict[str, re.Pattern[bytes]],
    *,
    timeout: float = 20.0,
) -> tuple[dict[str, float], float]:
    """Start `argv` on a fresh pseudo-terminal of COLUMNS x ROWS; return when each marker was
    first written (seconds from spawn, escape sequences stripped) and when the process ended.

    Once every marker is seen, ctrl+q is sent; output is drained until the process exits.
    """
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
    started = time.perf_counter()
    process = subprocess.Popen(
        argv,
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        start_new_session=True,
        close_fds=True,
    )
    os.close(slave)
    output = b""
    seen: dict[str, float] = {}
    quit_sent = False
    closed = False
    try:
        while not closed:
            if time.perf_counter() - started > timeout:
                missing = sorted(set(markers) - set(seen))
                raise TimeoutError(f"{' '.join(argv[1:])!r}: no {missing} or no exit in time")
            ready, _, _ = select.select([master], [], [], 0.01)
            if ready:
                try:
                    data = os.read(master, 65536)
                except OSError:  # EIO: every process on the terminal has closed it
                    data = b""
                closed = not data
                output += data
                text = _ESCAPE.sub(b"", output)
                now = time.perf_counter() - started
                for name, pattern in markers.items():
                    if name not in seen and pattern.search(text):
                        seen[name] = now
            if len(seen) == len(markers) and not quit_sent:
                os.write(master, b"\x11")  # ctrl+q
                quit_sent = True
        process.wait(timeout)
        ended = time.perf_counter() - started
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(master)
    return seen, ended


def paint_times(app: Sequence[str], env: dict[str, str]) -> tuple[float, float]:
    """Median seconds to the first frame and to the first full frame over PAINT_RUNS starts."""
    run_in_pty(app, env, FULL_FRAME)  # warm-up: creates the database, fills the file cache
    runs = [run_in_pty(app, env, FULL_FRAME)[0] for _ in range(PAINT_RUNS)]
    first = median([max(run[name] for name in FIRST_FRAME) for run in runs])
    return first, median([max(run.values()) for run in runs])


def app_env(root: Path, config: Path) -> dict[str, str]:
    """The environment of a `ctxchat` process on the data and config in `root`."""
    return {
        **harness.test_env(root, config),
        "HOME": str(root),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "TERM": "xterm-256color",
        "PYTHONPATH": os.environ.get("PYTHONPATH", ""),
    }


APP = [sys.executable, "-m", "ctxchat.cli.main"]

TEXTUAL_FLOOR = """
from textual.app import App
from textual.widgets import Footer, Static

class Floor(App):
    BINDINGS = [("ctrl+q", "quit", "Quit")]

    def compose(self):
        yield Static("Write a message")
        yield Static("used 1,234 of 128,000")
        yield Footer()

Floor().run()
"""
"""The floor for any Textual app: one static screen with the markers of a full frame."""


def first_paint() -> None:
    print(
        f"== first paint: `ctxchat` on a {COLUMNS}x{ROWS} pseudo-terminal (median of {PAINT_RUNS})"
    )
    with (
        ScriptedModelServer(models=[MODEL], requires_key=harness.TEST_KEY) as server,
        tempfile.TemporaryDirectory() as directory,
    ):
        root = Path(directory)
        config = harness.write_config(root, server.base_url, model=MODEL)
        env = app_env(root, config)
        python = sys.executable
        bare = median([run_in_pty([python, "-c", "pass"], env, {})[1] for _ in range(PAINT_RUNS)])
        version = median([run_in_pty([*APP, "--version"], env, {})[1] for _ in range(PAINT_RUNS)])
        first, full = paint_times(APP, env)
        _, floor = paint_times([python, "-c", TEXTUAL_FLOOR], env)
        harness.write_config(root, server.base_url, model=MODEL, extra=NO_SEMANTIC)
        _, full_no_semantic = paint_times(APP, env)

    print(f"bare `python -c pass`, spawn to exit: {ms(bare)}")
    print(f"`ctxchat --version` (argparse only), spawn to exit: {ms(version)}")
    print(
        f"the floor: a Textual app that draws one static screen with the same text, "
        f"first full frame: {ms(floor)}"
    )
    print(f"first frame (composer and context plan drawn): {ms(first)}")
    print(f"first full frame (… and the footer's keys; target ≤ 500 ms): {ms(full)}")
    print(
        f"  ratio: {full / bare:.0f}x a bare interpreter start, {full / floor:.1f}x the "
        f"Textual floor (+{ms(full - floor)})"
    )
    print(
        f"first full frame with semantic recall off (no encoder loading in a thread): "
        f"{ms(full_no_semantic)}"
    )


# --- 2. streaming -----------------------------------------------------------------------------


async def bare_stream(base_url: str) -> tuple[float, int]:
    """Seconds the bare openai client takes to receive the whole stream, and its content chunks."""
    client = AsyncOpenAI(base_url=base_url, api_key=harness.TEST_KEY)
    try:
        started = time.perf_counter()
        stream = await client.chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": QUESTION}], stream=True
        )
        chunks = 0
        async for chunk in stream:
            if chunk.choices and chunk.choices[0].delta.content:
                chunks += 1
        return time.perf_counter() - started, chunks
    finally:
        await client.close()


def reply_done(app: CtxChatApp) -> bool:
    if app.conversation_screen.streaming:
        return False  # checked first: the query below walks every widget, every millisecond
    items = app.query(MessageItem)
    if len(items) < 2:
        return False
    last = items.last()
    return last.view.role == "assistant" and not last.is_streaming


async def wait_until(condition: Callable[[], bool], timeout: float = 600.0) -> None:
    deadline = time.perf_counter() + timeout
    while not condition():
        if time.perf_counter() > deadline:
            raise TimeoutError("the app never got there")
        await asyncio.sleep(0.001)


@contextlib.contextmanager
def counted_writes() -> Iterator[list[str]]:
    """While entered, every write a stream makes to a reply's Markdown, in order."""
    writes: list[str] = []
    append = ReplyMarkdown.append

    def counted(self: ReplyMarkdown, markdown: str) -> AwaitComplete:
        writes.append(markdown)
        return append(self, markdown)

    ReplyMarkdown.append = counted  # type: ignore[method-assign]
    try:
        yield writes
    finally:
        ReplyMarkdown.append = append  # type: ignore[method-assign]


@dataclass(frozen=True)
class Streamed:
    """One run of the app: seconds from enter to the final frame, the reply it showed, and how
    many writes drew it on the way (the final render not counted)."""

    seconds: float
    shown: str
    writes: int
    ended: float  # `time.perf_counter()` at the final frame


async def app_stream(server: ScriptedModelServer, text: str) -> Streamed:
    """Seconds from pressing enter to the frame after the reply is finished, and the reply."""
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        config = harness.write_config(root, server.base_url, model=MODEL)
        workspace = harness.open_test_workspace(root, config)
        try:
            app = build_app(workspace, SessionOptions())
            async with app.run_test(size=(COLUMNS, ROWS)) as pilot:
                await app.workers.wait_for_complete()
                app.conversation_screen.composer.text = QUESTION
                await pilot.pause()
                server.script(text)
                with counted_writes() as writes:
                    started = time.perf_counter()
                    # What Enter does. pilot.press would also wait for the CPU to go idle,
                    # twice, for up to a second each, while the reply streams.
                    app.conversation_screen.composer.action_submit()
                    await wait_until(lambda: reply_done(app))
                    await app.screen.wait_for_refresh()
                    ended = time.perf_counter()
                shown = app.query(MessageItem).last().view.content
                return Streamed(ended - started, shown, len(writes), ended)
        finally:
            workspace.close()


@dataclass
class Timeline:
    """When each delta reached the reply (with the reply's length then), and when each write
    was on screen (with the length it showed)."""

    arrived: list[tuple[float, int]]
    drawn: list[tuple[float, int]]

    def lags(self, final_frame: float) -> list[float]:
        """Seconds from each delta's arrival to the first frame that showed it."""
        lags = []
        draws = iter(self.drawn)
        draw = next(draws, None)
        for at, length in self.arrived:
            while draw is not None and (draw[1] < length or draw[0] < at):
                draw = next(draws, None)
            lags.append((final_frame if draw is None else draw[0]) - at)
        return lags


@contextlib.contextmanager
def timeline() -> Iterator[Timeline]:
    """While entered, when each delta reached a reply and when each write was on screen."""
    line = Timeline([], [])
    received = LiveTurn.received
    post = ReplyMarkdown.post_message

    def timed_received(self: LiveTurn, text: str, reasoning: str) -> None:
        if text:
            length = (line.arrived[-1][1] if line.arrived else 0) + len(text)
            line.arrived.append((time.perf_counter(), length))
        received(self, text, reasoning)

    def timed_post(self: ReplyMarkdown, message: Message) -> bool:
        if isinstance(message, ReplyMarkdown.Appended):  # posted once the write is on screen
            line.drawn.append((time.perf_counter(), message.size))
        return post(self, message)

    LiveTurn.received = timed_received  # type: ignore[method-assign]
    ReplyMarkdown.post_message = timed_post  # type: ignore[method-assign, assignment]
    try:
        yield line
    finally:
        LiveTurn.received = received  # type: ignore[method-assign]
        ReplyMarkdown.post_message = post  # type: ignore[method-assign]


async def model_speed() -> None:
    """A reply at a model's speed: how long each delta waits to be on screen."""
    text = reply_text(MODEL_CHUNKS * CHUNK_CHARS)
    with ScriptedModelServer(
        models=[MODEL],
        requires_key=harness.TEST_KEY,
        chunk_size=CHUNK_CHARS,
        latency=1 / MODEL_SPEED,
    ) as server:
        lags: list[float] = []
        ends: list[float] = []
        rates: list[float] = []
        for _ in range(MODEL_RUNS):
            server.script(text)
            with timeline() as line:
                run = await app_stream(server, text)
            lags += line.lags(run.ended)
            ends.append(run.ended - line.arrived[-1][0])
            rates.append(len(line.arrived) / (line.arrived[-1][0] - line.arrived[0][0]))
    lags.sort()
    print(
        f"== a {MODEL_CHUNKS:,}-chunk reply at a model's speed (the server paces {MODEL_SPEED} "
        f"chunks/s; {min(rates):.0f}-{max(rates):.0f} arrived a second), {MODEL_RUNS} runs"
    )
    print(
        f"a delta's arrival to the frame showing it: median {ms(median(lags))}, "
        f"95th percentile {ms(lags[int(len(lags) * 0.95)])}, worst {ms(lags[-1])}"
    )
    print(
        "the last delta's arrival to the final frame (each run): "
        + ", ".join(ms(end) for end in ends)
    )


class MarkdownOnly(App[None]):
    """One Markdown widget in a scroll view: what a reply costs with no app around it."""

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Markdown()


async def markdown_only(base_url: str, *, naive: bool) -> float:
    """Seconds from the request to the frame after the last chunk, in `MarkdownOnly`.

    `naive`: `Markdown.update(whole text so far)` on every chunk, as a peer TUI does. Else the
    app's design: `Markdown.get_stream` per chunk, then one final `update`.
    """
    client = AsyncOpenAI(base_url=base_url, api_key=harness.TEST_KEY)
    app = MarkdownOnly()
    try:
        async with app.run_test(size=(COLUMNS, ROWS)):
            markdown = app.query_one(Markdown)
            writer = Markdown.get_stream(markdown)
            started = time.perf_counter()
            stream = await client.chat.completions.create(
                model=MODEL, messages=[{"role": "user", "content": QUESTION}], stream=True
            )
            text = ""
            async for chunk in stream:
                if chunk.choices and chunk.choices[0].delta.content:
                    delta = chunk.choices[0].delta.content
                    text += delta
                    if naive:
                        await markdown.update(text)
                    else:
                        await writer.write(delta)
            await writer.stop()
            if not naive:
                await markdown.update(text)
            await app.screen.wait_for_refresh()
            return time.perf_counter() - started
    finally:
        await client.close()


async def streaming() -> None:
    print(f"== streaming a {CHUNKS:,}-chunk reply at full speed, app at {COLUMNS}x{ROWS}")
    text = reply_text(CHUNKS * CHUNK_CHARS)
    # chunk_size, not chunks=: with `chunks` the server also pads the empty reasoning into
    # 4,000 filler reasoning chunks. 24,000 characters in 6-character pieces are 4,000 chunks.
    with ScriptedModelServer(
        models=[MODEL], requires_key=harness.TEST_KEY, chunk_size=CHUNK_CHARS
    ) as server:
        base_url = server.base_url
        bare_times = []
        for _ in range(BARE_RUNS):
            server.script(text)
            seconds, chunks = await bare_stream(base_url)
            bare_times.append(seconds)
        bare = median(bare_times)
        print(
            f"reply: {len(text):,} characters of Markdown (headings, lists, code), "
            f"{chunks:,} content chunks"
        )
        print(f"bare openai client, request to last chunk (median of {BARE_RUNS}): {ms(bare)}")

        runs = [await app_stream(server, text) for _ in range(APP_RUNS)]
        app_seconds = median([run.seconds for run in runs])
        check = "the whole reply" if all(run.shown == text for run in runs) else "a DIFFERENT text"
        print(
            f"ctxchat, enter to the frame after the reply is finished (median of {APP_RUNS}): "
            f"{ms(app_seconds)} ({check}; target within 2x)"
        )
        ratios = ", ".join(f"{run.seconds / bare:.1f}" for run in runs)
        print(f"  ratio: {app_seconds / bare:.1f}x the bare client (each run: {ratios})")
        writes = ", ".join(str(run.writes) for run in runs)
        print(
            f"  drawn on the way in {median([run.writes for run in runs]):.0f} writes before "
            f"the final render (each run: {writes}; a write waits for the last to be drawn)"
        )

        server.script(text)
        floor = await markdown_only(base_url, naive=False)
        print(
            "Textual alone, Markdown.get_stream per chunk + one final update "
            f"(no app around it): {ms(floor)}, {floor / bare:.1f}x"
        )

        measured: list[tuple[int, float]] = []
        for count in NAIVE_CHUNKS:
            server.script(text[: count * CHUNK_CHARS])
            measured.append((count, await markdown_only(base_url, naive=True)))
        for count, seconds in measured:
            print(
                f"naive peer, Markdown.update(whole text) per chunk, first {count} chunks: "
                f"{seconds:.1f} s"
            )
        # Each update re-renders all text so far: time = a*n + b*n^2, fitted to two sizes.
        (n1, t1), (n2, t2) = measured
        b = (t2 / n2 - t1 / n1) / (n2 - n1)
        a = t1 / n1 - b * n1
        estimate = a * CHUNKS + b * CHUNKS**2
        print(
            f"naive peer, all {CHUNKS:,} chunks: ~{estimate:,.0f} s, ~{estimate / bare:,.0f}x "
            f"(EXTRAPOLATED as a*n + b*n^2 from the two runs above, not measured)"
        )


# --- 3. opening a long conversation ------------------------------------------------------------


NEWEST = "Turn {n:,}."
"""How the newest message of the benchmark's conversation starts: the marker of its frame."""


def build_conversation(root: Path, messages: int = MESSAGES, texts: list[str] | None = None) -> int:
    """A database in `root` holding one conversation of `messages` messages (`texts`, else
    synthetic ones); its id. Message ids count from 1 in the order of the texts."""
    workspace = harness.open_test_workspace(root, root / "config.toml")
    counter = CachingCounter(counter_for_model(MODEL))
    store = workspace.store
    texts = list(texts) if texts is not None else synthetic_texts(messages)
    texts[-1] = f"{NEWEST.format(n=len(texts))} {texts[-1]}"
    try:
        conversation = store.conversations.create_conversation(
            "Sync service: storage", model=MODEL
        ).id
        with store.transaction():  # one commit for the whole setup
            for index, text in enumerate(texts):
                role = "user" if index % 2 == 0 else "assistant"
                count = count_message(counter, role, text)  # counted once, as when stored
                store.messages.add_message(
                    conversation,
                    role,
                    text,
                    tokens=count.tokens,
                    exact=count.exact,
                    encoding=counter.name,
                    model=MODEL if role == "assistant" else None,
                )
        store.memory.add_memory(
            "constraint", "The service must run on a single small VM.", pinned=True
        )
        store.memory.add_memory("preference", "Prefers short answers with a code example.")
        store.checkpoint()
    finally:
        workspace.close()
    return conversation


def opened_frame(messages: int) -> dict[str, re.Pattern[bytes]]:
    """Markers of the frame that shows the newest turn beside the plan, and the footer."""
    newest = re.escape(NEWEST.format(n=messages).encode())
    return {**FULL_FRAME, "newest": re.compile(newest)}


def start_times(root: Path, config: Path, messages: int) -> list[float]:
    """Seconds from spawning `ctxchat` to the frame with the newest turn, PAINT_RUNS times."""
    env = app_env(root, config)
    markers = opened_frame(messages)
    run_in_pty(APP, env, markers)  # warm-up: migrations, kept counts, the file cache
    return [max(run_in_pty(APP, env, markers)[0].values()) for _ in range(PAINT_RUNS)]


@dataclass(frozen=True)
class Opened:
    """Seconds from opening the workspace; what the pane holds once it settled."""

    workspace: float
    built: float
    settled: float
    mounted: int
    total: int


async def open_once(root: Path, config: Path) -> Opened:
    """Open the workspace, build the app and run it until it is idle (the pane has filled
    its margin), in this process: where the time goes besides imports."""
    started = time.perf_counter()
    workspace = harness.open_test_workspace(root, config)
    opened = time.perf_counter() - started
    try:
        app = build_app(workspace, SessionOptions())
        built = time.perf_counter() - started
        async with app.run_test(size=(COLUMNS, ROWS)) as pilot:
            view = app.conversation_screen.conversation_view
            await wait_until(
                lambda: bool(view.items) and app.conversation_screen.last_plan is not None
            )
            await pilot.pause()
            settled = time.perf_counter() - started
            return Opened(opened, built, settled, len(view.items), view.total_count)
    finally:
        workspace.close()


async def opening() -> None:
    print(f"== opening a {MESSAGES:,}-message conversation at {COLUMNS}x{ROWS}")
    with (
        ScriptedModelServer(models=[MODEL], requires_key=harness.TEST_KEY) as server,
        tempfile.TemporaryDirectory() as directory,
        tempfile.TemporaryDirectory() as short_directory,
    ):
        root, short = Path(directory), Path(short_directory)
        # Semantic recall off for the main figures: with it on, a history stored without
        # vectors starts embedding every message in a worker thread (minutes of CPU for
        # 10,000 messages), which competes with the UI for the GIL. Measured once below.
        config = harness.write_config(
            root, server.base_url, model=MODEL, context_window=128_000, extra=NO_SEMANTIC
        )
        short_config = harness.write_config(
            short, server.base_url, model=MODEL, context_window=128_000, extra=NO_SEMANTIC
        )
        started = time.perf_counter()
        build_conversation(root)
        print(
            f"setup: {MESSAGES:,} messages counted and stored in {time.perf_counter() - started:.1f} s"
        )
        build_conversation(short, messages=2)
        # Alternated, so that a slow moment of the machine lands on both.
        long_runs: list[float] = []
        short_runs: list[float] = []
        for _ in range(2):
            long_runs += start_times(root, config, MESSAGES)
            short_runs += start_times(short, short_config, 2)
        opened = median(long_runs)
        print(
            f"`ctxchat` on it, spawn to the frame with the newest turn and the plan "
            f"(median of {len(long_runs)}; target < 1 s): {ms(opened)}"
        )
        print(f"  the same on a 2-message conversation: {ms(median(short_runs))}")
        runs = [await open_once(root, config) for _ in range(OPEN_RUNS)]
        print(f"in this process (modules imported), median of {OPEN_RUNS}:")
        print(
            f"  workspace open (settings, store, state): {ms(median([r.workspace for r in runs]))}"
        )
        print(f"  … + build_app (session, backend): {ms(median([r.built for r in runs]))}")
        print(
            f"  … + idle, the viewport and its margin filled: {ms(median([r.settled for r in runs]))}"
        )
        last = runs[-1]
        print(f"  mounted turns: {last.mounted} of {last.total:,}")

        harness.write_config(root, server.base_url, model=MODEL, context_window=128_000)
        semantic = start_times(root, config, MESSAGES)
        print(
            "semantic recall on (the default: the encoder loads, and embeds the history, in "
            f"a thread after the first frame): spawn to the frame {ms(median(semantic))}"
        )


# --- 5. `ctxchat context` on a long conversation -----------------------------------------

CONTEXT_MESSAGES = 20_000
CONTEXT_RUNS = 5
ASKED_ABOUT = 1_000
"""The index of the old message the question asks about: recall must bring it back."""


def question_about(texts: Sequence[str], index: int) -> str:
    """A question in the words of `texts[index]` that the fewest other messages hold."""
    held = Counter(word for text in texts for word in set(re.findall(r"\w+", text.lower())))
    words = sorted(set(re.findall(r"\w{5,}", texts[index].lower())), key=lambda w: held[w])
    return f"What did we say about {', '.join(words[:3])}?"


def context_run(env: dict[str, str], question: str, *, json_out: bool = False) -> tuple[float, str]:
    """Seconds from spawning `ctxchat context` to its exit; what it printed."""
    argv = [*APP, "context", "--offline", "--message", question, *(["--json"] if json_out else [])]
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=True)
    return time.perf_counter() - started, done.stdout


def recalled(output: str) -> list[str]:
    layers = {layer["layer"]: layer for layer in json.loads(output)["layers"]}
    return [item["ref"] for item in layers["recall"]["items"]]


def context_timing() -> None:
    print(
        f"== `ctxchat context` on a {CONTEXT_MESSAGES:,}-message conversation (median of "
        f"{CONTEXT_RUNS}, after one start that keeps the counts)"
    )
    texts = varied_texts(CONTEXT_MESSAGES)
    question = question_about(texts, ASKED_ABOUT)
    wanted = f"message:{ASKED_ABOUT + 1}"
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        config = root / "config.toml"
        env = app_env(root, config)
        bare = median([context_bare(env) for _ in range(CONTEXT_RUNS)])
        for label, extra in (("by words (`[recall] semantic = false`)", NO_SEMANTIC), ("", "")):
            harness.write_config(
                root, "http://127.0.0.1:9/v1", model=MODEL, context_window=128_000, extra=extra
            )
            if not (root / "data").exists():
                build_conversation(root, CONTEXT_MESSAGES, texts)
            _, output = context_run(env, question, json_out=True)
            refs = recalled(output)
            times = [context_run(env, question)[0] for _ in range(CONTEXT_RUNS)]
            label = label or "by meaning too (the default: loads the encoder, embeds ~1 s a run)"
            found = "recalled" if wanted in refs else "NOT recalled"
            print(
                f"recall {label}: {ms(median(times))} (target ≤ 1 s by words); the message "
                f"asked about {found} ({len(refs)} recall items)"
            )
    print(f"  bare `python -c pass` in the same run: {ms(bare)}")


def context_bare(env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], env=env, check=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=("paint", "stream", "model", "open", "context"))
    only = parser.parse_args().only
    if only in (None, "paint"):
        first_paint()
    if only in (None, "context"):
        context_timing()
    if only in (None, "stream"):
        asyncio.run(streaming())
    if only in (None, "stream", "model"):
        asyncio.run(model_speed())
    if only in (None, "open"):
        asyncio.run(opening())


if __name__ == "__main__":
    main()
