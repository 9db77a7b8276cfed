"""SimServer: ids, names, sizes, process lifecycles and the server's own end."""

from __future__ import annotations

import pytest

from gridmux.backend import InvalidArgument, NotFound, ServerRef, TmuxFailure
from tmuxsim import IdleProgram, ManualClock, PaneIO, Program, SimBackend, SimServer


def quiet(version: str = "3.3a", **kwargs: object) -> SimServer:
    """A server whose panes run a program that never writes on its own."""

    def factory(io: PaneIO, command: str | None) -> Program:
        return IdleProgram(io, name=command or "sh")

    return SimServer(version, program_factory=factory, **kwargs)  # type: ignore[arg-type]


def lines(count: int, start: int = 1) -> bytes:
    return "".join(f"L{i}\n" for i in range(start, start + count)).encode()


# -- ids, names, sizes -----------------------------------------------------------


def test_ids_come_from_global_counters_starting_at_zero() -> None:
    server = quiet()
    first = server.new_session()
    second = server.new_session()
    window = server.new_window(first.session_id)
    split = server.split_window("%0")
    assert [first.session_id, second.session_id] == ["$0", "$1"]
    assert [w.window_id for w in server.all_windows()] == ["@0", "@2", "@1"]
    assert window.window_id == "@2"
    assert window.active is not None and window.active.pane_id == "%2"
    assert split.pane_id == "%3"


def test_ids_are_never_reused_after_a_kill() -> None:
    server = quiet()
    server.new_session()
    server.split_window("%0")
    server.controls.kill_pane("%1")
    assert server.split_window("%0").pane_id == "%2"


def test_unnamed_sessions_are_named_after_their_id_skipping_taken_names() -> None:
    server = quiet()
    named = server.new_session(name="1")
    unnamed = server.new_session()
    assert (named.session_id, named.name) == ("$0", "1")
    # session.c: id 1 would be named "1", which is taken, so it moves on to 2.
    assert (unnamed.session_id, unnamed.name) == ("$2", "2")


def test_duplicate_and_empty_session_names_are_refused() -> None:
    server = quiet()
    server.new_session(name="work")
    with pytest.raises(TmuxFailure, match="duplicate session: work"):
        server.new_session(name="work")
    with pytest.raises(InvalidArgument):
        server.new_session(name="")


def test_colons_and_periods_in_names_become_underscores() -> None:
    server = quiet()
    assert server.new_session(name="a:b.c").name == "a_b_c"


def test_sessions_are_listed_by_name() -> None:
    server = quiet()
    for name in ("zeta", "alpha", "mid"):
        server.new_session(name=name)
    assert [s.name for s in server.ordered_sessions()] == ["alpha", "mid", "zeta"]


@pytest.mark.parametrize(
    ("version", "expected"), [("3.2a", (80, 23)), ("3.3a", (100, 10)), ("3.8", (100, 10))]
)
def test_detached_size_is_honoured_from_3_3(version: str, expected: tuple[int, int]) -> None:
    server = quiet(version)
    pane = server.new_session(width=100, height=10).active_pane
    assert pane is not None
    assert (pane.terminal.width, pane.terminal.height) == expected


def test_default_size_is_80x24() -> None:
    pane = quiet().new_session().active_pane
    assert pane is not None
    assert (pane.terminal.width, pane.terminal.height) == (80, 24)


@pytest.mark.parametrize("size", [0, -1, 65536])
def test_out_of_range_sizes_are_invalid(size: int) -> None:
    with pytest.raises(InvalidArgument):
        quiet().new_session(width=size)


def test_window_indexes_follow_base_index_and_pane_indexes_pane_base_index() -> None:
    server = quiet()
    server.new_session(name="scratch")
    server.config.set_option("base-index", "1", scope="session", global_=True)
    server.config.set_option("pane-base-index", "1", scope="window", global_=True)
    session = server.new_session(name="w")
    second = server.new_window(session.session_id)
    assert sorted(session.windows) == [1, 2]
    assert second.index == 2
    assert second.panes[0].index == 1


