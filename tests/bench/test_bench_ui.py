"""Smoke tests of bench/ui.py's helpers: they run in seconds, the benchmark itself does not."""

from __future__ import annotations

import importlib.util
import re
import sys
import time
from pathlib import Path
from types import ModuleType

import pytest

from ctxchat.testing import harness
from ctxchat.testing.server import ScriptedModelServer

BENCH = Path(__file__).resolve().parents[2] / "bench" / "ui.py"


@pytest.fixture(scope="module")
def ui() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_ui", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_the_reply_is_markdown_of_exactly_the_size_asked(ui: ModuleType) -> None:
    text = ui.reply_text(ui.CHUNKS * ui.CHUNK_CHARS)
    assert len(text) == 24_000
    assert text.count("```") >= 10 and "\n## " in text and "\n- " in text


def test_run_in_pty_sees_the_marker_then_sends_ctrl_q(ui: ModuleType, tmp_path: Path) -> None:
    # The child reads one key in raw mode, as the app does, and prints what it got.
    child = (
        "import sys, tty; tty.setraw(0); print('ready', flush=True); "
        "print(repr(sys.stdin.buffer.read(1)), flush=True)"
    )
    started = time.perf_counter()
    seen, ended = ui.run_in_pty(
        [sys.executable, "-c", child], {"PATH": "/usr/bin:/bin"}, {"ready": re.compile(rb"ready")}
    )
    assert 0 < seen["ready"] <= ended <= time.perf_counter() - started  # seconds from the start


async def test_the_markdown_only_app_renders_a_streamed_reply(ui: ModuleType) -> None:
    with ScriptedModelServer(
        models=[ui.MODEL], requires_key=harness.TEST_KEY, chunk_size=ui.CHUNK_CHARS
    ) as server:
        started = time.perf_counter()
        server.script(ui.reply_text(300))
        streamed = await ui.markdown_only(server.base_url, naive=False)
        server.script(ui.reply_text(120))
        naive = await ui.markdown_only(server.base_url, naive=True)
        both = time.perf_counter() - started
    assert streamed > 0 and naive > 0 and streamed + naive <= both  # seconds each took


async def test_an_app_run_shows_the_whole_reply_and_counts_its_writes(ui: ModuleType) -> None:
    from ctxchat.tui.widgets.reply_markdown import ReplyMarkdown

    append = ReplyMarkdown.append
    text = ui.reply_text(2_000)
    with ScriptedModelServer(
        models=[ui.MODEL], requires_key=harness.TEST_KEY, chunk_size=ui.CHUNK_CHARS
    ) as server:
        started = time.perf_counter()
        run = await ui.app_stream(server, text)
        took = time.perf_counter() - started
    assert run.shown == text
    assert 1 <= run.writes < len(text) // ui.CHUNK_CHARS  # several chunks to a write
    assert 0 < run.seconds <= took
    assert ReplyMarkdown.append is append  # the counting is undone


def test_a_started_app_shows_the_newest_turn_beside_the_plan(
    ui: ModuleType, tmp_path: Path
) -> None:
    config = harness.write_config(
        tmp_path, "http://127.0.0.1:9/v1", model=ui.MODEL, extra=ui.NO_SEMANTIC
    )
    ui.build_conversation(tmp_path, messages=4)
    started = time.perf_counter()
    seen, ended = ui.run_in_pty(ui.APP, ui.app_env(tmp_path, config), ui.opened_frame(4))
    assert set(seen) == {"composer", "plan", "footer", "newest"}
    assert 0 < max(seen.values()) <= ended <= time.perf_counter() - started


def test_each_delta_waits_for_the_first_frame_that_shows_all_of_it(ui: ModuleType) -> None:
    line = ui.Timeline(arrived=[(1.0, 6), (1.1, 12), (1.2, 18)], drawn=[(1.15, 12)])
    # The third delta is in no write's frame: it waits for the final frame.
    assert [round(lag, 2) for lag in line.lags(final_frame=2.0)] == [0.15, 0.05, 0.8]
