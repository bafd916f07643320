"""The window ctxchat's engine serves is what the model was trained for, capped by the
memory free, and every plan says so when it is less: on the real engine."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxchat.chat.options import SessionOptions
from ctxchat.chat.session_factory import Connect, learn_server, open_session
from ctxchat.chat.workspace import open_workspace
from ctxchat.engine import control
from ctxchat.engine.control import EngineOptions, ensure_engine, stop_engine
from ctxchat.engine.files import bundled_model, check_gguf, model_shape, needed_memory

from ..engine_server import skip_reason

pytestmark = pytest.mark.integration

WHY = skip_reason()
if WHY is not None:
    pytest.skip(WHY, allow_module_level=True)


async def test_short_memory_caps_the_window_and_every_plan_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    small = bundled_model()
    assert small is not None
    shape = model_shape(small)
    assert shape is not None and shape.context_length == 8_192
    # Memory for the model and 3,000 tokens of its cache, no more.
    free = needed_memory(check_gguf(small)) + shape.cache_bytes_per_token * 3_000
    monkeypatch.setattr(control, "free_memory", lambda: free)
    engine_dir = tmp_path / "engine"
    (tmp_path / "config.toml").write_text('[profiles.local]\nengine = "smollm2"\n')
    try:
        state = ensure_engine(engine_dir, EngineOptions())
        assert state.n_ctx == 2_816  # 3,000 tokens, in steps of 256
        workspace = open_workspace(
            config=tmp_path / "config.toml",
            data_dir=tmp_path / "data",
            env={"CTXCHAT_ENGINE_DIR": str(engine_dir)},
        )
        try:
            conversation = workspace.start_conversation(workspace.settings.profile())
            session = open_session(workspace, SessionOptions(), conversation, connect=Connect.MUST)
            await learn_server(session, workspace)
            assert (session.window.context_window, session.window.source) == (2_816, "server")
            said = (
                "ctxchat's engine serves 2,816 of the 8,192 tokens smollm2 was trained for: "
                "the cache for more would not fit in the"
            )
            plan = session.plan("What is the window?")
            assert any(warning.startswith(said) for warning in plan.warnings)
            assert any(w.startswith(said) for w in plan.to_dict()["warnings"])  # context --json
            if session.backend is not None:
                await session.backend.aclose()
        finally:
            workspace.close()
    finally:
        stop_engine(engine_dir)
