"""The fake shell: prompt, echo of typed keys, commands, jobs and the clock."""

from __future__ import annotations

import pytest

from tmuxsim import ManualClock, SimPane, SimServer
from tmuxsim._keys import key_bytes, keys_to_bytes


def shell(version: str = "3.3a", clock: ManualClock | None = None, **env: str) -> SimPane:
    server = SimServer(version, clock=clock)
    session = server.new_session(width=100, height=10, environment=env or None)
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


def status(pane: SimPane) -> str:
    typed(pane, "echo $?")
    return screen(pane)[-2]


# -- prompt and line editing -------------------------------------------------------


def test_prompt_and_echo_of_typed_keys() -> None:
    pane = shell()
    assert screen(pane) == ["$"]
    pane.send_keys("echo hi", literal=True)
    assert screen(pane) == ["$ echo hi"]
    assert (pane.terminal.cursor_x, pane.terminal.cursor_y) == (9, 0)
    pane.send_keys("Enter")
    assert screen(pane) == ["$ echo hi", "hi", "$"]


def test_ps1_from_the_environment_is_the_prompt() -> None:
    pane = shell(PS1="% ")
    typed(pane, "PS1='> '")
    assert screen(pane) == ["% PS1='> '", ">"]


def test_backspace_and_ctrl_u_edit_the_line() -> None:
    pane = shell()
    pane.send_keys("echo abx", literal=True)
    pane.send_keys("BSpace")
    pane.send_keys("c", literal=True)
    pane.send_keys("Enter")
    assert screen(pane)[1] == "abc"
    pane.send_keys("junk", literal=True)
    pane.send_keys("C-u")
    pane.send_keys("true", literal=True)
    pane.send_keys("Enter")
    assert screen(pane)[-1] == "$"


def test_cursor_keys_do_not_reach_the_line() -> None:
    pane = shell()
    for key in ("Up", "Left", "Tab"):
        pane.send_keys(key)
    typed(pane, "echo ok")
    assert screen(pane) == ["$ echo ok", "ok", "$"]


def test_ctrl_c_at_the_prompt_abandons_the_line() -> None:
    pane = shell()
    pane.send_keys("echo no", literal=True)
    pane.send_keys("C-c")
    assert screen(pane) == ["$ echo no^C", "$"]
    assert status(pane) == "130"


def test_ctrl_d_on_an_empty_line_exits_the_shell() -> None:
    server = SimServer()
    server.new_session()
    server.config.set_option("remain-on-exit", "on", scope="window", global_=True)
    pane = server.pane("%0")
    typed(pane, "false")
    pane.send_keys("C-d")
    assert pane.dead and pane.dead_status == 1


# -- commands -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "output"),
    [
        ("echo a  b", ["a b"]),
        ("echo 'a  b' \"c  d\"", ["a  b c  d"]),
        ("echo -n x; echo y", ["xy"]),
        ("echo -e 'a\\tb\\nc'", ["a       b", "c"]),
        ("echo 'a\\nb'", ["a\\nb"]),
        ("echo -e 'stop\\chere'; echo", ["stop"]),
        ("echo $HOME ${TMUX_PANE} $UNSET end", ["/home/sim %0 end"]),
        ("echo '$HOME' \\$HOME", ["$HOME $HOME"]),
        ("printf '%s=%d\\n' a 1 b 2", ["a=1", "b=2"]),
        ("printf '%5s|%-3s|%03d|%x|%%\\n' ab c 7 255", ["   ab|c  |007|ff|%"]),
        ("printf 'no newline'; echo", ["no newline"]),
        ("printf '%.2f %c\\n' 3.14159 xyz", ["3.14 x"]),
        ("seq 3", ["1", "2", "3"]),
        ("seq 2 4", ["2", "3", "4"]),
        ("seq 10 -3 1", ["10", "7", "4", "1"]),
        ("seq 0 0.5 1", ["0.0", "0.5", "1.0"]),
        (
            "seq x",
            ["seq: invalid floating point argument: 'x'", "Try 'seq --help' for more information."],
        ),
        ("true && echo yes || echo no", ["yes"]),
        ("false && echo yes || echo no", ["no"]),
        ("nosuch", ["sh: 1: nosuch: not found"]),
        ('eval "echo \'open"', ["sh: 1: eval: Syntax error: Unterminated quoted string"]),
        ("echo a | cat", ['sh: 1: Syntax error: "|" is not supported by the simulated shell']),
        ("echo hi # a comment", ["hi"]),
        ("X=1; export Y=2; echo $X$Y; unset X; echo [$X]", ["12", "[]"]),
        ("cd /tmp; pwd; cd ..; pwd", ["/tmp", "/"]),
        ("cat nofile", ["cat: nofile: No such file or directory"]),
    ],
)
def test_command_output(line: str, output: list[str]) -> None:
    pane = shell()
    typed(pane, line)
    assert screen(pane) == [f"$ {line}", *output, "$"]


