"""Discovery on real tmux: server_info and the list_* calls, incl. awkward free text."""

from __future__ import annotations

import inspect
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from gridmux.backend import InvalidArgument, NotFound, ServerRef, TmuxBackend
from gridmux.backend._command_backend import TmuxCommandBackend

from .conftest import RawTmux, layout_size

pytestmark = pytest.mark.tmux


def test_backend_satisfies_the_protocol_method_for_method() -> None:
    backend: TmuxBackend = TmuxCommandBackend("/nonexistent/tmux")  # mypy checks the structure
    for name, member in inspect.getmembers(TmuxBackend, inspect.isfunction):
        if name.startswith("_"):
            continue
        ours = getattr(backend, name)
        expected = list(inspect.signature(member).parameters.values())[1:]
        got = list(inspect.signature(ours).parameters.values())
        assert [(p.name, p.kind, p.default) for p in got] == [
            (p.name, p.kind, p.default) for p in expected
        ], name


def test_server_info_of_running_server(
    backend: TmuxCommandBackend, tmux_server: ServerRef, tmux_bin: str, pane: str
) -> None:
    info = backend.server_info(tmux_server)
    version = subprocess.run([tmux_bin, "-V"], capture_output=True, text=True, check=True)
    assert info.is_alive
    assert info.socket_path == tmux_server.socket_path
    assert info.socket_name is None  # addressed by path
    assert info.session_count == 1
    assert info.pid == backend.pane_state(tmux_server, pane).server_pid
    assert version.stdout.strip() == f"tmux {info.version}"


def test_server_info_counts_zero_sessions(
    backend: TmuxCommandBackend, tmux_server: ServerRef
) -> None:
    info = backend.server_info(tmux_server)
    assert info.is_alive
    assert info.session_count == 0


def test_absent_server_is_not_alive_and_lists_nothing(
    backend: TmuxCommandBackend, isolated_env: Path
) -> None:
    server = ServerRef(socket_path=str(isolated_env / "never-started"))
    info = backend.server_info(server)
    assert (info.is_alive, info.pid, info.version, info.session_count) == (False, None, None, 0)
    assert info.socket_path == server.socket_path
    assert backend.list_sessions(server) == []
    assert backend.list_windows(server) == []
    assert backend.list_panes(server) == []
    assert backend.list_buffers(server) == []
    with pytest.raises(NotFound):
        backend.list_windows(server, "$0")
    with pytest.raises(NotFound):
        backend.list_panes(server, window_id="@0")


def test_named_socket_lives_in_tmux_tmpdir(backend: TmuxCommandBackend, isolated_env: Path) -> None:
    server = ServerRef(socket_name="gridmux-named")
    expected = str(isolated_env / "tmp" / f"tmux-{os.getuid()}" / "gridmux-named")
    before = backend.server_info(server)
    assert (before.is_alive, before.socket_name, before.socket_path) == (
        False,
        "gridmux-named",
        expected,
    )
    try:
        backend.new_session(server, command="exec sleep 100000")
        after = backend.server_info(server)
        assert (after.is_alive, after.socket_path, after.session_count) == (True, expected, 1)
    finally:
        backend.kill_server(server)
    assert not backend.server_info(server).is_alive


def test_the_default_server_inside_tmux_is_the_one_in_tmux_env(
    backend: TmuxCommandBackend,
    isolated_env: Path,
    monkeypatch: pytest.MonkeyPatch,
    tmux_bin: str,
) -> None:
    """With no socket named, tmux's own rule: the server ``$TMUX`` names, not the
    ``default`` label, over either transport (a control client runs without
    ``$TMUX``, so it is given the socket)."""
    folder = isolated_env / "tmp" / f"tmux-{os.getuid()}"
    for label, session in (("gridmux-inside", "inside"), ("default", "labelled")):
        started = [tmux_bin, "-L", label, "-f", "/dev/null", "new-session", "-d", "-s", session]
        subprocess.run([*started, "exec sleep 100000"], check=True, timeout=10)
    try:
        monkeypatch.setenv("TMUX", f"{folder / 'gridmux-inside'},{os.getpid()},0")
        assert [s.session_name for s in backend.list_sessions(ServerRef())] == ["inside"]
        assert backend.server_info(ServerRef()).socket_path == str(folder / "gridmux-inside")
        assert [s.session_name for s in backend.list_sessions(ServerRef("default"))] == ["labelled"]
    finally:
        monkeypatch.delenv("TMUX")
        backend.kill_server(ServerRef("gridmux-inside"))
        backend.kill_server(ServerRef("default"))


def test_list_sessions_reports_each_session(
    backend: TmuxCommandBackend, tmux_server: ServerRef
) -> None:
    first = backend.new_session(tmux_server, name="one", command="exec sleep 100000")
    second = backend.new_session(tmux_server, name="two", command="exec sleep 100000")
    backend.new_window(tmux_server, second.session_id, command="exec sleep 100000")
    sessions = {s.session_id: s for s in backend.list_sessions(tmux_server)}
    assert set(sessions) == {first.session_id, second.session_id}
    assert sessions[first.session_id].session_name == "one"
    assert sessions[second.session_id].window_count == 2
    assert sessions[first.session_id].active_pane_id == first.active_pane_id
    assert sessions[first.session_id].attached == 0
    assert sessions[first.session_id].group is None
    assert sessions[first.session_id].created > 0


