"""One round of the side-by-side test: the app (typing messages, importing from its
conversation list) and workers running commands, each process SIGKILLed at a seeded random
point or not; the acknowledgements go into the ledger."""

from __future__ import annotations

import json
import random
import threading
from dataclasses import dataclass, field
from pathlib import Path

from ..importers.chatgpt_export import short
from .ledger import ECHO, Ledger, export_holds
from .processes import PLACEHOLDER, AppTerminal, Finished, run_command

CTRL_L, CTRL_O, ESCAPE = b"\x0c", b"\x0f", b"\x1b"
TITLE = "side by side"  # the conversation everyone writes to
KINDS = ("send", "memory", "import", "summarize", "export", "conversations")


@dataclass
class Tally:
    """What the test did, for its report: rounds, processes started, SIGKILLs at random points
    (the app's included) and at the end of a round (the app, always), acknowledgements."""

    rounds: int = 0
    processes: int = 0
    random_kills: int = 0
    final_kills: int = 0
    acknowledged: int = 0
    problems: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, **counts: int) -> None:
        with self.lock:
            for name, count in counts.items():
                setattr(self, name, getattr(self, name) + count)

    def line(self) -> str:
        return (
            f"{self.rounds} rounds, {self.processes} processes, {self.random_kills} killed at "
            f"random points and {self.final_kills} apps killed at the end of a round, "
            f"{self.acknowledged} writes acknowledged"
        )


@dataclass(frozen=True, slots=True)
class Step:
    """A command a worker runs: its kind, and when it is killed (None: never)."""

    kind: str
    kill_after: float | None


@dataclass(frozen=True, slots=True)
class AppPlan:
    """What the app does in a round: `messages` sent, the in-app import after message
    `import_after`, and where it is killed before the end ("m<n>": right after Enter on
    message n, before it is shown as sent; "import": while importing; None: not)."""

    messages: int
    import_after: int
    kill: str | None


@dataclass(frozen=True, slots=True)
class World:
    """What every round shares: the database, the conversation everyone writes to, a folder
    for files, the ledger and the tally."""

    database: Path
    main: int
    folder: Path
    ledger: Ledger
    tally: Tally


def plan_round(rng: random.Random, workers: int, steps: int) -> tuple[AppPlan, list[list[Step]]]:
    """A round drawn from the seeded `rng`, before anything runs."""
    messages = rng.randint(2, 4)
    import_after = rng.randrange(messages - 1)  # a message is typed after the import
    kill = None
    if rng.random() < 0.5:
        kill = rng.choice([f"m{n}" for n in range(messages)] + ["import"])
    plans = [
        [
            Step(rng.choice(KINDS), rng.uniform(0.3, 3.0) if rng.random() < 0.4 else None)
            for _ in range(steps)
        ]
        for _ in range(workers)
    ]
    return AppPlan(messages, import_after, kill), plans


def import_file(folder: Path, name: str) -> tuple[Path, tuple[str, ...]]:
    """A ChatGPT export of two conversations with titles found nowhere else."""
    titles = (f"{name} one", f"{name} two")
    data = [short(f"{name}-{i}", title, f"answer to {title}") for i, title in enumerate(titles)]
    path = folder / f"{name}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path, titles


def command_args(world: World, kind: str, name: str) -> tuple[list[str], object]:
    """The arguments of a command of `kind`, and what it writes (or what a read must see)."""
    main = str(world.main)
    if kind == "send":
        return ["send", "--conversation", main, "--no-summarize", name], name
    if kind == "memory":
        return ["memory", "add", "--conversation", main, "--scope", "conversation", name], name
    if kind == "import":
        path, titles = import_file(world.folder, name)
        return ["import", str(path)], titles
    if kind == "summarize":
        return ["summarize", "--conversation", main, "--json"], None
    if kind == "export":
        return ["export", main, "--format", "json"], world.ledger.acknowledged_messages()
    return ["conversations", "--json"], world.ledger.acknowledged_titles()


def run_step(world: World, step: Step, name: str) -> None:
    """Run one command; note what it acknowledged, or what it got wrong."""
    ledger, tally = world.ledger, world.tally
    args, wanted = command_args(world, step.kind, name)
    if step.kind == "import":
        assert isinstance(wanted, tuple)
        with ledger.lock:
            ledger.imports[wanted] = False
    done = run_command(args, world.folder / name, step.kill_after)
    tally.add(processes=1, random_kills=int(done.killed))
    if not done.killed and "Traceback" in done.err:
        tally.problems.append(f"{name} {args}: {done.err[-800:]}")
    if not done.acknowledged:
        if not done.killed and step.kind in ("send", "memory", "import", "export"):
            tally.problems.append(f"{name} {args} exited {done.code}: {done.err[-400:]}")
        return
    tally.add(acknowledged=1)
    _acknowledge(world, step.kind, name, wanted, done)


