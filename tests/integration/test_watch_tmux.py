"""The output watch on real tmux (``gridmux.backend._watch``): a fresh pane's
follow-ups are exact while its output only appends, and a miss when anything
else may have happened -- a clear, ``clear-history``, a window away in
another session, a session made meanwhile. Watchers are never counted as
attached clients and detach when idle.

Panes run ``sleep``; the test writes their output into the pane's tty
itself, through its ONLCR as a program would (``bench.since_classes.Writer``).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from bench.since_classes import Checker, Tally, Writer

from gridmux.backend import ServerRef
from gridmux.backend._command_backend import TmuxCommandBackend
from gridmux.capture import Reading

from .conftest import RawTmux, WaitUntil, control_mode

pytestmark = pytest.mark.tmux


class Fresh:
    """A new session's pane, followed the way capture_since follows one."""

    def __init__(self, backend: TmuxCommandBackend, server: ServerRef, tmux: RawTmux) -> None:
        self.tmux = tmux
        made = backend.new_session(server, width=60, height=8, command="exec sleep 100000")
        assert made.active_pane_id is not None
        self.pane = made.active_pane_id
        self.session = made.session_id
        self.writer = Writer(tmux("display-message", "-p", "-t", self.pane, "#{pane_tty}").strip())
        self.checker = Checker(backend, server, self.pane)
        self.tally = Tally()

    def write(self, text: str) -> None:
        self.writer.raw(text.replace("\n", "\r\n"))

    def settled(self, wait_until: WaitUntil, x: int, y: int) -> None:
        """Until tmux has parsed what was written: the cursor at ``(x, y)``."""
        wait_until(
            lambda: (
                self.tmux(
                    "display-message", "-p", "-t", self.pane, "#{cursor_x},#{cursor_y}"
                ).strip()
                == f"{x},{y}"
            ),
            what=f"the cursor at {x},{y}",
        )

    def read(self) -> Reading:
        return self.checker.read(self.tally)

    def at_a_prompt(self, wait_until: WaitUntil) -> Reading:
        """A prompt, parsed, and the first read: the cursor on the prompt's row."""
        self.write("$ ")
        self.settled(wait_until, 2, 0)
        return self.read()

    def close(self) -> None:
        self.writer.close()


def watcher_flags(tmux: RawTmux) -> list[str]:
    return tmux("list-clients", "-F", "#{client_flags}").split()


@pytest.fixture
def fresh(backend: TmuxCommandBackend, tmux_server: ServerRef, tmux: RawTmux) -> Iterator[Fresh]:
    tmux("new-session", "-d", "-s", "keep", "exec sleep 100000")
    pane = Fresh(backend, tmux_server, tmux)
    yield pane
    pane.close()


def test_a_fresh_pane_is_followed_exactly(fresh: Fresh, wait_until: WaitUntil) -> None:
    assert fresh.at_a_prompt(wait_until).lines == ("$",)
    fresh.write("ls\nfile\n$ ")
    fresh.settled(wait_until, 2, 2)
    follow = fresh.read()
    assert (follow.lines, follow.lines_missed) == (("$ ls", "file", "$"), False)
    assert follow.first_line_rewritten
    again = fresh.read()
    assert (again.lines, again.lines_missed) == ((), False)


def test_a_clear_at_a_bare_prompt_is_a_miss(fresh: Fresh, wait_until: WaitUntil) -> None:
    fresh.at_a_prompt(wait_until)
    # bash's clear: the grid ends exactly as the cursor saw it, after a row it never saw
    fresh.write("secret\n$ \x1b[H\x1b[J\x1b[3J$ ")
    fresh.settled(wait_until, 2, 0)
    missed = fresh.read()
    assert missed.lines_missed
    assert missed.lines == ("$",)


def test_clear_history_writes_no_byte_and_is_a_miss(
    fresh: Fresh, wait_until: WaitUntil, tmux: RawTmux
) -> None:
    fresh.at_a_prompt(wait_until)
    fresh.write("".join(f"new {i}\n" for i in range(10)))  # three rows into history
    fresh.settled(wait_until, 0, 7)
    tmux("clear-history", "-t", fresh.pane)  # rows never read, gone without a byte
    fresh.write("x\ny\nz\n$ ")
    fresh.settled(wait_until, 2, 7)
    assert fresh.read().lines_missed


def test_a_window_away_in_another_session_is_heard_there(
    fresh: Fresh, wait_until: WaitUntil, tmux: RawTmux
) -> None:
    fresh.at_a_prompt(wait_until)
    # swap-window -d takes the window to "keep" and back without a word to
    # the watcher of its own session; the watcher of "keep" hears the clear.
    tmux("swap-window", "-d", "-s", f"{fresh.session}:", "-t", "keep:")
    fresh.write("secret\n$ \x1b[H\x1b[J\x1b[3J$ ")
    fresh.settled(wait_until, 2, 0)
    tmux("swap-window", "-d", "-s", f"{fresh.session}:", "-t", "keep:")
    assert fresh.read().lines_missed


