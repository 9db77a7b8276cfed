"""SimBackend actions: creating, arranging, killing, typing, modes, pipes, channels."""

from __future__ import annotations

from pathlib import Path

import pytest

from gridmux.backend import InvalidArgument, NotFound, ServerRef, TmuxFailure
from tmuxsim import ManualClock, SimBackend

REF = ServerRef()


def started(version: str = "3.3a", **kwargs: object) -> tuple[SimBackend, str]:
    backend = SimBackend(version=version, clock=ManualClock())
    session = backend.new_session(REF, width=40, height=6, **kwargs)  # type: ignore[arg-type]
    assert session.active_pane_id is not None
    return backend, session.active_pane_id


def rows(backend: SimBackend, pane: str) -> list[str]:
    out = list(backend.snapshot(REF, pane, start="-").rows)
    while out and not out[-1]:
        out.pop()
    return out


# -- creating ------------------------------------------------------------------------


def test_new_session_options_and_duplicates() -> None:
    backend, pane = started(name="w", window_name="main", start_directory="/srv")
    assert backend.list_windows(REF)[0].window_name == "main"
    assert backend.list_panes(REF)[0].current_path == "/srv"
    assert rows(backend, pane) == ["$"]
    with pytest.raises(TmuxFailure, match="duplicate session: w"):
        backend.new_session(REF, name="w")
    with pytest.raises(InvalidArgument):
        backend.new_session(REF, height=70000)


def test_new_window_selects_only_when_asked() -> None:
    backend, _ = started()
    quiet = backend.new_window(REF, "$0", name="bg")
    assert not quiet.active and quiet.window_index == 1
    shown = backend.new_window(REF, "$0", select=True, environment={"X": "1"})
    assert shown.active and shown.window_name == "sh"
    assert backend.server(REF).pane(shown.active_pane_id or "").environment["X"] == "1"
    with pytest.raises(InvalidArgument):
        backend.new_window(REF, "$0", name="")


def test_split_window_returns_the_new_pane() -> None:
    backend, pane = started()
    info = backend.split_window(REF, pane, direction="right", size="10", command="cat")
    assert (info.pane_id, info.width, info.left, info.active) == ("%1", 10, 30, False)
    assert info.current_command == "cat"
    with pytest.raises(InvalidArgument):
        backend.split_window(REF, pane, size="wide")
    backend.resize_window(REF, "@0", height=2)
    with pytest.raises(TmuxFailure):
        backend.split_window(REF, pane, direction="below")


# -- names, selection, layout, geometry ------------------------------------------------


def test_rename_session_and_window() -> None:
    backend, _ = started()
    backend.new_session(REF, name="taken")
    backend.rename_session(REF, "$0", "new")
    backend.rename_window(REF, "@0", "editor")
    assert [s.session_name for s in backend.list_sessions(REF)] == ["new", "taken"]
    assert backend.list_windows(REF, "$0")[0].window_name == "editor"
    with pytest.raises(TmuxFailure, match="duplicate session"):
        backend.rename_session(REF, "$0", "taken")
    with pytest.raises(InvalidArgument):
        backend.rename_window(REF, "@0", "")


def test_select_window_and_pane_and_title() -> None:
    backend, pane = started()
    backend.new_window(REF, "$0")
    backend.select_window(REF, "@1")
    assert [w.active for w in backend.list_windows(REF)] == [False, True]
    backend.split_window(REF, pane)
    backend.select_pane(REF, pane)
    panes = backend.list_panes(REF, window_id="@0")
    assert [p.active for p in panes] == [True, False]
    assert backend.list_sessions(REF)[0].active_pane_id == "%1"  # window @1 is current
    backend.set_pane_title(REF, pane, "build")
    assert backend.list_panes(REF, window_id="@0")[0].title == "build"
    assert backend.display_message(REF, pane, "#T") == "build"


def test_select_layout_resize_and_zoom() -> None:
    backend, pane = started()
    backend.split_window(REF, pane)
    backend.select_layout(REF, "@0", "even-horizontal")
    assert [p.width for p in backend.list_panes(REF)] == [19, 20]  # the last takes the spare
    with pytest.raises(InvalidArgument):
        backend.select_layout(REF, "@0", "sideways")
    backend.resize_pane(REF, pane, width=30)
    assert [p.width for p in backend.list_panes(REF)] == [30, 9]
    backend.resize_pane(REF, pane, zoom=True)
    window = backend.list_windows(REF)[0]
    assert window.zoomed and backend.pane_state(REF, pane).width == 40
    assert backend.display_message(REF, pane, "#{window_zoomed_flag} #F") == "1 *Z"
    backend.resize_pane(REF, pane, zoom=False)
    assert not backend.list_windows(REF)[0].zoomed
    with pytest.raises(InvalidArgument):
        backend.resize_pane(REF, pane, height=0)


