"""The simulator's version knob (``TmuxVersion``), each difference tested on
both sides of its version boundary (docs/tmux-model.md §19; docs/matrix.md).

The same differences are checked against real tmux by
``tests/integration/test_version_conformance.py`` and the differential test.
"""

from __future__ import annotations

import json

import pytest

from tmuxsim import (
    KNOWN_VERSIONS,
    IdleProgram,
    ManualClock,
    PaneIO,
    Program,
    SimPane,
    SimServer,
    TmuxVersion,
)


def quiet(version: str, width: int = 40, height: int = 5) -> SimServer:
    def factory(io: PaneIO, command: str | None) -> Program:
        return IdleProgram(io, name=command or "sh")

    server = SimServer(version, program_factory=factory, clock=ManualClock(86400.0))
    server.new_session(width=width, height=height)
    return server


def tmux(pane: SimPane, *args: str) -> tuple[int, str]:
    """``tmux ARGS`` run from ``pane``: exit status and everything it printed."""
    client = pane.tmux(list(args))
    assert client.run()
    return client.status, client.output


def dead_state(pane: SimPane) -> str:
    fmt = "#{pane_dead}:#{pane_dead_status}:#{pane_dead_signal}:#{pane_pid}"
    return pane.server.expand_format(fmt, pane)


# -- the knob itself -----------------------------------------------------------------------


def test_every_known_version_parses_and_orders() -> None:
    versions = [TmuxVersion.parse(v) for v in KNOWN_VERSIONS]
    assert versions == sorted(versions)
    # read as the real backend reads it: a development build is the release before
    assert TmuxVersion.parse("tmux next-3.8") == TmuxVersion(3, 7)
    assert TmuxVersion.parse("tmux 3.3a\n") == TmuxVersion(3, 3, "a")
    for unplaced in ("openbsd-7.4", "master", ""):
        with pytest.raises(ValueError, match="not a tmux version"):
            TmuxVersion.parse(unplaced)


# -- pane lifecycle: pane_dead timing (§13) --------------------------------------------------


@pytest.mark.parametrize(
    ("version", "dead_while_running", "pid_while_running"),
    [("3.6b", "1::", "1001"), ("3.7c", "0::", "1001"), ("3.8", "0::", "")],
)
def test_a_closed_tty_is_dead_before_3_7_and_not_until_reaped_from_3_7(
    version: str, dead_while_running: str, pid_while_running: str
) -> None:
    server = quiet(version)
    server.config.set_option("remain-on-exit", "on", scope="window", global_=True)
    pane = server.pane("%0")
    pane.write(b"closing\n")
    pane.close_tty()
    assert dead_state(pane) == f"{dead_while_running}:{pid_while_running}"
    assert pane.terminal.capture() == ["closing", "", "", "", ""]  # no message yet
    pane.write(b"lost")  # nothing reaches a closed tty
    pane.exit(4)
    assert dead_state(pane) == f"1:4::{pid_while_running}"
    assert pane.terminal.capture()[-1].startswith("Pane is dead (status 4, ")


@pytest.mark.parametrize(("version", "kept"), [("3.7c", False), ("3.8", True)])
def test_remain_on_exit_off_destroys_at_tty_close_until_3_8(version: str, kept: bool) -> None:
    server = quiet(version)
    server.split_window("%0")
    server.pane("%1").close_tty()
    assert any(p.pane_id == "%1" for p in server.all_panes()) is kept
    if kept:
        server.pane("%1").exit(0)
        assert [p.pane_id for p in server.all_panes()] == ["%0"]


@pytest.mark.parametrize("version", ["3.5a", "3.7c"])
def test_remain_on_exit_failed_waits_for_the_status(version: str) -> None:
    server = quiet(version)
    server.config.set_option("remain-on-exit", "failed", scope="window", global_=True)
    server.split_window("%0")
    server.pane("%1").close_tty()
    assert any(p.pane_id == "%1" for p in server.all_panes())
    server.pane("%1").exit(0)
    assert [p.pane_id for p in server.all_panes()] == ["%0"]


# -- pane_dead_signal, pane_dead_time (3.3), pane_unseen_changes (3.4) ----------------------


