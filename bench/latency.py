"""Per-tool time per call and tmux processes per call, every server on the same panes.

Each call is timed twice: by the client (the round trip, every server) and
by gridmux itself (the audit record's ``duration_ms``, the time inside the
server), which the budgets judge. Calls alternate between the servers
within each iteration (the order rotates every iteration), so machine
noise hits all of them alike; warm-up iterations are not recorded. The
same routine counts tmux processes, run on server instances that have a
counting ``tmux`` first on their PATH (latency is measured on instances
without it: the wrapper's own cost would burden the server that spawns
more).
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .clients import McpServer
from .panewriter import PaneWriter
from .tmuxenv import GRID_PANES, LIST_PANES_CASE, BenchError, Layout, TmuxEnv, tmux_commands

FOLLOW_PREFILL = 1000
FOLLOW_STEP = 3


#: Issue 24: a list or read tool's round trip at most this many times the
#: one-tool FastMCP server's (bench/floor_server.py), medians of one run.
FLOOR_RATIO = 1.25
#: Issue 24: every timed tool's round trip at most this share of the predecessor's.
PREDECESSOR_RATIO = 1 / 3


@dataclass(frozen=True)
class Case:
    name: str
    tool: str
    #: Budget for the median time inside gridmux (ms), control mode on; None: no budget.
    budget_ms: float | None
    #: Limit of gridmux's round trip over the floor's (medians); None: no limit.
    floor_ratio: float | None = None
    #: Limit of gridmux's round trip over the predecessor's (medians); None: no limit.
    predecessor_ratio: float | None = PREDECESSOR_RATIO


def listing(name: str, tool: str) -> Case:
    """A list or read tool: a 5 ms budget inside, within ``FLOOR_RATIO`` of the floor."""
    return Case(name, tool, 5.0, FLOOR_RATIO)


CASES = (
    # The floor under every tool call: a JSON-RPC round trip over stdio, no tool.
    Case("ping (MCP round trip)", "ping", None, predecessor_ratio=None),
    listing("list_sessions", "list_sessions"),
    listing("list_windows", "list_windows"),
    listing(LIST_PANES_CASE, "list_panes"),
    listing("get_pane_info", "get_pane_info"),
    listing("capture_pane", "capture_pane"),
    listing("snapshot_pane", "snapshot_pane"),
    listing("capture_since (first)", "capture_since"),
    listing("capture_since (follow-up)", "capture_since"),
    Case("send_keys", "send_keys", 5.0),
    Case("run_command", "run_command", 10.0),
    Case(f"search_panes ({GRID_PANES} panes)", "search_panes", 25.0),
)


@dataclass
class Fixture:
    """The panes the latency cases use, shared by every server."""

    env: TmuxEnv
    layout: Layout
    follow: PaneWriter
    keys_panes: dict[str, str]
    run_panes: dict[str, str]
    cursors: dict[str, str] = field(default_factory=dict)

    @classmethod
    def create(cls, env: TmuxEnv, layout: Layout, keys: list[str]) -> Fixture:
        follow = PaneWriter(env, "work", "follow")
        follow.burst(FOLLOW_PREFILL)
        follow.settle()
        return cls(
            env,
            layout,
            follow,
            {key: env.shell_pane(f"keys-{key}") for key in keys},
            {key: env.shell_pane(f"run-{key}") for key in keys},
        )

    def arguments(self, case: Case, key: str) -> dict[str, Any]:
        static = self.layout.static
        if case.name.endswith("(follow-up)"):
            if key not in self.cursors:
                raise BenchError("no cursor: the cursor-less capture_since failed")
            return {"cursor": self.cursors[key], "pane_id": self.follow.pane}
        by_tool: dict[str, dict[str, Any]] = {
            "ping": {},
            "list_sessions": {},
            "list_windows": {},
            "list_panes": {"session_name": "grid"},
            "get_pane_info": {"pane_id": static},
            "capture_pane": {"pane_id": static},
            "snapshot_pane": {"pane_id": static},
            "capture_since": {"pane_id": static},
            "send_keys": {"pane_id": self.keys_panes[key], "keys": ": bench", "enter": True},
            "run_command": {"pane_id": self.run_panes[key], "command": "echo bench"},
            "search_panes": {"pattern": "needle", "session_name": "grid"},
        }
        return by_tool[case.tool]

    async def prepare_case(self, case: Case, servers: list[McpServer]) -> None:
        if case.name.endswith("(follow-up)"):
            self.cursors.clear()
            for server in (s for s in servers if s.spec.only_tool is None):
                with contextlib.suppress(BenchError):  # then every follow-up call fails
                    _, data = await server.call("capture_since", {"pane_id": self.follow.pane})
                    self.cursors[server.spec.key] = data["cursor"]

    def prepare_iteration(self, case: Case) -> None:
        if case.name.endswith("(follow-up)"):
            self.follow.burst(FOLLOW_STEP)
            self.follow.settle()

    def check(self, case: Case, key: str, data: Any) -> str | None:
        """A note when an answer is not what the case is about (never silently)."""
        if case.name.endswith("(follow-up)"):
            self.cursors[key] = data["cursor"]
            if data.get("lines_missed"):
                return "lines_missed on a follow-up"
            if len([x for x in data["lines"] if x.strip()]) != FOLLOW_STEP:
                return f"follow-up returned {len(data['lines'])} lines, not {FOLLOW_STEP}"
        elif case.tool == "list_panes" and len(data) != GRID_PANES:
            return f"listed {len(data)} panes"
        elif case.tool == "search_panes" and data.get("total_panes_matched") != GRID_PANES // 2:
            return f"matched {data.get('total_panes_matched')} panes"
        elif case.tool == "run_command" and data.get("exit_status") != 0:
            return f"exit status {data.get('exit_status')}"
        return None


@dataclass
class CaseResult:
    #: round trips (seconds), as the client saw them
    samples: list[float] = field(default_factory=list)
    #: the request id of each sample, and the time inside the server (gridmux only)
    requests: list[str] = field(default_factory=list)
    server_samples: list[float] = field(default_factory=list)
    #: each sample's answer in bytes: (JSON line over stdio, text content, structured)
    answer_bytes: list[tuple[int, int, int]] = field(default_factory=list)
    spawns_per_call: float | None = None
    #: tmux commands of the counted runs (``a+b`` for a command list) -> runs per call
    spawned: dict[str, float] = field(default_factory=dict)
    notes: dict[str, int] = field(default_factory=dict)

    def count_spawns(self, logged: list[str], calls: int) -> None:
        self.spawns_per_call = len(logged) / calls
        for line in logged:
            name = tmux_commands(line)
            self.spawned[name] = self.spawned.get(name, 0.0) + 1 / calls

    def note(self, text: str) -> None:
        self.notes[text] = self.notes.get(text, 0) + 1


async def run_cases(
    servers: list[tuple[McpServer, Path | None]],
    fixture: Fixture,
    *,
    warmup: int,
    iterations: int,
    cases: tuple[Case, ...] = CASES,
) -> dict[str, dict[str, CaseResult]]:
    """case name -> server key -> samples (seconds), spawns per call when counted."""
    results: dict[str, dict[str, CaseResult]] = {}
    plain = [server for server, _ in servers]
    counters = {server.spec.key: counter for server, counter in servers}
    for case in cases:
        per_server = {server.spec.key: CaseResult() for server in plain}
        await fixture.prepare_case(case, plain)
        before: Mapping[str, int] = {}
        for iteration in range(warmup + iterations):
            if iteration == warmup:
                before = {k: c.stat().st_size for k, c in counters.items() if c is not None}
            fixture.prepare_iteration(case)
            shift = iteration % len(plain)
            for server in plain[shift:] + plain[:shift]:
                key = server.spec.key
                arguments = {} if server.spec.only_tool else fixture.arguments(case, key)
                try:
                    elapsed, data = await server.call(case.tool, arguments)
                except BenchError as exc:  # recorded, and the case fails its target
                    if iteration >= warmup:
                        per_server[key].note(f"error: {str(exc)[:240]}")
                    continue
                note = None if server.spec.only_tool else fixture.check(case, key, data)
                if iteration >= warmup:
                    per_server[key].samples.append(elapsed)
                    per_server[key].requests.append(server.last_request)
                    per_server[key].answer_bytes.append(server.last_bytes)
                    if note:
                        per_server[key].note(note)
        if case.tool != "ping":
            await collect_server_times(plain, per_server)
        for key, offset in before.items():
            counter = counters[key]
            assert counter is not None
            per_server[key].count_spawns(TmuxEnv.spawned(counter, offset), iterations)
        results[case.name] = per_server
    return results


async def collect_server_times(servers: list[McpServer], per_server: dict[str, CaseResult]) -> None:
    """Each server's time inside it for the calls it answered, from its audit log."""
    for server in servers:
        result = per_server[server.spec.key]
        found = await server.server_seconds(result.requests)
        if found is None:
            continue  # no audit log: the predecessor
        result.server_samples = found
        if len(found) < len(result.requests):
            result.note(f"{len(result.requests) - len(found)} calls had no audit record")