def test_resize_window_changes_the_grid_and_keeps_the_anchor() -> None:
    backend, pane = started(command="cat")
    backend.server(REF).pane(pane).write(b"a\nb\nc\nd\ne\nf\ng")
    before = backend.pane_state(REF, pane)
    backend.resize_window(REF, "@0", height=3)
    after = backend.pane_state(REF, pane)
    assert (after.height, after.width) == (3, 40)
    assert after.anchor == before.anchor  # docs/tmux-model.md §9
    with pytest.raises(InvalidArgument):
        backend.resize_window(REF, "@0", width=-5)


def test_move_window_and_swap_pane() -> None:
    backend, pane = started()
    backend.new_session(REF, name="dest")
    backend.move_window(REF, "@0", destination_session_id="$1", destination_index=4)
    assert [s.session_name for s in backend.list_sessions(REF)] == ["dest"]
    assert [w.window_index for w in backend.list_windows(REF, "$1")] == [0, 4]
    with pytest.raises(TmuxFailure, match="index in use"):
        backend.move_window(REF, "@1", destination_index=4)
    with pytest.raises(InvalidArgument):
        backend.move_window(REF, "@1", destination_index=-1)
    backend.split_window(REF, pane)
    backend.swap_pane(REF, pane, "%2")
    assert [p.pane_id for p in backend.list_panes(REF, window_id="@0")] == ["%2", "%0"]


# -- lifecycle --------------------------------------------------------------------------


def test_respawn_pane_refuses_a_live_pane_without_kill() -> None:
    backend, pane = started()
    with pytest.raises(TmuxFailure, match="still active"):
        backend.respawn_pane(REF, pane, kill=False)


def test_respawn_pane_keeps_history_and_gets_a_new_pid() -> None:
    backend, pane = started(command="cat")
    backend.server(REF).pane(pane).write(b"".join(b"L%d\n" % i for i in range(10)))
    before = backend.pane_state(REF, pane)
    backend.respawn_pane(REF, pane, command="cat", start_directory="/opt", environment={"A": "1"})
    after = backend.pane_state(REF, pane)
    assert after.pid != before.pid
    assert after.history_size == before.history_size
    assert (after.cursor_x, after.cursor_y) == (0, 0)
    assert backend.list_panes(REF)[0].current_path == "/opt"
    assert backend.server(REF).pane(pane).environment["A"] == "1"


def test_kill_pane_window_session() -> None:
    backend, pane = started()
    backend.split_window(REF, pane)
    backend.new_window(REF, "$0")
    backend.new_session(REF, name="other")
    backend.kill_pane(REF, "%1")
    assert [p.pane_id for p in backend.list_panes(REF, session_id="$0")] == ["%0", "%2"]
    backend.kill_window(REF, "@1")
    assert [w.window_id for w in backend.list_windows(REF, "$0")] == ["@0"]
    backend.kill_pane(REF, "%0")  # its last pane: the session goes too
    assert [s.session_name for s in backend.list_sessions(REF)] == ["other"]
    backend.kill_session(REF, "$1")
    assert not backend.server_info(REF).is_alive


def test_a_command_that_exits_at_once_still_reports_its_session() -> None:
    backend = SimBackend()
    backend.new_session(REF, name="keep")
    session = backend.new_session(REF, name="brief", command="exit 0")
    assert session.session_name == "brief" and session.window_count == 1
    assert [s.session_name for s in backend.list_sessions(REF)] == ["keep"]


# -- typing ---------------------------------------------------------------------------


def test_send_keys_literal_key_names_and_enter() -> None:
    backend, pane = started()
    backend.send_keys(REF, pane, "echo one", enter=True)
    backend.send_keys(REF, pane, "echo two", literal=True)
    backend.send_keys(REF, pane, "Enter")
    backend.send_keys(REF, pane, "Enter", literal=True)
    backend.send_keys(REF, pane, "C-c")
    assert rows(backend, pane) == ["$ echo one", "one", "$ echo two", "two", "$ Enter^C", "$"]


