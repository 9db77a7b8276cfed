"""capture_since exactness workloads: numbered lines under bursts, streaming, trims,
clears and resizes, read by every server in turn from the same pane."""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from .clients import McpServer
from .exactness import Read, ReaderState, Tally, Verdict, classify, start_state
from .panewriter import PaneWriter
from .tmuxenv import BenchError, TmuxEnv

SESSION = "exact"
PREFILL = 100
EXAMPLES = 3  # notes kept per tally


@dataclass(frozen=True)
class Sizes:
    rounds: int
    stream_lines: int
    stream_rate: float


FULL = Sizes(rounds=40, stream_lines=15000, stream_rate=1500.0)
QUICK = Sizes(rounds=5, stream_lines=1500, stream_rate=1000.0)


class Readers:
    """Each server's cursor, reader state and tally on one pane."""

    def __init__(self, servers: list[McpServer], env: TmuxEnv, pane: str) -> None:
        self.servers = servers
        self.env = env
        self.pane = pane
        self.cursors: dict[str, str] = {}
        self.states: dict[str, ReaderState] = {}
        self.tallies = {server.spec.key: Tally() for server in servers}
        self._turn = 0

    async def start(self, server: McpServer) -> None:
        """A cursor-less read: the visible screen, taken as read (nothing to judge)."""
        key = server.spec.key
        args = {"pane_id": self.pane, "max_lines": None, "max_bytes": None}
        try:
            _, data = await server.call("capture_since", args)
        except BenchError as exc:
            self._error(key, exc)
            return
        self.cursors[key] = data["cursor"]
        self.states[key] = start_state(data["lines"])

    async def start_all(self) -> None:
        for server in self.servers:
            await self.start(server)

    async def read_all(self, printed: int | None) -> None:
        """One follow-up read by every server, in an order that rotates each time."""
        shift = self._turn % len(self.servers)
        self._turn += 1
        for server in self.servers[shift:] + self.servers[:shift]:
            await self.read(server, printed)

    def _error(self, key: str, exc: BenchError) -> None:
        """A failed call counts against the server; its reader starts over next time."""
        tally = self.tallies[key]
        tally.errors += 1
        if len(tally.notes) < EXAMPLES:
            tally.notes.append(str(exc)[:300])
        self.cursors.pop(key, None)

    async def read(self, server: McpServer, printed: int | None) -> None:
        key = server.spec.key
        if key not in self.cursors:
            await self.start(server)
            return
        tally = self.tallies[key]
        args = {"cursor": self.cursors[key], "max_lines": None, "max_bytes": None}
        try:
            _, data = await server.call("capture_since", {**args, "pane_id": self.pane})
        except BenchError as exc:
            self._error(key, exc)
            return
        read = Read(
            lines=data["lines"],
            lines_missed=bool(data["lines_missed"]),
            first_line_rewritten=bool(data.get("first_line_rewritten", False)),
        )
        retained = self.env.retained_numbers(self.pane) if read.lines_missed else None
        state = self.states[key]
        outcome, self.states[key] = classify(state, read, printed=printed, retained=retained)
        self.cursors[key] = data["cursor"]
        tally.add(outcome)
        if outcome.verdict is Verdict.SILENT and len(tally.notes) < EXAMPLES:
            head = [line for line in read.lines if line.strip()][:3]
            tally.notes.append(
                f"after L{state.last:07d} got {len(read.lines)} lines starting {head}: "
                f"{outcome.missing} missing, {outcome.duplicates} duplicated"
                + (", out of order" if outcome.disordered else "")
            )


Body = Callable[[PaneWriter, Readers, TmuxEnv, random.Random, Sizes], Awaitable[None]]


@dataclass(frozen=True)
class Workload:
    name: str
    description: str
    history_limit: int
    body: Body


async def _settled_read(writer: PaneWriter, readers: Readers) -> None:
    await readers.read_all(writer.settle())


def _burst_size(rng: random.Random) -> int:
    return 0 if rng.random() < 0.125 else rng.randint(1, 400)


