"""Oracle: what gridmux reports of servers, sessions, windows and panes, held against libtmux.

The expected values are read from libtmux's objects (``Server.sessions``,
``Session.windows``, ``Window.panes`` and their attributes), which libtmux
fills from its own ``list-*`` commands run as separate tmux processes. So a
mistake in gridmux's command layer (a format field, a parser, a field put in
the wrong place, a type conversion) cannot hide behind itself: every field of
every result is compared, and a result gaining a field no oracle checks fails
too (whole dicts are compared).

The state is varied on purpose: three sessions from libtmux's ``session``
fixture and ``new_session`` (names with spaces and non-ASCII letters, sizes
that differ), windows with such names, horizontal and vertical splits, a
non-first active window and pane, a pane title, a zoomed pane. Every pane
runs ``sleep`` or a waiting ``sh``, so nothing changes while the two sides
read.
"""

from __future__ import annotations

from typing import Any

import libtmux
import pytest
from fastmcp import Client
from libtmux.constants import PaneDirection

from tests.mcp_calls import call

from .conftest import WaitUntil

pytestmark = pytest.mark.tmux

SLEEP = "exec sleep 100000"


def _int(value: str | None) -> int:
    assert value is not None and value.lstrip("-").isdigit(), value
    return int(value)


def _flag(value: str | None) -> bool:
    assert value in {"0", "1"}, value
    return value == "1"


@pytest.fixture
def varied(server: libtmux.Server, session: libtmux.Session, wait_until: WaitUntil) -> None:
    """Several sessions, windows and splits, with names gridmux must carry exactly."""
    spaced = server.new_session(
        "build logs", window_name="first window", window_command=SLEEP, x=100, y=30
    )
    second = spaced.new_window(window_name="two · zwei", window_shell=SLEEP)
    right = second.active_pane
    assert right is not None
    below = right.split(direction=PaneDirection.Right, shell=SLEEP).split(
        direction=PaneDirection.Below, shell=SLEEP
    )
    below.set_title("tïtle ✓ with spaces")
    right.select()
    spaced.select_window(second.window_id or "")

    unicode = server.new_session(
        "ünï ✓ 日本", window_name="wïn ✓", window_command=SLEEP, x=90, y=20
    )
    third = unicode.new_window(window_name="zoomed", window_shell=SLEEP)
    zoomed = third.active_pane
    assert zoomed is not None
    zoomed.split(direction=PaneDirection.Below, shell=SLEEP)
    zoomed.select()
    zoomed.resize(zoom=True)
    session.new_window(window_name="plain sh")  # the plugin's session: its default shell

    named = {"first window", "two · zwei", "wïn ✓", "zoomed", "plain sh"}

    def settled() -> list[str]:
        # Every pane runs its final program (sh has exec'd sleep), and the two windows
        # tmux names itself have caught up: automatic-rename runs on a timer, so a name
        # can still be the loader's (ld-linux-x86-64.so.2) after the pane runs sh.
        commands = sorted(p.pane_current_command or "" for p in server.panes)
        names = sorted(w.window_name or "" for w in server.windows if w.window_name not in named)
        ready = commands == ["sh"] * 3 + ["sleep"] * 7 and names == ["sh"] * 2
        return commands + names if ready else []

    wait_until(settled, what="three panes running sh, seven running sleep, two windows named sh")


# -- what libtmux says ----------------------------------------------------------------------


def expected_session(session: libtmux.Session) -> dict[str, Any]:
    active = session.active_pane
    return {
        "session_id": session.session_id,
        "session_name": session.session_name,
        "window_count": len(session.windows),
        "session_attached": session.session_attached,
        "session_created": session.session_created,
        "active_pane_id": active.pane_id if active else None,
    }


def expected_window(window: libtmux.Window) -> dict[str, Any]:
    active = window.active_pane
    return {
        "window_id": window.window_id,
        "window_name": window.window_name,
        "window_index": _int(window.window_index),
        "session_id": window.session_id,
        "session_name": window.session_name,
        "pane_count": len(window.panes),
        "window_layout": window.window_layout,
        "window_active": _flag(window.window_active),
        "window_width": _int(window.window_width),
        "window_height": _int(window.window_height),
        "active_pane_id": active.pane_id if active else None,
    }


