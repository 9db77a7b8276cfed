"""A foreign client: the MCP Inspector CLI drives the installed gridmux over stdio.

The Inspector (npm ``@modelcontextprotocol/inspector``, with the Node 22 it
needs) is pinned in ``tools/inspector/`` and installed there by ``npm ci``;
the nox integration session does that. Each call below starts the Inspector,
which starts ``gridmux --socket-path <the test's tmux server>`` over stdio,
performs one MCP request and exits: 0 on success, 5 when the tool returned
``isError``. With ``--format json`` stdout holds one ``{"result": ...}``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp.types import ToolAnnotations

from gridmux.backend import ServerRef
from gridmux.backend._command_backend import TmuxCommandBackend
from gridmux.safety import effective_hints

from .conftest import WaitUntil

pytestmark = pytest.mark.tmux

ROOT = Path(__file__).resolve().parents[2]
NODE_BIN = ROOT / "tools" / "inspector" / "node_modules" / ".bin"
INSPECTOR = NODE_BIN / "mcp-inspector"
GRIDMUX = Path(sys.executable).with_name("gridmux")


def inspector(
    server: ServerRef, *request: str, expect_rc: int = 0, output_schemas: str = "off"
) -> dict[str, Any]:
    """Run one Inspector CLI request against gridmux (``--output-schemas``
    ``output_schemas``); return the parsed ``result``."""
    if not INSPECTOR.exists():
        pytest.fail(
            f"the MCP Inspector is not installed at {INSPECTOR}: run "
            "`npm ci --prefix tools/inspector` (the nox integration session does this)",
            pytrace=False,
        )
    assert server.socket_path is not None
    command = [str(INSPECTOR), "--cli", str(GRIDMUX), "--socket-path", server.socket_path]
    command += ["--output-schemas", output_schemas]
    env = {**os.environ, "PATH": f"{NODE_BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run(
        # gridmux starts in about 1.2 s on an idle machine; the Inspector's default
        # 15 s to connect ran out on a CI machine loaded by three lanes at once.
        [*command, "--", *request, "--format", "json", "--connect-timeout", "100000"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == expect_rc, f"inspector exited {done.returncode}:\n{done.stderr}"
    answer: dict[str, Any] = json.loads(done.stdout)["result"]
    return answer


def call(server: ServerRef, tool: str, *args: str, expect_rc: int = 0) -> dict[str, Any]:
    request = ["--method", "tools/call", "--tool-name", tool]
    for arg in args:
        request += ["--tool-arg", arg]
    return inspector(server, *request, expect_rc=expect_rc)


@pytest.mark.parametrize("output_schemas", ["off", "on"])
def test_inspector_lists_the_tools_with_schemas_and_annotations(
    tmux_server: ServerRef, output_schemas: str
) -> None:
    listed = inspector(tmux_server, "--method", "tools/list", output_schemas=output_schemas)
    tools = {t["name"]: t for t in listed["tools"]}
    assert {"list_sessions", "send_keys", "capture_since", "snapshot_pane"} <= set(tools)
    since = tools["capture_since"]
    assert since["annotations"] == {"readOnlyHint": True, "openWorldHint": False}
    assert "cursor" in since["inputSchema"]["properties"]
    if output_schemas == "on":
        assert "lines_missed" in since["outputSchema"]["properties"]
    else:
        assert [name for name, tool in tools.items() if "outputSchema" in tool] == []
    sends = effective_hints(ToolAnnotations.model_validate(tools["send_keys"]["annotations"]))
    assert (sends["readOnlyHint"], sends["destructiveHint"]) == (False, True)
    assert all(t["title"] for t in tools.values())


def test_inspector_calls_a_tool_with_the_output_schemas_listed(
    tmux_server: ServerRef, pane: str
) -> None:
    """A client holding the schemas gets the same structured answers."""
    for output_schemas in ("on", "off"):
        request = ["--method", "tools/call", "--tool-name", "list_panes"]
        answer = inspector(tmux_server, *request, output_schemas=output_schemas)
        assert answer["isError"] is False
        (row,) = answer["structuredContent"]["result"]
        assert row["pane_id"] == pane


def test_inspector_drives_a_pane_with_a_capture_since_round_trip(
    tmux_server: ServerRef,
    backend: TmuxCommandBackend,
    pane: str,
    wait_until: WaitUntil,
) -> None:
    def screen() -> str:
        rows = backend.snapshot(tmux_server, pane).rows
        return "\n".join(rows).rstrip()

    # Distinct rows above the prompt, so the cursor's context is unambiguous;
    # one command prints them all (keys typed ahead would share rows).
    loop = "i=0; while [ $i -lt 12 ]; do echo warmup $i; i=$((i+1)); done"
    backend.send_keys(tmux_server, pane, loop, literal=True, enter=True)
    wait_until(lambda: screen().endswith("\nwarmup 11\n$"), what="the warm-up output")

    listed = call(tmux_server, "list_sessions")
    assert listed["isError"] is False
    (session,) = listed["structuredContent"]["result"]
    assert (session["session_name"], session["active_pane_id"]) == ("main", pane)

    first = call(tmux_server, "capture_since", f"pane_id={pane}")["structuredContent"]
    assert first["pane_id"] == pane
    assert first["lines"][-2:] == ["warmup 11", "$"]
    cursor = first["cursor"]

    sent = call(tmux_server, "send_keys", "keys=echo via inspector", f"pane_id={pane}")
    assert sent["isError"] is False
    wait_until(lambda: screen().endswith("via inspector\n$"), what="the command's output")

    delta = call(tmux_server, "capture_since", f"cursor={cursor}")["structuredContent"]
    assert delta["lines_missed"] is False
    assert delta["first_line_rewritten"] is True
    assert delta["lines"] == ["$ echo via inspector", "via inspector", "$"]
    assert delta["cursor"] != cursor

    again = call(tmux_server, "capture_since", f"cursor={delta['cursor']}")["structuredContent"]
    assert again["lines"] == []  # nothing new since
    assert again["lines_missed"] is False


def test_inspector_sees_a_tool_error_with_its_hint(tmux_server: ServerRef, pane: str) -> None:
    failed = call(tmux_server, "capture_since", "cursor=gridmux-since-v1:bogus", expect_rc=5)
    assert failed["isError"] is True
    text = failed["content"][0]["text"]
    assert "Hint:" in text
    assert "capture_since without a cursor" in text