@pytest.mark.parametrize(
    ("line", "code"),
    [("true", "0"), ("false", "1"), ("nosuch", "127"), ("sleep x", "1"), ("&& x", "2")],
)
def test_exit_status_is_in_dollar_question(line: str, code: str) -> None:
    pane = shell()
    typed(pane, line)
    assert status(pane) == code


def test_status_expands_when_its_command_runs() -> None:
    pane = shell()
    typed(pane, "false; echo $?; echo $?")
    assert screen(pane)[1:3] == ["1", "0"]


def test_cd_changes_the_pane_current_path() -> None:
    pane = shell()
    typed(pane, "cd /var/log")
    assert pane.current_path == "/var/log"


@pytest.mark.parametrize(("version", "history"), [("3.2a", 5), ("3.3a", 0), ("3.8", 0)])
def test_clear_wipes_scrollback_only_where_term_has_e3(version: str, history: int) -> None:
    # docs/tmux-model.md §8: ESC[H ESC[J pushes the 5 used rows into history; tmux-256color
    # (3.3+) then sends ESC[3J, which wipes it; TERM=screen (3.2a) does not.
    pane = shell(version)
    typed(pane, "seq 3")
    typed(pane, "clear")
    assert pane.terminal.history_size == history
    assert pane.terminal.capture()[0] == "$"
    assert pane.terminal.cursor_y == 0


def test_clear_x_keeps_the_scrollback() -> None:
    pane = shell("3.3a")
    typed(pane, "seq 3")
    typed(pane, "clear -x")
    assert pane.terminal.history_size == 5


def test_exit_ends_the_shell_with_its_status() -> None:
    server = SimServer()
    server.new_session()
    server.split_window("%0")
    typed(server.pane("%1"), "exit 3")
    assert [p.pane_id for p in server.all_panes()] == ["%0"]
    server.config.set_option("remain-on-exit", "on", scope="window", global_=True)
    typed(server.pane("%0"), "exit 300; echo never")
    assert server.pane("%0").dead_status == 300 & 0xFF


def test_exit_with_a_bad_number_keeps_the_shell() -> None:
    pane = shell()
    typed(pane, "exit x")
    assert screen(pane)[1] == "sh: 1: exit: Illegal number: x"
    assert not pane.dead


def test_a_command_pane_runs_like_sh_c_and_exits() -> None:
    server = SimServer()
    server.new_session(name="keep")
    server.config.set_option("remain-on-exit", "on", scope="window", global_=True)
    window = server.new_window("$0", command="echo out; exit 5")
    pane = window.panes[0]
    assert pane.dead and pane.dead_status == 5
    # The dead-pane linefeed on the last row scrolled "out" into history (§13).
    assert pane.terminal.capture("-")[0] == "out"


# -- jobs: cat, sleep, wait-for ----------------------------------------------------------


def test_cat_copies_lines_until_ctrl_d() -> None:
    pane = shell()
    typed(pane, "cat")
    assert pane.current_command == "cat"
    typed(pane, "one")
    pane.send_keys("tw", literal=True)
    pane.send_keys("C-d")
    pane.send_keys("C-d")
    assert screen(pane) == ["$ cat", "one", "one", "twtw$"]
    assert pane.current_command == "sh"


