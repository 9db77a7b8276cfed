"""Start tmux client processes that cannot outlive gridmux.

Rules: every tmux process the backend starts goes through :func:`spawn`;
nothing here knows about tmux commands.

A ``tmux -C`` client ends when its standard input (a pipe from gridmux)
reaches end of file, but only if it runs: a client that is stopped
(SIGSTOP) when gridmux dies never reads the server's exit message, and a
server told to ``kill-server`` then waits for it forever, holding the socket
("server exited unexpectedly" for every later ``tmux``) until someone kills
the orphan by hand. So on Linux each child asks the kernel for SIGKILL (which
also ends a stopped process) when its parent dies (``PR_SET_PDEATHSIG``).

The kernel's "parent" is the *thread* that forked the child, and gridmux
runs tmux calls on worker threads that come and go; so children are forked
by one long-lived spawner thread that lives as long as the process. The
server a ``new-session`` client starts is unaffected: the setting is cleared
for the children of a fork, and tmux forks its server.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, cast

_PR_SET_PDEATHSIG = 1


def _load_prctl() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        prctl: Callable[..., int] = libc.prctl
    except (OSError, AttributeError):
        return None
    return prctl


_PRCTL = _load_prctl()

_Job = tuple[list[str], dict[str, Any], "Future[subprocess.Popen[bytes]]"]


class _Spawner:
    """One daemon thread that forks every child, so the kernel's parent never exits early."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._pid = 0

    def spawn(self, argv: list[str], kwargs: dict[str, Any]) -> subprocess.Popen[bytes]:
        if _PRCTL is None:
            return subprocess.Popen(argv, **kwargs)
        self._ensure_thread()
        future: Future[subprocess.Popen[bytes]] = Future()
        self._jobs.put((argv, kwargs, future))
        return future.result()

    def _ensure_thread(self) -> None:
        with self._lock:
            # After os.fork() the child has no spawner thread: start its own.
            if self._thread is None or self._pid != os.getpid() or not self._thread.is_alive():
                self._jobs = queue.SimpleQueue()
                self._pid = os.getpid()
                self._thread = threading.Thread(
                    target=self._serve, args=(self._jobs,), name="gridmux-spawner", daemon=True
                )
                self._thread.start()

    @staticmethod
    def _serve(jobs: queue.SimpleQueue[_Job]) -> None:
        while True:
            argv, kwargs, future = jobs.get()
            if not future.set_running_or_notify_cancel():
                continue
            try:
                # preexec_fn runs Python between fork and exec; it only calls prctl and
                # getppid, which take no lock another thread could hold.
                tie = _tie_to_parent(os.getpid())
                proc = cast(
                    "subprocess.Popen[bytes]",
                    subprocess.Popen(
                        argv,
                        preexec_fn=tie,  # noqa: PLW1509
                        **kwargs,
                    ),
                )
            except BaseException as exc:
                future.set_exception(exc)
            else:
                future.set_result(proc)


def _tie_to_parent(parent: int) -> Callable[[], None]:
    prctl = _PRCTL
    assert prctl is not None

    def tie() -> None:  # runs in the child between fork and exec
        prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        if os.getppid() != parent:  # the parent died before the request took hold
            os.kill(os.getpid(), signal.SIGKILL)

    return tie


_SPAWNER = _Spawner()


#: How long a killed child may take to be collected before a thread is left to do it.
REAP_GRACE = 2.0


def reap(proc: subprocess.Popen[bytes], grace: float = REAP_GRACE) -> None:
    """Kill a child and collect it (``waitpid``) within ``grace`` seconds.

    Its pipes are closed, not drained: a pipe another process still holds
    (or a child that cannot die yet) would make a read wait for good. A child
    the kernel has not let go of by then is collected by a daemon thread, so
    no zombie is left and the caller is not held.
    """
    if proc.poll() is None:
        with contextlib.suppress(OSError):
            proc.kill()
    for pipe in (proc.stdin, proc.stdout, proc.stderr):
        if pipe is not None:
            with contextlib.suppress(OSError):
                pipe.close()
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        threading.Thread(target=proc.wait, name="gridmux-reaper", daemon=True).start()


def spawn(argv: list[str], **kwargs: Any) -> subprocess.Popen[bytes]:
    """``subprocess.Popen(argv, **kwargs)`` for a child that dies with this process.

    Raises what ``Popen`` raises (``OSError`` when the program cannot start).
    """
    return _SPAWNER.spawn(argv, kwargs)
