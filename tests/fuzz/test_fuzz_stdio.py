"""The fuzz generator through the ``gridmux`` command over stdio, on a private real tmux.

A much smaller budget than the simulator part (:data:`CALLS` calls spread over
every listed tool, about a minute): after each call the server still answers
(a ``list_sessions`` call), no call took longer than :data:`HANG_SECONDS`, no
file changed in the temporary directories beside this test's, nor in the
repository's top level (the server's working directory is the test's own),
and the ``#(touch ...)`` canary does not exist. The state check of the
simulator part is not repeated here: a real shell's prompt and tmux's
activity times change on their own.

The server is confined to the test's tmux server (``GRIDMUX_SOCKET_PATH``),
so other sockets are refused; the generator makes paths only inside the
test's private directory.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections import Counter
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gridmux.backend import ServerRef
from tests.fuzz.schema_inputs import bad_arguments, canary
from tests.fuzz.state import Files

pytestmark = pytest.mark.tmux

GRIDMUX = Path(sys.executable).with_name("gridmux")
CALLS = int(os.environ.get("GRIDMUX_FUZZ_TMUX_CALLS", "150"))
HANG_SECONDS = 10.0
#: A wait the call asks for is the tool's promise, not a hang: waits are kept short.
LONGEST_WAIT = 2.0
REPO = Path(__file__).resolve().parents[2]
#: Top-level entries of the checkout that test runs themselves write: Hypothesis's
#: database, and what the other lanes of ``./run tests`` (tox, nox, caches, the
#: virtualenv) write while this suite runs beside them.
LANES = frozenset(
    {".hypothesis", ".tox", ".nox", ".cache", ".venv"}
    | {".mypy_cache", ".ruff_cache", ".pytest_cache"}
)


def short_waits(schema: dict[str, Any], arguments: dict[str, Any]) -> dict[str, Any]:
    """Cap a numeric ``timeout`` (and give one where the tool has it and the call none)."""
    if "timeout" not in schema.get("properties", {}):
        return arguments
    value = arguments.get("timeout")
    if value is None and "timeout" not in arguments:
        return {**arguments, "timeout": LONGEST_WAIT}
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value > LONGEST_WAIT:
        return {**arguments, "timeout": LONGEST_WAIT}
    return arguments


def scrubbed(value: Any) -> Any:
    """``value`` with lone surrogates replaced (U+FFFD).

    The MCP SDK's stdio client writes strict UTF-8: a lone surrogate kills its
    writer ("Connection closed") before gridmux sees the line. The server's
    side of that (a line with an escaped lone surrogate gets a -32700 parse
    error from the stdio gate and the server carries on) is not this test's.
    """
    if isinstance(value, str):
        return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in value)
    if isinstance(value, list):
        return [scrubbed(v) for v in value]
    if isinstance(value, dict):
        return {scrubbed(k): scrubbed(v) for k, v in value.items()}
    return value


def test_bad_arguments_over_stdio(
    tmux_server: ServerRef, isolated_env: Path, tmp_path: Path, tally: Counter[str]
) -> None:
    assert GRIDMUX.exists(), f"the gridmux console script is not installed at {GRIDMUX}"
    assert tmux_server.socket_path is not None
    root = isolated_env / "fuzz"
    root.mkdir()
    env = {**os.environ, "GRIDMUX_SOCKET_PATH": tmux_server.socket_path}
    transport = StdioTransport(command=str(GRIDMUX), args=[], env=env, cwd=str(root))
    loop = asyncio.new_event_loop()
    client: Client = Client(transport)  # type: ignore[type-arg]
    stack = AsyncExitStack()
    watched = [Files(tmp_path.parent, skip=(tmp_path,))]
    # Hypothesis keeps its own directory in the working directory (the test's, not the
    # server's), and the other CI lanes write theirs while this runs (tox, nox, caches).
    top = {p.name: p.lstat().st_mtime_ns for p in REPO.iterdir() if p.name not in LANES}

    def run(coro: Any) -> Any:
        return loop.run_until_complete(asyncio.wait_for(coro, HANG_SECONDS))

    try:
        run(stack.enter_async_context(client))
        made = run(client.call_tool("create_session", {"session_name": "fuzz"}))
        assert not made.is_error
        schemas = {t.name: t.input_schema for t in run(client.list_tools())}
        before = [files.take() for files in watched]
        cases = st.sampled_from(sorted(schemas)).flatmap(
            lambda tool: bad_arguments(schemas[tool], root).map(lambda case: (tool, *case))
        )

        @settings(
            max_examples=CALLS,
            deadline=None,
            derandomize=bool(os.environ.get("CI")),
            database=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        )
        @given(case=cases)
        def one_call(case: tuple[str, str, dict[str, Any]]) -> None:
            tool, kind, arguments = case
            arguments = short_waits(schemas[tool], scrubbed(arguments))
            tally["calls"] += 1
            started = time.monotonic()
            try:
                result = run(client.call_tool(tool, arguments, raise_on_error=False))
            except TimeoutError:
                tally["hangs"] += 1
                raise AssertionError(f"{tool} hung on {kind}: {arguments!r:.500}") from None
            except Exception as exc:
                tally["crashes"] += 1
                raise AssertionError(
                    f"{tool} crashed ({exc!r:.300}) on {kind}: {arguments!r:.500}"
                ) from exc
            assert time.monotonic() - started < HANG_SECONDS
            tally["errors"] += bool(result.is_error)
            touched = [
                p for old, f in zip(before, watched, strict=True) for p in old.changes(f.take())
            ]
            touched += [
                p.name
                for p in REPO.iterdir()
                if p.name not in LANES and top.get(p.name) != p.lstat().st_mtime_ns
            ]
            if touched:
                tally["files_outside_temp"] += 1
                raise AssertionError(f"{tool} on {kind} touched {touched[:5]}: {arguments!r:.300}")
            assert not canary(root).exists(), f"{tool} ran a #(...) from {arguments!r:.300}"
            answer = run(client.call_tool("list_sessions", {}, raise_on_error=False))
            assert not answer.is_error, f"list_sessions failed after {tool}: {answer.content!r}"

        one_call()
    finally:
        loop.run_until_complete(stack.aclose())
        loop.close()
    assert tally["calls"] >= CALLS
