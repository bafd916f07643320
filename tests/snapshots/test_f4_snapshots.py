"""F4 beyond switching: the picker with the model files on this machine and the way to add a
server, and the setup's form opened from it to add a server or fix a profile."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import OptionList

from ctxchat.engine.found import MODELS_DIR_ENV
from ctxchat.tui.app import CtxChatApp
from ctxchat.tui.parts import model_flow
from ctxchat.tui.screens.model_picker import ModelPicker
from ctxchat.tui.screens.setup import SetupScreen

from ..engine_server import skip_reason
from ..waiting import until
from .conftest import SHOWN_CONFIG
from .snapshot_apps import BuildApp, steady

SnapCompare = Callable[..., bool]
NARROW = (80, 24)
WIDE = (200, 50)
# Never contacted: nothing listens on port 9.
LAB = '[profiles.lab]\nbase_url = "http://127.0.0.1:9/lab/v1"\nmodel = "qwen2.5-7b"\n'


def gguf(folder: Path, name: str, megabytes: int) -> None:
    """A file that reads as a GGUF model of `megabytes` (its header alone is real)."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / name, "wb") as file:
        file.write(b"GGUF" + b"\x03\x00\x00\x00" + bytes(16))
        file.truncate(megabytes * 1024 * 1024)


def with_model_files(app: CtxChatApp, tmp_path: Path) -> CtxChatApp:
    models = tmp_path / "models"
    gguf(models, "Qwen2.5-0.5B-Instruct-Q4_K_M.gguf", 469)
    gguf(models, "Llama-3.2-1B-Instruct-Q8_0.gguf", 1_260)
    app.workspace.env[MODELS_DIR_ENV] = str(models)
    app.workspace.loaded = dataclasses.replace(app.workspace.loaded, path=SHOWN_CONFIG)
    return app


async def picker_open(pilot: Pilot[Any]) -> None:
    await steady(pilot)
    await pilot.press("f4")
    await until(pilot, lambda: isinstance(pilot.app.screen, ModelPicker))
    await steady(pilot)


def on_option(option: str, *keys: str) -> Callable[[Pilot[Any]], Any]:
    """F4, the cursor on `option`, then `keys`; wait for the form they open."""

    async def run(pilot: Pilot[Any]) -> None:
        await picker_open(pilot)
        options = pilot.app.screen.query_one(OptionList)
        options.highlighted = options.get_option_index(option)
        await pilot.press(*keys)
        await until(pilot, lambda: isinstance(pilot.app.screen, SetupScreen))
        await steady(pilot)

    return run


needs_engine = pytest.mark.skipif(skip_reason() is not None, reason=skip_reason() or "")


@needs_engine
class TestModelPickerWithFilesAndServers:
    def test_narrow(self, build: BuildApp, tmp_path: Path, snap_compare: SnapCompare) -> None:
        """`Switch profile or model`: `● profile test — gpt-4o at http://127.0.0.1:9/v1`,
        `profile lab — qwen2.5-7b at http://127.0.0.1:9/lab/v1`, a rule, `file
        Qwen2.5-0.5B-Instruct-Q4_K_M  (469 MB, your folder)` and `file
        Llama-3.2-1B-Instruct-Q8_0  (1.2 GB, your folder)`, a rule, `+ add a server…`; the
        note says Enter picks (a file loads in ctxchat's engine), ctrl+e fixes a profile and
        delete removes it; the footer has Pick, Fix, Remove and Cancel."""
        app = with_model_files(build(extra=LAB), tmp_path)
        assert snap_compare(app, run_before=picker_open, terminal_size=NARROW)


class TestServerForm:
    def test_fix_narrow(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """`Fix profile lab`, the prose naming its table in
        /home/you/.config/ctxchat/config.toml; `Another server` chosen, the fields holding
        its URL `http://127.0.0.1:9/lab/v1` (editable) and model `qwen2.5-7b`; the
        buttons `Cancel` and `Save`; the footer's `esc Cancel`."""
        app = build(extra=LAB)
        app.workspace.loaded = dataclasses.replace(app.workspace.loaded, path=SHOWN_CONFIG)
        assert snap_compare(app, run_before=on_option("p:lab", "ctrl+e"), terminal_size=NARROW)

    def test_add_wide(
        self, build: BuildApp, snap_compare: SnapCompare, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """`Add a server`: added to the config as a profile of its own, this conversation
        switches to it; with no local server answering, `… enter its address under Another
        server.`; the buttons `Cancel` and `Add and switch`."""

        async def none_found() -> list[object]:
            return []

        monkeypatch.setattr(model_flow, "found_servers", none_found)
        app = build()
        app.workspace.loaded = dataclasses.replace(app.workspace.loaded, path=SHOWN_CONFIG)
        assert snap_compare(app, run_before=on_option("add", "enter"), terminal_size=WIDE)