def test_pids_ttys_and_titles_are_deterministic() -> None:
    server = quiet()
    pane = server.new_session().active_pane
    assert pane is not None
    assert server.pid == 1000
    assert pane.pid == 1001
    assert pane.tty == "/dev/pts/0"
    assert pane.title == "tmuxsim"


def test_window_name_follows_the_active_program_until_renamed() -> None:
    server = quiet()
    window = server.new_window(server.new_session().session_id, command="top")
    assert window.name == "top"
    server.controls.rename_window(window.window_id, "mine")
    assert window.name == "mine"
    assert window.option("automatic-rename") == "off"


def test_process_environment_has_tmux_variables_and_session_values() -> None:
    server = quiet()
    session = server.new_session(environment={"FOO": "bar"})
    pane = session.active_pane
    assert pane is not None
    assert pane.environment["FOO"] == "bar"
    assert pane.environment["TMUX_PANE"] == "%0"
    assert pane.environment["TMUX"] == f"{server.socket_path},1000,0"
    assert pane.environment["TERM"] == "tmux-256color"
    assert quiet("3.2a").new_session().active_pane.environment["TERM"] == "screen"  # type: ignore[union-attr]


# -- lookups ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lookup", "target", "message"),
    [
        ("session", "$9", "can't find session: \\$9"),
        ("window", "@9", "can't find window: @9"),
        ("pane", "%9", "can't find pane: %9"),
        ("pane", "9", "can't find pane: 9"),
    ],
)
def test_unknown_ids_are_not_found(lookup: str, target: str, message: str) -> None:
    server = quiet()
    server.new_session()
    with pytest.raises(NotFound, match=message):
        getattr(server, lookup)(target)


def test_resolve_fills_in_current_window_and_active_pane() -> None:
    server = quiet()
    session = server.new_session()
    window = server.new_window(session.session_id, select=True)
    _, resolved_window, pane = server.resolve(session.session_id)
    assert resolved_window is window
    assert pane is window.active


# -- process exit, remain-on-exit, respawn -------------------------------------------------


def test_exit_without_remain_on_exit_destroys_pane_window_session_and_server() -> None:
    server = quiet()
    session = server.new_session()
    server.split_window("%0")
    server.pane("%1").exit(0)
    assert [p.pane_id for p in server.all_panes()] == ["%0"]
    assert session.windows[0].active is server.pane("%0")
    server.pane("%0").exit(0)
    assert not server.alive
    with pytest.raises(NotFound, match="no server running"):
        server.pane("%0")


def test_exit_empty_off_keeps_the_server_without_sessions() -> None:
    server = quiet()
    server.new_session()
    server.config.set_option("exit-empty", "off", scope="server")
    server.pane("%0").exit(0)
    assert server.alive
    assert server.sessions == {}


@pytest.mark.parametrize("version", ["3.2a", "3.3a", "3.7c", "3.8"])
def test_remain_on_exit_keeps_a_dead_pane_with_its_status(version: str) -> None:
    clock = ManualClock(86400.0)
    server = quiet(version, clock=clock)
    server.new_session(width=60, height=5)
    server.config.set_option("remain-on-exit", "on", scope="window", target="%0")
    pane = server.pane("%0")
    old_pid = pane.pid
    pane.write(b"hello\n")
    pane.exit(3)
    assert pane.dead and pane.dead_status == 3
    assert pane.dead_time == 86400
    # docs/tmux-model.md §13: one wrapped linefeed, then the message on the last row.
    assert pane.terminal.capture()[-1] == "Pane is dead (status 3, Fri Jan  2 00:00:00 1970)"
    assert pane.terminal.history_size == 1  # the linefeed on the last row scrolled
    assert pane.terminal.capture("-", -1) == ["hello"]
    assert pane.pid == old_pid
    assert pane.current_command == "sh"  # no process: the shell's name, as format.c falls back
    assert server.alive


def test_remain_on_exit_format_renders_the_dead_message_from_3_3() -> None:
    server = quiet("3.3a")
    server.new_session(width=40, height=4)
    server.config.set_option("remain-on-exit", "on", scope="pane", target="%0")
    server.config.set_option(
        "remain-on-exit-format", "gone #{pane_dead_status} #{pane_id}", scope="pane", target="%0"
    )
    server.pane("%0").exit(7)
    assert server.pane("%0").terminal.capture()[-1] == "gone 7 %0"


