"""Nothing listening at the configured server: one clear line at start, and the app usable."""

from __future__ import annotations

import socket
from pathlib import Path

from textual.widgets import OptionList

from ctxchat.chat.options import SessionOptions
from ctxchat.chat.workspace import Workspace
from ctxchat.testing.harness import TEST_KEY, open_test_workspace, write_config
from ctxchat.testing.server import Flavour, ScriptedModelServer
from ctxchat.tui.app import build_app
from ctxchat.tui.screens.model_picker import ModelPicker

from ..waiting import until
from .app_harness import SIZE, Notes, settle, status_line, typed


def free_port() -> int:
    """A loopback port nothing listens on (yet)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


async def test_a_server_not_running_is_named_once_and_the_app_stays_usable(
    tmp_path: Path, workspaces: list[Workspace]
) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}/v1"
    home = tmp_path / "home"
    # No window in the config: the window would otherwise be "not reported" by the server.
    config = write_config(home, url, model="gemma-3-270m", context_window=0)
    workspace = open_test_workspace(home, config)
    workspaces.append(workspace)
    app = build_app(workspace, SessionOptions())
    notes = Notes.attach(app)
    notice = (
        f"Cannot reach the model server at {url}: start it, or change base_url in {config} "
        "(or pass --base-url)."
    )
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert status_line(app) == notice
        assert app.conversation_screen.server_notice == notice
        # Said once, on the status line: no toast, and no guess about a window nobody reported.
        assert notes.messages == []
        # Still true in another conversation.
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert status_line(app) == notice

        await typed(pilot, "Are you there now?")
        assert app.conversation_screen.composer.text == "Are you there now?"
        assert status_line(app) == notice

        with ScriptedModelServer(
            models=["gemma-3-270m"],
            flavour=Flavour.LLAMA_CPP,
            n_ctx=4096,
            requires_key=TEST_KEY,
            port=port,
        ) as server:
            server.script("Yes, here.")
            await pilot.press("enter")
            await settle(pilot)
            await until(pilot, lambda: app.conversation_screen.session.window.source == "server")
            assert app.conversation_screen.server_notice is None
            assert "Cannot reach" not in status_line(app)
            reply = app.conversation_screen.session.store.messages.messages(
                app.conversation_screen.session.stored_id
            )[-1]
            assert reply.content == "Yes, here."
            assert app.conversation_screen.session.window.context_window == 4096


async def test_a_server_not_running_with_no_model_named_is_named_once(
    tmp_path: Path, workspaces: list[Workspace]
) -> None:
    """`ctxchat --base-url URL` with nothing listening: the one line, and nothing else
    (asking for the server's models again would only fail again)."""
    url = f"http://127.0.0.1:{free_port()}/v1"
    workspace = open_test_workspace(tmp_path)
    workspaces.append(workspace)
    app = build_app(workspace, SessionOptions(base_url=url))
    notes = Notes.attach(app)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.conversation_screen.server_notice is not None)
        await settle(pilot)
        assert status_line(app) == (
            f"Cannot reach the model server at {url}: start it, or set OPENAI_BASE_URL "
            "(or pass --base-url)."
        )
        assert notes.messages == []
        assert app.conversation_screen.session.model == ""


async def test_switching_to_a_server_that_answers_clears_the_notice(
    tmp_path: Path, workspaces: list[Workspace]
) -> None:
    dead = f"http://127.0.0.1:{free_port()}/v1"
    home = tmp_path / "home"
    with ScriptedModelServer(models=["gpt-4o"], requires_key=TEST_KEY) as server:
        config = write_config(home, dead)
        with config.open("a", encoding="utf-8") as file:
            file.write(
                f'[profiles.live]\nbase_url = "{server.base_url}"\nmodel = "gpt-4o"\n'
                'api_key_env = "CTXCHAT_TEST_KEY"\ncontext_window = 16000\n'
            )
        workspace = open_test_workspace(home, config)
        workspaces.append(workspace)
        app = build_app(workspace, SessionOptions())
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert status_line(app).startswith(f"Cannot reach the model server at {dead}")
            await pilot.press("f4")
            await settle(pilot)
            picker = app.screen
            assert isinstance(picker, ModelPicker)
            options = picker.query_one(OptionList)
            options.highlighted = options.get_option_index("p:live")
            options.focus()
            await pilot.press("enter")
            await settle(pilot)
            assert app.conversation_screen.session.profile.name == "live"
            assert app.conversation_screen.server_notice is None
            assert "Cannot reach" not in status_line(app)
