"""Harness side of a writer pane: start it, send it commands, wait for its acks."""

from __future__ import annotations

import contextlib
import os
import select
import time
from pathlib import Path

from .tmuxenv import BenchError, TmuxEnv, writer_command


class PaneWriter:
    """A tmux window running ``writer.py``; ``last`` is the last number it printed."""

    def __init__(self, env: TmuxEnv, session: str, name: str) -> None:
        self.env = env
        base = env.root / "fifo" / f"{session}-{name}"
        self._commands_path = Path(f"{base}.cmd")
        self._acks_path = Path(f"{base}.ack")
        for path in (self._commands_path, self._acks_path):
            path.unlink(missing_ok=True)
            os.mkfifo(path)
        # Read-write opens never block on a FIFO, whichever side comes first.
        self._commands = os.open(self._commands_path, os.O_RDWR)
        self._acks = os.open(self._acks_path, os.O_RDWR | os.O_NONBLOCK)
        self._buffer = b""
        self.last = 0
        self.blank = True  # the screen shows no numbered line (fresh, or just cleared)
        command = writer_command(self._commands_path, self._acks_path)
        self.pane = env.new_window(session, name, command)
        self.wait_ack(10.0)

    def send(self, command: str) -> None:
        os.write(self._commands, f"{command}\n".encode())

    def poll_ack(self) -> int | None:
        """The number in the next ack if one has arrived, else None (never blocks)."""
        with contextlib.suppress(BlockingIOError):
            self._buffer += os.read(self._acks, 4096)
        if b"\n" not in self._buffer:
            return None
        line, self._buffer = self._buffer.split(b"\n", 1)
        self.last = int(line.split()[1])
        return self.last

    def wait_ack(self, timeout: float = 60.0) -> int:
        deadline = time.monotonic() + timeout
        while (found := self.poll_ack()) is None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BenchError(f"writer in pane {getattr(self, 'pane', '?')} stopped answering")
            select.select([self._acks], [], [], left)
        return found

    def burst(self, count: int) -> int:
        """Print ``count`` lines and wait until they are written (not yet parsed by tmux)."""
        if count > 0:
            self.send(f"burst {count}")
            self.wait_ack()
            self.blank = False
        return self.last

    def clear_screen(self) -> None:
        self.send("clear")
        self.wait_ack()
        self.blank = True

    def start_stream(self, count: int, rate: float, seed: int) -> None:
        """Start printing ``count`` lines at ``rate`` lines/s; ``poll_ack`` says when done."""
        self.send(f"stream {count} {rate} {seed}")
        self.blank = False

    def settle(self) -> int:
        """Wait until tmux has parsed everything written; the last number."""
        expected = "" if self.blank else f"L{self.last:07d}"
        self.env.wait_for_last_line(self.pane, expected)
        return self.last

    def close(self) -> None:
        self.send("quit")
        self.env.run("kill-pane", "-t", self.pane, check=False)
        os.close(self._commands)
        os.close(self._acks)
        for path in (self._commands_path, self._acks_path):
            path.unlink(missing_ok=True)