def expected_pane(pane: libtmux.Pane) -> dict[str, Any]:
    window = pane.window
    return {
        "pane_id": pane.pane_id,
        "pane_index": _int(pane.pane_index),
        "pane_width": _int(pane.pane_width),
        "pane_height": _int(pane.pane_height),
        "pane_tty": pane.pane_tty,
        "pane_current_command": pane.pane_current_command,
        "pane_current_path": pane.pane_current_path,
        "pane_pid": _int(pane.pane_pid),
        "pane_title": pane.pane_title,
        "pane_active": _flag(pane.pane_active),
        "pane_dead": _flag(pane.pane_dead),
        "window_id": window.window_id,
        "window_index": _int(window.window_index),
        "window_name": window.window_name,
        "session_id": window.session_id,
        "session_name": window.session_name,
        "is_caller": None,  # the test process runs in no tmux pane
        "pane_left": _int(pane.pane_left),
        "pane_top": _int(pane.pane_top),
        "pane_right": _int(pane.pane_right),
        "pane_bottom": _int(pane.pane_bottom),
        "pane_at_left": _flag(pane.pane_at_left),
        "pane_at_right": _flag(pane.pane_at_right),
        "pane_at_top": _flag(pane.pane_at_top),
        "pane_at_bottom": _flag(pane.pane_at_bottom),
    }


# -- the comparisons ------------------------------------------------------------------------


@pytest.mark.usefixtures("varied")
async def test_sessions_match_libtmux(client: Client, server: libtmux.Server) -> None:  # type: ignore[type-arg]
    oracle = [expected_session(s) for s in server.sessions]
    assert len(oracle) == 4  # the plugin's two, and two more
    assert (await call(client, "list_sessions"))["result"] == oracle
    for want in oracle:
        by_id = await call(client, "get_session_info", session_id=want["session_id"])
        by_name = await call(client, "get_session_info", session_name=want["session_name"])
        assert by_id == by_name == want


@pytest.mark.usefixtures("varied")
async def test_windows_match_libtmux(client: Client, server: libtmux.Server) -> None:  # type: ignore[type-arg]
    oracle = [expected_window(w) for w in server.windows]
    assert len(oracle) == 7
    assert (await call(client, "list_windows"))["result"] == oracle
    for session in server.sessions:
        mine = [w for w in oracle if w["session_id"] == session.session_id]
        listed = await call(client, "list_windows", session_name=session.session_name)
        assert listed["result"] == mine
    for want in oracle:
        got = await call(client, "get_window_info", window_id=want["window_id"])
        assert got == want


@pytest.mark.usefixtures("varied")
async def test_panes_match_libtmux(client: Client, server: libtmux.Server) -> None:  # type: ignore[type-arg]
    oracle = [expected_pane(p) for p in server.panes]
    assert len(oracle) == 10
    assert {p["pane_title"] for p in oracle} >= {"tïtle ✓ with spaces"}
    assert (await call(client, "list_panes", fields=["all"]))["result"] == oracle
    # The default listing is the same rows cut to its columns.
    lean = (await call(client, "list_panes"))["result"]
    assert lean == [{key: p[key] for key in lean[0]} for p in oracle]
    for window in server.windows:
        mine = [p for p in oracle if p["window_id"] == window.window_id]
        listed = await call(client, "list_panes", window_id=window.window_id, fields=["all"])
        assert listed["result"] == mine
    for want in oracle:
        assert await call(client, "get_pane_info", pane_id=want["pane_id"]) == want


@pytest.mark.usefixtures("varied")
async def test_server_info_matches_libtmux(client: Client, server: libtmux.Server) -> None:  # type: ignore[type-arg]
    shown = server.cmd("display-message", "-p", "#{socket_path}\t#{version}").stdout[0]
    socket_path, version = shown.split("\t")
    got = await call(client, "get_server_info")
    assert got == {
        "is_alive": server.is_alive(),
        "socket_name": None,  # the client addresses the server by path
        "socket_path": socket_path,
        "session_count": len(server.sessions),
        "version": version,
    }
