"""Creating, arranging and killing sessions, windows and panes on real tmux."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from gridmux.backend import (
    InvalidArgument,
    NotFound,
    PaneInfo,
    ServerRef,
    SplitDirection,
    TmuxFailure,
    layout_checksum,
)
from gridmux.backend._command_backend import TmuxCommandBackend

from .conftest import RawTmux, WaitUntil, WriteToPane

pytestmark = pytest.mark.tmux

SLEEP = "exec sleep 100000"


def _pane(backend: TmuxCommandBackend, server: ServerRef, pane_id: str) -> PaneInfo:
    return next(p for p in backend.list_panes(server) if p.pane_id == pane_id)


# -- sessions ------------------------------------------------------------------


def test_new_session_honours_every_argument(
    backend: TmuxCommandBackend, tmux_server: ServerRef, isolated_env: Path, wait_until: WaitUntil
) -> None:
    # '#' and '%' would be expanded by tmux in names and -c; they must arrive verbatim.
    start = isolated_env / "start #{pane_id} %Y"
    start.mkdir()
    session = backend.new_session(
        tmux_server,
        name="s #{session_id} %Y",
        window_name="w #{window_id}",
        start_directory=str(start),
        width=100,
        height=30,
        environment={"GMX_VALUE": "v #{pane_id} $HOME ;"},
        command='printf "%s|%s" "$GMX_VALUE" "$PWD"; exec sleep 100000',
    )
    assert session.session_name == "s #{session_id} %Y"
    assert session.window_count == 1
    (window,) = backend.list_windows(tmux_server)
    assert (window.window_name, window.width, window.height) == ("w #{window_id}", 100, 30)
    assert session.active_pane_id is not None
    expected = f"v #{{pane_id}} $HOME ;|{start}"
    wait_until(
        lambda: backend.snapshot(tmux_server, session.active_pane_id or "").rows[0] == expected,
        what="the pane to print its environment and directory",
    )
    assert backend.show_environment(tmux_server, session.session_id)["GMX_VALUE"] == (
        "v #{pane_id} $HOME ;"
    )


def test_new_session_starts_a_server(backend: TmuxCommandBackend, isolated_env: Path) -> None:
    server = ServerRef(socket_path=str(isolated_env / "fresh"))
    try:
        session = backend.new_session(server, command=SLEEP)
        assert backend.server_info(server).is_alive
        assert [s.session_id for s in backend.list_sessions(server)] == [session.session_id]
    finally:
        backend.kill_server(server)


def test_new_session_refusals(backend: TmuxCommandBackend, tmux_server: ServerRef) -> None:
    backend.new_session(tmux_server, name="taken", command=SLEEP)
    with pytest.raises(TmuxFailure, match="duplicate session: taken"):
        backend.new_session(tmux_server, name="taken", command=SLEEP)
    for bad in ({"width": 0}, {"height": -1}, {"name": ""}, {"environment": {"A=B": "x"}}):
        with pytest.raises(InvalidArgument):
            backend.new_session(tmux_server, command=SLEEP, **bad)
    assert [s.session_name for s in backend.list_sessions(tmux_server)] == ["taken"]


def test_rename_session(backend: TmuxCommandBackend, tmux_server: ServerRef) -> None:
    session = backend.new_session(tmux_server, name="old", command=SLEEP)
    backend.rename_session(tmux_server, session.session_id, "-new #{x} 中;")
    (listed,) = backend.list_sessions(tmux_server)
    assert listed.session_name == "-new #{x} 中;"
    with pytest.raises(NotFound, match=r"\$99"):
        backend.rename_session(tmux_server, "$99", "x")
    with pytest.raises(InvalidArgument):
        backend.rename_session(tmux_server, session.session_id, "")


def test_kill_session(backend: TmuxCommandBackend, tmux_server: ServerRef) -> None:
    keep = backend.new_session(tmux_server, command=SLEEP)
    gone = backend.new_session(tmux_server, command=SLEEP)
    backend.kill_session(tmux_server, gone.session_id)
    assert [s.session_id for s in backend.list_sessions(tmux_server)] == [keep.session_id]
    with pytest.raises(NotFound, match=r"kill session \$"):
        backend.kill_session(tmux_server, gone.session_id)


def test_kill_server(backend: TmuxCommandBackend, tmux_server: ServerRef, pane: str) -> None:
    backend.kill_server(tmux_server)
    # No "server exited unexpectedly" race: it is gone when kill_server returns.
    assert not backend.server_info(tmux_server).is_alive
    assert backend.list_sessions(tmux_server) == []
    with pytest.raises(NotFound):
        backend.kill_server(tmux_server)
    with pytest.raises(NotFound):
        backend.pane_state(tmux_server, pane)


# -- windows -------------------------------------------------------------------


def test_new_window_and_select_window(backend: TmuxCommandBackend, tmux_server: ServerRef) -> None:
    session = backend.new_session(tmux_server, command=SLEEP)
    quiet = backend.new_window(tmux_server, session.session_id, name="bg #1", command=SLEEP)
    assert (quiet.window_index, quiet.window_name, quiet.active) == (1, "bg #1", False)
    assert quiet.session_id == session.session_id and quiet.pane_count == 1
    loud = backend.new_window(tmux_server, session.session_id, command=SLEEP, select=True)
    assert loud.active and loud.window_index == 2
    backend.select_window(tmux_server, quiet.window_id)
    active = [w.window_id for w in backend.list_windows(tmux_server) if w.active]
    assert active == [quiet.window_id]
    with pytest.raises(NotFound):
        backend.new_window(tmux_server, "$99", command=SLEEP)
    with pytest.raises(NotFound):
        backend.select_window(tmux_server, "@99")
    with pytest.raises(InvalidArgument):
        backend.new_window(tmux_server, session.session_id + ":1")


def test_rename_and_kill_window(backend: TmuxCommandBackend, tmux_server: ServerRef) -> None:
    session = backend.new_session(tmux_server, command=SLEEP)
    window = backend.new_window(tmux_server, session.session_id, command=SLEEP)
    backend.rename_window(tmux_server, window.window_id, "logs #{x} ;")
    names = {w.window_id: w.window_name for w in backend.list_windows(tmux_server)}
    assert names[window.window_id] == "logs #{x} ;"
    backend.kill_window(tmux_server, window.window_id)
    assert window.window_id not in {w.window_id for w in backend.list_windows(tmux_server)}
    with pytest.raises(NotFound, match=window.window_id):
        backend.kill_window(tmux_server, window.window_id)
    with pytest.raises(NotFound):
        backend.rename_window(tmux_server, window.window_id, "x")


def test_move_window(backend: TmuxCommandBackend, tmux_server: ServerRef) -> None:
    one = backend.new_session(tmux_server, command=SLEEP)
    two = backend.new_session(tmux_server, command=SLEEP)
    window = backend.new_window(tmux_server, one.session_id, command=SLEEP)
    backend.move_window(tmux_server, window.window_id, destination_index=7)
    moved = next(w for w in backend.list_windows(tmux_server) if w.window_id == window.window_id)
    assert (moved.session_id, moved.window_index) == (one.session_id, 7)
    backend.move_window(tmux_server, window.window_id, destination_session_id=two.session_id)
    moved = next(w for w in backend.list_windows(tmux_server) if w.window_id == window.window_id)
    assert (moved.session_id, moved.window_index) == (two.session_id, 1)
    with pytest.raises(TmuxFailure, match="index"):  # index 0 of two is taken
        backend.move_window(tmux_server, window.window_id, destination_index=0)
    with pytest.raises(InvalidArgument):
        backend.move_window(tmux_server, window.window_id)
    with pytest.raises(NotFound):
        backend.move_window(tmux_server, "@99", destination_index=3)
    with pytest.raises(NotFound):
        backend.move_window(tmux_server, window.window_id, destination_session_id="$99")


def test_resize_window(backend: TmuxCommandBackend, tmux_server: ServerRef) -> None:
    session = backend.new_session(tmux_server, width=80, height=24, command=SLEEP)
    (window,) = backend.list_windows(tmux_server)
    backend.resize_window(tmux_server, window.window_id, width=50, height=10)
    (after,) = backend.list_windows(tmux_server)
    assert (after.width, after.height) == (50, 10)
    assert session.active_pane_id is not None
    state = backend.pane_state(tmux_server, session.active_pane_id)
    assert (state.width, state.height) == (50, 10)
    with pytest.raises(InvalidArgument):
        backend.resize_window(tmux_server, window.window_id)
    with pytest.raises(NotFound):
        backend.resize_window(tmux_server, "@99", width=5)


def test_select_layout(backend: TmuxCommandBackend, tmux_server: ServerRef, pane: str) -> None:
    backend.split_window(tmux_server, pane, command=SLEEP)
    backend.split_window(tmux_server, pane, command=SLEEP)
    (window,) = backend.list_windows(tmux_server)
    backend.select_layout(tmux_server, window.window_id, "even-horizontal")
    panes = backend.list_panes(tmux_server)
    assert {p.top for p in panes} == {0} and len({p.left for p in panes}) == 3
    layout = next(iter(backend.list_windows(tmux_server))).layout
    backend.select_layout(tmux_server, window.window_id, "tiled")
    backend.select_layout(tmux_server, window.window_id, layout)  # a string tmux printed
    assert {p.top for p in backend.list_panes(tmux_server)} == {0}
    # A layout that tiles, for one pane: tmux's own refusal for three panes
    # (3.2a: "can't set layout", 3.3a: "have 3 panes but need 1", later: "invalid layout").
    single = f"{layout_checksum('80x24,0,0,0'):04x},80x24,0,0,0"
    with pytest.raises(TmuxFailure, match=r"invalid layout|can't set layout|but need 1"):
        backend.select_layout(tmux_server, window.window_id, single)
    with pytest.raises(InvalidArgument, match="wrong checksum"):
        backend.select_layout(tmux_server, window.window_id, "ffff,80x24,0,0,0")
    with pytest.raises(NotFound):
        backend.select_layout(tmux_server, "@99", "tiled")


@pytest.mark.parametrize("layout", ["no-such-layout", "x", "ma", "", "zzzz,80x24,0,0,0"])
def test_select_layout_refuses_what_crashes_tmux(
    backend: TmuxCommandBackend, tmux_server: ServerRef, pane: str, layout: str
) -> None:
    # tmux 3.3a's server exits on these; they must never reach it.
    (window,) = backend.list_windows(tmux_server)
    with pytest.raises(InvalidArgument, match="layout"):
        backend.select_layout(tmux_server, window.window_id, layout)
    assert backend.server_info(tmux_server).is_alive


# -- panes ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("direction", "relation"),
    [
        ("below", lambda old, new: new.top > old.bottom and new.left == old.left),
        ("above", lambda old, new: new.bottom < old.top and new.left == old.left),
        ("right", lambda old, new: new.left > old.right and new.top == old.top),
        ("left", lambda old, new: new.right < old.left and new.top == old.top),
    ],
)
def test_split_window_directions(
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    pane: str,
    direction: SplitDirection,
    relation: Callable[[PaneInfo, PaneInfo], bool],
) -> None:
    new = backend.split_window(tmux_server, pane, direction=direction, command=SLEEP)
    old = _pane(backend, tmux_server, pane)
    assert relation(old, new), (old, new)
    # current_command and current_path come from /proc and change while the pane
    # execs; automatic-rename names the window after the active pane's command
    # when tmux gets to it ('tmux', then 'sh': seen on 3.2a).
    listed = _pane(backend, tmux_server, new.pane_id)
    assert replace(new, current_command="", current_path="", window_name="") == replace(
        listed, current_command="", current_path="", window_name=""
    )
    assert old.active and not new.active


def test_split_window_sizes(backend: TmuxCommandBackend, tmux_server: ServerRef, pane: str) -> None:
    cells = backend.split_window(tmux_server, pane, size="5", command=SLEEP)
    assert cells.height == 5
    share = backend.split_window(tmux_server, pane, direction="right", size="25%", command=SLEEP)
    assert share.width == 20  # 25% of 80 columns
    for bad in ("0", "abc", "10 %", "-3", "%"):
        with pytest.raises(InvalidArgument):
            backend.split_window(tmux_server, pane, size=bad)
    with pytest.raises(InvalidArgument):
        backend.split_window(tmux_server, pane, direction="diagonal")  # type: ignore[arg-type]
    with pytest.raises(NotFound):
        backend.split_window(tmux_server, "%99")


def test_select_pane_and_title(
    backend: TmuxCommandBackend, tmux_server: ServerRef, pane: str
) -> None:
    other = backend.split_window(tmux_server, pane, command=SLEEP)
    backend.select_pane(tmux_server, other.pane_id)
    assert _pane(backend, tmux_server, other.pane_id).active
    assert not _pane(backend, tmux_server, pane).active
    backend.set_pane_title(tmux_server, pane, "build #{pane_id} %H:%M ;")
    assert _pane(backend, tmux_server, pane).title == "build #{pane_id} %H:%M ;"
    with pytest.raises(NotFound):
        backend.select_pane(tmux_server, "%99")
    with pytest.raises(NotFound):
        backend.set_pane_title(tmux_server, "%99", "x")


def test_resize_pane_and_zoom(
    backend: TmuxCommandBackend, tmux_server: ServerRef, pane: str
) -> None:
    other = backend.split_window(tmux_server, pane, command=SLEEP)
    backend.resize_pane(tmux_server, other.pane_id, height=5)
    assert backend.pane_state(tmux_server, other.pane_id).height == 5
    backend.split_window(tmux_server, pane, direction="right", command=SLEEP)
    backend.resize_pane(tmux_server, pane, width=30)
    assert backend.pane_state(tmux_server, pane).width == 30

    def zoomed() -> bool:
        (window,) = backend.list_windows(tmux_server)
        return window.zoomed

    for wanted in (True, True, False, False, True):  # idempotent, not a toggle
        backend.resize_pane(tmux_server, pane, zoom=wanted)
        assert zoomed() is wanted
    for bad in ({}, {"zoom": True, "width": 3}, {"height": 0}):
        with pytest.raises(InvalidArgument):
            backend.resize_pane(tmux_server, pane, **bad)  # type: ignore[arg-type]
    with pytest.raises(NotFound):
        backend.resize_pane(tmux_server, "%99", zoom=True)


def test_swap_pane(backend: TmuxCommandBackend, tmux_server: ServerRef, pane: str) -> None:
    other = backend.split_window(tmux_server, pane, command=SLEEP)
    backend.swap_pane(tmux_server, pane, other.pane_id)
    assert _pane(backend, tmux_server, pane).pane_index == 1
    assert _pane(backend, tmux_server, other.pane_id).pane_index == 0
    with pytest.raises(NotFound):
        backend.swap_pane(tmux_server, pane, "%99")


def test_respawn_keeps_history_and_changes_pid(
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    quiet_pane: str,
    write_to_pane: WriteToPane,
    wait_until: WaitUntil,
) -> None:
    write_to_pane(quiet_pane, b"".join(b"L%d\n" % i for i in range(1, 41)))
    wait_until(
        lambda: backend.pane_state(tmux_server, quiet_pane).history_size == 17,
        what="40 lines in an 80x24 pane",
    )
    before = backend.pane_state(tmux_server, quiet_pane)
    with pytest.raises(TmuxFailure, match="still active"):
        backend.respawn_pane(tmux_server, quiet_pane, kill=False, command=SLEEP)
    backend.respawn_pane(tmux_server, quiet_pane, command="exec sleep 100001")
    after = backend.pane_state(tmux_server, quiet_pane)
    assert after.pid != before.pid and after.pid is not None
    assert (after.history_size, after.cursor_y, after.cursor_x) == (17, 0, 0)
    snap = backend.snapshot(tmux_server, quiet_pane, start="-")
    assert snap.rows[:17] == tuple(f"L{i}" for i in range(1, 18))
    assert snap.rows[17:] == ("",) * 24  # the visible screen was blanked
    with pytest.raises(NotFound):
        backend.respawn_pane(tmux_server, "%99")


def test_kill_pane(backend: TmuxCommandBackend, tmux_server: ServerRef, pane: str) -> None:
    other = backend.split_window(tmux_server, pane, command=SLEEP)
    backend.kill_pane(tmux_server, other.pane_id)
    assert [p.pane_id for p in backend.list_panes(tmux_server)] == [pane]
    with pytest.raises(NotFound, match=f"kill pane {other.pane_id}"):
        backend.kill_pane(tmux_server, other.pane_id)


def test_deleting_a_buffer_that_is_not_there_leaves_the_users_alone(
    backend: TmuxCommandBackend, tmux_server: ServerRef, tmux: RawTmux
) -> None:
    """tmux 3.2a deletes the newest buffer for a name it does not hold."""
    backend.new_session(tmux_server, command=SLEEP)
    tmux("set-buffer", "-b", "users", "the user's own")
    with pytest.raises(NotFound, match="no such buffer"):
        backend.delete_buffer(tmux_server, "gridmux_gone")
    assert tmux("list-buffers", "-F", "#{buffer_name}").split() == ["users"]
    backend.delete_buffer(tmux_server, "users")
    assert tmux("list-buffers", "-F", "#{buffer_name}") == ""
