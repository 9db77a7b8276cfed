"""gridmux killed mid-call, its control clients killed or stopped, tmux restarted.

Afterwards every pane is usable, no process gridmux started is left (its
``tmux -C`` clients included, stopped or not), and ``kill-server`` followed by
a new server on the same socket works (an orphaned stopped client used to
hold a killed server open: "server exited unexpectedly" until killed by hand).
"""

from __future__ import annotations

import os
import secrets
import signal
from collections.abc import Callable
from typing import Any

import pytest

from gridmux.tools._command_line import HOLD_LIMIT
from tests.faults.conftest import Tmux
from tests.faults.stdio_peer import StdioPeer, alive, wait_until

pytestmark = pytest.mark.tmux

WAITS: dict[str, Callable[[str], dict[str, Any]]] = {
    "wait_for_text": lambda pane: {"patterns": ["never-printed"], "timeout": 60, "pane_id": pane},
    "wait_for_channel": lambda pane: {"channel": "never-signalled", "timeout": 60},
}


def control() -> bool:
    return os.environ.get("GRIDMUX_CONTROL_MODE", "on") != "off"


def pane_usable(tmux: Tmux, pane: str, timeout: float = 10.0) -> None:
    word = "alive" + secrets.token_hex(4)
    sent = tmux("send-keys", "-t", pane, f"echo {word}", "Enter")
    assert sent.returncode == 0, sent.stderr

    def printed() -> bool:
        # echo's output, not the typed line; typed ahead of a busy shell, it follows
        # the prompt on the prompt's line
        shown = tmux("capture-pane", "-p", "-t", pane).stdout.splitlines()
        return any(line.endswith(word) and "echo" not in line for line in shown)

    wait_until(printed, f"{word} printed in {pane}", timeout)


def wait_pending(peer: StdioPeer, tool: str, pane: str) -> set[int]:
    """Start a wait; the tmux processes gridmux has once the wait is underway."""
    peer.call("list_panes", {})  # the control client (if any) is attached
    peer.start("tools/call", {"name": tool, "arguments": WAITS[tool](pane)})
    # control mode: the request client (and a waiting one for a channel); off: the
    # wait-for process for a channel, one-off processes for text
    counts = {"wait_for_text": 1, "wait_for_channel": 2} if control() else {"wait_for_channel": 1}
    expected = counts.get(tool, 0)
    wait_until(lambda: len(peer.tmux_children()) >= expected, f"{expected} tmux clients")
    return peer.tmux_children()


def kill_mid_call(peer: StdioPeer, sig: int, started: set[int]) -> None:
    """End gridmux with ``sig`` mid-call; wait until the tmux processes it had are gone."""
    peer.proc.send_signal(sig)
    peer.proc.wait(timeout=10)
    wait_until(lambda: not any(alive(pid) for pid in started), f"the end of {started}")


@pytest.mark.parametrize("stop_clients", [False, True], ids=["running", "stopped"])
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["TERM", "KILL"])
@pytest.mark.parametrize("tool", sorted(WAITS))
def test_gridmux_death_mid_wait_leaves_nothing(
    tmux: Tmux, session: str, env: dict[str, str], tool: str, sig: int, stop_clients: bool
) -> None:
    peer = StdioPeer(env)
    try:
        started = wait_pending(peer, tool, session)
        if stop_clients:
            for pid in started:
                os.kill(pid, signal.SIGSTOP)
        kill_mid_call(peer, sig, started)
    finally:
        for pid in started if "started" in locals() else ():
            if alive(pid):  # only on failure: never leave a stopped client behind
                os.kill(pid, signal.SIGKILL)
        peer.close()
    pane_usable(tmux, session)
    server = int(tmux("display-message", "-p", "#{pid}").stdout)
    assert tmux("kill-server").returncode == 0
    # A stopped orphan client kept the killed server (and its socket) alive for good.
    wait_until(lambda: not alive(server), "the killed tmux server to exit")
    again = tmux("new-session", "-d", "-s", "again", "sh")
    assert again.returncode == 0, f"the socket is unusable after kill-server: {again.stderr}"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["TERM", "KILL"])
def test_gridmux_death_mid_run_command_gives_the_shell_back(
    tmux: Tmux, session: str, env: dict[str, str], sig: int
) -> None:
    """The shell run_command typed into waits on tmux for gridmux; gridmux dies.

    tmux lets the shell go within the hold limit (HOLD_LIMIT), the pane takes
    typing again, and a new gridmux can run a command there (the claim is gone).
    """
    peer = StdioPeer(env)
    try:
        peer.call("list_panes", {})
        arguments = {"command": "sleep 2; echo slept", "pane_id": session, "timeout": 60}
        peer.start("tools/call", {"name": "run_command", "arguments": arguments})
        current = ("display-message", "-p", "-t", session, "#{pane_current_command}")
        wait_until(lambda: tmux(*current).stdout.strip() == "sleep", "the command to run")
        started = peer.tmux_children()
        kill_mid_call(peer, sig, started)
    finally:
        peer.close()
    pane_usable(tmux, session, timeout=HOLD_LIMIT + 15)
    again = StdioPeer(env)
    try:
        ran = again.call("run_command", {"command": "echo again", "pane_id": session})
        assert not ran.get("isError"), ran
        assert "again" in str(ran["content"])
    finally:
        again.close()


def test_killed_control_client_is_replaced(tmux: Tmux, session: str, env: dict[str, str]) -> None:
    peer = StdioPeer(env)
    try:
        peer.call("list_panes", {})
        for pid in peer.tmux_children():
            os.kill(pid, signal.SIGKILL)
        listed = peer.call("list_panes", {})
        assert not listed.get("isError"), listed
        assert session in str(listed["content"])
    finally:
        peer.close()
    pane_usable(tmux, session)


def test_stopped_then_continued_control_client(
    tmux: Tmux, session: str, env: dict[str, str]
) -> None:
    peer = StdioPeer(env)
    try:
        peer.call("list_panes", {})
        clients = peer.tmux_children()
        for pid in clients:
            os.kill(pid, signal.SIGSTOP)
        for pid in clients:
            os.kill(pid, signal.SIGCONT)
        for _ in range(3):
            listed = peer.call("list_panes", {})
            assert not listed.get("isError"), listed
            assert session in str(listed["content"])
    finally:
        peer.close()
    pane_usable(tmux, session)


def test_tmux_server_killed_and_restarted(tmux: Tmux, session: str, env: dict[str, str]) -> None:
    peer = StdioPeer(env)
    try:
        peer.call("list_panes", {})
        assert tmux("kill-server").returncode == 0
        gone = peer.call("list_panes", {})
        assert gone.get("isError") or session not in str(gone["content"])
        fresh = tmux("new-session", "-d", "-s", "g", "-P", "-F", "#{pane_id}", "sh")
        assert fresh.returncode == 0, fresh.stderr
        pane = fresh.stdout.strip()
        listed = peer.call("list_panes", {})
        assert not listed.get("isError"), listed
        assert pane in str(listed["content"])
        pane_usable(tmux, pane)
    finally:
        peer.close()
