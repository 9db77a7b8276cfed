"""respawn_pane, kill_pane, enter_copy_mode, exit_copy_mode and pipe_pane through
the MCP client, on the simulator.

Only what needs the simulator is here (its fake shell, injected clock,
pane writes, default socket, spies, known fidelity gaps); what holds on both
backends is in tests/contract/test_pane_lifecycle.py."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from gridmux import Settings, create_server
from gridmux.backend import ServerRef
from tests.mcp_calls import call, call_error
from tmuxsim import SimBackend

REF = ServerRef()


def session(backend: SimBackend, name: str = "main", command: str | None = "cat") -> str:
    made = backend.new_session(REF, name=name, width=80, height=24, command=command)
    assert made.active_pane_id is not None
    return made.active_pane_id


def pane_info(backend: SimBackend, pane_id: str) -> Any:
    return next(p for p in backend.list_panes(REF) if p.pane_id == pane_id)


def dead_pane(backend: SimBackend, beside: str) -> str:
    backend.set_option(REF, "remain-on-exit", "on", scope="window", global_=True)
    pane = backend.split_window(REF, beside, command="cat").pane_id
    backend.server(REF).pane(pane).exit(3)
    assert pane_info(backend, pane).dead
    return pane


def world(backend: SimBackend) -> tuple[Any, ...]:
    panes = backend.list_panes(REF)
    screens = [backend.snapshot(REF, p.pane_id, start="-") for p in panes]
    pipes = [backend.server(REF).pane(p.pane_id).pipe_command for p in panes]
    return (backend.list_sessions(REF), panes, screens, pipes)


@contextlib.asynccontextmanager
async def client_for(
    backend: SimBackend, safety: str = "destructive", caller_pane: str | None = None
) -> AsyncIterator[Client]:  # type: ignore[type-arg]
    """A client whose server believes it runs in ``caller_pane`` of this server."""
    socket = backend.server_info(REF).socket_path if caller_pane else None
    settings = Settings(backend="sim", caller_pane=caller_pane, caller_socket=socket, safety=safety)
    async with Client(create_server(backend, settings)) as client:
        yield client


# -- respawn_pane -------------------------------------------------------------------------


async def test_respawn_pane_restarts_the_program_in_place(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    tmp_path: Path,
) -> None:
    pane = session(backend)
    backend.server(REF).pane(pane).write(b"".join(b"L%d\n" % i for i in range(40)))
    before = pane_info(backend, pane)
    info = await call(
        client,
        "respawn_pane",
        pane_id=pane,
        shell="cat",
        start_directory=str(tmp_path),
        environment={"GREETING": "hi"},
    )
    after = pane_info(backend, pane)
    assert info["pane_id"] == pane
    assert info["pane_pid"] == after.pid != before.pid
    assert info["pane_current_path"] == str(tmp_path)
    assert after.history_size == before.history_size  # scrollback kept
    assert (after.left, after.top, after.window_id) == (before.left, before.top, before.window_id)
    assert backend.server(REF).pane(pane).environment["GREETING"] == "hi"


async def test_respawn_pane_suppresses_persistent_history_on_request(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    pane = session(backend)
    await call(
        client,
        "respawn_pane",
        pane_id=pane,
        environment='{"A": "1"}',
        suppress_persistent_history=True,
    )
    env = backend.server(REF).pane(pane).environment
    assert (env["A"], env["HISTFILE"], env["HISTCONTROL"]) == ("1", "", "ignorespace")


async def test_respawn_pane_without_kill_revives_a_dead_pane(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    pane = dead_pane(backend, session(backend))
    info = await call(client, "respawn_pane", pane_id=pane, kill=False)
    assert info["pane_dead"] is False
    assert not pane_info(backend, pane).dead


async def test_respawn_pane_without_kill_refuses_a_live_pane(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    pane = session(backend)
    before = world(backend)
    error = await call_error(client, "respawn_pane", pane_id=pane, kill=False)
    assert "still runs 'cat'" in error
    assert "kill=true" in error
    assert world(backend) == before


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ({"pane_id": "%9"}, "no pane %9"),
        ({"pane_id": "0"}, "not a tmux pane id"),
        ({"shell": " "}, "shell is empty"),
        ({"start_directory": "relative/dir"}, "not an existing directory"),
        ({"start_directory": "/no/such/dir"}, "not an existing directory"),
        ({"environment": "{not json"}, "not valid JSON"),
        ({"environment": {"BAD-NAME": "x"}}, "not a valid environment variable name"),
        ({"environment": {"A": 1}}, "environment"),
    ],
)
async def test_respawn_pane_bad_input_changes_nothing(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    args: dict[str, Any],
    needle: str,
) -> None:
    pane = session(backend)
    backend.server(REF).pane(pane).write(b"output\n")
    before = world(backend)
    assert needle in await call_error(client, "respawn_pane", **{"pane_id": pane, **args})
    assert world(backend) == before


async def test_respawn_pane_refuses_the_callers_own_pane(backend: SimBackend) -> None:
    caller = session(backend)
    other = backend.split_window(REF, caller, command="cat").pane_id
    async with client_for(backend, caller_pane=caller) as guarded:
        before = world(backend)
        error = await call_error(guarded, "respawn_pane", pane_id=caller)
        assert "refusing to respawn pane" in error
        assert "where this MCP server itself runs" in error
        assert world(backend) == before
        assert (await call(guarded, "respawn_pane", pane_id=other))["pane_id"] == other


@pytest.mark.parametrize(
    ("args", "needle"),
    [({"pane_id": "%9"}, "no pane %9"), ({"pane_id": "@0"}, "not a tmux pane id"), ({}, "pane_id")],
)
async def test_kill_pane_bad_input_changes_nothing(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    args: dict[str, Any],
    needle: str,
) -> None:
    backend.split_window(REF, session(backend))
    before = world(backend)
    assert needle in await call_error(client, "kill_pane", **args)
    assert world(backend) == before


async def test_kill_pane_refuses_the_callers_own_pane(backend: SimBackend) -> None:
    caller = session(backend)
    other = backend.split_window(REF, caller).pane_id
    async with client_for(backend, caller_pane=caller) as guarded:
        before = world(backend)
        error = await call_error(guarded, "kill_pane", pane_id=caller)
        assert f"refusing to kill pane {caller}" in error
        assert world(backend) == before
        await call(guarded, "kill_pane", pane_id=other)
    assert [p.pane_id for p in backend.list_panes(REF)] == [caller]


# -- copy mode ----------------------------------------------------------------------------


async def test_enter_copy_mode_scrolls_back_and_exit_copy_mode_leaves(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    pane = session(backend)
    backend.server(REF).pane(pane).write(b"".join(b"L%d\n" % i for i in range(40)))
    info = await call(client, "enter_copy_mode", pane_id=pane, scroll_up=5)
    assert info["pane_id"] == pane
    snap = await call(client, "snapshot_pane", pane_id=pane)
    assert (snap["pane_in_mode"], snap["pane_mode"], snap["scroll_position"]) == (
        True,
        "copy-mode",
        5,
    )
    left = await call(client, "exit_copy_mode", pane_id=pane)
    assert left["pane_id"] == pane
    assert not pane_info(backend, pane).in_mode
    await call(client, "exit_copy_mode", pane_id=pane)  # outside a mode: nothing happens
    assert not pane_info(backend, pane).in_mode


async def test_enter_copy_mode_scrolls_at_most_to_the_oldest_row(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    pane = session(backend)
    backend.server(REF).pane(pane).write(b"".join(b"L%d\n" % i for i in range(30)))
    history = pane_info(backend, pane).history_size
    await call(client, "enter_copy_mode", pane_id=pane, scroll_up=2**31 - 1)
    snap = await call(client, "snapshot_pane", pane_id=pane)
    assert snap["scroll_position"] == history


@pytest.mark.parametrize(
    ("tool", "args", "needle"),
    [
        ("enter_copy_mode", {"scroll_up": -1}, "scroll_up"),
        ("enter_copy_mode", {"scroll_up": 2**31}, "scroll_up"),
        ("enter_copy_mode", {"pane_id": "%4"}, "no pane %4"),
        ("enter_copy_mode", {"pane_id": "4"}, "not a tmux pane id"),
        ("exit_copy_mode", {"pane_id": "%4"}, "no pane %4"),
        ("exit_copy_mode", {"pane_id": None}, "no target given"),
    ],
)
async def test_copy_mode_bad_input_changes_nothing(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    tool: str,
    args: dict[str, Any],
    needle: str,
) -> None:
    pane = session(backend)
    backend.split_window(REF, pane)
    backend.server(REF).pane(pane).write(b"".join(b"L%d\n" % i for i in range(30)))
    if tool == "exit_copy_mode":
        backend.copy_mode(REF, pane, enter=True, scroll_up=2)
    before = world(backend)
    assert needle in await call_error(client, tool, **{"pane_id": pane, **args})
    assert world(backend) == before
    assert pane_info(backend, pane).in_mode is (tool == "exit_copy_mode")


# -- pipe_pane ----------------------------------------------------------------------------


async def test_pipe_pane_appends_output_to_a_file_until_stopped(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    tmp_path: Path,
) -> None:
    pane = session(backend)
    log = tmp_path / "it's #[a] 100% log.txt"
    log.write_bytes(b"old\n")
    started = await call(client, "pipe_pane", pane_id=pane, output_path=str(log))
    assert started == {"result": f"Piping pane {pane} to {log} (appending)"}
    backend.server(REF).pane(pane).write(b"new\n")
    stopped = await call(client, "pipe_pane", pane_id=pane)
    assert stopped == {"result": f"Stopped piping pane {pane}"}
    backend.server(REF).pane(pane).write(b"after\n")
    assert log.read_bytes() == b"old\nnew\r\n"


async def test_pipe_pane_without_append_truncates(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    tmp_path: Path,
) -> None:
    pane = session(backend)
    log = tmp_path / "out.log"
    log.write_bytes(b"old\n")
    result = await call(client, "pipe_pane", pane_id=pane, output_path=str(log), append=False)
    assert result["result"].endswith("(overwriting)")
    backend.server(REF).pane(pane).write(b"new\n")
    assert log.read_bytes() == b"new\r\n"


@pytest.mark.parametrize(
    ("path", "needle"),
    [
        ("", "output_path is empty"),
        ("relative.log", "is not absolute"),
        ("{tmp}", "is a directory"),
        ("{tmp}/missing/x.log", "does not exist"),
        ("{tmp}/file/x.log", "does not exist"),
        ("{tmp}/two\nlines.log", "newline or NUL"),
        ("{tmp}/nul\0.log", "newline or NUL"),
    ],
)
async def test_pipe_pane_bad_paths_change_nothing(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    tmp_path: Path,
    path: str,
    needle: str,
) -> None:
    pane = session(backend)
    (tmp_path / "file").write_text("")
    before = (world(backend), sorted(tmp_path.iterdir()))
    output_path = path.replace("{tmp}", str(tmp_path))
    error = await call_error(client, "pipe_pane", pane_id=pane, output_path=output_path)
    assert needle in error
    assert "Hint:" in error
    assert (world(backend), sorted(tmp_path.iterdir())) == before


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ({"pane_id": "%9"}, "no pane %9"),
        ({"pane_id": "x"}, "not a tmux pane id"),
        ({}, "no target"),
    ],
)
async def test_pipe_pane_bad_targets_change_nothing(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    tmp_path: Path,
    args: dict[str, Any],
    needle: str,
) -> None:
    backend.split_window(REF, session(backend))
    before = world(backend)
    error = await call_error(client, "pipe_pane", output_path=str(tmp_path / "x.log"), **args)
    assert needle in error
    assert world(backend) == before
    assert not (tmp_path / "x.log").exists()


async def test_pipe_pane_on_a_dead_pane_is_refused(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    tmp_path: Path,
) -> None:
    pane = dead_pane(backend, session(backend))
    before = world(backend)
    error = await call_error(client, "pipe_pane", pane_id=pane, output_path=str(tmp_path / "x"))
    assert "has exited" in error
    assert world(backend) == before
    assert not (tmp_path / "x").exists()
