"""Every listed tool, fed bad arguments from its own input schema, on the simulator.

For each tool ``tools/list`` offers (every tier), Hypothesis breaks a valid
skeleton of the tool's input schema (``schema_inputs.bad_arguments``) and
calls it through the in-memory MCP client on a fresh, seeded ``SimBackend``.
After each call:

* a failed call (``isError``) left the server's observable state as it was
  (``state.server_state``: sessions, windows, panes, options, hooks,
  environments, buffers), on the default server and on any it named;
* no file changed outside the test's temporary directory (its parent, which
  holds the other tests' directories, and HOME, which is isolated);
* the canary of the ``#(touch ...)`` strings does not exist;
* the server still answers (a ``list_sessions`` call: this MCP era has no ``ping``);
* the call took less than :data:`HANG_SECONDS`.

A call that succeeds on odd input may change state: each example starts from
a fresh simulator, so the next baseline is taken anew. Any exception other
than a tool error result (a protocol error, a dropped session) is a crash.

Budget: :data:`EXAMPLES` examples per tool (57 tools), about a minute on two
cores; ``CI`` makes the run deterministic.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections import Counter
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any, cast

import pytest
from fastmcp import Client, FastMCP
from hypothesis import HealthCheck, given, settings

from gridmux import create_server
from gridmux.backend import ServerRef, TmuxBackend
from tests.backend_slot import EVERY_TIER, BackendSlot
from tests.fuzz.schema_inputs import bad_arguments, canary
from tests.fuzz.state import Files, server_state, state_diff
from tmuxsim import SimBackend

#: Examples per tool: 57 tools x 25 calls fit in about a minute on two cores.
EXAMPLES = int(os.environ.get("GRIDMUX_FUZZ_EXAMPLES", "25"))
#: A call slower than this is a hang.
HANG_SECONDS = 10.0

_SLOT = BackendSlot()
_SERVER: FastMCP = create_server(cast("TmuxBackend", _SLOT), EVERY_TIER)


def _schemas() -> dict[str, dict[str, Any]]:
    async def listed() -> dict[str, dict[str, Any]]:
        _SLOT.current = SimBackend(version="3.3a")
        try:
            async with Client(_SERVER) as client:
                return {t.name: t.input_schema for t in await client.list_tools()}
        finally:
            _SLOT.current = None

    return asyncio.run(listed())


SCHEMAS = _schemas()


def seeded() -> SimBackend:
    """A simulator with a bit of everything a tool could damage."""
    sim = SimBackend(version="3.3a")
    ref = ServerRef()
    made = sim.new_session(ref, name="main", window_name="w0", width=80, height=24)
    window = sim.new_window(ref, made.session_id, name="w1")
    panes = sim.list_panes(ref, window_id=window.window_id)
    sim.split_window(ref, panes[0].pane_id)
    sim.new_session(ref, name="other")
    sim.set_environment(ref, "FUZZ_ENV", "kept", session_id=made.session_id)
    sim.set_option(ref, "@fuzz", "kept", scope="session", target=made.session_id)
    sim.load_buffer(ref, "fuzzbuf", "buffered text\n")
    return sim


def named_servers(arguments: dict[str, Any]) -> list[ServerRef]:
    """The default server and any the call names (their state must hold too)."""
    refs = [ServerRef()]
    name, path = arguments.get("socket_name"), arguments.get("socket_path")
    if isinstance(name, str) and name and "\x00" not in name:
        refs.append(ServerRef(socket_name=name))
    if isinstance(path, str) and path and "\x00" not in path:
        refs.append(ServerRef(socket_path=path))
    return refs


class Fuzzer:
    """One tool's calls: a loop of its own, an MCP session, files watched."""

    def __init__(self, tool: str, root: Path, tally: Counter[str]) -> None:
        self.tool, self.root, self.tally = tool, root, tally
        self.loop = asyncio.new_event_loop()
        self.client: Client = Client(_SERVER)  # type: ignore[type-arg]
        self.stack = AsyncExitStack()
        home = Path(os.environ["HOME"])
        self.watched = [Files(root.parent, skip=(root,)), Files(home)]
        self.before = [files.take() for files in self.watched]

    def __enter__(self) -> Fuzzer:
        _SLOT.current = seeded()
        self.loop.run_until_complete(self.stack.enter_async_context(self.client))
        return self

    def __exit__(self, *exc: object) -> None:
        self.loop.run_until_complete(self.stack.aclose())
        self.loop.close()
        _SLOT.current = None

    def check(self, kind: str, arguments: dict[str, Any]) -> None:
        sim = seeded()
        _SLOT.current = sim
        refs = named_servers(arguments)
        before = [server_state(sim, ref) for ref in refs]
        started = time.monotonic()
        self.tally["calls"] += 1
        try:
            result = self.loop.run_until_complete(
                asyncio.wait_for(
                    self.client.call_tool(self.tool, arguments, raise_on_error=False),
                    HANG_SECONDS,
                )
            )
        except asyncio.TimeoutError:  # not the builtin TimeoutError before 3.11
            self.tally["hangs"] += 1
            raise AssertionError(f"{self.tool} hung on {kind}: {arguments!r:.500}") from None
        except Exception as exc:
            self.tally["crashes"] += 1
            raise AssertionError(
                f"{self.tool} crashed ({exc!r:.300}) on {kind}: {arguments!r:.500}"
            ) from exc
        took = time.monotonic() - started
        if took > HANG_SECONDS:  # a synchronous stall the event loop could not time out
            self.tally["hangs"] += 1
            raise AssertionError(f"{self.tool} took {took:.1f}s on {kind}: {arguments!r:.500}")
        if result.is_error:
            self.tally["errors"] += 1
            changed = [
                line
                for ref, old in zip(refs, before, strict=True)
                for line in state_diff(old, server_state(sim, ref))
            ]
            if changed:
                self.tally["state_changes_on_error"] += 1
                raise AssertionError(
                    f"{self.tool} failed on {kind} but changed state: {changed[:5]}\n"
                    f"arguments: {arguments!r:.500}\nerror: {result.content!r:.300}"
                )
        self.after_call(kind, arguments)

    def after_call(self, kind: str, arguments: dict[str, Any]) -> None:
        touched = [
            path
            for old, files in zip(self.before, self.watched, strict=True)
            for path in old.changes(files.take())
        ]
        if touched:
            self.tally["files_outside_temp"] += 1
            raise AssertionError(f"{self.tool} on {kind} touched {touched[:5]}: {arguments!r:.300}")
        assert not canary(self.root).exists(), f"{self.tool} ran a #(...) from {arguments!r:.300}"
        answer = self.loop.run_until_complete(
            asyncio.wait_for(self.client.call_tool("list_sessions", {}), HANG_SECONDS)
        )
        assert not answer.is_error, f"list_sessions failed after {self.tool}: {answer.content!r}"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An isolated HOME and working directory inside the test's temporary directory."""
    root = tmp_path / "root"
    (root / "home").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(root / "home"))
    monkeypatch.chdir(root)
    return root


@pytest.mark.sim
@pytest.mark.parametrize("tool", sorted(SCHEMAS))
def test_bad_arguments_change_nothing(tool: str, home: Path, tally: Counter[str]) -> None:
    schema = SCHEMAS[tool]

    with Fuzzer(tool, home, tally) as fuzzer:

        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            derandomize=bool(os.environ.get("CI")),
            database=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        )
        @given(case=bad_arguments(schema, home))
        def one_call(case: tuple[str, dict[str, Any]]) -> None:
            fuzzer.check(*case)

        one_call()
    assert tally["calls"] >= EXAMPLES
