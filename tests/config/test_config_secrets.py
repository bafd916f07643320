"""Keys never appear in a repr, an error message or `config show`'s report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ctxchat.config.errors import ConfigError
from ctxchat.config.loader import LoadedSettings, load_settings, parse_settings
from ctxchat.config.report import settings_report
from ctxchat.config.settings import ProviderProfile, Settings
from ctxchat.redaction import mask_secret, redact

SECRET = "sk-secret-123"
LONG_SECRET = "sk-proj-abcdefghijklmnopqrstuvwxyz0123"
PROFILE = f'[profiles.a]\nbase_url = "http://a/v1"\nmodel = "m"\napi_key = "{SECRET}"\n'


def test_a_profile_repr_masks_the_key_and_auth_headers() -> None:
    profile = ProviderProfile(
        "a",
        "http://a/v1",
        "m",
        api_key=LONG_SECRET,
        headers={"Authorization": "Bearer abcdefghijklmnopqrstuvwxyz", "X-Title": "t"},
    )
    text = repr(Settings(profiles={"a": profile}))
    assert LONG_SECRET not in text
    assert "abcdefghijklmnopqrstuvwxyz" not in text
    assert "api_key='sk-proj-…0123'" in text
    assert "'X-Title': 't'" in text
    assert str(profile) == repr(profile)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            f'[context]\nmin_recent = "{SECRET}"\n',
            'config.toml:7: context.min_recent: expected a whole number ≥ 0, got "[redacted]"',
        ),
        (
            f'[context]\nsystem_promt = "{SECRET}"\n',
            'config.toml:7: context.system_promt: unknown key; did you mean "system_prompt"? '
            "(known here: system_prompt, min_recent, selection, system_placement, context_window, "
            "output_reserve, shares)",
        ),
        (
            f'[summary]\nprofile = "{SECRET}"\n',
            'config.toml:7: summary.profile: no profile named "[redacted]"; expected one of "a"',
        ),
        (
            "[context]\nmin_recent = 1.5\n",
            "config.toml:7: context.min_recent: expected a whole number ≥ 0, got 1.5",
        ),
    ],
    ids=["echoed-value", "unknown-key", "profile-name", "unrelated"],
)
def test_error_messages_never_show_the_key(extra: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_settings(PROFILE + "\n" + extra, {}, path=Path("config.toml"))
    assert str(caught.value) == message
    assert SECRET not in str(caught.value)
    assert SECRET not in repr(caught.value)


def test_a_key_of_the_wrong_type_is_not_echoed() -> None:
    text = '[profiles.a]\nbase_url = "http://a/v1"\nmodel = "m"\napi_key = 12345678901\n'
    with pytest.raises(ConfigError) as caught:
        parse_settings(text, {}, path=Path("config.toml"))
    assert str(caught.value) == "config.toml:4: profiles.a.api_key: expected a string, got a number"


def test_a_key_pasted_as_the_variable_name_is_not_echoed() -> None:
    text = f'[profiles.a]\nbase_url = "http://a/v1"\nmodel = "m"\napi_key_env = "{SECRET}"\n'
    with pytest.raises(ConfigError) as caught:
        parse_settings(text, {})
    assert SECRET not in str(caught.value)
    assert str(caught.value).endswith("not the key itself, got a string")


def test_the_environment_key_is_redacted_from_error_messages() -> None:
    env = {"OPENAI_API_KEY": "plain-looking-key-42"}
    with pytest.raises(ConfigError) as caught:
        parse_settings('theme = "plain-looking-key-42"\ncolour = 1\n', env)
    assert "plain-looking-key-42" not in str(caught.value)
    with pytest.raises(ConfigError) as caught:
        parse_settings('[context]\nmin_recent = "plain-looking-key-42"\n', env)
    assert str(caught.value) == (
        'config:2: context.min_recent: expected a whole number ≥ 0, got "[redacted]"'
    )


def _plain(report: object) -> Any:
    """The report as the CLI prints it (JSON-able data); also untyped for easy indexing."""
    return json.loads(json.dumps(report, ensure_ascii=False))


def _report(tmp_path: Path, text: str, env: dict[str, str]) -> Any:
    path = tmp_path / "config.toml"
    path.write_text(text)
    path.chmod(0o600)
    return _plain(settings_report(load_settings(path, env), env))


def test_the_report_masks_every_key(tmp_path: Path) -> None:
    text = (
        PROFILE
        + f'[profiles.b]\nbase_url = "http://b/v1"\nmodel = "m"\napi_key = "{LONG_SECRET}"\n'
        + '[profiles.c]\nbase_url = "http://c/v1"\nmodel = "m"\napi_key_env = "C_KEY"\n'
        + 'headers = { Authorization = "Bearer tok-abcdefghijklmnop" }\n'
        + '[profiles.d]\nbase_url = "http://d/v1"\nmodel = "m"\napi_key_env = "D_KEY"\n'
        + f'[context]\nsystem_prompt = "my key is {SECRET}"\n'
    )
    env = {"C_KEY": "environment-secret-value"}
    report = _report(tmp_path, text, env)
    dumped = json.dumps(report, ensure_ascii=False)
    for secret in (SECRET, LONG_SECRET, "environment-secret-value", "tok-abcdefghijklmnop"):
        assert secret not in dumped
    settings = report["settings"]
    profiles = settings["profiles"]
    assert (profiles["a"]["api_key"], profiles["a"]["api_key_source"]) == ("****", "config file")
    assert profiles["b"]["api_key"] == "sk-proj-…0123"
    assert (profiles["c"]["api_key"], profiles["c"]["api_key_source"]) == ("…alue", "$C_KEY")
    assert profiles["c"]["headers"] == {"Authorization": "…mnop"}
    assert (profiles["d"]["api_key"], profiles["d"]["api_key_source"]) == (
        None,
        "$D_KEY (not set)",
    )
    assert settings["context"]["system_prompt"] == "my key is [redacted]"


def test_the_report_says_where_settings_came_from(tmp_path: Path) -> None:
    text = 'theme = "nord"\n[context.shares]\nworking = 0.5\n[recall]\nshare = 0.2\n'
    report = _report(tmp_path, text, {})
    assert report["config_file"] == str(tmp_path / "config.toml")
    assert report["needs_setup"] is True
    sources = report["sources"]
    assert (sources["theme"], sources["default_mode"]) == ("file", "default")
    assert (sources["context.shares.working"], sources["context.shares.system"]) == (
        "file",
        "default",
    )
    assert (sources["recall.share"], sources["recall.limit"]) == ("file", "default")


def test_the_report_of_environment_settings(tmp_path: Path) -> None:
    env = {"OPENAI_API_KEY": LONG_SECRET}
    report = _plain(settings_report(load_settings(tmp_path / "none.toml", env), env))
    assert LONG_SECRET not in json.dumps(report, ensure_ascii=False)
    assert report["config_file"] is None
    assert report["settings"]["profiles"]["openai"]["api_key"] == "sk-proj-…0123"
    assert report["sources"]["profiles.openai"] == "env"
    assert report["warnings"] == []


def test_a_report_of_a_loaded_object_built_by_hand() -> None:
    report = _plain(settings_report(LoadedSettings(Settings(), None), {}))
    assert (report["settings"]["profiles"], report["needs_setup"]) == ({}, True)


@pytest.mark.parametrize(
    ("value", "masked"),
    [
        ("", "****"),
        ("short-key", "****"),
        ("abcdefghijklmnop", "…mnop"),
        ("sk-abcdefghijklmnop", "sk-…mnop"),
        ("sk-proj-abcdefghijklmnop", "sk-proj-…mnop"),
    ],
)
def test_mask_secret(value: str, masked: str) -> None:
    assert mask_secret(value) == masked


@pytest.mark.parametrize(
    ("text", "secrets", "redacted"),
    [
        ("Authorization: Bearer abc.def-123", [], "Authorization: Bearer [redacted]"),
        ("bearer xyz", [], "Bearer [redacted]"),
        ("key sk-abcdefgh123 rejected", [], "key [redacted] rejected"),
        ("the key hunter2-long leaked", ["hunter2-long"], "the key [redacted] leaked"),
        ("ab is not redacted", ["ab", None, ""], "ab is not redacted"),
        ("http://user:pass@host/v1", [], "http://user:***@host/v1"),
        ("abcdef and abcdefgh", ["abcdef", "abcdefgh"], "[redacted] and [redacted]"),
    ],
    ids=["bearer", "lowercase", "key-shaped", "given", "too-short", "url", "longest-first"],
)
def test_redact_text(text: str, secrets: list[str | None], redacted: str) -> None:
    assert redact(text, secrets) == redacted
