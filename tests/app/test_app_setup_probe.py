"""First-run setup: a typed URL is asked what it serves, and a key is typed masked and kept
where the user says, against the real scripted server."""

from __future__ import annotations

import contextlib
import socket
import stat
import tomllib
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Checkbox, Input, RadioButton, Static

from ctxchat.chat.workspace import Workspace
from ctxchat.testing.server import Flavour, ScriptedModelServer
from ctxchat.tui.app import CtxChatApp
from ctxchat.tui.screens.inspector import RequestInspector
from ctxchat.tui.screens.setup import SetupScreen

from .app_harness import SIZE, Notes, settle, typed
from .test_app_startup import first_run

KEY = "sk-setup-typed-0123456789abcdef"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def field(setup: SetupScreen, name: str) -> Input:
    return setup.query_one(f"#setup-{name}", Input)


def line(setup: SetupScreen, name: str) -> str:
    return str(setup.query_one(f"#setup-{name}", Static).render())


async def another_server(pilot: Pilot[int]) -> SetupScreen:
    setup = pilot.app.screen
    assert isinstance(setup, SetupScreen)
    setup.query_one("#provider-custom", RadioButton).value = True
    await settle(pilot)
    assert not field(setup, "url").disabled
    return setup


async def test_a_typed_url_is_asked_and_fills_the_model_list(
    tmp_path: Path, workspaces: list[Workspace], monkeypatch: pytest.MonkeyPatch
) -> None:
    app, _ = await first_run(tmp_path, workspaces, monkeypatch, ports=[])
    with ScriptedModelServer(
        flavour=Flavour.OLLAMA, models=["llama3.2:3b", "qwen2.5:7b"]
    ) as server:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            setup = await another_server(pilot)
            field(setup, "url").focus()
            # Typed key by key: one probe once typing pauses, for the whole URL.
            await pilot.press(*server.base_url)
            await settle(pilot)
            assert line(setup, "probe") == f"✓ Ollama at {server.base_url}: 2 models."
            assert field(setup, "model").value == "llama3.2:3b"
            assert line(setup, "hint") == "Models on this server: llama3.2:3b, qwen2.5:7b."
            asked = [r.path for r in server.other_requests]
            assert asked.count("/v1/models") == 1

            await pilot.press("ctrl+s")
            await settle(pilot)
            assert app.conversation_screen.has_session
            assert (
                app.conversation_screen.session.profile.base_url,
                app.conversation_screen.session.model,
            ) == (
                server.base_url,
                "llama3.2:3b",
            )


async def test_a_model_typed_while_the_url_is_asked_is_kept(
    tmp_path: Path, workspaces: list[Workspace], monkeypatch: pytest.MonkeyPatch
) -> None:
    app, _ = await first_run(tmp_path, workspaces, monkeypatch, ports=[])
    with ScriptedModelServer(models=["first", "second"]) as server:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            setup = await another_server(pilot)
            field(setup, "url").value = server.base_url
            field(setup, "model").focus()
            await pilot.press(*"second")
            await settle(pilot)
            assert line(setup, "probe") == (
                f"✓ OpenAI-compatible server at {server.base_url}: 2 models."
            )
            assert field(setup, "model").value == "second"


async def test_what_a_typed_url_answered_is_said_in_one_line(
    tmp_path: Path, workspaces: list[Workspace], monkeypatch: pytest.MonkeyPatch
) -> None:
    app, _ = await first_run(tmp_path, workspaces, monkeypatch, ports=[])
    dead = f"http://127.0.0.1:{free_port()}/v1"
    with (
        ScriptedModelServer(requires_key=KEY, models=["locked"]) as server,
        ScriptedModelServer() as open_server,
    ):
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            setup = await another_server(pilot)
            field(setup, "url").value = dead
            await settle(pilot)
            assert line(setup, "probe") == (
                f"Nothing answers at {dead}: start the server, or check the address and port."
            )
            root = open_server.base_url.removesuffix("/v1")
            field(setup, "url").value = root + "/api"
            await settle(pilot)
            assert line(setup, "probe") == (
                f"Something answers at {root}/api, but not as an OpenAI-compatible server "
                "(no model list at /models): check the path, which usually ends in /v1."
            )
            field(setup, "url").value = server.base_url
            await settle(pilot)
            assert line(setup, "probe") == (
                f"The server at {server.base_url} wants a key: type it under API key."
            )
            assert field(setup, "model").value == ""

            # The key typed is what the next probe sends.
            field(setup, "key").focus()
            await pilot.press(*KEY)
            await settle(pilot)
            assert line(setup, "probe") == (
                f"✓ OpenAI-compatible server at {server.base_url}: 1 model."
            )
            assert field(setup, "model").value == "locked"