def test_free_text_cannot_break_a_listing(
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    isolated_env: Path,
    wait_until: Callable[..., None],
    tmux_release: tuple[int, int],
    tmux: RawTmux,
) -> None:
    # A directory named with the field separator, a newline and a fake length prefix.
    odd = isolated_env / "dir\x1fwith\nnewline 12:x é"
    odd.mkdir()
    # gridmux names nothing with a control character; a user's tmux before
    # 3.7 does (3.7 and later refuse them), and listings must survive it.
    window_name = "12:3 win\x1fdow" if tmux_release < (3, 7) else "12:3 win␟dow"
    with pytest.raises(InvalidArgument, match="control character"):
        backend.new_session(tmux_server, window_name="a\x1fb", command="exec sleep 100")
    assert backend.list_sessions(tmux_server) == []
    name = "name with spaces 中文 12;3"
    tmux("new-session", "-d", "-s", name, "-n", window_name, "-c", str(odd), "exec sleep 100000")
    (session,) = backend.list_sessions(tmux_server)
    assert session.active_pane_id is not None
    backend.set_pane_title(tmux_server, session.active_pane_id, "title 9:xx ␞ 中")
    backend.split_window(
        tmux_server, session.active_pane_id, start_directory=str(odd), command="exec sleep 1000"
    )
    panes = backend.list_panes(tmux_server)
    assert len(panes) == 2
    first = next(p for p in panes if p.pane_id == session.active_pane_id)
    assert first.session_name == session.session_name == "name with spaces 中文 12;3"
    assert first.title == "title 9:xx ␞ 中"
    assert first.window_name == window_name  # our field separator, inside a field (< 3.7)
    wait_until(
        lambda: all(p.current_path == str(odd) for p in backend.list_panes(tmux_server)),
        what="both panes to report the odd directory",
    )
    (window,) = backend.list_windows(tmux_server)
    assert (window.session_name, window.window_name) == (first.session_name, first.window_name)


def test_list_windows_all_and_per_session(
    backend: TmuxCommandBackend, tmux_server: ServerRef
) -> None:
    one = backend.new_session(tmux_server, name="one", width=100, height=30, command="sh")
    two = backend.new_session(tmux_server, name="two", command="sh")
    extra = backend.new_window(tmux_server, one.session_id, name="extra", command="sh")
    every = backend.list_windows(tmux_server)
    assert len(every) == 3
    of_one = backend.list_windows(tmux_server, one.session_id)
    assert [w.window_index for w in of_one] == [0, 1]
    assert of_one[1] == extra
    first = of_one[0]
    assert (first.width, first.height, first.pane_count) == (100, 30, 1)
    assert first.active and not extra.active  # new_window does not select by default
    assert first.active_pane_id == one.active_pane_id
    assert first.session_name == "one"
    assert layout_size(first.layout) == (100, 30)
    assert not first.zoomed
    assert [w.session_id for w in backend.list_windows(tmux_server, two.session_id)] == [
        two.session_id
    ]


def test_list_panes_scopes(backend: TmuxCommandBackend, tmux_server: ServerRef) -> None:
    one = backend.new_session(tmux_server, command="sh")
    two = backend.new_session(tmux_server, command="sh")
    assert one.active_pane_id is not None
    split = backend.split_window(tmux_server, one.active_pane_id, command="sh")
    win2 = backend.new_window(tmux_server, one.session_id, command="sh")
    assert len(backend.list_panes(tmux_server)) == 4
    assert len(backend.list_panes(tmux_server, session_id=one.session_id)) == 3
    assert len(backend.list_panes(tmux_server, session_id=two.session_id)) == 1
    in_window = backend.list_panes(tmux_server, window_id=split.window_id)
    assert [p.pane_id for p in in_window] == [one.active_pane_id, split.pane_id]
    both = backend.list_panes(tmux_server, session_id=one.session_id, window_id=win2.window_id)
    assert [p.pane_id for p in both] == [win2.active_pane_id]
    top, bottom = in_window
    assert (top.pane_index, bottom.pane_index) == (0, 1)
    assert top.at_top and not top.at_bottom and bottom.at_bottom
    assert top.active and not bottom.active  # split_window does not steal focus
    assert top.pid is not None and top.tty.startswith("/dev/")
    assert (top.dead, top.dead_status, top.in_mode, top.mode) == (False, None, False, None)
    assert top.history_limit == 2000


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda b, s: b.list_windows(s, "$99"), NotFound),
        (lambda b, s: b.list_panes(s, session_id="$99"), NotFound),
        (lambda b, s: b.list_panes(s, window_id="@99"), NotFound),
        (lambda b, s: b.list_windows(s, "main"), InvalidArgument),
        (lambda b, s: b.list_panes(s, window_id="%1"), InvalidArgument),
        (lambda b, s: b.list_panes(s, session_id="1"), InvalidArgument),
    ],
    ids=[
        "windows-of-unknown-session",
        "panes-of-unknown-session",
        "panes-of-unknown-window",
        "session-by-name",
        "pane-id-as-window",
        "bare-number",
    ],
)
def test_listing_bad_targets(
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    pane: str,
    call: Callable[[TmuxCommandBackend, ServerRef], object],
    error: type[Exception],
) -> None:
    with pytest.raises(error):
        call(backend, tmux_server)
