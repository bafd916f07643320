"""Benchmark: looking for local model servers, as ratios of the probe timeout.

Probes run at once, so three silent listeners cost about what one does, and ports where
nothing listens cost almost nothing. Run: python bench/discovery.py
"""

from __future__ import annotations

import asyncio
import socket
import statistics
import time
from collections.abc import Sequence

from ctxchat.model.discovery import probe_local_servers

TIMEOUT = 0.2
RUNS = 5


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def timed(candidates: Sequence[tuple[str, int]]) -> float:
    """Median seconds of `RUNS` looks at `candidates`."""
    times = []
    for _ in range(RUNS):
        started = time.perf_counter()
        found = asyncio.run(probe_local_servers(TIMEOUT, candidates=candidates))
        times.append(time.perf_counter() - started)
        assert found == []
    return statistics.median(times)


def main() -> None:
    silent = [socket.socket() for _ in range(3)]
    try:
        for listener in silent:
            listener.bind(("127.0.0.1", 0))
            listener.listen(16)  # the kernel accepts; nothing ever answers
        ports = [("ollama", listener.getsockname()[1]) for listener in silent]
        one = timed(ports[:1])
        three = timed(ports)
        nothing = timed([("ollama", free_port()), ("lmstudio", free_port())])
    finally:
        for listener in silent:
            listener.close()
    print(f"probe timeout: {TIMEOUT * 1000:.0f} ms")
    print(f"one silent listener: {one * 1000:.0f} ms ({one / TIMEOUT:.2f}x the timeout)")
    print(f"three silent listeners: {three * 1000:.0f} ms ({three / one:.2f}x one listener)")
    print(f"nothing listening: {nothing * 1000:.0f} ms ({nothing / TIMEOUT:.2f}x the timeout)")


if __name__ == "__main__":
    main()