def written_profile(path: Path) -> dict[str, object]:
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    (profile,) = tomllib.loads(path.read_text(encoding="utf-8"))["profiles"].values()
    assert isinstance(profile, dict)
    return profile


@contextlib.asynccontextmanager
async def setup_for_a_locked_server(
    tmp_path: Path, workspaces: list[Workspace], monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[tuple[CtxChatApp, Pilot[int], SetupScreen, ScriptedModelServer, Notes]]:
    """First run, "Another server" chosen and a server that wants `KEY` typed in."""
    app, notes = await first_run(tmp_path, workspaces, monkeypatch, ports=[])
    with ScriptedModelServer(requires_key=KEY, models=["locked"]) as server:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            setup = await another_server(pilot)
            field(setup, "url").value = server.base_url
            yield app, pilot, setup, server, notes


async def test_a_typed_key_is_masked_and_stored_in_the_config_when_chosen(
    tmp_path: Path, workspaces: list[Workspace], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "config.toml"
    locked = setup_for_a_locked_server(tmp_path, workspaces, monkeypatch)
    async with locked as (app, pilot, setup, server, notes):
        field(setup, "key").focus()
        await pilot.press(*KEY)
        await settle(pilot)
        assert field(setup, "key").password
        assert setup.query_one("#setup-store-key", Checkbox).value
        assert line(setup, "key-hint") == (
            f"The key is written to {config}, readable only by you (mode 0600)."
        )
        assert KEY not in app.export_screenshot()

        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.conversation_screen.has_session
        assert written_profile(config)["api_key"] == KEY
        assert "api_key_env" not in written_profile(config)
        assert (
            f"Saved the configuration to {config}. The key is in it; the file is "
            "readable only by you (mode 0600)." in notes.messages
        )
        server.script("Unlocked.")
        await typed(pilot, "Hello")
        await pilot.press("enter")
        await settle(pilot)
        assert server.requests[-1]["messages"][-1]["content"] == "Hello"
        await pilot.press("f2")
        await settle(pilot)
        assert isinstance(app.screen, RequestInspector)
        assert KEY not in app.export_screenshot()
        assert not any(KEY in message for message in notes.messages)


async def test_a_key_not_stored_is_used_this_run_and_the_variable_is_explained(
    tmp_path: Path, workspaces: list[Workspace], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "config.toml"
    locked = setup_for_a_locked_server(tmp_path, workspaces, monkeypatch)
    async with locked as (app, pilot, setup, server, notes):
        field(setup, "key").value = KEY
        setup.query_one("#setup-store-key", Checkbox).value = False
        await settle(pilot)
        assert line(setup, "key-hint") == (
            "The key is used for this run only; the config names $OPENAI_API_KEY. Set it "
            "in your shell (or its profile) for the next: export OPENAI_API_KEY=…"
        )
        await pilot.press("ctrl+s")
        await settle(pilot)
        profile = written_profile(config)
        assert profile["api_key_env"] == "OPENAI_API_KEY"
        assert "api_key" not in profile
        assert KEY not in config.read_text(encoding="utf-8")
        assert (
            f"Saved the configuration to {config}. The key is used for this run only: set "
            "it for the next with export OPENAI_API_KEY=… (e.g. in your shell's profile)."
            in notes.messages
        )
        server.script("Unlocked.")
        await typed(pilot, "Hello")
        await pilot.press("enter")
        await settle(pilot)
        reply = app.conversation_screen.session.store.messages.messages(
            app.conversation_screen.session.stored_id
        )[-1]
        assert reply.content == "Unlocked."


async def test_going_back_to_a_field_adds_to_it_and_keeps_what_was_typed(
    tmp_path: Path, workspaces: list[Workspace], monkeypatch: pytest.MonkeyPatch
) -> None:
    app, _ = await first_run(tmp_path, workspaces, monkeypatch, ports=[])
    with ScriptedModelServer(flavour=Flavour.OLLAMA, models=["gemma3:270m"]) as server:
        root = server.base_url.removesuffix("/v1")
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            setup = await another_server(pilot)
            field(setup, "url").focus()
            # The URL without /v1, the model, then back to the URL to finish it: no pauses.
            await pilot.press(*root, "tab", *"my-model", "shift+tab", *"/v1")
            await settle(pilot)
            assert field(setup, "url").value == server.base_url
            assert field(setup, "model").value == "my-model"
            assert line(setup, "probe") == f"✓ Ollama at {server.base_url}: 1 model."
