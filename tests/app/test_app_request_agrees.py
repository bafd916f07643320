"""One request, every surface: what the server received is what `context --json`, the stored
plan and the inspector show, for every server flavour the scripted server imitates."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxchat.chat.options import SessionOptions
from ctxchat.testing.harness import TEST_KEY, open_test_workspace, write_config
from ctxchat.testing.server import Flavour, ScriptedModelServer
from ctxchat.tui.app import build_app
from ctxchat.tui.screens.inspector import RequestInspector

from .app_harness import SIZE, Cli, settle, typed

HEADERS = (
    '[profiles.test.headers]\n"X-Tenant" = "acme"\n"X-Api-Token" = "tenant-secret-0123456789"\n'
)


@pytest.mark.parametrize("flavour", list(Flavour))
async def test_the_request_shown_everywhere_is_the_one_received(
    tmp_path: Path,
    cli: Cli,
    flavour: Flavour,
) -> None:
    with ScriptedModelServer(models=["gpt-4o"], requires_key=TEST_KEY, flavour=flavour) as server:
        home = tmp_path / "home"
        config = write_config(home, server.base_url, extra=HEADERS)
        run = cli(home, str(config))
        server.script("Paris.", "About two million.")

        planned = (await run("context", "--json", "--message", "Capital of France?"))["request"]
        sent = await run("send", "--json", "Capital of France?")
        received = server.requests[-1]
        assert json.loads(received.raw) == planned["body"] == sent["plan"]["request"]["body"]
        assert planned["url"] == server.base_url + "/chat/completions"
        arrived = {name.lower(): value for name, value in received.headers.items()}
        assert arrived["x-tenant"] == "acme"
        assert arrived["x-api-token"] == "tenant-secret-0123456789"
        # Shown with every secret masked: the key and the auth-like header.
        assert planned["headers"] == {
            "Authorization": "Bearer sk-…cdef",
            "X-Tenant": "acme",
            "X-Api-Token": "…6789",
        }
        assert "tenant-secret" not in json.dumps(planned)
        assert TEST_KEY not in json.dumps(planned)

        next_planned = (await run("context", "--json", "--message", "And its population?"))[
            "request"
        ]
        workspace = open_test_workspace(home, config)
        try:
            app = build_app(workspace, SessionOptions())
            async with app.run_test(size=SIZE) as pilot:
                await settle(pilot)
                reply = workspace.store.messages.messages(
                    app.conversation_screen.session.stored_id
                )[-1]
                stored = workspace.store.plans.load_plan(reply.id)
                assert stored is not None and stored.request is not None
                assert stored.request["body"] == json.loads(received.raw)

                await typed(pilot, "And its population?")
                await pilot.press("f2")
                inspector = app.screen
                assert isinstance(inspector, RequestInspector)
                assert dict(inspector.body) == next_planned["body"]
                await pilot.press("escape")
                app.conversation_screen.conversation_view.select(reply.id)
                await pilot.press("f2")
                inspector = app.screen
                assert isinstance(inspector, RequestInspector)
                assert dict(inspector.body) == json.loads(received.raw)
                await pilot.press("escape")

                app.conversation_screen.composer.focus()
                await pilot.press("enter")
                await settle(pilot)
                assert json.loads(server.requests[-1].raw) == next_planned["body"]
        finally:
            workspace.close()
