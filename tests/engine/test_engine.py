"""The engine as users meet it: `ctxchat engine start|status|stop`, one engine however many
ask at once, its own key, stopping by itself, and each fault told in one line."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import httpx2
import pytest

from ctxchat.chat.options import SessionOptions
from ctxchat.chat.session_factory import Connect, open_session
from ctxchat.chat.workspace import open_workspace
from ctxchat.engine.backend import EngineBackend
from ctxchat.engine.files import bundled_model, free_memory

from ..engine_server import skip_reason
from ..waiting import until_true

WHY = skip_reason()
if WHY is not None:
    pytest.skip(WHY, allow_module_level=True)

START_PATIENCE = 120.0
"""A guard against a hang while a model loads on a busy machine, not a timing assertion."""


def ctxchat(data: Path, *args: str, idle: float = 300.0) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CTXCHAT_", "OPENAI_"))}
    env.update(CTXCHAT_DATA_DIR=str(data), CTXCHAT_CONFIG=str(data / "none.toml"))
    env["CTXCHAT_ENGINE_IDLE"] = str(idle)
    return subprocess.run(
        [sys.executable, "-m", "ctxchat.cli.main", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=START_PATIENCE,
        check=False,
    )


def status(data: Path) -> dict[str, object]:
    done = ctxchat(data, "engine", "status", "--json")
    assert done.returncode == 0, done.stderr
    answer: dict[str, object] = json.loads(done.stdout)
    return answer


@pytest.fixture
def data(tmp_path: Path) -> object:
    yield tmp_path
    ctxchat(tmp_path, "engine", "stop")


def test_started_it_answers_only_with_its_key_and_stops_on_request(data: Path) -> None:
    assert status(data) == {"running": False}

    started = ctxchat(data, "engine", "start", "--json")
    assert started.returncode == 0, started.stderr
    engine = json.loads(started.stdout)
    assert engine["model"] == "smollm2" and engine["context_window"] > 0
    assert str(engine["base_url"]).startswith("http://127.0.0.1:")
    assert started.stderr == ""  # llama.cpp's log went to the engine's log file
    assert status(data)["pid"] == engine["pid"]

    models = f"{engine['base_url']}/models"
    assert httpx2.get(models, timeout=10).status_code == 401  # nobody else can use it
    key = json.loads((data / "engine" / "engine.json").read_text())["key"]
    answer = httpx2.get(models, headers={"Authorization": f"Bearer {key}"}, timeout=10)
    assert answer.json()["data"][0]["id"] == "smollm2"
    assert (data / "engine" / "engine.json").stat().st_mode & 0o077 == 0

    stopped = ctxchat(data, "engine", "stop")
    assert stopped.returncode == 0 and "Stopped the engine" in stopped.stdout
    assert status(data) == {"running": False}
    assert ctxchat(data, "engine", "stop").stderr == "ctxchat: the engine is not running\n"


def test_three_processes_asking_at_once_start_one_engine(data: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CTXCHAT_")}
    env.update(CTXCHAT_DATA_DIR=str(data), CTXCHAT_CONFIG=str(data / "none.toml"))
    command = [sys.executable, "-m", "ctxchat.cli.main", "engine", "start", "--json"]
    starting = [
        subprocess.Popen(command, env=env, stdout=subprocess.PIPE, text=True) for _ in range(3)
    ]
    pids = {json.loads(p.communicate(timeout=START_PATIENCE)[0])["pid"] for p in starting}

    assert len(pids) == 1
    assert status(data)["pid"] in pids


def test_unused_it_stops_by_itself(data: Path) -> None:
    started = ctxchat(data, "engine", "start", "--json", idle=1)
    pid = json.loads(started.stdout)["pid"]

    until_true(lambda: not _alive(pid), timeout=60, what="the engine stopping by itself")
    assert status(data) == {"running": False}


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_a_file_that_is_not_gguf_is_refused_in_one_line(data: Path) -> None:
    text = data / "notes.gguf"
    text.write_text("not a model\n" * 10)

    done = ctxchat(data, "engine", "start", str(text))

    assert done.returncode == 1
    assert done.stderr == (
        f"ctxchat: {text} is not a GGUF model file (llama.cpp's format): choose a .gguf file.\n"
    )


def test_a_damaged_model_is_refused_in_one_line(data: Path) -> None:
    model = bundled_model()
    assert model is not None
    damaged = data / "cut.gguf"
    with model.open("rb") as whole:
        damaged.write_bytes(whole.read(model.stat().st_size // 5))  # its header is whole

    done = ctxchat(data, "engine", "start", str(damaged))

    assert done.returncode == 1
    assert done.stderr == (
        f"ctxchat: llama.cpp could not load {damaged}: the file is damaged or not a model "
        "it reads (the engine's log says more).\n"
    )
    assert status(data) == {"running": False}


def test_a_model_larger_than_the_free_memory_is_refused_before_loading(data: Path) -> None:
    model = bundled_model()
    free = free_memory()
    assert model is not None and free is not None
    huge = data / "huge.gguf"
    with model.open("rb") as whole, huge.open("wb") as out:
        out.write(whole.read(4096))
        out.truncate(free * 2)  # sparse: takes no room on the disk

    done = ctxchat(data, "engine", "start", str(huge))

    assert done.returncode == 1
    line = done.stderr.removeprefix("ctxchat: ")
    assert line.startswith("huge.gguf needs about ") and line.count("\n") == 1
    assert " of memory and only " in line and line.endswith(
        " is free: close other programs or choose a smaller model.\n"
    )
    assert not (data / "engine" / "engine.log").exists()  # nothing was loaded


def test_a_port_taken_is_told_in_one_line(data: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]

        done = ctxchat(data, "engine", "start", "--port", str(port))

    assert done.returncode == 1
    assert done.stderr == (
        f"ctxchat: Port {port} is taken by another program: choose another engine port "
        "(0 picks a free one).\n"
    )


async def test_a_profiles_window_is_the_one_its_engine_serves(data: Path) -> None:
    config = data / "config.toml"
    config.write_text('[profiles.local]\nengine = "smollm2"\ncontext_window = 2048\n')
    workspace = open_workspace(config=config, data_dir=data, env={})
    try:
        session = open_session(workspace, SessionOptions(), None, connect=Connect.MUST)
        assert isinstance(session.backend, EngineBackend)
        await session.backend.real()
        assert session.backend.state is not None
        assert session.backend.state.n_ctx == 2048
        assert session.profile.base_url.startswith("http://127.0.0.1:")
        await session.backend.aclose()
    finally:
        workspace.close()


def test_config_show_names_the_engine_as_the_server_and_its_key(data: Path) -> None:
    (data / "none.toml").write_text('[profiles.local]\nengine = "smollm2"\n')

    shown = ctxchat(data, "config", "show")

    profile = json.loads(shown.stdout)["settings"]["profiles"]["local"]
    assert (profile["base_url"], profile["engine"], profile["model"]) == (
        "the engine",
        "smollm2",
        "smollm2",
    )
    assert profile["api_key_source"] == "the engine's own, new at each start"
