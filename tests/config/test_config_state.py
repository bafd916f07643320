"""The app-owned state file: written atomically and privately, read without ever failing."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from ctxchat.config.state import (
    REJECTS_STREAM_OPTIONS,
    AppState,
    LoadedState,
    load_state,
    save_state,
    server_key,
)
from ctxchat.core.memory import Mode


def test_a_missing_file_is_a_first_run(tmp_path: Path) -> None:
    assert load_state(tmp_path / "state.toml") == LoadedState(AppState(), ())


def test_state_round_trips(tmp_path: Path) -> None:
    state = AppState(
        last_mode=Mode.OBJECTIVE,
        theme="nord",
        last_conversation_id=42,
        servers={
            "http://127.0.0.1:8080/v1": {REJECTS_STREAM_OPTIONS: True, "context_window": 8192}
        },
    )
    path = tmp_path / "data" / "state.toml"
    save_state(path, state)
    assert load_state(path) == LoadedState(state, ())


@pytest.mark.skipif(os.name == "nt", reason="POSIX file modes")
def test_the_file_is_private_and_no_temporary_file_is_left(tmp_path: Path) -> None:
    path = tmp_path / "data" / "state.toml"
    save_state(path, AppState(theme="a"))
    save_state(path, AppState(theme="b"))
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert [p.name for p in path.parent.iterdir()] == ["state.toml"]
    assert load_state(path).state.theme == "b"


def test_a_damaged_file_gives_defaults_and_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "state.toml"
    path.write_text('last_mode = "objective"\ntheme = \n')
    loaded = load_state(path)
    assert loaded.state == AppState()
    assert loaded.warnings == (
        f"state file {path} is damaged (Invalid value (at line 2, column 9)); using defaults",
    )


def test_bytes_that_are_not_text_give_defaults_and_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "state.toml"
    path.write_bytes(b"\xff\xfe\x00")
    loaded = load_state(path)
    assert loaded.state == AppState()
    assert len(loaded.warnings) == 1
    assert loaded.warnings[0].startswith(f"state file {path} could not be read (")


def test_bad_values_are_dropped_one_by_one(tmp_path: Path) -> None:
    path = tmp_path / "state.toml"
    path.write_text(
        'last_mode = "sideways"\ntheme = "nord"\nlast_conversation_id = true\n'
        '[servers."http://a/v1"]\nrejects_stream_options = true\nodd = [1]\n'
    )
    loaded = load_state(path)
    assert loaded.state == AppState(
        theme="nord", servers={"http://a/v1": {"rejects_stream_options": True}}
    )
    assert loaded.warnings == (
        f"state file {path}: ignored last_mode = 'sideways'",
        f"state file {path}: ignored last_conversation_id = True",
        f"state file {path}: ignored servers.http://a/v1.odd = [1]",
    )


def test_server_facts_are_kept_by_url_without_credentials() -> None:
    state = AppState().with_server_fact(
        "http://user:pw@host:8080/v1/", REJECTS_STREAM_OPTIONS, True
    )
    assert state.servers == {"http://host:8080/v1": {REJECTS_STREAM_OPTIONS: True}}
    assert state.server_fact("http://host:8080/v1", REJECTS_STREAM_OPTIONS) is True
    assert state.server_fact("http://other/v1", REJECTS_STREAM_OPTIONS) is None
    assert server_key(" https://x/v1/ ") == "https://x/v1"
    updated = state.with_server_fact("http://host:8080/v1", "context_window", 4096)
    assert updated.servers == {
        "http://host:8080/v1": {REJECTS_STREAM_OPTIONS: True, "context_window": 4096}
    }
    assert state.servers == {"http://host:8080/v1": {REJECTS_STREAM_OPTIONS: True}}


def test_drafts_round_trip_and_a_bad_entry_is_told_and_dropped(tmp_path: Path) -> None:
    path = tmp_path / "state.toml"
    drafts = {3: 'line one\nline two with "quotes" and ✓', 12: "another"}
    save_state(path, AppState(drafts=drafts))
    assert load_state(path) == LoadedState(AppState(drafts=drafts), ())
    path.write_text('[drafts]\n3 = "kept"\nthree = "x"\n"²" = "y"\n4 = 5\n')
    loaded = load_state(path)
    assert loaded.state.drafts == {3: "kept"}
    assert loaded.warnings == (
        f"state file {path}: ignored drafts.three = 'x'",
        f"state file {path}: ignored drafts.² = 'y'",
        f"state file {path}: ignored drafts.4 = 5",
    )
