"""run_command and send_keys_batch through the MCP client, on the simulator.

Only what needs the simulator is here (its fake shell, injected clock,
pane writes, default socket, spies, known fidelity gaps); what holds on both
backends is in tests/contract/test_commands.py."""

from __future__ import annotations

import os
import stat
from typing import Any

import pytest
from fastmcp import Client

from gridmux.backend import ServerRef, TmuxFailure
from gridmux.tools._command_line import displayed, squash, typed_line
from gridmux.tools._run_screen import echo_end
from gridmux.tools._run_script import SCRIPTS
from tests.mcp_calls import call, call_error
from tmuxsim import ManualClock, SimBackend

REF = ServerRef()


def new_pane(backend: SimBackend, name: str = "work", *, width: int = 40, height: int = 10) -> str:
    session = backend.new_session(REF, name=name, width=width, height=height)
    assert session.active_pane_id is not None
    return session.active_pane_id


def grid(backend: SimBackend, pane_id: str) -> list[str]:
    """Every retained row down to the last one written."""
    rows = backend.server(REF).pane(pane_id).terminal.capture("-")
    while rows and not rows[-1]:
        rows.pop()
    return rows


def pane_options(backend: SimBackend, pane_id: str) -> dict[str, str]:
    return backend.show_options(REF, scope="pane", target=pane_id)


async def run(client: Client, pane_id: str, command: str, **args: Any) -> dict[str, Any]:  # type: ignore[type-arg]
    result: dict[str, Any] = await call(
        client, "run_command", command=command, pane_id=pane_id, **args
    )
    return result