@pytest.mark.parametrize(("status", "kept"), [(0, False), (2, True)])
def test_remain_on_exit_failed_keeps_only_failures(status: int, kept: bool) -> None:
    server = quiet("3.3a")
    server.new_session()
    server.split_window("%0")
    server.config.set_option("remain-on-exit", "failed", scope="window", global_=True)
    server.pane("%1").exit(status)
    assert any(p.pane_id == "%1" for p in server.all_panes()) is kept


def test_remain_on_exit_is_already_a_choice_in_3_2a() -> None:
    """Measured on tmux 3.2a: "failed" is taken, "1" and "yes" (flag spellings)
    are refused with "unknown value"; only "key" (3.7) is missing."""
    server = quiet("3.2a")
    server.new_session()
    server.config.set_option("remain-on-exit", "failed", scope="window", global_=True)
    assert server.window_options.get("remain-on-exit") == "failed"
    for value in ("1", "yes", "key"):
        with pytest.raises(InvalidArgument, match="unknown value"):
            server.config.set_option("remain-on-exit", value, scope="window", global_=True)


def test_pane_option_overrides_window_option_for_remain_on_exit() -> None:
    server = quiet()
    server.new_session()
    server.split_window("%0")
    server.config.set_option("remain-on-exit", "on", scope="window", target="%0")
    server.config.set_option("remain-on-exit", "off", scope="pane", target="%1")
    server.pane("%1").exit(0)
    server.pane("%0").exit(0)
    assert [(p.pane_id, p.dead) for p in server.all_panes()] == [("%0", True)]


def test_respawn_is_refused_for_a_live_pane_without_kill() -> None:
    server = quiet()
    server.new_session()
    with pytest.raises(TmuxFailure, match="pane %0 still active"):
        server.respawn_pane("%0", kill=False)


def test_respawn_keeps_history_blanks_the_screen_and_changes_the_pid() -> None:
    server = quiet()
    server.new_session(width=40, height=5)
    pane = server.pane("%0")
    pane.write(lines(8) + b"cur")
    assert (pane.terminal.history_size, pane.terminal.cursor_y) == (4, 4)
    old_pid = pane.pid
    server.respawn_pane("%0", kill=True)
    assert pane.pid != old_pid and not pane.dead
    assert pane.terminal.history_size == 4
    assert (pane.terminal.cursor_x, pane.terminal.cursor_y) == (0, 0)
    assert pane.terminal.capture("-") == ["L1", "L2", "L3", "L4", "", "", "", "", ""]


def test_respawn_of_a_dead_pane_needs_no_kill_and_reuses_the_start_command() -> None:
    server = quiet()
    server.new_session(command="exec /usr/bin/top -d 1")
    server.config.set_option("remain-on-exit", "on", scope="window", global_=True)
    pane = server.pane("%0")
    pane.exit(1)
    assert pane.current_command == "top"  # names.c: first word, basename
    server.respawn_pane("%0", kill=False)
    assert not pane.dead and pane.dead_status is None
    assert pane.start_command == "exec /usr/bin/top -d 1"
    assert pane.program.command_name == "exec /usr/bin/top -d 1"  # started again with it


def test_an_exit_during_an_operation_waits_for_its_end() -> None:
    server = SimServer("3.3a")
    with server.atomic():
        session = server.new_session(command="exit 4")
        assert session.active_pane is not None and not session.active_pane.destroyed
    assert not server.alive


# -- history-limit (docs/tmux-model.md §5, §6) --------------------------------------------


def limited(version: str) -> SimServer:
    server = quiet(version)
    server.new_session(name="scratch")
    server.config.set_option("history-limit", "1000", scope="session", global_=True)
    server.new_session(name="t", width=80, height=10)
    server.resolve("$1")[2].write(lines(300))
    return server


_BEFORE_3_7 = [(291, 1000), (291, 1000), (292, 1000), (292, 1000), (292, 1000), (297, 1000)]
_FROM_3_7 = [(291, 1000), (100, 100), (91, 100), (90, 91), (0, 0), (1, 0)]


