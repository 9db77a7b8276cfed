"""The fake shell's ``tmux`` client, ``eval`` and continuation lines (what
run_command types), checked against what the same lines do on real tmux."""

from __future__ import annotations

from tmuxsim import ManualClock, SimPane, SimServer


def shell(clock: ManualClock | None = None) -> SimPane:
    server = SimServer("3.3a", clock=clock)
    session = server.new_session(width=80, height=10)
    assert session.active_pane is not None
    return session.active_pane


def server_of(pane: SimPane) -> SimServer:
    """The SimServer ``pane`` belongs to (the pane itself knows it only as a ``Host``)."""
    assert isinstance(pane.server, SimServer)
    return pane.server


def typed(pane: SimPane, line: str) -> None:
    pane.send_keys(line, literal=True)
    pane.send_keys("Enter")


def screen(pane: SimPane) -> list[str]:
    rows = pane.terminal.capture("-")
    while rows and not rows[-1]:
        rows.pop()
    return rows


def pane_options(pane: SimPane) -> dict[str, str]:
    return server_of(pane).config.show_options(scope="pane", target=pane.pane_id)


def test_set_option_from_the_pane_defaults_to_the_calling_pane() -> None:
    pane = shell()
    typed(pane, 'false; tmux set-option -p @status "$?"')
    assert pane_options(pane) == {"@status": "1"}
    typed(pane, "tmux set -p -u @status")
    assert pane_options(pane) == {}
    assert screen(pane)[-1] == "$"


def test_command_lists_run_in_order_and_stop_at_an_error() -> None:
    pane = shell()
    typed(
        pane,
        "tmux set -p -t %0 @a 1 \\; set-buffer -b buf hello \\; set -p -t %9 @b 2 \\; set -p @c 3",
    )
    assert pane_options(pane) == {"@a": "1"}  # the list stopped at the missing pane
    assert server_of(pane).buffers.get("buf").data == "hello"
    typed(pane, "echo $?")
    assert screen(pane)[-2] == "1"


def test_a_list_that_does_not_parse_runs_nothing() -> None:
    pane = shell()
    typed(pane, "tmux set -p @a 1 \\; nosuch")
    assert screen(pane)[1] == ("tmux: 'nosuch' is not simulated (see tmuxsim._commands)")
    typed(pane, "tmux set -p @a 1 \\; set -p -x @b 2")
    assert screen(pane)[3] == "command set-option: unknown flag -x"  # as tmux 3.3a prints it
    typed(pane, "tmux set -p -u @a 1")
    assert screen(pane)[5].startswith("command set-option: usage:")
    assert pane_options(pane) == {}


def test_wait_for_blocks_the_shell_until_signalled() -> None:
    pane = shell()
    server = server_of(pane)
    typed(pane, "tmux wait-for -S done \\; wait-for ack; echo released")
    assert pane.program.command_name == "tmux"
    assert server.wait_for("done", 1.0) is True  # held: signalled before anyone waited
    assert screen(pane) == ["$ tmux wait-for -S done \\; wait-for ack; echo released"]
    server.signal_channel("ack")
    assert screen(pane)[-2:] == ["released", "$"]


def test_a_signal_held_before_the_wait_releases_it_at_once() -> None:
    pane = shell()
    server_of(pane).signal_channel("early")
    typed(pane, "tmux wait-for early; echo through")
    assert screen(pane)[-2:] == ["through", "$"]


def test_ctrl_c_ends_a_blocked_client() -> None:
    pane = shell()
    typed(pane, "tmux wait never; echo no")
    pane.send_keys("C-c")
    assert screen(pane)[-2:] == ["^C", "$"]
    typed(pane, "echo $?")
    assert screen(pane)[-2] == "130"


def test_one_shell_signals_another() -> None:
    clock = ManualClock()
    first = shell(clock)
    server = server_of(first)
    second = server.split_window(first.pane_id)
    typed(second, "tmux wait-for go; echo woke")
    typed(first, "sleep 2; tmux wait-for -S go")
    assert "woke" not in screen(second)
    clock.advance(2)
    assert screen(second)[-2:] == ["woke", "$"]


def test_eval_runs_in_the_shell_with_the_last_status() -> None:
    pane = shell()
    typed(pane, "eval 'cd /tmp; X=1; false'; echo $? $X; pwd")
    assert screen(pane)[1:3] == ["1 1", "/tmp"]
    typed(pane, "eval 'true # a comment; false' && echo ok")
    assert screen(pane)[-2] == "ok"
    typed(pane, "eval; echo $?")
    assert screen(pane)[-2] == "0"


def test_a_line_left_open_by_a_quote_continues() -> None:
    pane = shell()
    typed(pane, "echo 'a")
    assert screen(pane) == ["$ echo 'a", ">"]
    typed(pane, "b'")
    assert screen(pane) == ["$ echo 'a", "> b'", "a", "b", "$"]
    typed(pane, "true &&")
    typed(pane, "echo more")
    assert screen(pane)[-2:] == ["more", "$"]
    pane.send_keys("echo 'x", literal=True)
    pane.send_keys("Enter")
    pane.send_keys("C-c")
    assert screen(pane)[-1] == "$"
    typed(pane, "echo fresh")
    assert screen(pane)[-2] == "fresh"


def test_run_command_line_round_trip() -> None:
    """The exact line run_command types: status kept, shell held, then cleaned up."""
    pane = shell()
    server = server_of(pane)
    line = (
        " eval 'seq 1 3; false'; tmux set-option -p -t %0 @gridmux-status-t \"$?\" "
        "\\; wait-for -S gridmux-t \\; wait-for gridmux-t-ack "
        "\\; set-option -p -u -t %0 @gridmux-status-t"
    )
    typed(pane, line)
    assert server.wait_for("gridmux-t", 5.0) is True
    assert pane_options(pane) == {"@gridmux-status-t": "1"}
    assert screen(pane)[-3:] == ["1", "2", "3"]  # no prompt yet
    server.signal_channel("gridmux-t-ack")
    assert pane_options(pane) == {}
    assert screen(pane)[-1] == "$"
