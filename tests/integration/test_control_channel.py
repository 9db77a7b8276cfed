"""The control-mode channel on real tmux: same answers as a subprocess, no spawns.

Each test builds its own backends (control mode on and off) regardless of
``GRIDMUX_CONTROL_MODE``, so the channel is checked in every matrix cell.
"""

from __future__ import annotations

import os
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from gridmux.backend import ServerRef
from gridmux.backend._command_backend import TmuxCommandBackend
from gridmux.backend._procfs import read_stat
from gridmux.errors import NotFound

from .conftest import RawTmux, WaitUntil, WriteToPane, counting_tmux, spawns
from .light_touch import waiters

pytestmark = pytest.mark.tmux

SLEEP = "exec sleep 100000"


@pytest.fixture
def control(tmux_bin: str) -> Iterator[TmuxCommandBackend]:
    backend = TmuxCommandBackend(tmux_bin, control_mode=True)
    yield backend
    backend.close()


@pytest.fixture
def plain(tmux_bin: str) -> TmuxCommandBackend:
    return TmuxCommandBackend(tmux_bin, control_mode=False)


@pytest.fixture
def session(plain: TmuxCommandBackend, tmux_server: ServerRef) -> str:
    """A session (so a control client can attach); its first pane's id."""
    pane = plain.new_session(tmux_server, name="main", command=SLEEP).active_pane_id
    assert pane is not None
    return pane


def channel_pids(backend: TmuxCommandBackend) -> set[int]:
    pool = backend._runner.control
    assert pool is not None
    return pool.client_pids()


def test_commands_go_over_one_persistent_client(
    control: TmuxCommandBackend, tmux_server: ServerRef, session: str, tmux: RawTmux
) -> None:
    control.list_sessions(tmux_server)
    (pid,) = channel_pids(control)
    for _ in range(20):
        control.snapshot(tmux_server, session)
        control.list_panes(tmux_server)
    assert channel_pids(control) == {pid}
    clients = tmux("list-clients", "-F", "#{client_pid} #{client_control_mode}").split("\n")
    assert f"{pid} 1" in clients


def test_no_tmux_process_per_call_over_control_mode(
    tmux_bin: str,
    tmux_server: ServerRef,
    session: str,
    isolated_env: Path,
) -> None:
    wrapper, log = counting_tmux(isolated_env, tmux_bin)
    control = TmuxCommandBackend(wrapper, control_mode=True)
    plain = TmuxCommandBackend(wrapper, control_mode=False)
    try:
        control.list_sessions(tmux_server)  # attaches: the one spawn
        (pid,) = channel_pids(control)
        before = spawns(log)
        for _ in range(10):
            control.list_panes(tmux_server)
            control.scan_panes(tmux_server, start=-5, join_wrapped=True)
            control.snapshot(tmux_server, session, start=-5)
            control.send_keys(tmux_server, session, "", literal=True)
        # before tmux 3.6 captures take a buffer and a file, still no process
        # (docs/control-mode.md)
        assert spawns(log) == before, log.read_bytes()
        for _ in range(3):
            assert control.wait_for(tmux_server, "never-signalled", 0.01) is False
        # each wait is a plain `tmux wait-for` process, never a control client
        waits = log.read_text().splitlines()[before:]
        assert len(waits) == 3, waits
        assert all(line.endswith("wait-for never-signalled") for line in waits), waits
        assert channel_pids(control) == {pid}
        before = spawns(log)
        for _ in range(5):
            plain.snapshot(tmux_server, session)
            plain.scan_panes(tmux_server, join_wrapped=True)  # listing and reads: one list
        assert spawns(log) - before == 10
    finally:
        control.close()


