"""F4's changes to the config file: one profile's table changes, the rest of the file stays as
the user wrote it, and a file whose shape would need more is left alone with what to write."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

import pytest

from ctxchat.config.loader import load_settings
from ctxchat.config.profile_edit import ProfileEditError, remove_profile, save_profile
from ctxchat.config.settings import ProviderProfile
from ctxchat.config.template import OLD_PROMISE, PROMISE, write_initial_config

HAND_WRITTEN = """\
# My ctxchat config: two servers.
default_profile = "home"

[profiles.home]  # the box under the desk
base_url = "http://192.168.1.20:8080/v1"
model = "qwen"
context_window = 8192   # what it was started with

# The work one.
[profiles.work]
base_url = "https://llm.example.com/v1"
model = "big"
api_key_env = "WORK_KEY"

[context]
system_prompt = "Be brief."
"""


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(HAND_WRITTEN, encoding="utf-8")
    path.chmod(0o644)
    return path


def test_adding_a_server_appends_its_table_and_keeps_every_line_before(config: Path) -> None:
    assert save_profile(config, "lab", {"base_url": "http://10.0.0.5:8000/v1", "model": "m"})
    text = config.read_text(encoding="utf-8")
    assert text.startswith(HAND_WRITTEN)
    assert text.endswith('\n[profiles.lab]\nbase_url = "http://10.0.0.5:8000/v1"\nmodel = "m"\n')
    settings = load_settings(config, {}).settings
    assert settings.profile("lab").base_url == "http://10.0.0.5:8000/v1"
    assert settings.default_profile == "home"
    assert oct(config.stat().st_mode & 0o777) == oct(0o644)  # no key in it: as it was


def test_fixing_a_profile_changes_its_keys_in_place_with_its_comments(config: Path) -> None:
    changed = save_profile(
        config,
        "home",
        {"base_url": "http://192.168.1.21:8080/v1", "model": "qwen", "api_key_env": "HOME_KEY"},
    )
    assert changed
    text = config.read_text(encoding="utf-8")
    assert text == HAND_WRITTEN.replace("192.168.1.20", "192.168.1.21").replace(
        "context_window = 8192   # what it was started with\n",
        'context_window = 8192   # what it was started with\napi_key_env = "HOME_KEY"\n',
    )


def test_a_key_set_to_none_goes_and_a_stored_key_makes_the_file_private(config: Path) -> None:
    save_profile(config, "work", {"api_key_env": None, "api_key": "sk-test-1234567890"})
    data = tomllib.loads(config.read_text(encoding="utf-8"))
    assert data["profiles"]["work"] == {
        "base_url": "https://llm.example.com/v1",
        "model": "big",
        "api_key": "sk-test-1234567890",
    }
    assert config.stat().st_mode & 0o777 == 0o600


def test_saving_what_is_there_already_leaves_the_file_alone(config: Path) -> None:
    before = config.stat().st_mtime_ns
    assert not save_profile(config, "home", {"model": "qwen"})
    assert config.stat().st_mtime_ns == before


def test_removing_a_profile_takes_out_its_table_alone(config: Path) -> None:
    remove_profile(config, "work")
    text = config.read_text(encoding="utf-8")
    assert "[profiles.work]" not in text and "WORK_KEY" not in text
    assert "# The work one." not in text  # the comment above the table went with it
    assert "[context]" in text and "[profiles.home]  # the box under the desk" in text
    assert set(load_settings(config, {}).settings.profiles) == {"home"}


def test_a_profile_written_as_an_inline_table_is_refused_with_what_to_write(
    tmp_path: Path,
) -> None:
    path = tmp_path / "config.toml"
    original = 'profiles = { home = { base_url = "http://h/v1", model = "q" } }\n'
    path.write_text(original, encoding="utf-8")
    with pytest.raises(ProfileEditError) as raised:
        save_profile(path, "home", {"model": "r"})
    assert "Write it by hand:\n[profiles.home]" in str(raised.value)
    with pytest.raises(ProfileEditError):
        save_profile(path, "lab", {"base_url": "http://l/v1", "model": "m"})
    with pytest.raises(ProfileEditError):
        remove_profile(path, "home")
    assert path.read_text(encoding="utf-8") == original


def test_a_config_that_is_not_toml_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[profiles.home\nmodel = 1\n", encoding="utf-8")
    with pytest.raises(ProfileEditError, match="is not valid TOML"):
        save_profile(path, "lab", {"base_url": "http://l/v1", "model": "m"})
    assert path.read_text(encoding="utf-8") == "[profiles.home\nmodel = 1\n"


def test_a_quoted_profile_name_is_found_and_written_quoted(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[profiles."my box"]\nbase_url = "http://b/v1"\nmodel = "x"\n')
    save_profile(path, "my box", {"model": "y"})
    save_profile(path, "lab.2", {"base_url": "http://l/v1", "model": "m"})
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    assert data["profiles"]["my box"]["model"] == "y"
    assert data["profiles"]["lab.2"]["model"] == "m"


def test_a_config_written_by_ctxchat_says_the_promise_that_holds(tmp_path: Path) -> None:
    path = write_initial_config(
        tmp_path / "config.toml",
        profile=ProviderProfile(name="local", base_url="http://127.0.0.1:8080/v1", model="m"),
    )
    assert PROMISE in path.read_text(encoding="utf-8")
    old = path.read_text(encoding="utf-8").replace(PROMISE, OLD_PROMISE)
    path.write_text(old, encoding="utf-8")
    save_profile(path, "lab", {"base_url": "http://l/v1", "model": "m"})
    text = path.read_text(encoding="utf-8")
    assert OLD_PROMISE not in text and PROMISE in text
    assert load_settings(path, {}).settings.profile("lab").model == "m"


def test_no_config_file_yet_gets_one_with_the_profile(tmp_path: Path) -> None:
    path = tmp_path / "conf" / "config.toml"
    save_profile(path, "lab", {"base_url": "http://l/v1", "model": "m"})
    assert tomllib.loads(path.read_text(encoding="utf-8")) == {
        "profiles": {"lab": {"base_url": "http://l/v1", "model": "m"}}
    }
    assert os.stat(path).st_mode & 0o777 == 0o600


def test_removing_a_profile_ctxchat_wrote_takes_its_headers_table_too(tmp_path: Path) -> None:
    path = write_initial_config(
        tmp_path / "config.toml",
        profile=ProviderProfile(name="local", base_url="http://127.0.0.1:8080/v1", model="m"),
    )
    save_profile(path, "lab", {"base_url": "http://l/v1", "model": "m"})
    with pytest.raises(ProfileEditError, match=r"default_profile in .* names local"):
        remove_profile(path, "local")
    path.write_text(
        path.read_text(encoding="utf-8").replace(
            'default_profile = "local"', 'default_profile = "lab"'
        )
    )
    remove_profile(path, "local")
    text = path.read_text(encoding="utf-8")
    assert "[profiles.local" not in text
    assert set(load_settings(path, {}).settings.profiles) == {"lab"}
    assert "[context]" in text  # the tables after it stay
