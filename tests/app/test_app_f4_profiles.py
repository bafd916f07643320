"""F4 beyond the configured profiles: a model file on this machine loads in the engine as a job
(`f9` cancels it), a server is added or a profile fixed in the setup's form, a profile is
removed; each changes its own table of the config alone, and the next request goes where the
picker said."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, OptionList, RadioButton

from ctxchat.engine.backend import EngineBackend
from ctxchat.engine.control import running_engine, stop_engine
from ctxchat.engine.files import bundled_model
from ctxchat.engine.found import MODELS_DIR_ENV
from ctxchat.engine.state import start_lock
from ctxchat.testing.server import ScriptedModelServer
from ctxchat.tui.app import CtxChatApp
from ctxchat.tui.screens.confirm import ConfirmScreen
from ctxchat.tui.screens.model_picker import ModelPicker
from ctxchat.tui.screens.setup import SetupScreen

from ..engine_server import skip_reason
from .app_harness import SIZE, MakeApp, Notes, settle, typed, until
from .test_app_editing_keys import keys
from .test_app_jobs import jobs_text

LAB = '[profiles.lab]\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "lab-model"\n'


async def open_picker(pilot: Pilot[Any]) -> tuple[ModelPicker, list[str | None]]:
    """F4; the picker and the ids of what it lists."""
    await pilot.press("f4")
    await until(pilot, lambda: isinstance(pilot.app.screen, ModelPicker))
    await settle(pilot)
    picker = pilot.app.screen
    assert isinstance(picker, ModelPicker)
    options = picker.query_one(OptionList)
    return picker, [options.get_option_at_index(i).id for i in range(options.option_count)]


async def highlight(pilot: Pilot[Any], picker: ModelPicker, option: str) -> None:
    options = picker.query_one(OptionList)
    options.highlighted = options.get_option_index(option)
    options.focus()
    await pilot.pause()


async def open_form(pilot: Pilot[Any], option: str, key: str, title: str) -> SetupScreen:
    """F4, `key` on `option`: the setup's form it opens, titled `title`."""
    picker, _ = await open_picker(pilot)
    await highlight(pilot, picker, option)
    await pilot.press(key)
    await until(pilot, lambda: isinstance(pilot.app.screen, SetupScreen))
    await settle(pilot)
    form = pilot.app.screen
    assert isinstance(form, SetupScreen)
    assert str(form.query_one("#setup-title").render()) == title
    return form


def config_of(app: CtxChatApp) -> dict[str, Any]:
    path = app.workspace.loaded.path
    assert path is not None
    return tomllib.loads(path.read_text(encoding="utf-8"))


async def send(pilot: Pilot[Any], text: str) -> None:
    await typed(pilot, text)
    await pilot.press("enter")
    await settle(pilot)


