"""Engine profiles as sessions use them: the URL they talk to before and after the engine
ran, and two of them running other models never share a connection."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from ctxchat.chat.connection import same_server
from ctxchat.config.settings import ENGINE_PLACEHOLDER_URL, engine_profile
from ctxchat.engine.profiles import with_engine_url
from ctxchat.engine.state import PORT_FILE


def test_an_engine_profile_talks_where_the_engine_listened_last(tmp_path: Path) -> None:
    profile = engine_profile()

    assert with_engine_url(tmp_path, profile).base_url == ENGINE_PLACEHOLDER_URL
    (tmp_path / PORT_FILE).write_text("40123")
    assert with_engine_url(tmp_path, profile).base_url == "http://127.0.0.1:40123/v1"
    other = dataclasses.replace(profile, engine=None, base_url="http://h/v1")
    assert with_engine_url(tmp_path, other) == other


def test_two_engine_profiles_of_other_models_are_not_the_same_server() -> None:
    small = engine_profile("small")
    big = engine_profile("big", "/models/big.gguf")

    assert small.base_url == big.base_url
    assert big.model == "big"
    assert not same_server(small, big, {})
    assert same_server(small, engine_profile("again"), {})