async def test_output_that_replays_the_rows_above_the_prompt_is_not_mistaken_for_them(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    """The command prints the 50 rows that stood above its prompt again, after
    pushing the originals out of history: the cursor's evidence (window and
    sentinels) matches only at the replay, but the typed line is not after
    it, so nothing is claimed."""
    backend.new_session(REF, name="scratch")
    backend.set_option(REF, "history-limit", "100", scope="session", global_=True)
    pane = new_pane(backend, height=10)
    # The shell's output, then its prompt (run_command types only after a prompt).
    rows = "".join(f"r{i}\n" for i in range(200))
    backend.server(REF).pane(pane).write(f"{rows}$ ".encode())
    # A pipe of the user's: run_command reads the screen, which this is about.
    backend.pipe_pane(REF, pane, "cat >> /dev/null")
    replay = "; ".join(f"echo r{i}" for i in range(150, 200))
    out = await run(client, pane, f"seq 1 150; {replay}", max_lines=None)
    assert out["exit_status"] == 0
    assert out["lines_missed"] is True
    assert out["output"][-50:] == [f"r{i}" for i in range(150, 200)]
    assert out["output"][0] != "r150"  # seq's last retained rows come first


async def test_a_long_command_line_wraps_and_is_not_in_the_output(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    pane = new_pane(backend, width=30)
    word = "w" * 75
    out = await run(client, pane, f"echo {word}; echo done")
    assert out["output"] == [word, "done"]  # the 75-cell line is joined back
    # The command as typed, wrapped over three rows, and nothing of gridmux.
    text = f"$ echo {word}; echo done"
    assert grid(backend, pane) == [
        *(text[i : i + 30] for i in range(0, len(text), 30)),
        word[:30],
        word[30:60],
        word[60:],
        "done",
        "$",
    ]


async def test_runs_in_the_shell_itself_and_cleans_up(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    pane = new_pane(backend)
    await run(client, pane, "cd /tmp; X=kept")
    out = await run(client, pane, "pwd; echo $X")
    assert out["output"] == ["/tmp", "kept"]
    assert pane_options(backend, pane) == {}  # the status option is removed
    assert grid(backend, pane)[-1] == "$"  # the shell is back at its prompt


async def test_the_pane_shows_the_commands_and_their_output_only(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    pane = new_pane(backend, width=80)
    await run(client, pane, "true")
    await run(client, pane, "echo 'a b'", suppress_history=False)
    assert grid(backend, pane) == ["$ true", "$ echo 'a b'", "a b", "$"]


# -- run_command: timeouts ---------------------------------------------------------------------


async def test_timeout_is_a_result_and_leaves_the_pane_usable(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    clock = backend.clock
    assert isinstance(clock, ManualClock)
    pane = new_pane(backend)
    start = clock.now()
    out = await run(client, pane, "echo started; sleep 100; echo finished", timeout=2.5)
    assert out["timed_out"] is True
    assert out["still_running"] is True
    assert out["exit_status"] is None
    assert out["output"] == ["started"]
    assert clock.now() - start == 2.5  # the simulated clock: the timeout is exact
    assert backend.list_panes(REF)[0].current_command == "sleep"  # not interrupted
    clock.advance(100)
    assert grid(backend, pane)[-2:] == ["finished", "$"]
    assert pane_options(backend, pane) == {}
    again = await run(client, pane, "echo again")
    assert (again["exit_status"], again["output"]) == (0, ["again"])


# -- run_command: bad input changes nothing ----------------------------------------------------


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"command": ""}, "command"),
        ({"command": "   "}, "non-blank"),
        ({"command": "echo a\necho b"}, "single line"),
        ({"command": "true", "timeout": 0}, "timeout"),
        ({"command": "true", "timeout": -1}, "timeout"),
        ({"command": "true", "timeout": 100000}, "timeout"),
        ({"command": "true", "max_lines": 0}, "max_lines"),
        ({"command": "true", "pane_id": "%99"}, "no pane %99"),
        ({"command": "true", "pane_id": "7"}, "not a tmux pane id"),
        ({"command": "true", "socket_path": "relative"}, "socket_path"),
    ],
)
async def test_bad_input_is_refused_and_nothing_is_typed(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    args: dict[str, Any],
    expected: str,
) -> None:
    pane = new_pane(backend)
    before = grid(backend, pane)
    args = {"pane_id": pane, **args}
    error = await call_error(client, "run_command", **args)
    assert expected in error
    assert grid(backend, pane) == before


async def test_no_target_with_several_panes_is_refused(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    one, two = new_pane(backend, "a"), new_pane(backend, "b")
    before = (grid(backend, one), grid(backend, two))
    error = await call_error(client, "run_command", command="true")
    assert "pane_id" in error
    assert (grid(backend, one), grid(backend, two)) == before


async def test_panes_that_are_not_at_a_shell_prompt_are_refused(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    pane = new_pane(backend)
    backend.copy_mode(REF, pane, enter=True)
    assert "exit_copy_mode" in await call_error(client, "run_command", command="true", pane_id=pane)
    backend.copy_mode(REF, pane, enter=False)
    backend.server(REF).pane(pane).write(b"\x1b[?1049hfull screen")
    before = grid(backend, pane)
    error = await call_error(client, "run_command", command="true", pane_id=pane)
    assert "full-screen program" in error
    assert grid(backend, pane) == before
    backend.set_option(REF, "remain-on-exit", "on", scope="window", target=pane)
    backend.server(REF).pane(pane).write(b"\x1b[?1049l")
    backend.send_keys(REF, pane, "exit", literal=True, enter=True)
    assert "has exited" in await call_error(client, "run_command", command="true", pane_id=pane)


# -- send_keys_batch ---------------------------------------------------------------------------


async def test_batch_sends_in_order_to_each_pane(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    one, two = new_pane(backend, "a"), new_pane(backend, "b")
    out = await call(
        client,
        "send_keys_batch",
        operations=[
            {"keys": "echo one", "pane_id": one},
            {"keys": "echo two", "session_name": "b"},
            {"keys": "echo x", "pane_id": one, "enter": False, "literal": True},
            {"keys": "C-u", "pane_id": one, "enter": False},
        ],
    )
    assert (out["succeeded"], out["failed"], out["stopped_at"]) == (4, 0, None)
    assert [r["pane_id"] for r in out["results"]] == [one, two, one, one]
    assert [r["index"] for r in out["results"]] == [0, 1, 2, 3]
    assert all(r["success"] and r["error"] is None for r in out["results"])
    assert grid(backend, one)[:3] == ["$ echo one", "one", "$"]
    assert grid(backend, two)[:3] == ["$ echo two", "two", "$"]


async def test_suppress_history_in_a_batch(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    pane = new_pane(backend)
    await call(
        client,
        "send_keys_batch",
        operations=[{"keys": "echo hi", "pane_id": pane, "suppress_history": True}],
    )
    assert grid(backend, pane)[0] == "$  echo hi"


@pytest.fixture
def failing_sends(backend: SimBackend, monkeypatch: pytest.MonkeyPatch) -> None:
    """send-keys of the text 'boom' fails, as tmux would for a vanished pane."""
    original = backend.send_keys

    def send_keys(server: ServerRef, pane_id: str, keys: str, **kwargs: Any) -> None:
        if keys == "boom":
            raise TmuxFailure("tmux failed to send keys")
        original(server, pane_id, keys, **kwargs)

    monkeypatch.setattr(backend, "send_keys", send_keys)


@pytest.mark.usefixtures("failing_sends")
async def test_on_error_stop_and_continue(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    pane = new_pane(backend)
    ops = [
        {"keys": "echo a", "pane_id": pane},
        {"keys": "boom", "pane_id": pane},
        {"keys": "echo c", "pane_id": pane},
    ]
    stopped = await call(client, "send_keys_batch", operations=ops)
    assert (stopped["succeeded"], stopped["failed"], stopped["stopped_at"]) == (1, 1, 1)
    assert len(stopped["results"]) == 2
    assert "tmux failed to send keys" in stopped["results"][1]["error"]
    assert "echo c" not in "\n".join(grid(backend, pane))
    went_on = await call(client, "send_keys_batch", operations=ops, on_error="continue")
    assert (went_on["succeeded"], went_on["failed"], went_on["stopped_at"]) == (2, 1, None)
    assert [r["success"] for r in went_on["results"]] == [True, False, True]
    assert "c" in grid(backend, pane)


async def test_batch_timeout_fails_operations_not_started(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    pane = new_pane(backend)
    before = grid(backend, pane)
    out = await call(
        client,
        "send_keys_batch",
        operations=[{"keys": "echo a", "pane_id": pane}, {"keys": "echo b", "pane_id": pane}],
        timeout=1e-9,
        on_error="continue",
    )
    assert (out["succeeded"], out["failed"]) == (0, 2)
    assert "batch timeout" in out["results"][0]["error"]
    assert grid(backend, pane) == before


@pytest.mark.parametrize(
    ("operations", "expected"),
    [
        ([], "operations"),
        ([{"keys": "x", "pane_id": "%0", "bogus": 1}], "bogus"),
        ([{"keys": "", "pane_id": "%0", "enter": False}], "nothing to send"),
        ([{"keys": "echo a", "pane_id": "%0"}, {"keys": "echo b", "pane_id": "%9"}], "[1]"),
        ([{"keys": "echo a", "pane_id": "0"}], "not a tmux pane id"),
        ([{"keys": "echo a", "session_name": "nope"}], "no session"),
        ([{"keys": "echo a", "pane_id": "%0"}] * 1001, "operations"),
    ],
)
async def test_batch_validates_every_operation_before_sending(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    operations: list[dict[str, Any]],
    expected: str,
) -> None:
    pane = new_pane(backend)
    assert pane == "%0"
    before = grid(backend, pane)
    error = await call_error(client, "send_keys_batch", operations=operations)
    assert expected in error
    assert grid(backend, pane) == before


async def test_batch_refuses_a_dead_pane(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    live, dead = new_pane(backend, "a"), new_pane(backend, "b")
    backend.set_option(REF, "remain-on-exit", "on", scope="window", target=dead)
    backend.send_keys(REF, dead, "exit", literal=True, enter=True)
    before = grid(backend, live)
    error = await call_error(
        client,
        "send_keys_batch",
        operations=[{"keys": "echo a", "pane_id": live}, {"keys": "x", "pane_id": dead}],
    )
    assert "operations[1]" in error and "exited" in error
    assert grid(backend, live) == before


@pytest.mark.parametrize(("command", "status"), [("false", 1), ("nosuch", 127), ("&& x", 2)])
async def test_non_zero_exit_status(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    command: str,
    status: int,
) -> None:
    pane = new_pane(backend, width=80)
    out = await run(client, pane, command)
    assert out["exit_status"] == status
    assert out["timed_out"] is False


def test_echo_end_finds_the_redrawn_line_across_wrapped_rows() -> None:
    command = "seq 1 3 && echo a long line"
    line = typed_line(command, "%4", "0123abcd", suppress_history=True, script_path="/p/t")
    text = "$ " + command
    rows = [text[i : i + 17].rstrip() for i in range(0, len(text), 17)] + ["1", "2"]
    assert echo_end(rows, line.needle) == len(rows) - 3
    assert echo_end(["1", "2"], line.needle) is None
    assert squash(" a b\tc ") == "abc"


def test_typed_line_sources_a_script_that_redraws_and_evals_the_command() -> None:
    line = typed_line(
        "echo 'x'", "%1", "t", suppress_history=True, script_path="/p/t", cursor_x=2, width=10
    )
    # Nothing of the command is typed: only the script's path, after a space.
    assert line.text == " . '/p/t'"
    redraw, run, save, end, finish, unset = line.script.splitlines()
    # After the command: its status kept, the pipe's end marker, the report.
    assert (save, end, unset) == (
        "_gridmux_t=$?",
        r"printf '\033]gridmux-t-end\007'",
        "unset _gridmux_t",
    )
    assert line.pipe_command == "exec cat >> '/p/t.pipe'"
    # The typed line took 2 rows (2 + 9 cells in 10): up 2, to column 3, erase
    # below, and the command as a person would have typed it.
    quoted = r"'echo '\''x'\'''"
    assert redraw == r"printf '\033[2A\033[3G\033[J%s\n\033]gridmux-t-start\007' " + quoted
    assert run == "eval " + quoted
    assert finish.startswith('tmux set-option -p -t %1 @gridmux-status-t "$_gridmux_t"')
    assert line.status_option == "@gridmux-status-t"
    assert (line.done_channel, line.ack_channel) == ("gridmux-t", "gridmux-t-ack")
    assert line.needle == "echo'x'"


@pytest.mark.parametrize(
    ("shell", "added"),
    [("bash", "history -s -- 'ls'"), ("-zsh", "print -rs -- 'ls'"), ("dash", None)],
)
def test_typed_line_adds_the_command_to_history_only_when_asked(
    shell: str, added: str | None
) -> None:
    kept = typed_line("ls", "%1", "t", suppress_history=False, script_path="/p/t", shell=shell)
    skipped = typed_line("ls", "%1", "t", suppress_history=True, script_path="/p/t", shell=shell)
    assert len(skipped.script.splitlines()) == 6
    lines = kept.script.splitlines()
    assert (lines[1] if len(lines) == 7 else None) == added


def test_the_redrawn_command_carries_no_control_character() -> None:
    assert displayed("a\tb\x1b]52;c;x\x07\x7f\x9b") == "a b^[]52;c;x^G^??"


async def test_each_runs_script_is_private_and_removed_when_no_longer_needed(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    written: list[tuple[str, int, int]] = []
    write = SCRIPTS.write

    def recording(path: str, text: str) -> None:
        write(path, text)
        mode = stat.S_IMODE(os.stat(path).st_mode)
        written.append((path, mode, stat.S_IMODE(os.stat(os.path.dirname(path)).st_mode)))

    monkeypatch.setattr(SCRIPTS, "write", recording)
    clock = backend.clock
    assert isinstance(clock, ManualClock)
    pane = new_pane(backend)
    await run(client, pane, "echo done")
    (path, mode, directory), (pipe, pipe_mode, _) = written
    assert pipe == path + ".pipe"  # what tmux pipes the pane's output to
    assert (mode, pipe_mode, directory) == (0o600, 0o600, 0o700)
    assert not os.path.exists(path) and not os.path.exists(pipe)  # the run is over
    out = await run(client, pane, "sleep 10", timeout=1)
    assert out["still_running"] is True
    slow = written[-2][0]
    assert os.path.exists(slow)  # the shell may still be reading it
    clock.advance(10)
    await run(client, pane, "true")
    assert not os.path.exists(slow)  # its shell was back at its prompt
    taken = written[-2][0] + "0"
    write(taken, "")
    with pytest.raises(FileExistsError):  # never written through an existing file
        write(taken, "mine")
    SCRIPTS.discard(taken)
    assert not os.path.exists(taken)