def test_send_keys_to_a_dead_pane_is_ignored() -> None:
    backend, pane = started()
    backend.set_option(REF, "remain-on-exit", "on", scope="window", global_=True)
    backend.send_keys(REF, pane, "exit 2", enter=True)
    before = rows(backend, pane)
    backend.send_keys(REF, pane, "echo x", enter=True)
    assert rows(backend, pane) == before
    assert backend.pane_state(REF, pane).dead_status == 2


def test_send_keys_exit_ends_the_last_session_and_the_server() -> None:
    backend, pane = started()
    backend.send_keys(REF, pane, "exit", enter=True)
    assert not backend.server_info(REF).is_alive
    with pytest.raises(NotFound):
        backend.snapshot(REF, pane)


def test_paste_buffer_types_the_text_and_may_delete_it() -> None:
    backend, pane = started()
    backend.load_buffer(REF, "cmd", "echo pasted\n")
    backend.paste_buffer(REF, "cmd", pane, delete=True)
    assert rows(backend, pane) == ["$ echo pasted", "pasted", "$"]
    assert backend.list_buffers(REF) == []


def test_copy_mode_swallows_keys_until_cancelled_and_capture_reads_the_live_grid() -> None:
    backend, pane = started()
    backend.copy_mode(REF, pane, enter=True)
    assert backend.pane_state(REF, pane).in_mode
    backend.send_keys(REF, pane, "echo hidden", enter=True)
    assert rows(backend, pane) == ["$"]
    backend.send_keys(REF, pane, "q")
    assert not backend.pane_state(REF, pane).in_mode
    backend.copy_mode(REF, pane, enter=True)
    backend.copy_mode(REF, pane, enter=False)
    assert backend.list_panes(REF)[0].mode is None
    with pytest.raises(InvalidArgument):
        backend.copy_mode(REF, pane, enter=True, scroll_up=-1)


def test_clear_history_leaves_copy_mode_and_drops_history() -> None:
    backend, pane = started(command="cat")
    backend.server(REF).pane(pane).write(b"".join(b"L%d\n" % i for i in range(10)))
    backend.copy_mode(REF, pane, enter=True)
    backend.clear_history(REF, pane)
    state = backend.pane_state(REF, pane)
    assert (state.history_size, state.in_mode) == (0, False)


def test_pipe_pane_copies_output_to_a_file(tmp_path: Path) -> None:
    backend, pane = started()
    target = tmp_path / "out.log"
    target.write_bytes(b"old\n")
    backend.pipe_pane(REF, pane, f"cat >> '{target}'")
    assert backend.display_message(REF, pane, "#{pane_pipe}") == "1"
    backend.send_keys(REF, pane, "echo hi", enter=True)
    backend.pipe_pane(REF, pane, None)
    backend.send_keys(REF, pane, "echo after", enter=True)
    assert target.read_bytes() == b"old\necho hi\r\nhi\r\n$ "
    assert backend.display_message(REF, pane, "#{pane_pipe}") == "0"
    backend.pipe_pane(REF, pane, f"cat > {target}")
    assert target.read_bytes() == b""


# -- channels ---------------------------------------------------------------------------


def test_a_signal_before_the_wait_is_remembered_once() -> None:
    backend, _ = started()
    backend.signal_channel(REF, "ready")
    assert backend.wait_for(REF, "ready", 0.0) is True
    assert backend.wait_for(REF, "ready", 0.0) is False


def test_wait_for_times_out_on_the_manual_clock_without_sleeping() -> None:
    clock = ManualClock(50.0)
    backend = SimBackend(clock=clock)
    backend.new_session(REF)
    assert backend.wait_for(REF, "never", 3600.0) is False
    assert clock.now() == 3650.0
    with pytest.raises(InvalidArgument):
        backend.wait_for(REF, "never", -1.0)


def test_wait_for_is_woken_by_a_shell_in_a_pane() -> None:
    clock = ManualClock()
    backend = SimBackend(clock=clock)
    pane = backend.new_session(REF).active_pane_id or ""
    backend.send_keys(REF, pane, "sleep 2 && tmux wait-for -S built", enter=True)
    assert backend.wait_for(REF, "built", 5.0) is True
    assert clock.now() == 2.0


@pytest.mark.parametrize("kwargs", [{}, {"zoom": True, "width": 10}, {"zoom": False, "height": 3}])
def test_resize_pane_needs_exactly_zoom_or_a_size(kwargs: dict[str, object]) -> None:
    backend, pane = started()
    before = backend.list_panes(REF)
    with pytest.raises(InvalidArgument):
        backend.resize_pane(REF, pane, **kwargs)  # type: ignore[arg-type]
    assert backend.list_panes(REF) == before