def test_answers_equal_the_subprocess_answers(
    control: TmuxCommandBackend,
    plain: TmuxCommandBackend,
    tmux_server: ServerRef,
    session: str,
    write_to_pane: WriteToPane,
    wait_until: WaitUntil,
) -> None:
    other = control.split_window(tmux_server, session, command="exec cat")
    text = "tab\there ünï 漢字 $HOME ~ #{pane_id} ; {x} 'q' \"d\" \\ %end 1 2 1\n" * 3
    write_to_pane(other.pane_id, text.encode())
    wait_until(lambda: "%end 1 2 1" in "\n".join(plain.snapshot(tmux_server, other.pane_id).rows))
    # still between the reads compared below: cat running (mid-exec its path reads '')
    wait_until(
        lambda: any(
            (p.pane_id, p.current_command) == (other.pane_id, "cat") and p.current_path
            for p in plain.list_panes(tmux_server)
        ),
        what="cat running in the new pane",
    )
    control.set_option(tmux_server, "@weird", "a;b $x ~ #{q} \"' \\", scope="server")
    control.set_environment(tmux_server, "GMX_ENV", "line1\nline2\tx")
    reads: list[Callable[[TmuxCommandBackend], object]] = [
        lambda b: b.list_sessions(tmux_server),
        lambda b: b.list_windows(tmux_server),
        lambda b: b.list_panes(tmux_server),
        lambda b: b.snapshot(tmux_server, other.pane_id, start="-", end="-"),
        lambda b: b.snapshot(tmux_server, other.pane_id, join_wrapped=True),
        lambda b: b.pane_state(tmux_server, other.pane_id),
        lambda b: b.show_options(tmux_server, scope="server", global_=True),
        lambda b: b.show_environment(tmux_server),
        lambda b: b.display_message(tmux_server, other.pane_id, "#{pane_id} #{pane_width}"),
    ]
    for read in reads:
        assert read(control) == read(plain)


