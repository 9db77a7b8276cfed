"""A gridmux stdio server driven by raw JSON-RPC lines, for killing it mid-call.

The fault tests need the server's process id and its children, and to send it
signals while a call is pending, which an MCP client library hides; so this
speaks the few JSON-RPC messages they need directly.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from gridmux.backend._procfs import command_line, read_stat

GRIDMUX = Path(sys.executable).with_name("gridmux")


def children(pid: int) -> set[int]:
    """Process ids whose parent is ``pid`` (Linux ``/proc``)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        stat = read_stat(int(entry.name))
        if stat is not None and stat.ppid == pid:
            found.add(int(entry.name))
    return found


def alive(pid: int) -> bool:
    """Whether ``pid`` is a process that has not ended (a zombie has ended)."""
    stat = read_stat(pid)
    return stat is not None and not stat.ended


def argv_of(pid: int) -> list[str]:
    return [arg.decode() for arg in command_line(pid) or []]


class StdioPeer:
    """``gridmux`` over stdio with ``env``; call tools, send signals."""

    def __init__(self, env: dict[str, str]) -> None:
        assert GRIDMUX.exists(), f"the gridmux console script is not installed at {GRIDMUX}"
        self.proc = subprocess.Popen(
            [str(GRIDMUX)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        self._ids = iter(range(1, 1 << 30))
        self.request(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "faults", "version": "1"},
            },
        )
        self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    @property
    def pid(self) -> int:
        return self.proc.pid

    def _send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def start(self, method: str, params: dict[str, Any]) -> int:
        ident = next(self._ids)
        self._send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
        return ident

    def answer(self, ident: int) -> dict[str, Any]:
        assert self.proc.stdout is not None
        while True:
            line = self.proc.stdout.readline()
            assert line, "gridmux closed its output before answering"
            message: dict[str, Any] = json.loads(line)
            if message.get("id") == ident:
                return message

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        return self.answer(self.start(method, params))

    def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        reply = self.request("tools/call", {"name": tool, "arguments": arguments})
        assert "result" in reply, reply
        result: dict[str, Any] = reply["result"]
        return result

    def tmux_children(self) -> set[int]:
        # A private-root tmux runs as ``ld-linux… --library-path … /…/bin/tmux …``, so the
        # program is whichever argument is named tmux, not necessarily argv[0].
        return {
            pid for pid in children(self.pid) if any(Path(a).name == "tmux" for a in argv_of(pid))
        }

    def close_input(self) -> None:
        """End gridmux's standard input (what an MCP client does to stop it)."""
        assert self.proc.stdin is not None
        self.proc.stdin.close()

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None:
                pipe.close()
        self.proc.wait()


def wait_until(condition: Any, what: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def env_for(socket: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "TMUX_PANE")}
    return {**env, "GRIDMUX_SOCKET_PATH": socket, **extra}
