"""First run with model files on this machine: they are offered beside the small model, and
choosing one writes a profile that runs it in the engine."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from textual.widgets import RadioButton

from ctxchat.chat.options import SessionOptions
from ctxchat.chat.workspace import Workspace
from ctxchat.engine.backend import EngineBackend
from ctxchat.engine.control import stop_engine
from ctxchat.engine.files import bundled_model
from ctxchat.engine.found import MODELS_DIR_ENV
from ctxchat.testing.harness import open_test_workspace
from ctxchat.tui.app import build_app
from ctxchat.tui.screens.setup import SetupScreen
from ctxchat.tui.widgets.budget_bar import BudgetBar

from ..engine_server import skip_reason
from .app_harness import SIZE, settle, status_line, typed, until
from .test_app_startup import first_run

WHY = skip_reason()
if WHY is not None:
    pytest.skip(WHY, allow_module_level=True)


async def test_a_model_file_found_is_offered_and_chosen_runs_in_the_engine(
    tmp_path: Path, workspaces: list[Workspace], monkeypatch: pytest.MonkeyPatch
) -> None:
    small = bundled_model()
    assert small is not None
    mine = tmp_path / "models" / "my-model.gguf"
    mine.parent.mkdir()
    mine.symlink_to(small)
    monkeypatch.setenv(MODELS_DIR_ENV, str(mine.parent))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    app, _ = await first_run(tmp_path, workspaces, monkeypatch, ports=[])
    try:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            setup = app.screen
            assert isinstance(setup, SetupScreen)
            offered = [str(b.label) for b in setup.query(RadioButton)]
            assert offered[1].startswith("my-model  (94 MB, your folder)")
            assert setup.provider == "engine"  # the small model stays the choice made

            setup.query(RadioButton)[1].value = True
            await pilot.press("ctrl+s")
            await settle(pilot)

            assert not isinstance(app.screen, SetupScreen)
            config = tomllib.loads((tmp_path / "config.toml").read_text(encoding="utf-8"))
            assert config["profiles"]["local"]["engine"] == str(mine)
            assert config["profiles"]["local"]["model"] == "my-model"
            backend = app.conversation_screen.session.backend
            assert isinstance(backend, EngineBackend)
            await until(pilot, lambda: backend.state is not None, timeout=120)
            assert backend.state is not None and backend.state.model_path == str(mine)
    finally:
        stop_engine(tmp_path / "data" / "engine")


async def test_a_model_file_the_engine_cannot_run_is_one_line_and_the_app_stays_usable(
    tmp_path: Path, workspaces: list[Workspace]
) -> None:
    notes = tmp_path / "notes.gguf"
    notes.write_text("not a model\n")
    config = tmp_path / "config.toml"
    config.write_text(f'[profiles.local]\nengine = "{notes}"\n')
    workspace = open_test_workspace(tmp_path, config)
    workspaces.append(workspace)
    app = build_app(workspace, SessionOptions())
    line = f"{notes} is not a GGUF model file (llama.cpp's format): choose a .gguf file."
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: status_line(app) == line)

        await typed(pilot, "Still here?")
        assert app.conversation_screen.composer.text == "Still here?"


async def test_before_the_engine_answers_the_window_is_read_from_the_model_file(
    tmp_path: Path, workspaces: list[Workspace]
) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[profiles.local]\nengine = "smollm2"\n')
    workspace = open_test_workspace(tmp_path, config)
    workspaces.append(workspace)
    # Offline: the engine is not asked about itself, so what the panel says comes from the
    # file (the app still starts the engine, for the first message to go at once).
    app = build_app(workspace, SessionOptions(offline=True))
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            await settle(pilot)
            window = app.conversation_screen.session.window
            assert (window.context_window, window.source) == (8_192, "model file")
            shown = str(app.query_one(BudgetBar).render())
            assert "window 8,192 (read from the model file)" in shown
    finally:
        stop_engine(tmp_path / "data" / "engine")
