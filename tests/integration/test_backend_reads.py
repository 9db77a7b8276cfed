"""Pane state, snapshots and display_message on real tmux.

Content is written straight to the pane's tty (``write_to_pane``), so it goes
through ONLCR like program output and nothing is echoed by a shell.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gridmux.backend import (
    InvalidArgument,
    NotFound,
    PaneState,
    RowBound,
    ServerRef,
    resolve_row_range,
)
from gridmux.backend._command_backend import TmuxCommandBackend

from .conftest import RawTmux, WaitDead, WaitUntil, WriteToPane

pytestmark = pytest.mark.tmux


def _settled(
    backend: TmuxCommandBackend,
    server: ServerRef,
    pane_id: str,
    wait_until: WaitUntil,
    **expected: int | bool,
) -> PaneState:
    """Wait until the pane's state has the ``expected`` field values; return it."""

    def matches() -> bool:
        state = backend.pane_state(server, pane_id)
        return all(getattr(state, k) == v for k, v in expected.items())

    wait_until(matches, what=f"pane {pane_id} to reach {expected}")
    return backend.pane_state(server, pane_id)


@pytest.fixture
def fifty_lines(
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    quiet_pane: str,
    write_to_pane: WriteToPane,
    wait_until: WaitUntil,
) -> str:
    """80x24 pane holding L1..L50 then an empty cursor row: 27 history rows."""
    write_to_pane(quiet_pane, "".join(f"L{i}\n" for i in range(1, 51)).encode())
    _settled(backend, tmux_server, quiet_pane, wait_until, history_size=27, cursor_y=23)
    return quiet_pane


def test_state_of_a_fresh_shell(
    backend: TmuxCommandBackend, tmux_server: ServerRef, pane: str
) -> None:
    state = backend.pane_state(tmux_server, pane)
    (info,) = backend.list_panes(tmux_server)
    assert state.pane_id == pane
    assert (state.width, state.height) == (80, 24)
    assert (state.cursor_x, state.cursor_y, state.history_size) == (2, 0, 0)
    assert state.history_limit == 2000
    assert state.pid == info.pid is not None
    assert not (state.dead or state.alternate_on or state.in_mode)
    assert state.dead_status is None
    assert state.server_pid == backend.server_info(tmux_server).pid


def test_snapshot_default_is_the_visible_screen(
    backend: TmuxCommandBackend, tmux_server: ServerRef, fifty_lines: str
) -> None:
    snap = backend.snapshot(tmux_server, fifty_lines)
    assert snap.top == snap.state.history_size == 27
    assert snap.rows == (*(f"L{i}" for i in range(28, 51)), "")


@pytest.mark.parametrize(
    ("start", "end"),
    [
        (None, None),
        ("-", None),
        ("-", "-"),
        (-5, None),
        (-27, -1),
        (-100, None),
        (-5, -1),
        (2, 0),  # reversed: tmux swaps
        (None, 5),
        (-100, -100),  # both clamp to the oldest row
        ("-", -100),
        (99, None),  # clamps to the last row
        (40000, None),  # past tmux's 32767 limit: clamped, not "missing"
        (None, -3),
        (0, 0),
        (23, 23),
    ],
)
def test_snapshot_ranges_match_resolve_row_range(
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    fifty_lines: str,
    start: RowBound,
    end: RowBound,
) -> None:
    everything = backend.snapshot(tmux_server, fifty_lines, start="-")
    assert everything.top == 0
    assert everything.rows == (*(f"L{i}" for i in range(1, 51)), "")
    snap = backend.snapshot(tmux_server, fifty_lines, start=start, end=end)
    top, bottom = resolve_row_range(27, 24, start, end)
    assert snap.top == top
    assert len(snap.rows) == bottom - top + 1
    assert snap.rows == everything.rows[top : bottom + 1]