async def bursts(
    writer: PaneWriter, readers: Readers, env: TmuxEnv, rng: random.Random, sizes: Sizes
) -> None:
    for _ in range(sizes.rounds):
        writer.burst(_burst_size(rng))
        await _settled_read(writer, readers)


async def streaming(
    writer: PaneWriter, readers: Readers, env: TmuxEnv, rng: random.Random, sizes: Sizes
) -> None:
    writer.start_stream(sizes.stream_lines, sizes.stream_rate, rng.randrange(1 << 30))
    while writer.poll_ack() is None:
        await readers.read_all(None)
    await _settled_read(writer, readers)


async def at_history_limit(
    writer: PaneWriter, readers: Readers, env: TmuxEnv, rng: random.Random, sizes: Sizes
) -> None:
    for _ in range(sizes.rounds):
        low, high = rng.choice([(1, 30), (40, 180), (230, 900)])
        writer.burst(rng.randint(low, high))
        await _settled_read(writer, readers)


async def clears(
    writer: PaneWriter, readers: Readers, env: TmuxEnv, rng: random.Random, sizes: Sizes
) -> None:
    for _ in range(sizes.rounds):
        writer.burst(rng.randint(0, 80))
        writer.settle()
        action = rng.choice(["history", "screen", "both", "none"])
        if action in ("screen", "both"):
            writer.clear_screen()
            writer.settle()
        if action in ("history", "both"):
            env.run("clear-history", "-t", writer.pane)
        writer.burst(rng.randint(0, 40))
        await _settled_read(writer, readers)


def _resizer(flag: str, choices: tuple[int, ...]) -> Body:
    async def body(
        writer: PaneWriter, readers: Readers, env: TmuxEnv, rng: random.Random, sizes: Sizes
    ) -> None:
        for _ in range(sizes.rounds):
            writer.burst(rng.randint(0, 60))
            writer.settle()
            env.run("resize-window", "-t", writer.pane, flag, str(rng.choice(choices)))
            writer.burst(rng.randint(0, 30))
            await _settled_read(writer, readers)

    return body


WORKLOADS = (
    Workload("bursts", "bursts of 0-400 lines between reads; nothing trimmed", 100_000, bursts),
    Workload(
        "streaming",
        "a pane printing continuously (randomly cut writes) while it is read",
        100_000,
        streaming,
    ),
    Workload(
        "history-limit",
        "history-limit 200: bursts of 1-30, 40-180 and 230-900 lines",
        200,
        at_history_limit,
    ),
    Workload(
        "clears",
        "0-80 lines, then clear-history, a screen clear, both or neither, then 0-40 lines",
        2000,
        clears,
    ),
    Workload(
        "resize-height",
        "0-60 lines, window height set to 8-50 rows, 0-30 lines",
        2000,
        _resizer("-y", (8, 12, 24, 40, 50)),
    ),
    Workload(
        "resize-width",
        "0-60 lines, window width set to 40-132 columns (lines never wrap), 0-30 lines",
        2000,
        _resizer("-x", (40, 60, 100, 132)),
    ),
)


async def run_workloads(
    servers: list[McpServer],
    env: TmuxEnv,
    sizes: Sizes,
    *,
    seed: int,
    selected: tuple[Workload, ...] = WORKLOADS,
) -> dict[str, dict[str, Tally]]:
    """workload name -> server key -> tally."""
    env.run("new-session", "-d", "-s", SESSION, "-x", "80", "-y", "24", "exec sleep 1000000")
    results: dict[str, dict[str, Tally]] = {}
    for index, workload in enumerate(selected):
        env.run("set-option", "-t", SESSION, "history-limit", str(workload.history_limit))
        writer = PaneWriter(env, SESSION, workload.name)
        try:
            writer.burst(PREFILL)
            writer.settle()
            readers = Readers(servers, env, writer.pane)
            await readers.start_all()
            await workload.body(writer, readers, env, random.Random(seed + index), sizes)
        finally:
            writer.close()
        results[workload.name] = readers.tallies
    env.run("kill-session", "-t", SESSION)
    return results