def test_captures_leave_no_buffer_and_no_file(
    control: TmuxCommandBackend,
    plain: TmuxCommandBackend,
    tmux_server: ServerRef,
    session: str,
    tmux: RawTmux,
    tmux_release: tuple[int, int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Before tmux 3.6 a capture over control mode goes through a buffer and a file
    (docs/control-mode.md); neither outlives the read, even when the list fails."""
    made: list[str] = []
    real_mkdtemp = tempfile.mkdtemp

    def mkdtemp(prefix: str | None = None) -> str:
        made.append(real_mkdtemp(prefix=prefix))
        return made[-1]

    monkeypatch.setattr("gridmux.backend._capture_route.tempfile.mkdtemp", mkdtemp)
    tmux("set-buffer", "-b", "users", "the user's own buffer")
    for _ in range(3):
        assert control.snapshot(tmux_server, session, untrimmed_start=-5) == plain.snapshot(
            tmux_server, session, untrimmed_start=-5
        )
        assert control.scan_panes(tmux_server) == plain.scan_panes(tmux_server)
    runner = control._runner
    with pytest.raises(NotFound):  # a capture that ran, then a command that failed
        runner.run(
            tmux_server,
            [["capture-pane", "-p", "-t", session], ["capture-pane", "-p", "-t", "%999"]],
            what="read",
        )
    assert tmux("list-buffers", "-F", "#{buffer_name}").split() == ["users"]
    assert made == ([] if tmux_release >= (3, 6) else made[:1]), made
    assert all(not os.listdir(folder) for folder in made)
    control.close()
    assert all(not os.path.exists(folder) for folder in made)


def test_a_server_that_cannot_write_captures_is_read_by_process(
    tmux_bin: str,
    plain: TmuxCommandBackend,
    tmux_server: ServerRef,
    session: str,
    tmux: RawTmux,
    tmux_release: tuple[int, int],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A folder the tmux server cannot write to (another user's server, another
    /tmp): the read still answers, by process, and leaves no buffer."""
    gone = tmp_path / "not-there"
    monkeypatch.setattr("gridmux.backend._capture_route.tempfile.mkdtemp", lambda **_: str(gone))
    wrapper, log = counting_tmux(tmp_path, tmux_bin)
    counted = TmuxCommandBackend(wrapper, control_mode=True)
    try:
        counted.list_panes(tmux_server)  # attaches
        before = spawns(log)
        for _ in range(3):
            assert counted.snapshot(tmux_server, session) == plain.snapshot(tmux_server, session)
        by_process = 0 if tmux_release >= (3, 6) else 3
        assert spawns(log) - before == by_process, log.read_bytes()
        before = spawns(log)
        counted.list_panes(tmux_server)  # what is not a capture still goes over the client
        counted.send_keys(tmux_server, session, "", literal=True)
        assert spawns(log) == before, log.read_bytes()
    finally:
        counted.close()
    assert tmux("list-buffers", "-F", "#{buffer_name}") == ""


def test_pane_text_that_looks_like_protocol_lines_is_returned_verbatim(
    control: TmuxCommandBackend,
    plain: TmuxCommandBackend,
    tmux_server: ServerRef,
    session: str,
    tmux: RawTmux,
    write_to_pane: WriteToPane,
    wait_until: WaitUntil,
) -> None:
    tmux("set-option", "-g", "history-limit", "6000")
    pane = control.split_window(tmux_server, session, command="exec cat").pane_id
    # Guard lines with every number the next commands could get (tmux counts
    # commands from its start), this second and the next, and notifications.
    now = int(time.time())
    lines = [
        f"%{kind} {second} {number} 1"
        for second in (now, now + 1)
        for number in range(1200)
        for kind in ("end", "error")
    ]
    lines += ["%exit", "%begin 1 1 1", "%session-changed $0 x", "plain"]
    write_to_pane(pane, ("\n".join(lines) + "\n").encode())
    wait_until(lambda: control.pane_state(tmux_server, pane).history_size >= len(lines) - 30)
    ours = control.snapshot(tmux_server, pane, start="-", end="-")
    theirs = plain.snapshot(tmux_server, pane, start="-", end="-")
    assert ours == theirs
    assert "%exit" in ours.rows
    assert control.list_sessions(tmux_server)  # the client is still usable


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
    derandomize=True,
)
@example(value="~'$HOME\n")
@given(
    value=st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\0"), max_size=40)
)
def test_any_argument_reaches_tmux_as_one_literal_word(
    control: TmuxCommandBackend,
    plain: TmuxCommandBackend,
    tmux_server: ServerRef,
    session: str,
    value: str,
) -> None:
    control.set_option(tmux_server, "@probe", value, scope="server")
    assert plain.show_options(tmux_server, scope="server").get("@probe") == plain_value(
        plain, tmux_server, value
    )


def plain_value(plain: TmuxCommandBackend, server: ServerRef, value: str) -> str | None:
    """What show_options reports for ``value`` set through a subprocess."""
    plain.set_option(server, "@expected", value, scope="server")
    return plain.show_options(server, scope="server").get("@expected")


def test_a_killed_client_is_replaced_and_errors_still_translate(
    control: TmuxCommandBackend, tmux_server: ServerRef, session: str, wait_until: WaitUntil
) -> None:
    control.list_sessions(tmux_server)
    (pid,) = channel_pids(control)
    os.kill(pid, 9)  # our own child process
    wait_until(
        lambda: (found := read_stat(pid)) is None or found.ended, what="the control client to die"
    )
    assert [s.session_name for s in control.list_sessions(tmux_server)] == ["main"]
    (replacement,) = channel_pids(control)
    assert replacement != pid
    with pytest.raises(NotFound):
        control.snapshot(tmux_server, "%999")
    assert control.pane_state(tmux_server, session).pane_id == session


def test_without_a_session_commands_fall_back_to_a_subprocess(
    control: TmuxCommandBackend, tmux_server: ServerRef
) -> None:
    assert control.list_sessions(tmux_server) == []
    assert channel_pids(control) == set()
    made = control.new_session(tmux_server, name="late", command=SLEEP)
    # the session just made lets the next call attach at once
    assert [s.session_id for s in control.list_sessions(tmux_server)] == [made.session_id]
    assert len(channel_pids(control)) == 1


@pytest.mark.parametrize("policy", ["latest", "largest", "smallest"])
def test_the_client_changes_no_size_and_counts_as_nobody(
    control: TmuxCommandBackend,
    plain: TmuxCommandBackend,
    tmux_server: ServerRef,
    tmux: RawTmux,
    policy: str,
) -> None:
    tmux("set-option", "-g", "window-size", policy)
    made = plain.new_session(tmux_server, name="sized", command=SLEEP, width=100, height=30)
    control.list_sessions(tmux_server)
    assert made.active_pane_id is not None
    control.split_window(tmux_server, made.active_pane_id, command=SLEEP)
    size = tmux("display-message", "-p", "-t", made.session_id, "#{window_width}x#{window_height}")
    assert size.strip() == "100x30"
    attached = tmux("display-message", "-p", "-t", made.session_id, "#{session_attached}")
    assert attached.strip() == "1"
    # gridmux's own clients are nobody looking, whichever gridmux asks
    assert [s.attached for s in control.list_sessions(tmux_server)] == [0]
    assert [s.attached for s in plain.list_sessions(tmux_server)] == [0]


def test_attaching_leaves_the_sessions_environment_alone(
    control: TmuxCommandBackend,
    tmux_server: ServerRef,
    tmux: RawTmux,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # attach-session copies what update-environment names from the attaching
    # client's environment, unless -E: gridmux's client must not.
    monkeypatch.setenv("SSH_AUTH_SOCK", "/gridmux/own-agent.sock")
    monkeypatch.delenv("DISPLAY", raising=False)
    tmux("new-session", "-d", "-s", "keep", SLEEP)
    tmux("set-environment", "-t", "keep", "SSH_AUTH_SOCK", "/user/agent.sock")
    tmux("set-environment", "-t", "keep", "DISPLAY", ":7")
    control.list_sessions(tmux_server)
    assert channel_pids(control)  # the control client is attached
    shown = tmux("show-environment", "-t", "keep").splitlines()
    assert "SSH_AUTH_SOCK=/user/agent.sock" in shown
    assert "DISPLAY=:7" in shown


def test_concurrent_calls_each_get_their_own_answer(
    control: TmuxCommandBackend, tmux_server: ServerRef, session: str
) -> None:
    failures: list[str] = []

    def worker(index: int) -> None:
        for step in range(40):
            text = control.display_message(tmux_server, session, f"w{index}-s{step}-#{{pane_id}}")
            if text != f"w{index}-s{step}-{session}":
                failures.append(text)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert len(channel_pids(control)) == 1


def test_waits_over_control_mode_see_signals_and_absorb_none(
    control: TmuxCommandBackend,
    tmux_server: ServerRef,
    session: str,
    tmux: RawTmux,
    wait_until: WaitUntil,
) -> None:
    control.list_sessions(tmux_server)
    clients = tmux("list-clients", "-F", "#{client_pid}")
    answers: list[bool] = []

    def wait() -> None:
        answers.append(control.wait_for(tmux_server, "both", 20.0))

    waiting = [threading.Thread(target=wait) for _ in "ab"]
    for thread in waiting:  # two waits at once: two plain processes, no client
        thread.start()
    try:
        socket = tmux_server.socket_path
        assert socket is not None
        wait_until(lambda: len(waiters(socket, ["both"])) == 2, what="two wait-for processes")
        assert tmux("list-clients", "-F", "#{client_pid}") == clients
    finally:
        # A wait-for process can be running before tmux has its waiter: a
        # signal then wakes only the waiters tmux has, so signal until both
        # have answered (each answer must still be a signal, not a timeout).
        deadline = time.monotonic() + 15
        while any(t.is_alive() for t in waiting) and time.monotonic() < deadline:
            control.signal_channel(tmux_server, "both")
            for thread in waiting:
                thread.join(timeout=0.1)
        for thread in waiting:
            thread.join()
    assert answers == [True, True]
    assert control.wait_for(tmux_server, "chan", 0.05) is False
    control.signal_channel(tmux_server, "chan")  # held by tmux: nobody waits
    assert control.wait_for(tmux_server, "chan", 5.0) is True
    assert control.wait_for(tmux_server, "chan", 0.05) is False  # the release left nothing behind

    signaller = threading.Timer(0.2, control.signal_channel, args=(tmux_server, "later"))
    signaller.start()
    try:
        assert control.wait_for(tmux_server, "later", 10.0) is True
    finally:
        signaller.join()