def test_trailing_and_inner_blank_rows_are_kept(
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    quiet_pane: str,
    write_to_pane: WriteToPane,
    wait_until: WaitUntil,
) -> None:
    write_to_pane(quiet_pane, b"abc\n\nxy   \n\x1b[31mred\x1b[0m\x1b[K\n")
    _settled(backend, tmux_server, quiet_pane, wait_until, cursor_y=4, cursor_x=0)
    snap = backend.snapshot(tmux_server, quiet_pane)
    assert len(snap.rows) == 24
    assert snap.rows[:4] == ("abc", "", "xy", "red")  # trailing spaces trimmed, no SGR
    assert snap.rows[4:] == ("",) * 20
    only_blank = backend.snapshot(tmux_server, quiet_pane, start=10, end=23)
    assert only_blank.rows == ("",) * 14 and only_blank.top == 10


def test_unicode_rows_are_exact(
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    quiet_pane: str,
    write_to_pane: WriteToPane,
    wait_until: WaitUntil,
) -> None:
    text = "中文字abé\ne\u0301x\n ñ\x1b[5C😀|\n"
    write_to_pane(quiet_pane, text.encode())
    _settled(backend, tmux_server, quiet_pane, wait_until, cursor_y=3, cursor_x=0)
    snap = backend.snapshot(tmux_server, quiet_pane, end=2)
    # Cells skipped by CUF print as spaces; the combining mark stays in its cell.
    assert snap.rows == ("中文字abé", "e\u0301x", " ñ     😀|")
    assert snap.state.cursor_y == 3


def test_wide_characters_wrap_and_join(
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    quiet_pane: str,
    write_to_pane: WriteToPane,
    wait_until: WaitUntil,
) -> None:
    write_to_pane(quiet_pane, ("中" * 41).encode() + b"\n" + b"x" * 170 + b"\nend")
    # 41 wide chars = 82 cells: 40 on row 0, one on row 1; 170 x: rows 2..4.
    _settled(backend, tmux_server, quiet_pane, wait_until, cursor_y=5, cursor_x=3)
    rows = backend.snapshot(tmux_server, quiet_pane, end=5)
    assert rows.rows == ("中" * 40, "中", "x" * 80, "x" * 80, "x" * 10, "end")
    joined = backend.snapshot(tmux_server, quiet_pane, start=1, end=5, join_wrapped=True)
    assert joined.top == 1
    assert joined.rows == ("中", "x" * 170, "end")
    whole = backend.snapshot(tmux_server, quiet_pane, end=1, join_wrapped=True)
    assert whole.rows == ("中" * 41,)


def test_alternate_screen_freezes_history(
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    fifty_lines: str,
    write_to_pane: WriteToPane,
    wait_until: WaitUntil,
) -> None:
    write_to_pane(fifty_lines, b"\x1b[?1049h" + b"".join(b"A%d\n" % i for i in range(40)))
    state = _settled(backend, tmux_server, fifty_lines, wait_until, alternate_on=True)
    snap = backend.snapshot(tmux_server, fifty_lines)
    assert state.history_size == snap.state.history_size == 27
    assert snap.rows[-2:] == ("A39", "")
    write_to_pane(fifty_lines, b"\x1b[?1049l")
    _settled(backend, tmux_server, fifty_lines, wait_until, alternate_on=False)
    assert backend.snapshot(tmux_server, fifty_lines).rows[-2:] == ("L50", "")


def test_dead_pane_is_reported_not_raised(
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    tmux: RawTmux,
    wait_dead: WaitDead,
    wait_until: WaitUntil,
) -> None:
    backend.set_option(tmux_server, "remain-on-exit", "on", scope="window", global_=True)
    # The program exits only once tmux has shown its output: tmux closes a dead
    # pane's pty without reading what is left in it, so a program that exits
    # at once can lose its last words (seen about once in ten runs).
    program = "printf 'last words'; tmux wait-for gridmux-go; exit 3"
    session = backend.new_session(tmux_server, command=program)
    pane_id = session.active_pane_id
    assert pane_id is not None
    wait_until(lambda: backend.snapshot(tmux_server, pane_id).rows[0] == "last words")
    tmux("wait-for", "-S", "gridmux-go")
    wait_dead(pane_id, 3)  # tmux learns the status a moment after the pane dies
    state = backend.pane_state(tmux_server, pane_id)
    assert (state.dead, state.dead_status) == (True, 3)
    snap = backend.snapshot(tmux_server, pane_id, start="-")
    assert snap.state.dead
    # The dead-pane message is written after one linefeed: row 0 went to history.
    assert snap.state.history_size == 1
    assert snap.rows[0] == "last words"
    assert snap.rows[-1].startswith("Pane is dead (status 3")
    (info,) = backend.list_panes(tmux_server)
    assert (info.dead, info.dead_status) == (True, 3)


