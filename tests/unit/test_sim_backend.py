"""SimBackend through the TmuxBackend protocol: discovery, reads and servers."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import pytest

from gridmux.backend import (
    InvalidArgument,
    NotFound,
    PaneInfo,
    ServerRef,
    TmuxBackend,
)
from tmuxsim import ManualClock, SimBackend, SimServer

REF = ServerRef()
OTHER = ServerRef(socket_name="other")


def started(version: str = "3.3a", **kwargs: Any) -> tuple[SimBackend, str]:
    backend = SimBackend(version=version, clock=ManualClock(1000.0))
    session = backend.new_session(REF, width=40, height=6, command="cat", **kwargs)
    assert session.active_pane_id is not None
    return backend, session.active_pane_id


def call_shape(method: object) -> list[tuple[str, object, object]]:
    """Parameter names, kinds and defaults of ``method`` (nothing: there is none)."""
    if not callable(method):
        return []
    return [(p.name, p.kind, p.default) for p in inspect.signature(method).parameters.values()]


def test_sim_backend_satisfies_the_protocol() -> None:
    _: TmuxBackend = SimBackend()  # mypy checks the types statically
    methods = [name for name in dir(TmuxBackend) if not name.startswith("_")]
    assert "snapshot" in methods and len(methods) > 40
    differ = [
        name
        for name in methods
        if call_shape(getattr(TmuxBackend, name)) != call_shape(getattr(SimBackend, name, None))
    ]
    assert differ == [], "the simulator's methods must take what the protocol's take"


def test_every_call_of_the_simulator_holds_its_lock() -> None:
    # The MCP layer calls the backend from worker threads.
    methods = [name for name in dir(TmuxBackend) if not name.startswith("_")]
    unlocked = [name for name in methods if not hasattr(getattr(SimBackend, name), "__wrapped__")]
    assert unlocked == []


# -- servers -------------------------------------------------------------------------


def test_no_server_until_a_session_is_made() -> None:
    backend = SimBackend(version="3.5a")
    info = backend.server_info(REF)
    assert (info.is_alive, info.pid, info.session_count) == (False, None, 0)
    assert info.version == "3.5a"
    assert info.socket_name == "default"
    assert backend.list_sessions(REF) == []
    with pytest.raises(NotFound, match=r"no server running on /tmp/tmux-\d+/default"):
        backend.list_panes(REF)


def test_new_session_starts_the_server() -> None:
    backend, _ = started()
    info = backend.server_info(REF)
    assert info.is_alive and info.session_count == 1 and info.pid == 1000
    assert info.socket_path is not None and info.socket_path.endswith("/default")


def test_servers_are_separate_and_a_path_wins_over_a_name() -> None:
    backend, _ = started()
    backend.new_session(OTHER)
    assert backend.server(OTHER) is not backend.server(REF)
    path = backend.server_info(OTHER).socket_path
    assert path is not None
    both = ServerRef(socket_name="ignored", socket_path=path)
    assert backend.server(both) is backend.server(OTHER)
    # Pids come from one process table: the second server is a different process.
    assert backend.server_info(OTHER).pid != backend.server_info(REF).pid


def test_given_servers_are_used_for_their_refs() -> None:
    sim = SimServer("3.7c")
    sim.new_session()
    backend = SimBackend({OTHER: sim})
    assert backend.server(OTHER) is sim
    assert backend.server_info(OTHER).version == "3.7c"
    assert sim.socket_path.endswith("/other")


def test_server_disappears_with_its_last_session_and_restarts_fresh() -> None:
    backend, pane = started()
    old_pid = backend.server_info(REF).pid
    backend.kill_session(REF, "$0")
    assert backend.server_info(REF).is_alive is False
    assert backend.list_sessions(REF) == []
    with pytest.raises(NotFound, match="no server running"):
        backend.pane_state(REF, pane)
    session = backend.new_session(REF)
    assert session.session_id == "$0"  # a new server process counts from zero again
    assert backend.pane_state(REF, "%0").server_pid != old_pid


def test_kill_server() -> None:
    backend, _ = started()
    backend.kill_server(REF)
    assert not backend.server_info(REF).is_alive
    with pytest.raises(NotFound):
        backend.kill_server(REF)


def test_a_failed_new_session_does_not_leave_a_server_behind() -> None:
    backend = SimBackend()
    with pytest.raises(InvalidArgument):
        backend.new_session(REF, width=0)
    assert not backend.server_info(REF).is_alive


CALLS: dict[str, Callable[[SimBackend], object]] = {
    "list_windows": lambda b: b.list_windows(REF),
    "list_panes": lambda b: b.list_panes(REF),
    "pane_state": lambda b: b.pane_state(REF, "%0"),
    "snapshot": lambda b: b.snapshot(REF, "%0"),
    "display_message": lambda b: b.display_message(REF, "%0", "x"),
    "show_options": lambda b: b.show_options(REF, scope="server"),
    "show_environment": lambda b: b.show_environment(REF),
    "list_buffers": lambda b: b.list_buffers(REF),
    "show_buffer": lambda b: b.show_buffer(REF, "b"),
    "show_hooks": lambda b: b.show_hooks(REF, scope="session", global_=True),
    "new_window": lambda b: b.new_window(REF, "$0"),
    "split_window": lambda b: b.split_window(REF, "%0"),
    "rename_session": lambda b: b.rename_session(REF, "$0", "x"),
    "rename_window": lambda b: b.rename_window(REF, "@0", "x"),
    "select_window": lambda b: b.select_window(REF, "@0"),
    "select_pane": lambda b: b.select_pane(REF, "%0"),
    "set_pane_title": lambda b: b.set_pane_title(REF, "%0", "t"),
    "select_layout": lambda b: b.select_layout(REF, "@0", "tiled"),
    "resize_pane": lambda b: b.resize_pane(REF, "%0", width=5),
    "resize_window": lambda b: b.resize_window(REF, "@0", width=5),
    "move_window": lambda b: b.move_window(REF, "@0", destination_index=3),
    "swap_pane": lambda b: b.swap_pane(REF, "%0", "%1"),
    "respawn_pane": lambda b: b.respawn_pane(REF, "%0"),
    "kill_pane": lambda b: b.kill_pane(REF, "%0"),
    "kill_window": lambda b: b.kill_window(REF, "@0"),
    "kill_session": lambda b: b.kill_session(REF, "$0"),
    "send_keys": lambda b: b.send_keys(REF, "%0", "x"),
    "clear_history": lambda b: b.clear_history(REF, "%0"),
    "copy_mode": lambda b: b.copy_mode(REF, "%0", enter=True),
    "pipe_pane": lambda b: b.pipe_pane(REF, "%0", None),
    "set_option": lambda b: b.set_option(REF, "mouse", "on", scope="session", global_=True),
    "set_environment": lambda b: b.set_environment(REF, "A", "1"),
    "load_buffer": lambda b: b.load_buffer(REF, "b", "x"),
    "paste_buffer": lambda b: b.paste_buffer(REF, "b", "%0"),
    "delete_buffer": lambda b: b.delete_buffer(REF, "b"),
    "wait_for": lambda b: b.wait_for(REF, "ch", 1.0),
    "signal_channel": lambda b: b.signal_channel(REF, "ch"),
}


@pytest.mark.parametrize("call", CALLS.values(), ids=list(CALLS))
def test_every_call_needs_a_running_server(call: Callable[[SimBackend], object]) -> None:
    with pytest.raises(NotFound, match="no server running"):
        call(SimBackend())


UNKNOWN: dict[str, Callable[[SimBackend], object]] = {
    "list_windows": lambda b: b.list_windows(REF, "$7"),
    "list_panes window": lambda b: b.list_panes(REF, window_id="@7"),
    "list_panes session": lambda b: b.list_panes(REF, session_id="$7"),
    "pane_state": lambda b: b.pane_state(REF, "%7"),
    "snapshot": lambda b: b.snapshot(REF, "%7"),
    "display_message": lambda b: b.display_message(REF, "%7", "x"),
    "display_message bad": lambda b: b.display_message(REF, "nonsense", "x"),
    "show_options": lambda b: b.show_options(REF, scope="window", target="@7"),
    "show_environment": lambda b: b.show_environment(REF, "$7"),
    "show_buffer": lambda b: b.show_buffer(REF, "nope"),
    "show_hooks": lambda b: b.show_hooks(REF, scope="pane", target="%7"),
    "new_window": lambda b: b.new_window(REF, "$7"),
    "split_window": lambda b: b.split_window(REF, "%7"),
    "rename_session": lambda b: b.rename_session(REF, "$7", "x"),
    "rename_window": lambda b: b.rename_window(REF, "@7", "x"),
    "select_window": lambda b: b.select_window(REF, "@7"),
    "select_pane": lambda b: b.select_pane(REF, "%7"),
    "set_pane_title": lambda b: b.set_pane_title(REF, "%7", "t"),
    "select_layout": lambda b: b.select_layout(REF, "@7", "tiled"),
    "resize_pane": lambda b: b.resize_pane(REF, "%7", width=5),
    "resize_window": lambda b: b.resize_window(REF, "@7", width=5),
    "move_window": lambda b: b.move_window(REF, "@7"),
    "move_window session": lambda b: b.move_window(REF, "@0", destination_session_id="$7"),
    "swap_pane": lambda b: b.swap_pane(REF, "%0", "%7"),
    "respawn_pane": lambda b: b.respawn_pane(REF, "%7"),
    "kill_pane": lambda b: b.kill_pane(REF, "%7"),
    "kill_window": lambda b: b.kill_window(REF, "@7"),
    "kill_session": lambda b: b.kill_session(REF, "$7"),
    "send_keys": lambda b: b.send_keys(REF, "%7", "x"),
    "clear_history": lambda b: b.clear_history(REF, "%7"),
    "copy_mode": lambda b: b.copy_mode(REF, "%7", enter=True),
    "pipe_pane": lambda b: b.pipe_pane(REF, "%7", None),
    "set_option": lambda b: b.set_option(REF, "mouse", "on", scope="session", target="$7"),
    "set_environment": lambda b: b.set_environment(REF, "A", "1", session_id="$7"),
    "paste_buffer": lambda b: b.paste_buffer(REF, "nope", "%0"),
    "delete_buffer": lambda b: b.delete_buffer(REF, "nope"),
}


@pytest.mark.parametrize("call", UNKNOWN.values(), ids=list(UNKNOWN))
def test_unknown_targets_are_not_found(call: Callable[[SimBackend], object]) -> None:
    backend, _ = started()
    with pytest.raises(NotFound):
        call(backend)


# -- discovery ------------------------------------------------------------------------


def test_listings_describe_sessions_windows_and_panes() -> None:
    backend, pane = started(name="work", window_name="main", start_directory="/srv")
    window = backend.new_window(REF, "$0", name="logs", command="cat")
    session = backend.list_sessions(REF)[0]
    assert (session.session_name, session.window_count, session.created) == ("work", 2, 1000)
    assert session.active_pane_id == pane and session.attached == 0
    windows = backend.list_windows(REF)
    assert [(w.window_name, w.window_index, w.active) for w in windows] == [
        ("main", 0, True),
        ("logs", 1, False),
    ]
    assert windows[0].layout.endswith(",40x6,0,0,0")
    assert windows[1] == window
    assert backend.list_windows(REF, "$0") == windows
    info = backend.list_panes(REF, window_id="@0")[0]
    assert isinstance(info, PaneInfo)
    assert (info.pane_id, info.width, info.height, info.current_path) == (pane, 40, 6, "/srv")
    assert (info.at_left, info.at_right, info.right, info.bottom) == (True, True, 39, 5)
    assert info.current_command == "cat" and info.tty.startswith("/dev/pts/")
    assert [p.pane_id for p in backend.list_panes(REF, session_id="$0")] == ["%0", "%1"]
    assert len(backend.list_panes(REF)) == 2


def test_list_panes_rejects_a_window_of_another_session() -> None:
    backend, _ = started()
    backend.new_session(REF, name="other")
    with pytest.raises(NotFound):
        backend.list_panes(REF, session_id="$1", window_id="@0")


# -- reads ---------------------------------------------------------------------------


def write(backend: SimBackend, pane_id: str, data: bytes) -> None:
    backend.server(REF).pane(pane_id).write(data)


def test_pane_state_reports_the_grid() -> None:
    backend, pane = started()
    write(backend, pane, b"".join(b"L%d\n" % i for i in range(1, 9)) + b"abc")
    state = backend.pane_state(REF, pane)
    assert (state.history_size, state.cursor_x, state.cursor_y) == (3, 3, 5)
    assert (state.width, state.height, state.history_limit) == (40, 6, 2000)
    assert state.anchor == 8 and state.server_pid == 1000
    assert state.pid is not None and not state.dead and not state.in_mode


@pytest.mark.parametrize(
    ("start", "end", "top", "rows"),
    [
        (None, None, 2, ["L3", "L4", "L5", "L6", "L7", "L8"]),
        ("-", None, 0, ["L1", "L2", "L3", "L4", "L5", "L6", "L7", "L8"]),
        (-1, 0, 1, ["L2", "L3"]),
        (-100, -100, 0, ["L1"]),
        (3, 1, 3, ["L4", "L5", "L6"]),
        (40000, None, 2, ["L3", "L4", "L5", "L6", "L7", "L8"]),  # unparsable -> default
    ],
)
def test_snapshot_rows_and_top_follow_capture_pane(
    start: int | str | None, end: int | str | None, top: int, rows: list[str]
) -> None:
    backend, pane = started()
    write(backend, pane, b"".join(b"L%d\n" % i for i in range(1, 8)) + b"L8")
    snap = backend.snapshot(REF, pane, start=start, end=end)  # type: ignore[arg-type]
    assert (snap.top, list(snap.rows)) == (top, rows)
    assert snap.state.history_size == 2


def test_snapshot_joins_wrapped_rows() -> None:
    backend, pane = started()
    write(backend, pane, b"x" * 50 + b"\nend")
    assert backend.snapshot(REF, pane).rows[:3] == ("x" * 40, "x" * 10, "end")
    joined = backend.snapshot(REF, pane, join_wrapped=True)
    assert joined.rows[:2] == ("x" * 50, "end")
    assert joined.top == 0


def test_joined_rows_carry_no_trailing_blanks_like_rows() -> None:
    """tmux 3.3+ keeps written trailing blanks in ``-J``, 3.2a pads to the row's
    allocation; both backends trim joined lines as tmux trims unjoined rows."""
    backend, pane = started()
    write(backend, pane, b"x" * 45 + b"   \nab  \nend")
    assert backend.snapshot(REF, pane).rows[:4] == ("x" * 40, "x" * 5, "ab", "end")
    joined = backend.snapshot(REF, pane, join_wrapped=True)
    assert joined.rows[:3] == ("x" * 45, "ab", "end")


def test_pane_snapshot_pairs_the_listing_with_a_snapshot() -> None:
    backend, pane = started()
    write(backend, pane, b"hello")
    info, snap = backend.pane_snapshot(REF, pane, start=0)
    assert [info] == backend.list_panes(REF)
    assert snap == backend.snapshot(REF, pane, start=0)
    with pytest.raises(NotFound):
        backend.pane_snapshot(REF, "%99")


def test_snapshots_of_many_panes_leave_out_missing_ones() -> None:
    backend, pane = started()
    write(backend, pane, b"x" * 50 + b"\nend")
    batch = backend.snapshots(REF, [pane, "%99"], join_wrapped=True)
    assert list(batch) == [pane]
    assert batch[pane] == backend.snapshot(REF, pane, join_wrapped=True)
    assert backend.snapshots(REF, []) == {}


def test_scan_panes_is_the_listing_with_each_snapshot() -> None:
    backend, pane = started()
    write(backend, pane, b"x" * 50 + b"\nend")
    other = backend.split_window(REF, pane)
    scanned = backend.scan_panes(REF, start="-", join_wrapped=True)
    assert [info for info, _ in scanned] == backend.list_panes(REF)
    assert [info.pane_id for info, _ in scanned] == [pane, other.pane_id]
    for info, snap in scanned:
        assert snap == backend.snapshot(REF, info.pane_id, start="-", join_wrapped=True)


@pytest.mark.parametrize("bound", ["5", 1.5, True])
def test_snapshot_rejects_malformed_bounds(bound: object) -> None:
    backend, pane = started()
    with pytest.raises(InvalidArgument):
        backend.snapshot(REF, pane, start=bound)  # type: ignore[arg-type]


@pytest.mark.parametrize(("version", "pid_empty"), [("3.3a", False), ("3.8", True)])
def test_dead_pane_state_and_pid_per_version(version: str, pid_empty: bool) -> None:
    backend, pane = started(version)
    backend.set_option(REF, "remain-on-exit", "on", scope="window", global_=True)
    old = backend.pane_state(REF, pane).pid
    backend.server(REF).pane(pane).exit(4)
    state = backend.pane_state(REF, pane)
    assert (state.dead, state.dead_status) == (True, 4)
    assert state.pid == (None if pid_empty else old)
    assert backend.list_panes(REF)[0].pid == state.pid
    assert backend.display_message(REF, pane, "[#{pane_pid}]") == (
        "[]" if pid_empty else f"[{old}]"
    )


def test_display_message_expands_tmux_formats() -> None:
    backend, pane = started(name="work")
    write(backend, pane, b"ab")
    fmt = (
        "#{session_name}:#{window_index}.#{pane_index} #{pane_id} #{window_id} #{session_id} "
        "#{pane_width}x#{pane_height} #{history_size} #{cursor_x},#{cursor_y} "
        "#{pane_in_mode}#{pane_mode}#{alternate_on} #{scroll_region_lower} #{no_such_thing}|"
        "#{version} #{pid} #{pane_current_command}"
    )
    assert backend.display_message(REF, pane, fmt) == (
        "work:0.0 %0 @0 $0 40x6 0 2,0 00 5 |3.3a 1000 cat"
    )
    assert backend.display_message(REF, "$0", "#{pane_id} #D #S ##") == "%0 %0 work #"


@pytest.mark.parametrize(
    ("fmt", "expected"),
    [
        ("#{?pane_dead,dead,alive}", "alive"),
        ("#{?#{==:#{pane_id},%0},yes,no}", "yes"),
        ("#{!=:a,b}#{==:a,b}", "10"),
        ("#{e|+:2,3} #{e|*:#{pane_width},2} #{e|/|f|1:7,2}", "5 80 3.5"),
        ("#{=3:session_name} #{=-2:session_name}", "wor rk"),
        ("#{t:session_created}", "Thu Jan  1 00:16:40 1970"),
        ("#{b:pane_current_path} #{d:pane_current_path}", "sim /home"),
        ("#{l:#{pane_id}}", "#{pane_id}"),
        ("#{?pane_dead,a,#{?pane_active,b,c}}", "b"),
        ("#{pane_unseen_changes}", ""),
        ("a#(date)b #{unterminated", "ab #{unterminated"),
    ],
)
def test_format_language(fmt: str, expected: str) -> None:
    backend, pane = started(name="work")
    assert backend.display_message(REF, pane, fmt) == expected


def test_scroll_position_exists_only_in_copy_mode() -> None:
    backend, pane = started()
    write(backend, pane, b"".join(b"L%d\n" % i for i in range(20)))
    assert backend.display_message(REF, pane, "[#{scroll_position}]") == "[]"
    backend.copy_mode(REF, pane, enter=True, scroll_up=4)
    assert backend.display_message(
        REF, pane, "#{pane_in_mode} #{pane_mode} #{scroll_position}"
    ) == ("1 copy-mode 4")


# -- options, hooks, environment, buffers -------------------------------------------------
