"""wait-for channels on real tmux: signals, timeouts, and no dead waiters left behind."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from gridmux.backend import GridmuxError, InvalidArgument, NotFound, ServerRef
from gridmux.backend._command_backend import TmuxCommandBackend

from .conftest import WaitUntil

pytestmark = pytest.mark.tmux


class _Waiter(threading.Thread):
    """Runs one wait_for in the background and keeps its outcome."""

    def __init__(
        self, backend: TmuxCommandBackend, server: ServerRef, channel: str, timeout: float
    ):
        super().__init__(daemon=True)
        self.args_ = (backend, server, channel, timeout)
        self.result: bool | None = None
        self.error: GridmuxError | None = None

    def run(self) -> None:
        backend, server, channel, timeout = self.args_
        try:
            self.result = backend.wait_for(server, channel, timeout)
        except GridmuxError as exc:
            self.error = exc


def _waiting_clients(server: ServerRef, channel: str) -> int:
    """tmux clients of this test's server currently running ``wait-for <channel>``.

    Matched by arguments, not by executable: a tmux from a private root runs
    as its loader (see scripts/provision_tmux.py).
    """
    assert server.socket_path is not None
    wanted = {b"wait-for", channel.encode(), server.socket_path.encode()}
    count = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if wanted <= set(argv):
            count += 1
    return count


def test_signal_before_wait_is_held(backend: TmuxCommandBackend, tmux_server: ServerRef) -> None:
    backend.signal_channel(tmux_server, "held")
    started = time.monotonic()
    assert backend.wait_for(tmux_server, "held", 5.0) is True
    assert time.monotonic() - started < 2.0


def test_wait_returns_when_signalled(
    backend: TmuxCommandBackend, tmux_server: ServerRef, wait_until: WaitUntil
) -> None:
    waiter = _Waiter(backend, tmux_server, "go", 10.0)
    waiter.start()
    wait_until(lambda: _waiting_clients(tmux_server, "go") == 1, what="the waiter to block")
    backend.signal_channel(tmux_server, "go")
    waiter.join(5.0)
    assert (waiter.result, waiter.error) == (True, None)


def test_timeout_returns_false_quickly_and_leaves_nothing_behind(
    backend: TmuxCommandBackend, tmux_server: ServerRef
) -> None:
    started = time.monotonic()
    assert backend.wait_for(tmux_server, "never", 0.3) is False
    assert 0.3 <= time.monotonic() - started < 2.0
    assert _waiting_clients(tmux_server, "never") == 0
    with pytest.raises(ChildProcessError):  # every child was reaped, no zombies
        os.waitpid(-1, os.WNOHANG)


def test_a_timed_out_wait_does_not_swallow_the_next_signal(
    backend: TmuxCommandBackend, tmux_server: ServerRef
) -> None:
    # tmux keeps the waiter of a killed client and lets it absorb one signal;
    # the backend must not leave such a waiter behind.
    assert backend.wait_for(tmux_server, "done", 0.2) is False
    backend.signal_channel(tmux_server, "done")  # e.g. a command finishing late
    assert backend.wait_for(tmux_server, "done", 3.0) is True


def test_wait_after_a_late_signal_from_a_pane(
    backend: TmuxCommandBackend, tmux_server: ServerRef, tmux_bin: str
) -> None:
    socket = tmux_server.socket_path
    session = backend.new_session(
        tmux_server,
        command=f"sleep 0.5; '{tmux_bin}' -S '{socket}' wait-for -S job; exec sleep 1000",
    )
    assert session.active_pane_id is not None
    assert backend.wait_for(tmux_server, "job", 0.05) is False
    assert backend.wait_for(tmux_server, "job", 5.0) is True


def test_server_stopping_during_a_wait_is_not_a_signal(
    backend: TmuxCommandBackend, tmux_server: ServerRef, tmux_bin: str, wait_until: WaitUntil
) -> None:
    waiter = _Waiter(backend, tmux_server, "orphaned", 10.0)
    waiter.start()
    wait_until(lambda: _waiting_clients(tmux_server, "orphaned") == 1, what="the waiter to block")
    backend.kill_server(tmux_server)
    waiter.join(5.0)
    assert waiter.result is None
    assert isinstance(waiter.error, NotFound)


def test_channel_errors(backend: TmuxCommandBackend, isolated_env: Path) -> None:
    absent = ServerRef(socket_path=str(isolated_env / "absent"))
    with pytest.raises(NotFound):
        backend.wait_for(absent, "x", 1.0)
    with pytest.raises(NotFound):
        backend.signal_channel(absent, "x")
    with pytest.raises(InvalidArgument):
        backend.wait_for(absent, "", 1.0)
    with pytest.raises(InvalidArgument):
        backend.wait_for(absent, "x", -1.0)
    with pytest.raises(InvalidArgument):
        backend.signal_channel(absent, "")