def _acknowledge(world: World, kind: str, name: str, wanted: object, done: Finished) -> None:
    ledger, tally = world.ledger, world.tally
    with ledger.lock:
        if kind == "send":
            ledger.messages.add(name)
        elif kind == "memory":
            ledger.memory.add(name)
        elif kind == "import":
            assert isinstance(wanted, tuple)
            ledger.imports[wanted] = True
        elif kind == "summarize":
            version = json.loads(done.out)["version"]  # None: nothing new to fold
            if version is not None:
                ledger.summaries.add(version["id"])
    # A read started after a write was acknowledged sees it.
    if kind == "export":
        assert isinstance(wanted, set)
        missing = export_holds(done.out, wanted)
        if missing:
            tally.problems.append(f"{name}: export lacks acknowledged {missing}")
    elif kind == "conversations":
        assert isinstance(wanted, set)
        listed = {c["title"] for c in json.loads(done.out)}
        if wanted - listed:
            tally.problems.append(f"{name}: list lacks acknowledged {sorted(wanted - listed)}")


def drive_app(world: World, app: AppTerminal, number: int, plan: AppPlan) -> None:
    """Play the app's part: it is left running, or killed at its random point."""
    app.wait_for(PLACEHOLDER)
    for n in range(plan.messages):
        text = f"app{number}x{n}"
        mark = app.mark()
        app.type(text.encode() + b"\r")
        if plan.kill == f"m{n}":
            _killed(world, app)
            return
        app.wait_for(ECHO + text, since=mark)
        with world.ledger.lock:
            world.ledger.messages.add(text)
        world.tally.add(acknowledged=1)
        if n == plan.import_after:
            _import_in_app(world, app, number, plan)
            if not app.alive:
                return
            # The reproduction: a command beside the app once it imported (whatever
            # the workers are doing then), before its next message.
            run_step(world, Step("conversations", None), f"conversations{number}app")


def _import_in_app(world: World, app: AppTerminal, number: int, plan: AppPlan) -> None:
    """ctrl+l, ctrl+o, the file's path, Enter: imported on the app's own second connection;
    then back to the conversation."""
    path, titles = import_file(world.folder, f"inapp{number}")
    with world.ledger.lock:
        world.ledger.imports[titles] = False
    mark = app.mark()
    app.type(CTRL_L)
    app.wait_for(b"Rename", since=mark)  # the conversation list's footer
    mark = app.mark()
    app.type(CTRL_O)
    app.wait_for(b"Import conversations", since=mark)
    mark = app.mark()
    app.type(str(path).encode())
    app.wait_for(path.name, since=mark)  # in the box, before Enter sends it
    mark = app.mark()
    app.type(b"\r")
    if plan.kill == "import":
        _killed(world, app)
        return
    app.wait_for(b"Imported 2 conversations", since=mark)
    with world.ledger.lock:
        world.ledger.imports[titles] = True
    world.tally.add(acknowledged=1)
    # The list of the conversations that came opens; Esc closes it once it is there, and
    # what is typed next waits until the conversation's footer is drawn again (a key right
    # after Esc would reach the app as alt+key).
    app.wait_for(b"Rename", since=mark)  # its footer
    mark = app.mark()
    app.type(ESCAPE)
    app.wait_for(b"Send", since=mark)  # the conversation's footer


def _killed(world: World, app: AppTerminal) -> None:
    app.kill()
    world.tally.add(random_kills=1)


def play_round(world: World, number: int, rng: random.Random, workers: int, steps: int) -> None:
    """One round: the app and the workers side by side, then the app killed if it still runs
    (after a look at the files it holds), and the database checked."""
    app_plan, plans = plan_round(rng, workers, steps)

    def work(index: int, todo: list[Step]) -> None:
        for at, step in enumerate(todo):
            name = f"{step.kind}{number}w{index}s{at}"
            try:
                run_step(world, step, name)
            except Exception as error:  # the test fails on it, after the round
                world.tally.problems.append(f"{name}: {error!r}")

    threads = [
        threading.Thread(target=work, args=(index, todo), daemon=True)
        for index, todo in enumerate(plans)
    ]
    for thread in threads:
        thread.start()
    app = AppTerminal(["--conversation", str(world.main)])
    world.tally.add(processes=1)
    try:
        drive_app(world, app, number, app_plan)
        for thread in threads:
            thread.join()
        if app.alive:
            held = app.deleted_database_files(world.database)
            if held:
                world.tally.problems.append(f"round {number}: the app holds deleted {held}")
            world.tally.add(final_kills=1)
    finally:
        app.close()
    world.tally.add(rounds=1)
