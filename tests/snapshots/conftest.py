"""Deterministic app snapshots: UTC dates, a store whose clock the test sets, no user
environment, no cursor blink, no toasts, fixed terminal sizes."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ctxchat.chat.options import SessionOptions
from ctxchat.chat.workspace import Workspace
from ctxchat.model import discovery
from ctxchat.model.discovery import FoundServer
from ctxchat.store import Store
from ctxchat.testing.harness import open_test_workspace, write_config
from ctxchat.tui.app import CtxChatApp, build_app

from .snapshot_apps import NOW, BuildApp, Clock

# A base URL that is never contacted: the apps in these snapshots only plan, except where
# a test passes the scripted server. Its port is fixed, so it could never vary a picture.
QUIET_URL = "http://127.0.0.1:9/v1"
# Where the first-run screen says the config will be written (the same on every machine).
SHOWN_CONFIG = Path("/home/you/.config/ctxchat/config.toml")


def without_toasts(app: CtxChatApp) -> CtxChatApp:
    """Toasts time out on the wall clock, and one posted under a dialog stays drawn there:
    the pictures leave them out (the app tests check every notification's text)."""

    def silent(*args: object, **kwargs: object) -> None:
        return None

    app.notify = silent
    return app


@pytest.fixture(autouse=True)
def utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Dates render in UTC, whatever the machine's zone."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def clock() -> Clock:
    return Clock(NOW)


@pytest.fixture
def workspaces() -> Iterator[list[Workspace]]:
    opened: list[Workspace] = []
    yield opened
    for workspace in opened:
        workspace.close()


def _with_clock(workspace: Workspace, clock: Clock) -> Workspace:
    """The workspace with its store opened again on the test's clock."""
    workspace.store.close()
    workspace.store = Store.open(workspace.locations.database, clock=clock)
    return workspace


@pytest.fixture
def build(tmp_path: Path, clock: Clock, workspaces: list[Workspace]) -> BuildApp:
    """The app on a config for `base_url` (never contacted unless a test serves it)."""

    def make(
        *,
        base_url: str = QUIET_URL,
        extra: str = "",
        context_window: int = 16_000,
        output_reserve: int = 2_000,
        offline: bool = True,
    ) -> CtxChatApp:
        config = write_config(
            tmp_path / "home",
            base_url,
            context_window=context_window,
            output_reserve=output_reserve,
            extra=extra,
        )
        workspace = _with_clock(open_test_workspace(tmp_path / "home", config), clock)
        workspaces.append(workspace)
        # Offline: the app never asks the server about itself (nor whether it is there).
        return without_toasts(build_app(workspace, SessionOptions(offline=offline)))

    return make


@pytest.fixture
def build_first_run(
    tmp_path: Path,
    clock: Clock,
    workspaces: list[Workspace],
    monkeypatch: pytest.MonkeyPatch,
) -> Callable[[list[FoundServer]], CtxChatApp]:
    """The app with no config at all; loopback discovery "finds" `found`."""

    def make(found: list[FoundServer]) -> CtxChatApp:
        async def probe(*args: object, **kwargs: object) -> list[FoundServer]:
            return list(found)

        monkeypatch.setattr(discovery, "probe_local_servers", probe)
        workspace = _with_clock(open_test_workspace(tmp_path), clock)
        workspace.locations = dataclasses.replace(workspace.locations, config_file=SHOWN_CONFIG)
        workspaces.append(workspace)
        return without_toasts(build_app(workspace, SessionOptions()))

    return make
