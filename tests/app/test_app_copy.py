"""Copying a message or one of its code blocks: the text goes to tmux's buffer or the
desktop's clipboard tool (fake ones on PATH here, real processes) and the terminal, and the
note says where it went, never more."""

from __future__ import annotations

import stat
from dataclasses import dataclass
from pathlib import Path

import pytest

from ctxchat.tui.app import CtxChatApp
from ctxchat.tui.screens.code_block_picker import CodeBlockPicker

from .app_harness import SIZE, MakeApp, Notes, seed, settle, until

ANSWER = """Run this:

```sh
make check
```

then:

```python
import ctxchat
ctxchat.main()
```
"""

ONE_BLOCK = "Just this:\n\n```sql\nSELECT 1;\n```\n"


@dataclass
class FakeTools:
    """Fake `tmux`, `wl-copy`, `xclip`, `pbcopy` in a folder that is all of PATH: each keeps
    its arguments and what it read, and exits with the status it is told."""

    folder: Path

    def install(self, name: str, *, status: int = 0, says: str = "") -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / name
        path.write_text(
            "#!/bin/sh\n"
            f'echo "$@" > "{self.folder}/{name}.args"\n'
            f'/bin/cat > "{self.folder}/{name}.in"\n'
            + (f'echo "{says}" >&2\n' if says else "")
            + f"exit {status}\n",
            encoding="utf-8",
        )
        path.chmod(path.stat().st_mode | stat.S_IXUSR)

    def received(self, name: str) -> tuple[str, str] | None:
        """(arguments, input) of tool `name`, or None if it never ran."""
        if not (self.folder / f"{name}.in").exists():
            return None
        args = (self.folder / f"{name}.args").read_text(encoding="utf-8").strip()
        return args, (self.folder / f"{name}.in").read_text(encoding="utf-8")


@pytest.fixture
def tools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeTools:
    """No tmux and no display, and nothing on PATH but the fake tools a test installs."""
    for name in ("TMUX", "WAYLAND_DISPLAY", "DISPLAY"):
        monkeypatch.delenv(name, raising=False)
    fake = FakeTools(tmp_path / "fake-bin")
    fake.folder.mkdir()
    monkeypatch.setenv("PATH", str(fake.folder))
    return fake


def with_reply(app: CtxChatApp, reply: str) -> None:
    seed(
        app.workspace.store,
        [("user", "How do I check it?"), ("assistant", reply)],
        conversation_id=app.conversation_screen.session.stored_id,
    )


async def copy_newest(
    app: CtxChatApp, notes: Notes, key: str = "ctrl+c", *, pick: tuple[str, ...] = ()
) -> None:
    """Copy with `key` in the conversation (the newest message; `pick`: the keys that pick
    a block in the list that opens), and wait for the note."""
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.conversation_screen.conversation_view.focus()
        await pilot.press(key)
        if pick:
            await until(pilot, lambda: isinstance(app.screen, CodeBlockPicker))
            await pilot.press(*pick)
        await until(pilot, lambda: notes.messages != [])
        assert app.screen is app.conversation_screen
        if key == "ctrl+c":
            assert app.clipboard == ANSWER  # and the terminal was sent it (OSC 52)


async def test_in_tmux_the_text_goes_to_tmuxs_buffer(
    make_app: MakeApp, tools: FakeTools, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TMUX", "/tmp/tmux-1000/default,1234,0")
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-0")
    tools.install("tmux")
    tools.install("wl-copy")
    app, notes = make_app()
    with_reply(app, ANSWER)
    await copy_newest(app, notes)
    assert tools.received("tmux") == ("load-buffer -w -", ANSWER)
    assert tools.received("wl-copy") is None
    assert notes.calls == [
        ("Copied 12 lines to tmux's buffer and the terminal (OSC 52).", "information")
    ]


@pytest.mark.parametrize(
    ("tool", "display", "args"),
    [
        ("wl-copy", "WAYLAND_DISPLAY", ""),
        ("xclip", "DISPLAY", "-selection clipboard"),
        ("pbcopy", None, ""),
    ],
)
async def test_outside_tmux_the_desktops_tool_takes_it(
    make_app: MakeApp,
    tools: FakeTools,
    monkeypatch: pytest.MonkeyPatch,
    tool: str,
    display: str | None,
    args: str,
) -> None:
    if display is not None:
        monkeypatch.setenv(display, ":0")
    tools.install("tmux")  # on PATH, but the app does not run in it
    tools.install(tool)
    app, notes = make_app()
    with_reply(app, ANSWER)
    await copy_newest(app, notes)
    assert tools.received(tool) == (args, ANSWER)
    assert tools.received("tmux") is None
    assert notes.messages == [
        f"Copied 12 lines to the clipboard ({tool}) and the terminal (OSC 52)."
    ]


async def test_a_failing_tool_is_told_and_no_copy_is_claimed(
    make_app: MakeApp, tools: FakeTools, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TMUX", "/tmp/tmux-1000/default,1234,0")
    tools.install("tmux", status=1, says="no server running on /tmp/tmux-1000/default")
    app, notes = make_app()
    with_reply(app, ANSWER)
    await copy_newest(app, notes)
    assert tools.received("tmux") == ("load-buffer -w -", ANSWER)
    assert notes.calls == [
        (
            "tmux load-buffer failed (exit status 1: no server running on "
            "/tmp/tmux-1000/default): sent 12 lines to the terminal (OSC 52); it may not "
            "reach the clipboard.",
            "warning",
        )
    ]


async def test_with_no_tool_the_terminal_alone_is_said_to_maybe_get_it(
    make_app: MakeApp, tools: FakeTools
) -> None:
    app, notes = make_app()
    with_reply(app, ANSWER)
    await copy_newest(app, notes)
    assert notes.calls == [
        (
            "Sent 12 lines to the terminal (OSC 52); it may not reach the clipboard.",
            "information",
        )
    ]


@pytest.mark.parametrize(
    ("reply", "pick", "code"),
    [
        (ONE_BLOCK, (), "SELECT 1;\n"),
        (ANSWER, ("down", "enter"), "import ctxchat\nctxchat.main()\n"),
    ],
    ids=["the only block, alone", "the one picked of two"],
)
async def test_a_code_block_is_copied(
    make_app: MakeApp,
    tools: FakeTools,
    monkeypatch: pytest.MonkeyPatch,
    reply: str,
    pick: tuple[str, ...],
    code: str,
) -> None:
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-0")
    tools.install("wl-copy")
    app, notes = make_app()
    with_reply(app, reply)
    await copy_newest(app, notes, "ctrl+y", pick=pick)
    assert tools.received("wl-copy") == ("", code)
    assert app.clipboard == code
    lines = code.count("\n")
    assert notes.messages == [
        f"Copied {lines} line{'s' if lines > 1 else ''} to the clipboard (wl-copy) and the "
        "terminal (OSC 52)."
    ]


async def test_a_message_without_code_says_so(make_app: MakeApp, tools: FakeTools) -> None:
    tools.install("pbcopy")
    app, notes = make_app()
    with_reply(app, "No code here.")
    await copy_newest(app, notes, "ctrl+y")
    assert notes.messages == ["That message has no code block."]
    assert tools.received("pbcopy") is None