@pytest.mark.parametrize(
    ("version", "expected"),
    [("3.2a", "::"), ("3.3a", ":15:86400")],
)
def test_dead_signal_and_time_exist_from_3_3(version: str, expected: str) -> None:
    server = quiet(version)
    server.config.set_option("remain-on-exit", "on", scope="window", global_=True)
    pane = server.pane("%0")
    pane.exit(signal=15)
    fmt = "#{pane_dead_status}:#{pane_dead_signal}:#{pane_dead_time}"
    assert server.expand_format(fmt, pane) == expected
    assert pane.dead


def test_the_dead_message_names_the_signal() -> None:
    server = quiet("3.3a", width=60)
    server.config.set_option("remain-on-exit", "on", scope="window", global_=True)
    server.pane("%0").exit(signal=9)
    last = server.pane("%0").terminal.capture()[-1]
    assert last == "Pane is dead (signal 9, Fri Jan  2 00:00:00 1970)"


@pytest.mark.parametrize(("version", "expected"), [("3.3a", ""), ("3.4", "0")])
def test_pane_unseen_changes_exists_from_3_4(version: str, expected: str) -> None:
    server = quiet(version)
    assert server.expand_format("#{pane_unseen_changes}", server.pane("%0")) == expected


# -- capture-pane -N row length and -T (§15) ----------------------------------------------

# §15, measured: 80x4, abc\nxy   \n<red>red<reset>ESC[K\nq ESC[1K
TRAILING = b"abc\nxy   \n\x1b[31mred\x1b[0m\x1b[K\nq \x1b[1K"


@pytest.mark.parametrize(
    ("version", "rows"),
    [
        ("3.2a", ["abc" + " " * 17, "xy" + " " * 18, "red" + " " * 17, " " * 20]),
        ("3.3a", ["abc", "xy   ", "red", "  "]),
        ("3.4", ["abc" + " " * 17, "xy" + " " * 18, "red" + " " * 17, " " * 20]),
    ],
)
def test_capture_no_trim_row_length_follows_the_version(version: str, rows: list[str]) -> None:
    server = quiet(version, width=80, height=4)
    pane = server.pane("%0")
    pane.write(TRAILING)
    # (3.2a ignores the detached size: its pane has 23 rows, §19.)
    assert pane.terminal.capture(keep_trailing=True)[:4] == rows


def test_capture_trim_used_reads_to_cellused_from_3_4() -> None:
    pane = quiet("3.4", width=80, height=4).pane("%0")
    pane.write(TRAILING)
    assert tmux(pane, "capture-pane", "-p", "-N", "-T") == (0, "abc\nxy   \nred\n  \n")
    old = quiet("3.3a", width=80, height=4).pane("%0")
    assert tmux(old, "capture-pane", "-p", "-N", "-T") == (
        1,
        "command capture-pane: unknown flag -T\n",
    )


@pytest.mark.parametrize(
    ("flag", "first"),
    [("T", "3.4"), ("M", "3.6b"), ("F", "3.7c"), ("L", "3.7c"), ("H", "3.7c"), ("R", "3.8")],
)
def test_capture_flags_exist_from_their_version(flag: str, first: str) -> None:
    for version in KNOWN_VERSIONS:
        status, output = tmux(quiet(version).pane("%0"), "capture-pane", "-p", f"-{flag}")
        refused = output == f"command capture-pane: unknown flag -{flag}\n"
        assert refused is (TmuxVersion.parse(version) < TmuxVersion.parse(first)), version
        if refused:
            assert status == 1


def test_capture_line_numbers_count_from_the_history_size() -> None:
    pane = quiet("3.7c", width=10, height=3).pane("%0")
    pane.write(b"L1\nL2\nL3\nL4")
    assert tmux(pane, "capture-pane", "-p", "-L", "-S", "-") == (0, "-1 L1\n0 L2\n1 L3\n2 L4\n")


def test_unmodelled_capture_flags_say_so() -> None:
    pane = quiet("3.8").pane("%0")
    assert tmux(pane, "capture-pane", "-p", "-R") == (1, "capture-pane -R is not simulated\n")


# -- capture-pane -e styles A / B / C (§15) ----------------------------------------------

