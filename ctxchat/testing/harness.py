"""Building a real ctxchat app for tests, screenshots and benchmarks: temp dirs, a config
pointing at a scripted server, no user environment leaking in."""

from __future__ import annotations

from pathlib import Path

from ctxchat.chat.workspace import Workspace, open_workspace

TEST_KEY = "sk-harness-0123456789abcdef"


def write_config(
    root: Path,
    base_url: str,
    *,
    model: str = "gpt-4o",
    context_window: int = 16_000,
    output_reserve: int = 2_000,
    extra: str = "",
) -> Path:
    """A config.toml in `root` with one profile, "test", talking to `base_url`."""
    root.mkdir(parents=True, exist_ok=True)
    path = root / "config.toml"
    path.write_text(
        'default_profile = "test"\n'
        f"{extra}\n"
        "[profiles.test]\n"
        f'base_url = "{base_url}"\n'
        f'model = "{model}"\n'
        'api_key_env = "CTXCHAT_TEST_KEY"\n'
        f"context_window = {context_window}\n"
        f"output_reserve = {output_reserve}\n",
        encoding="utf-8",
    )
    return path


def test_env(root: Path, config: Path | None = None) -> dict[str, str]:
    """The only environment the app sees: its dirs and the test key."""
    env = {
        # Model files are looked for under HOME: none of the machine's are the test's.
        "HOME": str(root),
        "CTXCHAT_TEST_KEY": TEST_KEY,
        "CTXCHAT_DATA_DIR": str(root / "data"),
        "CTXCHAT_CACHE_DIR": str(root / "cache"),
    }
    if config is not None:
        env["CTXCHAT_CONFIG"] = str(config)
    else:
        env["CTXCHAT_CONFIG"] = str(root / "config.toml")
    return env


def open_test_workspace(root: Path, config: Path | None = None) -> Workspace:
    env = test_env(root, config)
    return open_workspace(
        config=Path(env["CTXCHAT_CONFIG"]) if config is not None else None,
        data_dir=root / "data",
        env=env,
    )