def test_gone_pane_is_not_found(
    backend: TmuxCommandBackend, tmux_server: ServerRef, pane: str
) -> None:
    other = backend.split_window(tmux_server, pane, command="exec sleep 100000")
    backend.kill_pane(tmux_server, other.pane_id)
    with pytest.raises(NotFound, match=other.pane_id):
        backend.pane_state(tmux_server, other.pane_id)
    with pytest.raises(NotFound, match=other.pane_id):
        backend.snapshot(tmux_server, other.pane_id)


def test_exited_pane_without_remain_on_exit_is_not_found(
    backend: TmuxCommandBackend, tmux_server: ServerRef, pane: str, wait_until: WaitUntil
) -> None:
    other = backend.split_window(tmux_server, pane, command="sh")
    backend.send_keys(tmux_server, other.pane_id, "exit", literal=True, enter=True)

    def gone() -> bool:
        try:
            backend.snapshot(tmux_server, other.pane_id)
        except NotFound:
            return True
        return False

    wait_until(gone, what="the exited pane to disappear")


@pytest.mark.parametrize("bad", ["main", "%", "%1x", "@1", ""])
def test_reads_reject_malformed_pane_ids(
    backend: TmuxCommandBackend, tmux_server: ServerRef, bad: str
) -> None:
    with pytest.raises(InvalidArgument):
        backend.pane_state(tmux_server, bad)
    with pytest.raises(InvalidArgument):
        backend.snapshot(tmux_server, bad)


@pytest.mark.parametrize("bound", [True, "x", 1.5])
def test_snapshot_rejects_malformed_bounds(
    backend: TmuxCommandBackend, tmux_server: ServerRef, pane: str, bound: object
) -> None:
    with pytest.raises(InvalidArgument):
        backend.snapshot(tmux_server, pane, start=bound)  # type: ignore[arg-type]


def test_display_message_expands_against_each_kind_of_target(
    backend: TmuxCommandBackend, tmux_server: ServerRef, pane: str
) -> None:
    (window,) = backend.list_windows(tmux_server)
    assert backend.display_message(tmux_server, pane, "#{pane_width}x#{pane_height}") == "80x24"
    assert backend.display_message(tmux_server, window.session_id, "#{session_name}") == "main"
    window_id = window.window_id
    assert backend.display_message(tmux_server, window_id, "#{window_id}") == window_id
    # Our separator and newlines inside the caller's format come back untouched.
    assert backend.display_message(tmux_server, pane, "a\x1fb\nc;") == "a\x1fb\nc;"
    assert backend.display_message(tmux_server, pane, "") == ""


@pytest.mark.parametrize(
    ("target", "error"),
    [("%99", NotFound), ("@99", NotFound), ("$99", NotFound), ("main", InvalidArgument)],
)
def test_display_message_bad_targets(
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    pane: str,
    target: str,
    error: type[Exception],
) -> None:
    with pytest.raises(error, match=r"99|main"):
        backend.display_message(tmux_server, target, "#{pane_id}")


def test_snapshots_read_many_panes_in_one_list_and_skip_closed_ones(
    backend: TmuxCommandBackend, tmux_server: ServerRef, tmux: RawTmux, wait_until: WaitUntil
) -> None:
    first = backend.new_session(tmux_server, command="printf 'one\\n'; exec cat")
    assert first.active_pane_id is not None
    second = backend.split_window(tmux_server, first.active_pane_id, command="exec cat")
    ids = [first.active_pane_id, second.pane_id]
    pane_id = first.active_pane_id  # still between the reads compared below
    wait_until(lambda: backend.snapshot(tmux_server, pane_id).rows[0] == "one")
    batch = backend.snapshots(tmux_server, ids, start="-", join_wrapped=True)
    assert list(batch) == ids
    for pane_id in ids:
        alone = backend.snapshot(tmux_server, pane_id, start="-", join_wrapped=True)
        assert batch[pane_id] == alone
    tmux("kill-pane", "-t", second.pane_id)
    assert list(backend.snapshots(tmux_server, [*ids, "%999"])) == [first.active_pane_id]
    assert backend.snapshots(tmux_server, []) == {}


