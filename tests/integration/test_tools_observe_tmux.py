"""run_command, the waits, search_panes and send_keys_batch on a real tmux server."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastmcp import Client

from gridmux import Settings, create_server
from gridmux.backend import ServerRef
from gridmux.backend._command_backend import TmuxCommandBackend
from tests.contract.pane_views import written_rows
from tests.mcp_calls import call, call_error

from .conftest import RawTmux, WaitUntil, counting_tmux, prompt_shown, spawns

pytestmark = pytest.mark.tmux


screen = written_rows


async def wait_then(
    client: Client,  # type: ignore[type-arg]
    tool: str,
    action: Callable[[], None] | None,
    **args: Any,
) -> dict[str, Any]:
    """Call a wait tool; run ``action`` once it reported progress (its baseline is taken)."""
    baseline = anyio.Event()
    result: dict[str, Any] = {}

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        baseline.set()

    async def waiter() -> None:
        answer = await client.call_tool(tool, args, progress_handler=on_progress)
        assert answer.structured_content is not None
        result.update(answer.structured_content)

    async with anyio.create_task_group() as group:
        group.start_soon(waiter)
        await baseline.wait()
        if action is not None:
            action()
    return result


# -- run_command -----------------------------------------------------------------------------


async def test_run_command_status_and_output(
    client: Client,  # type: ignore[type-arg]
    pane: str,
) -> None:
    ok = await call(client, "run_command", command="echo hello; echo world", pane_id=pane)
    assert (ok["exit_status"], ok["output"], ok["timed_out"]) == (0, ["hello", "world"], False)
    failed = await call(client, "run_command", command="false", pane_id=pane)
    assert (failed["exit_status"], failed["output"]) == (1, [])
    seven = await call(client, "run_command", command="echo out; sh -c 'exit 7'", pane_id=pane)
    assert (seven["exit_status"], seven["output"]) == (7, ["out"])
    # what tmux would expand or split reaches the shell as typed
    odd = '#{pane_id} ## $HOME ~ ; \\; " x'
    literal = await call(client, "run_command", command=f"printf '%s\\n' '{odd}'", pane_id=pane)
    assert literal["output"] == [odd]


async def test_run_command_output_longer_than_the_screen_is_exact(
    client: Client,  # type: ignore[type-arg]
    pane: str,
) -> None:
    out = await call(client, "run_command", command="seq 1 500", pane_id=pane, max_lines=None)
    assert out["output"] == [str(i) for i in range(1, 501)]
    assert (out["exit_status"], out["lines_missed"], out["output_truncated"]) == (0, False, False)
    tail = await call(client, "run_command", command="seq 1 500", pane_id=pane, max_lines=3)
    assert tail["output"] == ["498", "499", "500"]
    assert tail["output_truncated_lines"] == 497


async def test_run_command_joins_wrapped_output_and_keeps_shell_state(
    client: Client,  # type: ignore[type-arg]
    pane: str,
) -> None:
    word = "z" * 200  # wider than the 80-column pane, and the command line wraps too
    out = await call(client, "run_command", command=f"cd /; echo {word}", pane_id=pane)
    assert out["output"] == [word]
    where = await call(client, "run_command", command="pwd", pane_id=pane)
    assert where["output"] == ["/"]


async def test_run_command_timeout_leaves_the_pane_usable(
    client: Client,  # type: ignore[type-arg]
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    tmux: RawTmux,
    wait_until: WaitUntil,
    pane: str,
) -> None:
    # held until the test lets it go (not for a while: a loaded machine may
    # take that long to print "started")
    out = await call(
        client,
        "run_command",
        command="echo started; tmux wait-for gmx-finish; echo finished",
        pane_id=pane,
        timeout=10,
    )
    assert (out["timed_out"], out["still_running"], out["exit_status"]) == (True, True, None)
    assert out["output"] == ["started"]
    tmux("wait-for", "-S", "gmx-finish")
    wait_until(
        lambda: (
            screen(backend, tmux_server, pane)[-1:] == ["$"]
            and "finished" in screen(backend, tmux_server, pane)
        ),
        timeout=10,
        what="the command to finish and the prompt to return",
    )
    assert tmux("show-options", "-p", "-t", pane) == ""  # no status option left behind
    again = await call(client, "run_command", command="echo again", pane_id=pane)
    assert (again["exit_status"], again["output"]) == (0, ["again"])


async def test_run_command_without_control_mode_is_a_process_a_step(
    tmux_bin: str,
    tmux_server: ServerRef,
    isolated_env: Path,
    backend: TmuxCommandBackend,
    wait_until: WaitUntil,
    pane: str,
) -> None:
    """The steps control mode takes, each a tmux process: claim the pane, read
    it, its synchronize-panes, its foreground process, open the pipe, type,
    wait (and probe that the server still runs), read the status, read the
    screen and (for output) again with wrapped rows joined, close the pipe, let
    the shell go, give the claim back. A timeout ends the wait with one more
    process instead of the probe, and reads the pane's state."""
    wrapper, log = counting_tmux(isolated_env, tmux_bin)
    plain = TmuxCommandBackend(wrapper, control_mode=False)
    settings = Settings(socket_path=tmux_server.socket_path)
    async with Client(create_server(plain, settings)) as client:
        commands = [("echo one", 14), ("printf 'x%.0s' $(seq 150); echo", 14), ("false", 13)]
        commands.append(("seq 1 300", 14))
        for command, processes in commands:
            # (the previous prompt is drawn: no wait for it, which costs reads)
            wait_until(lambda: prompt_shown(backend.snapshot(tmux_server, pane)))
            before = spawns(log)
            out = await call(client, "run_command", command=command, pane_id=pane)
            assert spawns(log) - before == processes, (command, log.read_bytes()[-600:])
            assert out["timed_out"] is False
        assert out["output"] == [str(i) for i in range(101, 301)]  # the default tail
        assert out["output_truncated_lines"] == 100
        wait_until(lambda: prompt_shown(backend.snapshot(tmux_server, pane)))
        before = spawns(log)
        slow = await call(client, "run_command", command="sleep 1", pane_id=pane, timeout=0.2)
        assert slow["timed_out"] is True
        assert spawns(log) - before == 14, log.read_bytes()[-800:]


