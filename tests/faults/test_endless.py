"""Every call ends: a stopped tmux server or a socket nobody reads makes calls
fail within their timeout, gridmux recovers when tmux comes back, exits when
its input closes, and leaves no tmux process (zombie or orphan) behind.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket as sockets
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from gridmux.backend._command_backend import TmuxCommandBackend
from gridmux.backend._procfs import read_stat
from gridmux.backend._spawn import REAP_GRACE
from gridmux.backend._types import ServerRef
from gridmux.errors import TmuxTimeout
from tests.faults.conftest import Tmux
from tests.faults.stdio_peer import StdioPeer, children, wait_until

pytestmark = pytest.mark.tmux

TIMEOUT = 1.5
#: A call may take its timeout, then the kill and reap of its tmux process.
BOUND = TIMEOUT + REAP_GRACE + 1.0


@pytest.fixture(params=[True, False], ids=["control", "subprocess"])
def control_mode(request: pytest.FixtureRequest) -> bool:
    return bool(request.param)


@pytest.fixture
def stopped(tmux: Tmux, session: str) -> Iterator[Callable[[bool], None]]:
    """Stop (True) or continue (False) the test's tmux server; continued at the end."""
    server = int(tmux("display-message", "-p", "#{pid}").stdout)

    def stop(yes: bool) -> None:
        os.kill(server, signal.SIGSTOP if yes else signal.SIGCONT)

    yield stop
    stop(False)


@pytest.fixture
def deaf_socket(private_dir: Path) -> Iterator[str]:
    """A socket path that accepts connections, holds them and never reads."""
    path = str(private_dir / "deaf")
    listener = sockets.socket(sockets.AF_UNIX, sockets.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    held: list[sockets.socket] = []
    done = threading.Event()

    def accept() -> None:
        while not done.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                return

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield path
    done.set()
    listener.shutdown(sockets.SHUT_RDWR)
    listener.close()
    thread.join(timeout=5)
    assert not thread.is_alive()
    for connection in held:
        connection.close()


def backend(control_mode: bool) -> TmuxCommandBackend:
    return TmuxCommandBackend(
        shutil.which("tmux"), command_timeout=TIMEOUT, control_mode=control_mode
    )


def tmux_left(before: set[int]) -> set[int]:
    """Children of this process started since ``before`` that are not collected
    (a zombie counts)."""
    return {pid for pid in children(os.getpid()) - before if read_stat(pid) is not None}


def fails_in_time(call: Callable[[], object]) -> float:
    started = time.monotonic()
    with pytest.raises(TmuxTimeout, match=f"did not answer within {TIMEOUT:g}s"):
        call()
    took = time.monotonic() - started
    assert took < BOUND, f"the call took {took:.1f}s, over {BOUND:.1f}s"
    return took


def test_stopped_server_times_out_and_recovers(
    socket: str, session: str, stopped: Callable[[bool], None], control_mode: bool
) -> None:
    server = ServerRef(socket_path=socket)
    gm = backend(control_mode)
    try:
        assert [s.session_name for s in gm.list_sessions(server)] == ["f"]
        before = children(os.getpid())
        stopped(True)
        fails_in_time(lambda: gm.list_sessions(server))
        # Calls waiting behind a stuck one (the control client's lock) end in time too.
        with ThreadPoolExecutor(3) as pool:
            tries = [pool.submit(fails_in_time, lambda: gm.list_panes(server)) for _ in range(3)]
            assert all(t.result() < BOUND for t in tries)
        assert tmux_left(before) == set(), "a tmux process of a timed-out call was left"
        stopped(False)
        assert [s.session_name for s in gm.list_sessions(server)] == ["f"]
        assert gm.list_panes(server)[0].pane_id == session
    finally:
        gm.close()
    assert tmux_left(before) == set(), "close left a tmux process"


def test_socket_that_never_reads_times_out(deaf_socket: str, control_mode: bool) -> None:
    server = ServerRef(socket_path=deaf_socket)
    gm = backend(control_mode)
    before = children(os.getpid())
    try:
        for _ in range(2):
            fails_in_time(lambda: gm.list_sessions(server))
        assert tmux_left(before) == set(), "a tmux process of a timed-out call was left"
    finally:
        gm.close()


def test_gridmux_exits_when_input_closes_during_a_stuck_call(
    tmux: Tmux, session: str, env: dict[str, str], stopped: Callable[[bool], None]
) -> None:
    peer = StdioPeer(env)
    try:
        peer.call("list_panes", {})
        seen = set(peer.tmux_children())
        stopped(True)
        peer.start("tools/call", {"name": "list_panes", "arguments": {}})
        # the call is stuck on tmux: a tmux process of it (control mode: the client) waits
        wait_until(lambda: bool(peer.tmux_children()), "a tmux process for the call")
        seen |= peer.tmux_children()
        peer.close_input()
        peer.proc.wait(timeout=5)
    finally:
        peer.close()
        stopped(False)
    # Neither left running (orphan) nor unreaped (zombie): the pid is gone.
    wait_until(lambda: all(read_stat(pid) is None for pid in seen), f"the end of {seen}", 5)
    assert tmux("list-sessions", "-F", "#{session_name}").stdout.split() == ["f"]