def test_ctrl_c_interrupts_cat_and_the_rest_of_the_line() -> None:
    pane = shell()
    typed(pane, "cat; echo after")
    pane.send_keys("C-c")
    assert screen(pane) == ["$ cat; echo after", "^C", "$"]
    assert status(pane) == "130"


def test_sleep_runs_until_the_clock_passes_its_deadline() -> None:
    clock = ManualClock(100.0)
    pane = shell(clock=clock)
    typed(pane, "sleep 2; echo woke")
    assert pane.current_command == "sleep"
    assert server_of(pane).next_deadline() == 102.0
    clock.advance(1.5)
    assert screen(pane) == ["$ sleep 2; echo woke"]
    clock.advance(0.5)
    assert screen(pane) == ["$ sleep 2; echo woke", "woke", "$"]
    assert pane.current_command == "sh"


def test_keys_typed_during_sleep_are_echoed_and_read_after_the_prompt() -> None:
    clock = ManualClock()
    pane = shell(clock=clock)
    typed(pane, "sleep 1m")
    typed(pane, "echo ahead")
    clock.advance(60)
    assert screen(pane) == ["$ sleep 1m", "echo ahead", "$ echo ahead", "ahead", "$"]


def test_ctrl_c_interrupts_sleep_and_drops_type_ahead() -> None:
    clock = ManualClock()
    pane = shell(clock=clock)
    typed(pane, "sleep 5; echo no")
    pane.send_keys("x", literal=True)
    pane.send_keys("C-c")
    clock.advance(10)
    assert screen(pane) == ["$ sleep 5; echo no", "x^C", "$"]


def test_tmux_wait_for_signals_the_panes_server() -> None:
    clock = ManualClock()
    pane = shell(clock=clock)
    server = server_of(pane)
    typed(pane, "sleep 3; tmux wait-for -S done")
    assert server.wait_for("done", 1.0) is False
    assert clock.now() == 1.0
    assert server.wait_for("done", 10.0) is True
    assert clock.now() == 3.0  # the clock jumped to the sleep's deadline, no further


def test_tmux_other_commands_are_reported() -> None:
    pane = shell()
    typed(pane, "tmux ls")
    assert screen(pane)[1] == ("tmux: 'ls' is not simulated (see tmuxsim._commands)")


def test_a_killed_shell_stays_silent() -> None:
    clock = ManualClock()
    server = SimServer(clock=clock)
    server.new_session()
    server.split_window("%0")
    pane = server.pane("%1")
    typed(pane, "sleep 1; echo late")
    server.controls.kill_pane("%1")
    clock.advance(5)
    assert pane.destroyed
    assert "late" not in pane.terminal.capture()


# -- send-keys key names -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "data"),
    [
        ("Enter", b"\r"),
        ("C-c", b"\x03"),
        ("C-d", b"\x04"),
        ("c-a", b"\x01"),
        ("^D", b"\x04"),
        ("Tab", b"\t"),
        ("Escape", b"\x1b"),
        ("BSpace", b"\x7f"),
        ("Space", b" "),
        ("Up", b"\x1b[A"),
        ("Down", b"\x1b[B"),
        ("Right", b"\x1b[C"),
        ("Left", b"\x1b[D"),
        ("M-x", b"\x1bx"),
        ("C-Space", b"\x00"),
        ("F1", b"\x1bOP"),
        ("a", b"a"),
    ],
)
def test_key_names(key: str, data: bytes) -> None:
    assert key_bytes(key) == data


def test_unknown_words_are_typed_as_text_and_literal_never_looks_up() -> None:
    assert key_bytes("hello") is None
    assert keys_to_bytes("hello", literal=False) == b"hello"
    assert keys_to_bytes("Enter", literal=True) == b"Enter"
    assert keys_to_bytes("C-c", literal=False) == b"\x03"
    assert keys_to_bytes("C-cc", literal=False) == b"C-cc"