async def test_run_command_bad_input_types_nothing(
    client: Client,  # type: ignore[type-arg]
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    pane: str,
) -> None:
    before = screen(backend, tmux_server, pane)
    assert "no pane %99" in await call_error(client, "run_command", command="true", pane_id="%99")
    assert "single line" in await call_error(client, "run_command", command="a\nb", pane_id=pane)
    assert "timeout" in await call_error(
        client, "run_command", command="true", pane_id=pane, timeout=0
    )
    assert screen(backend, tmux_server, pane) == before


# -- waits -------------------------------------------------------------------------------------


async def test_wait_for_text_matches_new_output(
    client: Client,  # type: ignore[type-arg]
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    pane: str,
) -> None:
    out = await wait_then(
        client,
        "wait_for_text",
        lambda: backend.send_keys(tmux_server, pane, "echo READY", literal=True, enter=True),
        patterns=["^ready$"],
        regex=True,
        pane_id=pane,
        timeout=10,
    )
    assert (out["found"], out["outcome"], out["matched_lines"]) == (True, "matched", ["READY"])


async def test_wait_for_text_times_out_as_a_result(
    client: Client,  # type: ignore[type-arg]
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    pane: str,
) -> None:
    backend.send_keys(tmux_server, pane, "echo READY", literal=True, enter=True)
    out = await call(client, "wait_for_text", patterns=["nope"], pane_id=pane, timeout=0.3)
    assert (out["found"], out["outcome"], out["timed_out"]) == (False, "timeout", True)
    assert out["elapsed_seconds"] >= 0.3