def test_a_session_made_between_two_reads_is_a_miss(
    fresh: Fresh, wait_until: WaitUntil, tmux: RawTmux
) -> None:
    fresh.at_a_prompt(wait_until)
    # a window could have gone there and back before a watcher was attached
    tmux("new-session", "-d", "-s", "late", "exec sleep 100000")
    fresh.write("a\n$ ")
    fresh.settled(wait_until, 2, 1)
    assert fresh.read().lines_missed
    # the next cursor has a watcher in every session again
    fresh.write("b\n$ ")
    fresh.settled(wait_until, 2, 2)
    follow = fresh.read()
    assert (follow.lines, follow.lines_missed) == (("$ b", "$"), False)


def test_a_progress_line_redrawn_while_it_is_read(fresh: Fresh) -> None:
    """The cut is one instant in the watchers and in the snapshot: a pane
    redrawing its row as fast as it can, read back to back, is exact at
    every read. Each redraw ends at another column, so a cut that counted
    one redraw more or fewer than the snapshot shows would put the cursor's
    column outside what the bytes allow, and the read would miss."""
    stop = threading.Event()

    def redraw() -> None:
        step = 0
        while not stop.is_set():
            tail = "." * (step % 7) + ("\n" if step % 5000 == 4999 else "")
            fresh.write(f"\rstep {step:07d}{tail}")
            step += 1

    thread = threading.Thread(target=redraw)
    thread.start()
    try:
        fresh.read()
        readings = [fresh.read() for _ in range(60)]
    finally:
        stop.set()
        thread.join()
    assert not any(reading.lines_missed for reading in readings)
    assert fresh.tally.silent == 0


def test_watchers_are_not_attached_clients_and_detach_when_idle(
    tmux_bin: str, tmux_server: ServerRef, tmux: RawTmux, wait_until: WaitUntil
) -> None:
    backend = TmuxCommandBackend(tmux_bin, control_mode=control_mode(), watch_idle=1.0)
    try:
        tmux("new-session", "-d", "-s", "keep", "exec sleep 100000")
        pane = Fresh(backend, tmux_server, tmux)
        pane.read()
        sessions = backend.list_sessions(tmux_server)
        watchers = [f for f in watcher_flags(tmux) if "read-only" in f]
        assert len(watchers) == len(sessions) >= 2  # one in each session
        assert [s.attached for s in sessions] == [0] * len(sessions)
        wait_until(
            lambda: not any("read-only" in f for f in watcher_flags(tmux)),
            what="the watchers to detach",
        )
        pane.close()
    finally:
        backend.close()


def test_with_the_watch_off_no_watcher_is_attached(
    tmux_bin: str, tmux_server: ServerRef, tmux: RawTmux, wait_until: WaitUntil
) -> None:
    backend = TmuxCommandBackend(tmux_bin, control_mode=control_mode(), watch=False)
    try:
        pane = Fresh(backend, tmux_server, tmux)
        pane.at_a_prompt(wait_until)
        pane.write("a\n$ ")
        pane.settled(wait_until, 2, 1)
        assert pane.read().lines_missed  # a young cursor, placed by nothing
        assert not any("read-only" in f for f in watcher_flags(tmux))
        pane.close()
    finally:
        backend.close()


def test_attaching_leaves_the_sessions_environment_alone(
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    tmux: RawTmux,
    wait_until: WaitUntil,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # attach-session copies what update-environment names from the attaching
    # client's environment, unless -E: gridmux's clients must not.
    monkeypatch.setenv("SSH_AUTH_SOCK", "/gridmux/own-agent.sock")
    monkeypatch.delenv("DISPLAY", raising=False)
    tmux("new-session", "-d", "-s", "keep", "exec sleep 100000")
    tmux("set-environment", "-t", "keep", "SSH_AUTH_SOCK", "/user/agent.sock")
    tmux("set-environment", "-t", "keep", "DISPLAY", ":7")
    pane = Fresh(backend, tmux_server, tmux)  # the control client, if on
    pane.at_a_prompt(wait_until)  # a watcher in every session
    assert len([f for f in watcher_flags(tmux) if "read-only" in f]) >= 2
    shown = tmux("show-environment", "-t", "keep").splitlines()
    assert "SSH_AUTH_SOCK=/user/agent.sock" in shown
    assert "DISPLAY=:7" in shown
    pane.close()
