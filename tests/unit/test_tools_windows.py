"""Window tools through the MCP client, on the simulator: list_windows,
get_window_info, create_window, select_window, split_window, rename_window,
kill_window, select_layout, resize_window, move_window; plus the simulator's
side of the backend additions they use (``new_window`` direction,
``WindowInfo.last``).

Only what needs the simulator is here (its fake shell, injected clock,
pane writes, default socket, spies, known fidelity gaps); what holds on both
backends is in tests/contract/test_windows.py and test_window_layout.py."""

from __future__ import annotations

import os
import tempfile
from typing import Any

import pytest
from fastmcp import Client

from gridmux.backend import ServerRef, layout_checksum
from tests.mcp_calls import call, call_error
from tmuxsim import SimBackend

REF = ServerRef()


async def windows(client: Client, **args: Any) -> list[dict[str, Any]]:  # type: ignore[type-arg]
    listed: list[dict[str, Any]] = (await call(client, "list_windows", **args))["result"]
    return listed


async def panes(client: Client, **args: Any) -> list[dict[str, Any]]:  # type: ignore[type-arg]
    listed: list[dict[str, Any]] = (await call(client, "list_panes", **args))["result"]
    return listed


def everything(backend: SimBackend) -> tuple[object, ...]:
    return (
        backend.list_sessions(REF),
        backend.list_windows(REF),
        [(p.pane_id, p.width, p.height, p.left, p.top) for p in backend.list_panes(REF)],
    )


@pytest.fixture
def two_sessions(backend: SimBackend) -> dict[str, str]:
    """'dev' with windows 0 (editor) and 1 (shell), 'ops' with window 0; ids by name."""
    dev = backend.new_session(REF, name="dev", window_name="editor", width=80, height=24)
    shell = backend.new_window(REF, dev.session_id, name="shell")
    ops = backend.new_session(REF, name="ops", window_name="logs", width=80, height=24)
    editor = backend.list_windows(REF, dev.session_id)[0]
    logs = backend.list_windows(REF, ops.session_id)[0]
    return {
        "dev": dev.session_id,
        "ops": ops.session_id,
        "editor": editor.window_id,
        "shell": shell.window_id,
        "logs": logs.window_id,
    }


async def test_create_window_environment_directory_and_history(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    two_sessions: dict[str, str],
) -> None:
    directory = tempfile.mkdtemp(prefix="gmxw-")
    try:
        made = await call(
            client,
            "create_window",
            session_name="dev",
            start_directory=directory,
            environment={"STAGE": "test"},
            suppress_persistent_history=True,
        )
        pane = backend.server(REF).pane(made["active_pane_id"])
        assert pane.environment["STAGE"] == "test"
        assert pane.environment["HISTFILE"] == ""
        assert "ignorespace" in pane.environment["HISTCONTROL"]
        info = (await panes(client, window_id=made["window_id"]))[0]
        assert info["pane_current_path"] == directory
        # Per process: the session environment is not changed.
        other = await call(client, "create_window", session_name="dev", environment='{"X": "1"}')
        assert "STAGE" not in backend.server(REF).pane(other["active_pane_id"]).environment
    finally:
        os.rmdir(directory)


async def test_split_window_command_environment_and_directory(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    two_sessions: dict[str, str],
) -> None:
    directory = tempfile.mkdtemp(prefix="gmxs-")
    try:
        new = await call(
            client,
            "split_window",
            window_id=two_sessions["logs"],
            shell="cat",
            start_directory=directory,
            environment={"ROLE": "tail"},
            suppress_persistent_history=True,
        )
        assert new["pane_current_command"] == "cat"
        assert new["pane_current_path"] == directory
        env = backend.server(REF).pane(new["pane_id"]).environment
        assert env["ROLE"] == "tail" and env["fish_private_mode"] == "1"
    finally:
        os.rmdir(directory)


# -- the simulator's side of the backend additions ------------------------------------------------


def test_sim_new_window_inserts_before_or_after_the_current_window(backend: SimBackend) -> None:
    session = backend.new_session(REF, name="s", window_name="w0")
    sid = session.session_id
    backend.new_window(REF, sid, name="w1")
    backend.move_window(REF, backend.list_windows(REF, sid)[1].window_id, destination_index=3)
    # s: 0 w0 (current), 3 w1
    made = backend.new_window(REF, sid, name="after", direction="after")
    assert made.window_index == 1
    made = backend.new_window(REF, sid, name="before", direction="before")
    assert made.window_index == 0
    listed = [(w.window_index, w.window_name) for w in backend.list_windows(REF, sid)]
    # Only the run of windows up to the first free index shifts (winlink_shuffle_up).
    assert listed == [(0, "before"), (1, "w0"), (2, "after"), (3, "w1")]


def test_sim_window_info_marks_the_last_window(backend: SimBackend) -> None:
    session = backend.new_session(REF, name="s")
    first = backend.list_windows(REF, session.session_id)[0]
    assert first.last is False
    second = backend.new_window(REF, session.session_id, select=True)
    flags = {w.window_id: (w.active, w.last) for w in backend.list_windows(REF)}
    assert flags == {first.window_id: (False, True), second.window_id: (True, False)}


async def test_get_window_info_on_a_stopped_server(client: Client) -> None:  # type: ignore[type-arg]
    assert "no server running" in await call_error(client, "get_window_info")


async def test_select_layout_for_another_pane_count_is_refused(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    two_sessions: dict[str, str],
) -> None:
    single = (await call(client, "get_window_info", window_id=two_sessions["editor"]))[
        "window_layout"
    ]
    await call(client, "split_window", window_id=two_sessions["logs"])
    before = everything(backend)
    error = await call_error(client, "select_layout", layout=single, window_id=two_sessions["logs"])
    assert "layout has 1 panes" in error and "This window has 2 panes" in error
    assert everything(backend) == before


def test_layout_checksum_matches_tmux() -> None:
    # Printed by tmux 3.3a for an 80x24 window with one pane.
    assert f"{layout_checksum('80x24,0,0,2'):04x}" == "b25f"