@pytest.mark.parametrize(
    ("version", "table"),
    [
        ("3.2a", [*_BEFORE_3_7, (347, 1000)]),
        ("3.3a", [*_BEFORE_3_7, (347, 1000)]),
        ("3.6b", [*_BEFORE_3_7, (347, 1000)]),
        ("3.7c", [*_FROM_3_7, (51, 5000)]),
        ("3.8", [*_FROM_3_7, (51, 5000)]),
    ],
)
def test_set_history_limit_through_the_backend_follows_the_version_table(
    version: str, table: list[tuple[int, int]]
) -> None:
    # The table of §6: limit 1000, 300 lines, then set -g history-limit.
    ref = ServerRef()
    backend = SimBackend(version=version)
    backend.new_session(ref, name="scratch", command="cat")
    backend.set_option(ref, "history-limit", "1000", scope="session", global_=True)
    pane_id = backend.new_session(ref, name="t", command="cat").active_pane_id
    assert pane_id is not None
    backend.resize_window(ref, "@1", width=80, height=10)  # 3.2a ignores new-session -x/-y
    pane = backend.server(ref).pane(pane_id)
    pane.write(lines(300))
    seen = [(pane.terminal.history_size, pane.terminal.history_limit)]
    steps = [("100", b""), (None, lines(1, 301)), ("91", b""), ("0", b"")]
    steps += [(None, lines(5, 302)), ("5000", lines(50, 307))]
    for value, data in steps:
        if value is not None:
            backend.set_option(ref, "history-limit", value, scope="session", global_=True)
        pane.write(data)
        state = backend.pane_state(ref, pane_id)
        seen.append((state.history_size, state.history_limit))
    assert seen == table
    if version in ("3.7c", "3.8"):
        assert pane.terminal.capture(-1, -1) == ["L347"]  # screen: L348..L356 and a blank row


def test_history_limit_is_read_at_creation_and_survives_respawn_before_3_7() -> None:
    server = limited("3.3a")
    server.config.set_option("history-limit", "50", scope="session", global_=True)
    server.respawn_pane("%1", kill=True)
    assert server.pane("%1").terminal.history_limit == 1000
    assert server.split_window("%1").terminal.history_limit == 50


def test_session_local_history_limit_reaches_only_that_session_on_3_7() -> None:
    server = limited("3.7c")
    server.config.set_option("history-limit", "10", scope="session", target="$1")
    assert server.pane("%1").terminal.history_limit == 10
    assert server.pane("%0").terminal.history_limit == 1000


@pytest.mark.parametrize("version", ["3.3a", "3.7c"])
def test_scroll_on_clear_option_reaches_the_grid(version: str) -> None:
    server = quiet(version)
    server.new_session(width=20, height=5)
    pane = server.pane("%0")
    server.config.set_option("scroll-on-clear", "off", scope="pane", target="%0")
    pane.write(lines(2) + b"\x1b[2J")
    assert pane.terminal.history_size == 0  # blanked in place (§8)
    server.config.set_option("scroll-on-clear", "on", scope="window", global_=True)
    assert pane.terminal.scroll_on_clear is False  # the pane's own value still wins
    server.config.unset_option("scroll-on-clear", scope="pane", target="%0")
    pane.write(lines(2) + b"\x1b[2J")
    assert pane.terminal.history_size == 4  # rows 0..3 were used: all pushed


def test_scroll_on_clear_is_unknown_in_3_2a() -> None:
    server = quiet("3.2a")
    server.new_session()
    with pytest.raises(InvalidArgument, match="unknown option: scroll-on-clear"):
        server.config.set_option("scroll-on-clear", "off", scope="pane", target="%0")


# -- the clock ----------------------------------------------------------------------------


def test_manual_clock_moves_only_when_told_and_never_backwards() -> None:
    clock = ManualClock(5.0)
    clock.sleep(2.5)
    assert clock.now() == 7.5
    clock.sleep(-1)
    assert clock.now() == 7.5
    with pytest.raises(ValueError, match="backwards"):
        clock.advance(-1)


def test_session_creation_time_comes_from_the_clock() -> None:
    clock = ManualClock(1_700_000_000.9)
    session = quiet(clock=clock).new_session()
    assert session.created == 1_700_000_000