STYLED = b"a\x1b[1mB\x1b[22mc\x1b[1;31mD\x1b[0mE\n\x1b[32mgreen\nstill\x1b[39m ok"


@pytest.mark.parametrize(
    ("version", "rows"),
    [
        # A: resets restate both colours; the walk to cellsize closes styled rows.
        (
            "3.2a",
            [
                "a\x1b[1mB\x1b[0m\x1b[39m\x1b[49mc\x1b[1m\x1b[31mD\x1b[0m\x1b[39m\x1b[49mE",
                "\x1b[32mgreen\x1b[39m",
                "\x1b[32mstill\x1b[39m ok",
            ],
        ),
        # B: the same codes, but rows end at cellused: green's style carries on.
        (
            "3.3a",
            [
                "a\x1b[1mB\x1b[0m\x1b[39m\x1b[49mc\x1b[1m\x1b[31mD\x1b[0m\x1b[39m\x1b[49mE",
                "\x1b[32mgreen",
                "still\x1b[39m ok",
            ],
        ),
        # C: a reset alone when the colours are default; rows closed as in A.
        (
            "3.4",
            [
                "a\x1b[1mB\x1b[0mc\x1b[1m\x1b[31mD\x1b[0mE",
                "\x1b[32mgreen\x1b[39m",
                "\x1b[32mstill\x1b[39m ok",
            ],
        ),
    ],
)
def test_capture_escapes_follow_the_version_style(version: str, rows: list[str]) -> None:
    pane = quiet(version, width=20, height=3).pane("%0")
    pane.write(STYLED)
    assert pane.terminal.capture(escapes=True)[:3] == rows


def test_a_tab_cell_is_a_default_cell() -> None:
    # Measured on 3.8: no code precedes a stored TAB written in colour.
    pane = quiet("3.8", width=30, height=2).pane("%0")
    pane.write(b"\x1b[41ma\tb\x1b[0m")
    assert pane.terminal.capture(escapes=True)[0] == "\x1b[41ma\x1b[49m\t\x1b[41mb\x1b[49m"


def test_styles_survive_the_alternate_screen_and_decsc() -> None:
    pane = quiet("3.8", width=20, height=3).pane("%0")
    pane.write(b"\x1b[31m\x1b[?1049h\x1b[0mx\x1b[?1049l" + b"r\x1b7\x1b[0m\x1b8s")
    assert pane.terminal.capture(escapes=True)[0] == "\x1b[31mrs\x1b[39m"


# -- remain-on-exit key (3.7), display-message -l (3.4) -------------------------------------


@pytest.mark.parametrize(("version", "accepted"), [("3.6b", False), ("3.7c", True)])
def test_remain_on_exit_key_exists_from_3_7(version: str, accepted: bool) -> None:
    server = quiet(version)
    pane = server.pane("%0")
    status, output = tmux(pane, "set-option", "-g", "remain-on-exit", "key")
    assert (status == 0) is accepted, output
    if accepted:
        pane.exit(0)  # kept whatever the status, and send-keys does not close it
        pane.send_keys("x")
        assert server.pane("%0").dead
    else:
        assert output.startswith("unknown value: key")


@pytest.mark.parametrize(
    ("version", "expected"),
    [("3.3a", (1, "command display-message: unknown flag -l\n")), ("3.4", (0, "#{pane_id}\n"))],
)
def test_display_message_literal_exists_from_3_4(version: str, expected: tuple[int, str]) -> None:
    pane = quiet(version).pane("%0")
    assert tmux(pane, "display-message", "-l", "-p", "#{pane_id}") == expected
    assert tmux(pane, "display-message", "-p", "#{pane_id}") == (0, "%0\n")


# -- window layouts as JSON (3.8) ------------------------------------------------------------


