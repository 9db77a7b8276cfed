"""The subprocess transport: one ``tmux`` process per command list.

It carries everything, so it is the last transport the runner tries. A list
of commands is joined with ``;`` as a separate argv element, which tmux
parses as one command list and runs back-to-back (the atomic snapshot relies
on it). Because tmux also treats an argv element that merely *ends* in ``;``
as a separator, such arguments are escaped here (``x;`` is sent as
``x\\;``), so no caller value can split a command.
"""

from __future__ import annotations

import errno
import subprocess
import threading
import time
from collections.abc import Callable, Sequence

from ._commands import Command
from ._spawn import reap, spawn
from ._transport import (
    CannotStart,
    CommandTooLong,
    Completed,
    TmuxProgram,
    TransportBroken,
    TransportTimeout,
)
from ._types import ServerRef

#: How often a waiting call looks whether gridmux is shutting down (seconds).
_SHUTDOWN_CHECK = 0.1


def escape_argument(arg: str) -> str:
    """Keep tmux from reading a trailing ``;`` as a command separator."""
    if arg.endswith(";"):
        return arg[:-1] + "\\;"
    return arg


def completed(returncode: int, stdout: bytes, stderr: bytes) -> Completed:
    message = stderr.decode("utf-8", errors="replace").strip()
    return Completed(stdout=stdout, stderr=message, status=returncode)


class SubprocessTransport:
    """``Transport`` that starts ``tmux -u [-S path | -L name] cmd1 ; cmd2 …`` per list."""

    def __init__(self, program: TmuxProgram, *, timeout: float) -> None:
        self.program = program
        self.timeout = timeout
        #: the tmux processes running now (killed by ``shutdown``)
        self._live: set[subprocess.Popen[bytes]] = set()
        self._live_lock = threading.Lock()
        self._ended = False

    def argv(self, server: ServerRef, commands: Sequence[Command]) -> list[str]:
        """``tmux -u [-S path | -L name] cmd1 ; cmd2 …`` as a list."""
        if not commands:
            raise ValueError("at least one tmux command is required")
        argv = self.program.client_argv(server)
        for index, command in enumerate(commands):
            if not command:
                raise ValueError("empty tmux command")
            if index:
                argv.append(";")
            argv.append(command[0])
            argv.extend(escape_argument(arg) for arg in command[1:])
        return argv

    def start(
        self, server: ServerRef, commands: Sequence[Command], *, with_stdin: bool
    ) -> subprocess.Popen[bytes]:
        """The tmux process running ``commands``, its stdout and stderr piped."""
        argv = self.argv(server, commands)
        with self._live_lock:
            if self._ended:
                raise TransportBroken("gridmux is shutting down")
            proc = self._spawn(argv, with_stdin=with_stdin)
            self._live.add(proc)
        return proc

    def _spawn(self, argv: list[str], *, with_stdin: bool) -> subprocess.Popen[bytes]:
        try:
            return spawn(
                argv,
                stdin=subprocess.PIPE if with_stdin else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=self.program.environment(),
            )
        except OSError as exc:
            if exc.errno == errno.E2BIG:  # the argv, not the binary, is at fault
                raise CommandTooLong(sum(len(arg.encode()) + 1 for arg in argv)) from exc
            raise CannotStart(argv[0], exc.strerror or str(exc)) from exc

    def run(
        self, server: ServerRef, commands: Sequence[Command], *, stdin: bytes | None = None
    ) -> Completed:
        """One process; after ``timeout`` it is killed and reaped (``TransportTimeout``)."""
        proc = self.start(server, commands, with_stdin=stdin is not None)
        try:
            stdout, stderr = self._answer(proc, stdin, self.timeout)
        except BaseException:
            reap(proc)
            raise
        finally:
            self._forget(proc)
        return completed(proc.returncode, stdout, stderr)

    def _answer(
        self, proc: subprocess.Popen[bytes], stdin: bytes | None, timeout: float
    ) -> tuple[bytes, bytes]:
        """``proc``'s output within ``timeout`` (else ``TransportTimeout``), or until
        ``shutdown`` (``TransportBroken``). Output ends by the process's end
        only: tmux holds a client's pipes (passed to the server), so a killed
        client of a stopped server would leave a read waiting."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TransportTimeout(f"no answer within {timeout:g}s")
            try:  # communicate resumes where a timed-out one stopped (input given once)
                return proc.communicate(stdin, timeout=min(remaining, _SHUTDOWN_CHECK))
            except subprocess.TimeoutExpired:
                stdin = None
                if self._ended:
                    raise TransportBroken("gridmux is shutting down") from None

    def _forget(self, proc: subprocess.Popen[bytes]) -> None:
        with self._live_lock:
            self._live.discard(proc)

    def shutdown(self) -> None:
        """Start no more processes and kill the running ones: each call waiting
        on one then ends at once (its own thread reaps the process)."""
        with self._live_lock:
            self._ended = True
            live = list(self._live)
        for proc in live:
            if proc.poll() is None:
                proc.kill()

    def wait_for(
        self, server: ServerRef, channel: str, timeout: float, release: Callable[[], None]
    ) -> Completed | None:
        """A ``tmux wait-for channel`` process (it attaches to nothing), reaped by the end.

        tmux up to 3.6b at least keeps a waiter whose client has gone away
        (``cmd-wait-for.c``), and that dead waiter absorbs the next signal,
        which would then be neither held nor delivered. So a timed-out wait is
        not killed first: its still-live client is woken by ``release``, then
        reaped; only one that still does not end is killed. An exception
        (the caller interrupted) kills and reaps it at once. Caveat: the
        release also wakes any other client waiting on the same channel.
        """
        proc = self.start(server, [["wait-for", channel]], with_stdin=False)
        try:
            stdout, stderr = self._answer(proc, None, timeout)
        except TransportTimeout:
            return self._release(proc, release)
        except BaseException:
            reap(proc)
            raise
        finally:
            self._forget(proc)
        return completed(proc.returncode, stdout, stderr)

    def _release(
        self, proc: subprocess.Popen[bytes], release: Callable[[], None]
    ) -> Completed | None:
        if proc.poll() is not None:  # signalled just as the deadline passed
            try:
                stdout, stderr = proc.communicate(timeout=self.timeout)
            except subprocess.TimeoutExpired:  # a pipe held open elsewhere
                reap(proc)
                return None
            return completed(proc.returncode, stdout, stderr)
        # Normally one signal wakes our client at once. A second one is only for
        # a client that had not even registered its wait when the first came.
        try:
            for grace in (min(1.0, self.timeout), self.timeout):
                release()
                try:
                    proc.communicate(timeout=grace)
                except subprocess.TimeoutExpired:
                    continue
                return None
        finally:
            if proc.poll() is None:
                reap(proc)
        return None

    def close(self) -> None:
        """Nothing stays open between lists."""