async def test_a_server_added_in_f4_is_written_as_its_own_profile_and_gets_the_next_message(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, notes = make_app()
    with ScriptedModelServer(models=["other-model"]) as other:
        other.script("From the added server.")
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            before = app.workspace.loaded.path.read_text(encoding="utf-8")  # type: ignore[union-attr]
            form = await open_form(pilot, "add", "enter", "Add a server")
            custom = next(b for b in form.query(RadioButton) if b.name == "custom")
            custom.value = True
            await pilot.pause()
            form.query_one("#setup-url", Input).value = other.base_url
            await until(pilot, lambda: form.query_one("#setup-model", Input).value == "other-model")
            await pilot.press("ctrl+s")
            await until(pilot, lambda: app.conversation_screen.session.profile.name == "server")
            await settle(pilot)

            config = config_of(app)
            assert config["profiles"]["server"] == {
                "base_url": other.base_url,
                "model": "other-model",
            }
            text = app.workspace.loaded.path.read_text(encoding="utf-8")  # type: ignore[union-attr]
            assert text.startswith(before)  # the rest of the file as it was
            assert "Now talking to other-model (server)." in notes.messages
            await send(pilot, "Which server are you?")
            assert other.requests[-1]["model"] == "other-model"
            assert all(
                r["messages"][-1]["content"] != "Which server are you?" for r in server.requests
            )


async def test_fixing_the_profile_in_use_changes_its_model_and_the_next_request(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, notes = make_app()
    server.script("Answered as the mini model.")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        form = await open_form(pilot, "p:test", "ctrl+e", "Fix profile test")
        assert form.query_one("#setup-url", Input).value == server.base_url
        assert form.query_one("#setup-env", Input).value == "CTXCHAT_TEST_KEY"
        model = form.query_one("#setup-model", Input)
        assert model.value == "gpt-4o"
        model.value = "gpt-4o-mini"
        await pilot.press("ctrl+s")
        await until(pilot, lambda: app.conversation_screen.session.model == "gpt-4o-mini")
        await settle(pilot)

        profile = config_of(app)["profiles"]["test"]
        assert profile["model"] == "gpt-4o-mini"
        assert profile["context_window"] == 16_000  # keys the form does not show stay
        assert profile["api_key_env"] == "CTXCHAT_TEST_KEY"
        assert any(m.startswith("Saved profile test in ") for m in notes.messages)
        await send(pilot, "Which model?")
        assert server.requests[-1]["model"] == "gpt-4o-mini"


async def test_escape_closes_the_form_and_the_config_stays_as_it_was(make_app: MakeApp) -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        before = app.workspace.loaded.path.read_text(encoding="utf-8")  # type: ignore[union-attr]
        form = await open_form(pilot, "p:test", "ctrl+e", "Fix profile test")
        form.query_one("#setup-model", Input).value = "something-else"
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is app.conversation_screen
        after = app.workspace.loaded.path.read_text(encoding="utf-8")  # type: ignore[union-attr]
        assert after == before
        assert app.conversation_screen.session.model == "gpt-4o"


async def test_a_profile_is_removed_once_confirmed_and_the_one_in_use_is_refused(
    make_app: MakeApp,
) -> None:
    app, notes = make_app(extra=LAB)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        picker, listed = await open_picker(pilot)
        assert "p:lab" in listed
        await highlight(pilot, picker, "p:test")
        await pilot.press("delete")
        await settle(pilot)
        assert (
            "test is the default profile (default_profile in the config): make another the "
            "default first." in notes.messages
        )
        assert "test" in config_of(app)["profiles"]

        picker, _ = await open_picker(pilot)
        await highlight(pilot, picker, "p:lab")
        await pilot.press("delete")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.click("#confirm")
        await settle(pilot)
        assert set(config_of(app)["profiles"]) == {"test"}
        assert any(m.startswith("Removed profile lab from ") for m in notes.messages)
        _, listed = await open_picker(pilot)
        assert "p:lab" not in listed


async def test_a_profile_of_the_engine_is_not_fixed_in_the_servers_form(make_app: MakeApp) -> None:
    app, notes = make_app(extra='[profiles.mine]\nengine = "smollm2"\n')
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        picker, _ = await open_picker(pilot)
        await highlight(pilot, picker, "p:mine")
        await pilot.press("ctrl+e")
        await settle(pilot)
        assert app.screen is app.conversation_screen
        assert (
            "Profile mine runs a model file in ctxchat's engine: pick another file in F4 to "
            "run that one, or add a server." in notes.messages
        )


async def test_arrows_and_enter_in_one_burst_pick_where_the_arrows_moved_to(
    make_app: MakeApp,
) -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await open_picker(pilot)
        keys(pilot, "home", "down", "down", "enter")  # as a terminal sends them, at once
        await until(pilot, lambda: app.screen is app.conversation_screen)
        await settle(pilot)
        assert app.conversation_screen.session.model == "gpt-4o-mini"


WHY = skip_reason()
needs_engine = pytest.mark.skipif(WHY is not None, reason=WHY or "")


@pytest.fixture
def model_files(make_app: MakeApp, tmp_path: Path) -> tuple[CtxChatApp, Notes, Path]:
    """An app whose machine has one model file (the small model, under another name)."""
    small = bundled_model()
    assert small is not None
    mine = tmp_path / "models" / "my-model.gguf"
    mine.parent.mkdir()
    mine.symlink_to(small)
    app, notes = make_app()
    app.workspace.env[MODELS_DIR_ENV] = str(mine.parent)
    return app, notes, mine


@needs_engine
async def test_a_model_file_listed_in_f4_loads_as_a_job_and_the_conversation_talks_to_it(
    model_files: tuple[CtxChatApp, Notes, Path],
) -> None:
    app, notes, mine = model_files
    engine = app.workspace.locations.engine_dir
    try:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            picker, listed = await open_picker(pilot)
            assert "f:0" in listed
            options = picker.query_one(OptionList)
            shown = str(options.get_option("f:0").prompt)
            assert "file my-model  (94 MB, your folder)" in shown
            await highlight(pilot, picker, "f:0")
            await pilot.press("enter")
            await until(pilot, lambda: jobs_text(app).startswith("Loading my-model (94 MB)"))
            await until(
                pilot,
                lambda: app.conversation_screen.session.profile.name == "my-model",
                timeout=120,
            )
            await settle(pilot)

            assert config_of(app)["profiles"]["my-model"] == {
                "engine": str(mine),
                "model": "my-model",
            }
            session = app.conversation_screen.session
            assert isinstance(session.backend, EngineBackend)
            state = running_engine(engine)
            assert state is not None and state.model_path == str(mine)
            assert "Now talking to my-model (my-model)." in notes.messages
            # The engine's address of the moment is no server the run was given.
            assert str(app.conversation_screen.sub_title).startswith("my-model · my-model · mode")
    finally:
        stop_engine(engine)


@needs_engine
async def test_f9_cancels_a_model_file_loading_and_nothing_is_written(
    model_files: tuple[CtxChatApp, Notes, Path],
) -> None:
    app, notes, _ = model_files
    engine = app.workspace.locations.engine_dir
    engine.mkdir(parents=True, exist_ok=True)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            before = app.workspace.loaded.path.read_text(encoding="utf-8")  # type: ignore[union-attr]
            picker, _ = await open_picker(pilot)
            await highlight(pilot, picker, "f:0")
            # Another process is starting the engine: the load waits for it, on the line.
            with start_lock(engine, 5):
                await pilot.press("enter")
                await until(
                    pilot,
                    lambda: jobs_text(app).startswith(
                        "Loading my-model (94 MB) in ctxchat's engine · step 1 of 4: starting"
                    ),
                )
                await pilot.press("f9")
                await until(pilot, lambda: jobs_text(app) == "")
            await settle(pilot)
            assert (
                "Cancelled: Loading my-model (94 MB) in ctxchat's engine. The engine stopped "
                "loading it; the conversation keeps its model." in notes.messages
            )
            after = app.workspace.loaded.path.read_text(encoding="utf-8")  # type: ignore[union-attr]
            assert after == before
            assert app.conversation_screen.session.profile.name == "test"
            assert running_engine(engine) is None
    finally:
        stop_engine(engine)
