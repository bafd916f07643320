"""Reading config.toml: every setting, and every mistake reported as file:line: key: expectation."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ctxchat.config.errors import ConfigError, MissingApiKey, UnusableApiKey
from ctxchat.config.loader import load_settings, parse_settings
from ctxchat.config.settings import (
    ContextSettings,
    ModelSettings,
    ProviderProfile,
    Settings,
    SummarySettings,
)
from ctxchat.core.budget import BudgetShares
from ctxchat.core.memory import Mode
from ctxchat.core.summary import SummaryStrategy
from ctxchat.core.working import Selection

FULL = """\
default_profile = "remote"
default_mode = "objective"
theme = "nord"

[profiles.local]
base_url = "http://127.0.0.1:8080/v1"
model = "gemma-3-270m"
context_window = 8192
output_reserve = 1024

[profiles.remote]
base_url = "https://api.example.com/v1"
model = "big-model"
api_key_env = "EXAMPLE_KEY"
headers = { "X-Title" = "ctxchat" }

[context]
system_prompt = "Be brief."
min_recent = 4
selection = "scored"
context_window = 32768
output_reserve = 2048

[context.shares]
system = 0.05
memory = 0.15
summary = 0.25
working = 0.55

[summary]
strategy = "keyvalue"
auto = false
min_messages = 8
min_tokens = 3000
max_unsummarized = 40
profile = "local"
model = "tiny"

[model]
chunk_timeout = 90
first_chunk_timeout = 600.5
connect_timeout = 2