def test_layouts_are_json_from_3_8() -> None:
    old = quiet("3.7c", width=80, height=24)
    old.split_window("%0")
    assert old.expand_format("#{window_layout}", old.pane("%0")) == (
        "c195,80x24,0,0[80x12,0,0,0,80x11,0,13,1]"
    )
    new = quiet("3.8", width=80, height=24)
    new.split_window("%0")
    new.split_window("%1", direction="right")
    new.controls.select_pane("%2")
    layout = new.expand_format("#{window_layout}", new.pane("%0"))
    assert layout == (
        '{"V":2,"L":{"t":"v","w":80,"h":24,"x":0,"y":0,"c":['
        '{"t":"p","w":80,"h":12,"x":0,"y":0,"l":0,"i":0,"I":"%0"},'
        '{"t":"h","w":80,"h":11,"x":0,"y":13,"c":['
        '{"t":"p","w":40,"h":11,"x":0,"y":13,"i":1,"I":"%1"},'
        '{"t":"p","w":39,"h":11,"x":41,"y":13,"a":true,"i":2,"I":"%2"}]}]}}'
    )


def test_select_layout_takes_json_and_its_active_and_last_panes_on_3_8() -> None:
    server = quiet("3.8", width=80, height=24)
    server.split_window("%0")
    server.split_window("%1", direction="right")
    saved = json.loads(server.expand_format("#{window_layout}", server.pane("%0")))
    panes = saved["L"]["c"][1]["c"]
    panes[0]["l"] = 0
    panes[1]["a"] = True
    del saved["L"]["c"][0]["a"]
    server.controls.select_layout("@0", "even-vertical")
    server.controls.select_layout("@0", json.dumps(saved))
    window = server.window("@0")
    assert window.active is server.pane("%2")
    assert window.last_panes == [server.pane("%1")]
    assert server.pane("%1").geometry() == (0, 13, 40, 11)


def test_a_control_client_without_new_layouts_sees_checksummed_layouts_on_3_8() -> None:
    server = quiet("3.8", width=80, height=24)
    layout = server.expand_format("#{window_layout}", server.pane("%0"), control=True)
    assert layout == "b25d,80x24,0,0,0"


# -- reflow of a wide character with an RGB background (3.8, found by the fidelity run) ----


@pytest.mark.parametrize(
    ("version", "rows"),
    [("3.7c", ["a", "b", "中", "", "c", "d", ""]), ("3.8", ["a", "b", "中", "", "d", ""])],
)
def test_an_rgb_background_padding_counts_no_column_in_3_8_reflow(
    version: str, rows: list[str]
) -> None:
    server = quiet(version, width=6, height=2)
    pane = server.pane("%0")
    pane.write(b"ab\x1b[48;2;9;99;199m\xe4\xb8\xad\x1b[49mcd")
    server.controls.resize_window("@0", width=1)
    assert pane.terminal.capture("-") == rows
    # An RGB foreground keeps 3.7's behaviour.
    other = quiet(version, width=6, height=2)
    other.pane("%0").write(b"ab\x1b[38;2;9;99;199m\xe4\xb8\xad\x1b[0mcd")
    other.controls.resize_window("@0", width=1)
    assert other.pane("%0").terminal.capture("-") == ["a", "b", "中", "", "c", "d", ""]


# -- a wide character broken up by a write keeps its background on 3.8 (fidelity run) ----


@pytest.mark.parametrize(
    ("version", "rows"),
    [
        ("3.7c", ["0", " 0", "\x1b[42m中\x1b[49m"]),
        ("3.8", ["0\x1b[41m \x1b[49m", "\x1b[48;2;9;99;199m \x1b[49m0", "\x1b[42m中\x1b[49m"]),
    ],
)
def test_a_broken_wide_character_keeps_its_background_from_3_8(
    version: str, rows: list[str]
) -> None:
    server = quiet(version, width=6, height=3)
    pane = server.pane("%0")
    # The rows are what tmux 3.7c and 3.8 capture. Row 0: text over the left
    # half (the run path); row 1: a character over the right half (the
    # one-cell path, auto-wrap off); row 2: a wide character over a wide one
    # replaces it whole, background and all.
    pane.write(b"\x1b[41m\xe4\xb8\xad\x1b[49m\r0\r\n")
    pane.write(b"\x1b[48;2;9;99;199m\xe4\xb8\xad\x1b[49m\x1b[?7l\x1b[D0\x1b[?7h\r\n")
    pane.write(b"\x1b[44m\xe4\xb8\xad\x1b[49m\r\x1b[42m\xe4\xb8\xad\x1b[49m")
    assert pane.terminal.capture(escapes=True)[:3] == rows
