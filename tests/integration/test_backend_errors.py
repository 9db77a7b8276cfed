"""How failures reach callers: the one translation table of the real backend."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest

from gridmux.backend import (
    NotFound,
    ServerRef,
    TmuxFailure,
    TmuxTimeout,
    TmuxUnavailable,
)
from gridmux.backend._command_backend import TmuxCommandBackend
from gridmux.backend._subprocess_transport import SubprocessTransport
from gridmux.backend._transport import TmuxProgram

pytestmark = pytest.mark.tmux


def _script(path: Path, body: str) -> str:
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_missing_binary_is_unavailable(isolated_env: Path) -> None:
    backend = TmuxCommandBackend(str(isolated_env / "no-tmux-here"))
    with pytest.raises(TmuxUnavailable, match="no-tmux-here"):
        backend.list_sessions(ServerRef())


def test_no_tmux_on_path_is_unavailable_at_first_use(
    isolated_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(isolated_env))
    backend = TmuxCommandBackend()  # constructing needs no tmux
    with pytest.raises(TmuxUnavailable, match="PATH"):
        backend.server_info(ServerRef())


def test_binary_that_cannot_run_is_unavailable(isolated_env: Path) -> None:
    not_executable = isolated_env / "tmux"
    not_executable.write_text("not a program")
    with pytest.raises(TmuxUnavailable):
        TmuxCommandBackend(str(not_executable)).list_sessions(ServerRef())


def test_hanging_tmux_times_out_and_is_killed(isolated_env: Path) -> None:
    pidfile = isolated_env / "pid"
    hanging = _script(isolated_env / "tmux", f"echo $$ > '{pidfile}'; exec sleep 30")
    backend = TmuxCommandBackend(hanging, command_timeout=0.3)
    started = time.monotonic()
    with pytest.raises(TmuxTimeout, match=r"0\.3s while trying to snapshot pane %1"):
        backend.snapshot(ServerRef(socket_name="x"), "%1")
    assert time.monotonic() - started < 3.0
    with pytest.raises(ProcessLookupError):  # killed and reaped, not orphaned
        os.kill(int(pidfile.read_text()), 0)


def test_failures_carry_tmux_message_and_target(
    backend: TmuxCommandBackend, tmux_server: ServerRef, pane: str
) -> None:
    with pytest.raises(NotFound) as not_found:
        backend.kill_window(tmux_server, "@42")
    assert "kill window @42" in str(not_found.value)
    assert "can't find window: @42" in str(not_found.value)
    assert not_found.value.hint  # the MCP layer shows it to the agent
    with pytest.raises(TmuxFailure) as refused:
        backend.respawn_pane(tmux_server, pane, kill=False)
    assert f"respawn pane {pane}" in str(refused.value)
    assert "still active" in str(refused.value)
    assert not isinstance(refused.value, NotFound)


def test_argv_is_a_list_with_utf8_and_socket_flags() -> None:
    transport = SubprocessTransport(TmuxProgram("/usr/bin/tmux"), timeout=10.0)
    argv = transport.argv(
        ServerRef(socket_name="n", socket_path="/p"),
        [["display-message", "-p", "a;"], ["set-option", "@x", ";"]],
    )
    # -u always; the path wins over the name; ';' alone separates; a trailing
    # ';' inside an argument is escaped so it cannot split the command.
    assert argv == [
        "/usr/bin/tmux",
        "-u",
        "-S",
        "/p",
        "display-message",
        "-p",
        "a\\;",
        ";",
        "set-option",
        "@x",
        "\\;",
    ]
    assert transport.argv(ServerRef(socket_name="n"), [["ls"]])[2:4] == ["-L", "n"]
    assert transport.argv(ServerRef(), [["ls"]]) == ["/usr/bin/tmux", "-u", "ls"]
