"""Ctrl-C during `ctxchat send` on a terminal: the reply stops, what arrived is kept."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ctxchat.core.history import MessageStatus
from ctxchat.store import Store
from ctxchat.testing.server import ScriptedModelServer

from .pty_process import PtyProcess


def _holds(marker: bytes) -> Callable[[bytes], bool]:
    """A condition on the output so far: `marker` has been written."""
    return lambda out: marker in out


FULL = "".join(f"word{i} " for i in range(2000))


def test_ctrl_c_stops_the_reply_keeps_the_part_received_and_exits_130(
    home: Path, server: ScriptedModelServer
) -> None:
    server.latency = 0.01
    server.chunk_size = 2
    # Pressed while waiting for the first chunk, then after 1, 5 and 40 words, twice each.
    moments = [0, 1, 5, 40] * 2
    for attempt, words in enumerate(moments, start=1):
        server.script(FULL)
        with PtyProcess(["send", "--new", f"attempt {attempt}"]) as send:
            if words:
                send.read_until(_holds(f"word{words} ".encode()))
            else:
                assert server.wait_for_requests(attempt, timeout=60)
            send.interrupt()
            code = send.finish()
            output = send.output
        assert code == 130, output[-500:]
        assert output.rstrip().endswith(
            b"ctxchat: interrupted; the part of the reply received so far was kept."
        )
        with Store.open(home / "data" / "ctxchat.db") as store:
            conversation = store.conversations.latest_conversation()
            assert conversation is not None
            user, reply = store.messages.messages(conversation.id)
        assert user.content == f"attempt {attempt}"
        assert reply.status is MessageStatus.INTERRUPTED, (attempt, reply)
        assert FULL.startswith(reply.content)
        assert len(reply.content) < len(FULL)
        if words:
            assert f"word{words} " in reply.content