async def test_wait_for_text_stop_pattern(
    client: Client,  # type: ignore[type-arg]
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    pane: str,
) -> None:
    out = await wait_then(
        client,
        "wait_for_text",
        lambda: backend.send_keys(tmux_server, pane, "echo E''RROR", literal=True, enter=True),
        patterns=["done"],
        stop=["^error$"],
        regex=True,
        pane_id=pane,
        timeout=10,
    )
    assert (out["outcome"], out["matched_index"], out["matched_lines"]) == ("stopped", 0, ["ERROR"])


async def test_wait_for_content_change(
    client: Client,  # type: ignore[type-arg]
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    pane: str,
) -> None:
    out = await wait_then(
        client,
        "wait_for_content_change",
        lambda: backend.send_keys(tmux_server, pane, "x", literal=True),
        pane_id=pane,
        timeout=10,
    )
    assert (out["changed"], out["timed_out"]) == (True, False)
    idle = await call(client, "wait_for_content_change", pane_id=pane, timeout=0.3)
    assert (idle["changed"], idle["timed_out"]) == (False, True)


# -- search_panes ------------------------------------------------------------------------------


async def test_search_panes_pages_across_panes(
    client: Client,  # type: ignore[type-arg]
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    wait_until: WaitUntil,
    pane: str,
    tmux: RawTmux,
) -> None:
    panes = []
    for i in range(4):
        session = backend.new_session(
            tmux_server,
            name=f"s{i}",
            width=80,
            height=10,
            command=f"printf 'needle %s\\n' {i}; exec sleep 100000",
        )
        assert session.active_pane_id is not None
        panes.append(session.active_pane_id)
    for p in panes:
        wait_until(lambda p=p: "needle" in " ".join(screen(backend, tmux_server, p)))
    page = await call(client, "search_panes", pattern="NEEDLE", limit=3)
    assert [m["pane_id"] for m in page["matches"]] == panes[:3]
    assert (page["truncated"], page["truncated_panes"], page["total_panes_matched"]) == (
        True,
        panes[3:],
        4,
    )
    assert page["matches"][0]["matched_lines"] == ["needle 0"]
    rest = await call(client, "search_panes", pattern="NEEDLE", limit=3, offset=3)
    assert [m["pane_id"] for m in rest["matches"]] == panes[3:]
    assert rest["truncated"] is False
    one = await call(client, "search_panes", pattern=r"needle [2]", regex=True, session_name="s2")
    assert [m["pane_id"] for m in one["matches"]] == [panes[2]]
    assert "not a valid regular expression" in await call_error(
        client, "search_panes", pattern="[", regex=True
    )
    assert "no session 'nope'" in await call_error(
        client, "search_panes", pattern="needle", session_name="nope"
    )
    # a window linked into another session is searched as part of that session too
    tmux("link-window", "-s", "s0:0", "-t", "s3:5")
    linked = await call(client, "search_panes", pattern="needle 0", session_name="s3")
    assert [(m["pane_id"], m["session_name"]) for m in linked["matches"]] == [(panes[0], "s3")]


# -- send_keys_batch ---------------------------------------------------------------------------


async def test_send_keys_batch(
    client: Client,  # type: ignore[type-arg]
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    wait_until: WaitUntil,
    pane: str,
) -> None:
    out = await call(
        client,
        "send_keys_batch",
        operations=[
            {"keys": "echo fir", "pane_id": pane, "enter": False, "literal": True},
            {"keys": "st", "pane_id": pane, "enter": False, "literal": True},
            {"keys": "Enter", "pane_id": pane, "enter": False},
        ],
    )
    assert (out["succeeded"], out["failed"], out["stopped_at"]) == (3, 0, None)
    # the output and the prompt after it: the screen is still until the next keys
    wait_until(
        lambda: screen(backend, tmux_server, pane)[-2:] == ["first", "$"],
        what="the echoed output and the next prompt",
    )
    before = screen(backend, tmux_server, pane)
    error = await call_error(
        client,
        "send_keys_batch",
        operations=[{"keys": "echo no", "pane_id": pane}, {"keys": "x", "pane_id": "%99"}],
    )
    assert "operations[1]" in error and "nothing was sent" in error
    assert screen(backend, tmux_server, pane) == before
