"""The core imports no UI, network or database library (checked in a fresh interpreter)."""

import pkgutil
import subprocess
import sys

import pytest

import ctxchat.core

FORBIDDEN = ("textual", "rich", "openai", "httpx", "sqlite3", "_sqlite3", "aiohttp", "platformdirs")


def test_core_modules_import_no_ui_network_or_database() -> None:
    modules = [f"ctxchat.core.{m.name}" for m in pkgutil.iter_modules(ctxchat.core.__path__)]
    assert len(modules) >= 8
    code = (
        "import sys\n"
        + "".join(f"import {name}\n" for name in modules)
        + f"print(sorted(m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


def test_loading_an_encoding_imports_only_tiktoken() -> None:
    code = (
        "import sys\n"
        "from ctxchat.core.tokens import counter_for_model\n"
        "counter_for_model('gpt-4o').count_text('hi')\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


@pytest.mark.perf
def test_the_app_imports_markdown_only_to_draw_a_turn() -> None:
    """Protects the first frame: Markdown's imports wait for the first turn to draw."""
    # Textual's Markdown, markdown-it and Pygments take about 45 ms to import: a start on a
    # new conversation draws its first frame without them; the first turn brings them.
    code = (
        "import sys\n"
        "import ctxchat.tui.app\n"
        "before = sorted(m for m in sys.modules if m.split('.')[0] in ('markdown_it', 'pygments'))\n"
        "from ctxchat.tui.widgets.conversation import item_class\n"
        "item_class()\n"
        "print(before, 'markdown_it' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[] True"


@pytest.mark.perf
def test_the_app_imports_the_setup_form_and_f4s_changes_only_when_used() -> None:
    """Protects the first frame: the first-run form (also F4's server form), the local
    server probe and the config editor load when a user opens them, not with the app."""
    later = ("ctxchat.tui.screens.setup", "ctxchat.model.discovery", "ctxchat.config.profile_edit")
    code = (
        "import sys\n"
        "import ctxchat.tui.app\n"
        f"print(sorted(m for m in {later!r} if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"