[keys]
toggle_mode = "ctrl+o"
"summarize_now" = "f5,ctrl+s"
"""


def _write(tmp_path: Path, text: str, mode: int = 0o600) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    path.chmod(mode)
    return path


def _error(text: str) -> str:
    with pytest.raises(ConfigError) as caught:
        parse_settings(text, {}, path=Path("config.toml"))
    return str(caught.value)


def test_every_setting_is_read(tmp_path: Path) -> None:
    loaded = load_settings(_write(tmp_path, FULL), {})
    assert loaded.warnings == ()
    assert loaded.settings == Settings(
        profiles={
            "local": ProviderProfile(
                name="local",
                base_url="http://127.0.0.1:8080/v1",
                model="gemma-3-270m",
                context_window=8192,
                output_reserve=1024,
            ),
            "remote": ProviderProfile(
                name="remote",
                base_url="https://api.example.com/v1",
                model="big-model",
                api_key_env="EXAMPLE_KEY",
                headers={"X-Title": "ctxchat"},
            ),
        },
        default_profile="remote",
        context=ContextSettings(
            shares=BudgetShares(system=0.05, memory=0.15, summary=0.25, working=0.55),
            min_recent=4,
            selection=Selection.SCORED,
            context_window=32768,
            output_reserve=2048,
            system_prompt="Be brief.",
        ),
        summary=SummarySettings(
            strategy=SummaryStrategy.KEYVALUE,
            auto=False,
            min_messages=8,
            min_tokens=3000,
            max_unsummarized=40,
            profile="local",
            model="tiny",
        ),
        model=ModelSettings(chunk_timeout=90, first_chunk_timeout=600.5, connect_timeout=2),
        default_mode=Mode.OBJECTIVE,
        theme="nord",
        keymap={"toggle_mode": "ctrl+o", "summarize_now": "f5,ctrl+s"},
    )
    assert loaded.source("context.min_recent") == "file"
    assert loaded.source("profiles.local") == "file"


def test_an_empty_file_gives_the_defaults(tmp_path: Path) -> None:
    loaded = load_settings(_write(tmp_path, ""), {})
    assert loaded.settings == Settings()
    assert loaded.source("theme") == "default"


def test_without_default_profile_the_first_profile_is_the_default() -> None:
    text = (
        '[profiles.b]\nbase_url = "http://b/v1"\nmodel = "m"\n'
        '[profiles.a]\nbase_url = "http://a/v1"\nmodel = "m"\n'
    )
    assert parse_settings(text, {}).settings.default_profile == "b"


def test_dotted_and_inline_profiles_are_read() -> None:
    text = (
        'profiles.a.base_url = "http://a/v1"\nprofiles.a.model = "m"\n'
        'profiles.b = { base_url = "http://b/v1", model = "n", context_window = 4096 }\n'
    )
    profiles = parse_settings(text, {}).settings.profiles
    assert (profiles["a"].model, profiles["b"].context_window) == ("m", 4096)


def test_a_syntax_error_names_the_file_line_and_column(tmp_path: Path) -> None:
    path = _write(tmp_path, "[context]\nmin_recent = 3\nselection = \n")
    with pytest.raises(ConfigError) as caught:
        load_settings(path, {})
    assert str(caught.value) == f"{path}:3:13: invalid TOML: invalid value"
    assert (caught.value.path, caught.value.line, caught.value.column) == (path, 3, 13)


def test_a_wrong_value_names_the_file_line_key_and_expectation(tmp_path: Path) -> None:
    path = _write(tmp_path, FULL.replace("min_recent = 4", 'min_recent = "ten"'))
    with pytest.raises(ConfigError) as caught:
        load_settings(path, {})
    assert str(caught.value) == (
        f'{path}:19: context.min_recent: expected a whole number ≥ 0, got "ten"'
    )
    assert (caught.value.line, caught.value.key) == (19, "context.min_recent")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "[context]\nmin_recnt = 3\n",
            'config.toml:2: context.min_recnt: unknown key; did you mean "min_recent"? '
            "(known here: system_prompt, min_recent, selection, system_placement, context_window, "
            "output_reserve, shares)",
        ),
        (
            'colour = "blue"\n',
            "config.toml:1: colour: unknown key (known here: default_profile, default_mode, "
            "theme, profiles, presets, context, summary, recall, memory, task, files, model, "
            "prices, keys)",
        ),
        (
            'profiles = { a = { base_url = "http://a/v1", model = "m", colour = 1 } }\n',
            "config.toml:1: profiles.a.colour: unknown key (known here: base_url, model, engine, "
            "api_key_env, api_key, context_window, output_reserve, temperature, top_p, headers, "
            "pricing)",
        ),
        (
            '[profiles."my server"]\nbase_url = "http://a/v1"\nmodel = "m"\n"api-key" = "x"\n',
            'config.toml:4: profiles."my server".api-key: unknown key; did you mean "api_key"? '
            "(known here: base_url, model, engine, api_key_env, api_key, context_window, "
            "output_reserve, temperature, top_p, headers, pricing)",
        ),
    ],
    ids=["typo", "top-level", "inline-table", "quoted-keys"],
)
def test_unknown_keys_are_errors_with_their_line(text: str, message: str) -> None:
    assert _error(text) == message


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '[profiles.a]\nbase_url = "http://a/v1"\nmodel = "m"\ncontext_window = "big"\n',
            "config.toml:4: profiles.a.context_window: expected a whole number from 0 to "
            '100,000,000, got "big"',
        ),
        (
            "[context]\ncontext_window = 100000000000000000000000000000\n",
            "config.toml:2: context.context_window: expected a whole number from 0 to "
            "100,000,000, got 100000000000000000000000000000",
        ),
        (
            "[summary]\nmin_tokens = 2000.0\n",
            "config.toml:2: summary.min_tokens: expected a whole number ≥ 0, got 2000.0",
        ),
        (
            "[context]\nmin_recent = -1\n",
            "config.toml:2: context.min_recent: expected a whole number ≥ 0, got -1",
        ),
        (
            '[summary]\nauto = "yes"\n',
            'config.toml:2: summary.auto: expected true or false, got "yes"',
        ),
        (
            "context = 3\n",
            "config.toml:1: context: expected a table, like [context], got 3",
        ),
        (
            '[[profiles]]\nname = "x"\n',
            "config.toml:1: profiles: expected a table, like [profiles.local], got an array",
        ),
        (
            '[profiles.a]\nbase_url = "http://a/v1"\n',
            'config.toml:1: profiles.a.model: missing: expected a model name, like "gpt-4o-mini"',
        ),
        (
            '[profiles.a]\nbase_url = "localhost:8080"\nmodel = "m"\n',
            "config.toml:2: profiles.a.base_url: expected a URL starting with http:// or "
            'https://, got "localhost:8080"',
        ),
        (
            '[keys]\ntoggle_mode = ""\n',
            'config.toml:2: keys.toggle_mode: expected keys such as "ctrl+o", got ""',
        ),
        (
            'theme = ""\n',
            'config.toml:1: theme: expected a theme name, got ""',
        ),
        (
            "[model]\nchunk_timeout = 0\n",
            "config.toml:2: model.chunk_timeout: expected seconds, above 0, got 0",
        ),
        (
            '[model]\nconnect_timeout = "5s"\n',
            'config.toml:2: model.connect_timeout: expected seconds, above 0, got "5s"',
        ),
    ],
    ids=[
        "string",
        "absurd window",
        "float",
        "negative",
        "bool",
        "table",
        "array",
        "missing",
        "url",
        "keys",
        "theme",
        "timeout",
        "timeout-string",
    ],
)
def test_wrong_values_name_the_line_key_and_expectation(text: str, message: str) -> None:
    assert _error(text) == message


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            'default_mode = "objectiv"\n',
            'config.toml:1: default_mode: expected one of "personalization", "objective", '
            'got "objectiv"',
        ),
        (
            "[context]\nselection = 3\n",
            'config.toml:2: context.selection: expected one of "recency", "scored", got 3',
        ),
        (
            '[summary]\nstrategy = "brief"\n',
            'config.toml:2: summary.strategy: expected one of "summarize", "semantic", '
            '"keyvalue", got "brief"',
        ),
    ],
    ids=["mode", "selection", "strategy"],
)
def test_enum_errors_list_the_allowed_values(text: str, message: str) -> None:
    assert _error(text) == message


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "[context.shares]\nsystem = 0.1\nmemory = -0.1\n",
            "config.toml:3: context.shares.memory: memory share is -0.1: a share cannot be "
            "negative",
        ),
        (
            "[context.shares]\nsummary = 1.5\n",
            "config.toml:2: context.shares.summary: summary share is 1.5: a share cannot exceed 1",
        ),
        (
            "[context.shares]\nsystem = 0.5\nmemory = 0.5\nsummary = 0.5\nworking = 0.5\n",
            "config.toml:1: context.shares: shares add up to 2 (system 0.5, memory 0.5, "
            "summary 0.5, task 0, files 0, recall 0, working 0.5); they must not exceed 1",
        ),
        (
            "[context.shares]\nworking = 0.9\n",
            "config.toml:1: context.shares: shares add up to 1.3 (system 0.1, memory 0.1, "
            "summary 0.2, task 0, files 0, recall 0, working 0.9); they must not exceed 1 (unset "
            "shares keep their defaults: system, memory, summary)",
        ),
        (
            '[context.shares]\nworking = "most"\n',
            'config.toml:2: context.shares.working: expected a number from 0 to 1, got "most"',
        ),
    ],
    ids=["negative", "over-one", "sum", "sum-with-defaults", "type"],
)
def test_bad_shares_name_the_value(text: str, message: str) -> None:
    assert _error(text) == message


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '[profiles.a]\nbase_url = "http://a/v1"\nmodel = "m"\ncontext_window = 4096\n'
            "output_reserve = 8192\n",
            "config.toml:5: profiles.a.output_reserve: output_reserve (8192) must be smaller "
            'than the context window of profile "a" (4096)',
        ),
        (
            "[context]\ncontext_window = 4096\noutput_reserve = 4096\n",
            "config.toml:3: context.output_reserve: output_reserve (4096) must be smaller than "
            "the context window (4096)",
        ),
        (
            "[context]\noutput_reserve = 8192\n"
            '[profiles.a]\nbase_url = "http://a/v1"\nmodel = "m"\ncontext_window = 4096\n',
            "config.toml:2: context.output_reserve: output_reserve (8192) must be smaller than "
            'the context window of profile "a" (4096)',
        ),
    ],
    ids=["profile", "context", "context-reserve-for-a-profile"],
)
def test_a_window_smaller_than_the_reserve_names_both(text: str, message: str) -> None:
    assert _error(text) == message


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            'default_profile = "b"\n[profiles.a]\nbase_url = "http://a/v1"\nmodel = "m"\n',
            'config.toml:1: default_profile: no profile named "b"; expected one of "a"',
        ),
        (
            '[summary]\nprofile = "zz"\n',
            'config.toml:2: summary.profile: no profile named "zz": no profiles are configured',
        ),
        (
            '[profiles.a]\nbase_url = "http://a/v1"\nmodel = "m"\napi_key_env = "X"\n'
            'api_key = "abc"\n',
            "config.toml:5: profiles.a.api_key: set api_key_env or api_key, not both "
            "(api_key_env is set)",
        ),
        (
            '[profiles.a]\nbase_url = "http://a/v1"\nmodel = "m"\napi_key_env = "my key"\n',
            "config.toml:4: profiles.a.api_key_env: expected an environment variable name "
            "(letters, digits and _), not the key itself, got a string",
        ),
    ],
    ids=["default-profile", "summary-profile", "both-key-sources", "env-name"],
)
def test_profile_references_are_checked(text: str, message: str) -> None:
    assert _error(text) == message


def test_keys_after_a_multiline_string_keep_their_lines() -> None:
    text = '[context]\nsystem_prompt = """\n[summary]\nauto = 1\n"""\nmin_recent = -1\n'
    assert _error(text) == "config.toml:6: context.min_recent: expected a whole number ≥ 0, got -1"


def test_text_that_is_not_utf8_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(b'theme = "nord"\ntheme2 = "\xff"\n')
    with pytest.raises(ConfigError) as caught:
        load_settings(path, {})
    assert str(caught.value) == f"{path}:2: not UTF-8 text"


def test_a_directory_instead_of_a_file_is_reported(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings(tmp_path, {})
    assert str(caught.value) == f"{tmp_path}: cannot be read: Is a directory"


def test_a_missing_key_variable_is_not_a_load_error_but_fails_when_needed() -> None:
    text = '[profiles.a]\nbase_url = "http://a/v1"\nmodel = "m"\napi_key_env = "EXAMPLE_KEY"\n'
    profile = parse_settings(text, {}).settings.profile()
    for env in ({}, {"EXAMPLE_KEY": "  "}):
        with pytest.raises(MissingApiKey) as caught:
            profile.resolve_api_key(env)
        assert str(caught.value) == (
            'profile "a" takes its API key from $EXAMPLE_KEY, which is not set; '
            "export EXAMPLE_KEY=… or change api_key_env in the config file"
        )
        assert caught.value.variable == "EXAMPLE_KEY"
    assert profile.resolve_api_key({"EXAMPLE_KEY": "value-123\n"}) == "value-123"


def test_a_key_no_request_header_can_carry_is_refused_naming_where_it_came_from() -> None:
    text = '[profiles.a]\nbase_url = "http://a/v1"\nmodel = "m"\napi_key_env = "EXAMPLE_KEY"\n'
    profile = parse_settings(text, {}).settings.profile()
    for bad in ("ключ", "sk-“key”", "sk-a\rInjected: 1"):
        with pytest.raises(UnusableApiKey) as caught:
            profile.resolve_api_key({"EXAMPLE_KEY": bad})
        assert "the API key from $EXAMPLE_KEY has a character a request cannot carry" in str(
            caught.value
        )
        assert bad.strip() not in str(caught.value)
    stored = '[profiles.a]\nbase_url = "http://a/v1"\nmodel = "m"\napi_key = "sk-é"\n'
    with pytest.raises(UnusableApiKey, match="from the config file"):
        parse_settings(stored, {}).settings.profile().resolve_api_key({})


def test_a_stored_key_is_used_before_any_variable() -> None:
    text = '[profiles.a]\nbase_url = "http://a/v1"\nmodel = "m"\napi_key = "stored-key"\n'
    profile = parse_settings(text, {}).settings.profile()
    assert profile.resolve_api_key({"OPENAI_API_KEY": "other"}) == "stored-key"


KEY_FILE = '[profiles.a]\nbase_url = "http://a/v1"\nmodel = "m"\napi_key = "sk-secret-123"\n'


@pytest.mark.skipif(os.name == "nt", reason="POSIX file modes")
@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o660])
def test_a_key_in_a_file_others_can_read_is_warned_about(tmp_path: Path, mode: int) -> None:
    path = _write(tmp_path, KEY_FILE, mode=mode)
    assert load_settings(path, {}).warnings == (
        f"{path} holds an API key but other users can read it (mode {mode:04o}); "
        f"run: chmod 600 {path}",
    )


@pytest.mark.skipif(os.name == "nt", reason="POSIX file modes")
def test_no_warning_for_a_private_key_file_or_a_readable_file_without_a_key(
    tmp_path: Path,
) -> None:
    assert load_settings(_write(tmp_path, KEY_FILE, mode=0o600), {}).warnings == ()
    no_key = KEY_FILE.replace('api_key = "sk-secret-123"', 'api_key_env = "K"')
    assert load_settings(_write(tmp_path, no_key, mode=0o644), {}).warnings == ()