def test_pane_snapshot_is_the_listing_record_and_a_snapshot_in_one_read(
    backend: TmuxCommandBackend, tmux_server: ServerRef, wait_until: WaitUntil
) -> None:
    title = "t\x1f #{x} \\ é"  # a title holding what formats and the record use
    made = backend.new_session(tmux_server, command="printf 'hello'; exec cat")
    pane_id = made.active_pane_id
    assert pane_id is not None
    backend.set_pane_title(tmux_server, pane_id, title)
    # the pane must be still between the reads compared below: cat, after hello,
    # and the window named after it (tmux renames it on a timer of its own)
    wait_until(
        lambda: (
            (pane := backend.list_panes(tmux_server)[0]).current_command == "cat"
            and pane.window_name == "cat"
            and backend.snapshot(tmux_server, pane_id).rows[0] == "hello"
        ),
        what="cat waiting after hello, its window renamed",
    )
    info, snap = backend.pane_snapshot(tmux_server, pane_id, start="-")
    (listed,) = backend.list_panes(tmux_server)
    assert info == listed
    assert snap == backend.snapshot(tmux_server, pane_id, start="-")
    with pytest.raises(NotFound):
        backend.pane_snapshot(tmux_server, "%999")


#: Pane titles a format loop must never turn into command text.
HOSTILE_TITLES = ['x" ; kill-server ; "', "it's #{pane_id} }", "a;b\\c $HOME ~"]


def test_scan_panes_equals_the_listing_and_each_snapshot(
    backend: TmuxCommandBackend, tmux_server: ServerRef, tmux: RawTmux, wait_until: WaitUntil
) -> None:
    """One command list: every record as list_panes has it, every snapshot as
    snapshot reads it (a linked window once per session, hostile titles inert)."""
    first = backend.new_session(tmux_server, command="printf 'one\\n'; exec cat")
    assert first.active_pane_id is not None
    second = backend.split_window(tmux_server, first.active_pane_id, command="exec cat")
    other = backend.new_session(tmux_server, command="printf 'two\\n'; exec cat")
    tmux("link-window", "-s", f"{first.session_id}:0", "-t", f"{other.session_id}:7")
    for pane_id, title in zip([first.active_pane_id, second.pane_id], HOSTILE_TITLES, strict=False):
        tmux("select-pane", "-t", pane_id, "-T", title)
    # every pane still between the reads compared below: cat, after its output,
    # and every window named after it (tmux renames it on a timer of its own)
    wait_until(
        lambda: (
            {(p.current_command, p.window_name) for p in backend.list_panes(tmux_server)}
            == {("cat", "cat")}
            and all(
                backend.snapshot(tmux_server, pane_id).rows[0] == text
                for pane_id, text in ((first.active_pane_id, "one"), (other.active_pane_id, "two"))
                if pane_id is not None
            )
        ),
        what="every pane's cat waiting after its output, its window renamed",
    )
    scanned = backend.scan_panes(tmux_server, start="-", join_wrapped=True)
    listing = backend.list_panes(tmux_server)
    assert [pane for pane, _ in scanned] == listing
    assert len(listing) == 5  # the linked window's two panes are listed twice
    for pane, snap in scanned:
        assert snap == backend.snapshot(tmux_server, pane.pane_id, start="-", join_wrapped=True)
    titles = {pane.pane_id: pane.title for pane, _ in scanned}
    assert titles[first.active_pane_id] == HOSTILE_TITLES[0]  # data, never a command
    assert len(backend.list_sessions(tmux_server)) == 2  # the server is still there
    tops = {pane.pane_id: snap.rows for pane, snap in backend.scan_panes(tmux_server, end=0)}
    assert tops[first.active_pane_id] == ("one",)
    assert other.active_pane_id is not None
    assert tops[other.active_pane_id] == ("two",)


def test_scan_panes_of_a_server_that_is_not_running(
    backend: TmuxCommandBackend, isolated_env: Path
) -> None:
    assert backend.scan_panes(ServerRef(socket_name="gridmux-nobody-here")) == []
