"""The output watch: the exact signal behind a young cursor's follow-up.

A control client hears the output of the panes in its own session only, and
``swap-window -d`` moves a window to another session and back without a word
to it, so the watch attaches one listening control client (a *watcher*) to
every session of the server: ``-f ignore-size,read-only``, output on. A
reader thread per watcher follows each pane's bytes as they come
(``_plain.settle``) and keeps the bytes of panes it was asked to watch.

**A cut** marks one instant in every watcher's stream and in a snapshot. Each
watcher is sent ``display-message -p READY ; wait-for CHANNEL ; display-message
-p CUT``; once its READY has come back tmux is blocked in that wait. The
snapshot's command list then starts with ``wait-for -S CHANNEL``: every
watcher wakes in the same pass of tmux's command queues as the snapshot runs,
with no pane output read in between, and tmux writes each watcher's CUT after
all the output it queued before. Whatever a watcher heard before its CUT
came before the snapshot; whatever after, after. The same list prints the
session ids, so the cut also shows whether every session had a watcher.

**A mark** is a cut with the pane's state from the snapshot. ``vouches``
says whether the pane only appended plain output between two marks: the same
watchers, alive and in the same sessions at both, no session made or ended
between (``%sessions-changed``), every session watched at both instants, the
pane's bytes heard by one watcher at most (a pane away in another session, or
in a window linked twice, is heard elsewhere or twice), at rest at both cuts,
all kept, and ``_plain.only_appended`` of those bytes and the two states.

One assumption is left: tmux's parser for a pane is at rest when a watcher
attaches (a sequence a program split across that instant would be misread).
Watchers detach when no cut was made for ``IDLE_SECONDS``; a mark from an
earlier watch, or from before a restart, is unknown and vouches for nothing.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import secrets
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ._commands import Command
from ._plain import only_appended, settle
from ._spawn import spawn
from ._types import PaneState

#: Watchers detach after this many seconds without a cut.
IDLE_SECONDS = 120.0
#: Bytes kept per watched pane, and for how long after its last cut; a mark
#: whose bytes were dropped vouches for nothing.
KEEP_BYTES = 1 << 20
#: A server with more sessions than this is not watched (a watcher is a
#: process and a thread).
MAX_WATCHERS = 64
#: The flags watchers attach with (``_formats.gridmux_clients`` knows them).
WATCHER_FLAGS = "ignore-size,read-only"
_OUTPUT = re.compile(rb"^%output (%\d+) (.*)$")
_SESSION = re.compile(rb"^%session-changed (\$\d+) ")
_OCTAL = re.compile(rb"\\([0-7]{3})")


def _unescape(data: bytes) -> bytes:
    return _OCTAL.sub(lambda found: bytes([int(found[1], 8)]), data)


@dataclass(slots=True)
class _Stream:
    """One pane's output as one watcher heard it."""

    total: int = 0
    pending: bytes | None = b""
    #: the bytes from ``kept_from`` on, while the pane is watched
    kept: bytearray | None = None
    kept_from: int = 0
    #: when the last cut for this pane was made (``time.monotonic``)
    cut_at: float = 0.0


@dataclass(slots=True)
class _Armed:
    """The cut a watcher waits for, and what it heard since its READY: tmux
    writes each pane's output in order, but may write a pane's later output
    ahead of an earlier block of another pane, and so ahead of the CUT line
    behind that block. Output of the pane after the READY that another
    pane's output follows before the CUT may be from after the cut."""

    pane: str
    ready: bool = False
    heard_pane: bool = False
    overtaken: bool = False


@dataclass(frozen=True, slots=True)
class _Heard:
    """What one watcher had heard of one pane at a cut."""

    session: str | None
    moves: int
    sessions_changed: int
    total: int
    #: tmux's parser at rest, and the pane's bytes before the CUT surely
    #: from before the cut (``_Armed``)
    at_rest: bool


class Watcher:
    """One listening control client on one session, and its reader thread."""

    def __init__(self, argv: Sequence[str], session_id: str, timeout: float) -> None:
        self._cond = threading.Condition()
        self._streams: dict[str, _Stream] = {}
        self._session: str | None = None
        self._moves = -1  # the first %session-changed is the attach
        self._sessions_changed = 0
        self._tokens: dict[bytes, Callable[[], None]] = {}
        self._cuts: dict[bytes, dict[str, _Heard]] = {}
        self._armed: _Armed | None = None
        self.alive = True
        try:
            self._proc = spawn(
                [*argv, "-N", "-C", "attach-session", "-E", "-t", session_id, "-f", WATCHER_FLAGS],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env={key: value for key, value in os.environ.items() if key != "TMUX"},
            )
        except OSError:
            self.alive = False
            return
        threading.Thread(target=self._read, name=f"gridmux-watch-{session_id}", daemon=True).start()
        deadline = time.monotonic() + timeout
        with self._cond:
            while self.alive and self._session is None:
                if not self._cond.wait(max(0.0, deadline - time.monotonic())):
                    break
        if self._session is None:
            self.close()

    @property
    def session(self) -> str | None:
        return self._session

    @property
    def sessions_changed(self) -> int:
        """``%sessions-changed`` heard so far."""
        with self._cond:
            return self._sessions_changed

    def close(self) -> None:
        with self._cond:
            self.alive = False
            self._cond.notify_all()
        if not hasattr(self, "_proc"):
            return
        if self._proc.poll() is None:
            self._proc.kill()
        with contextlib.suppress(OSError, ValueError):
            self._proc.communicate(timeout=5)

    # -- reading ---------------------------------------------------------------
    def _read(self) -> None:
        stdout = self._proc.stdout
        assert stdout is not None
        try:
            for line in stdout:
                self._line(line.rstrip(b"\n"))
        except (OSError, ValueError):
            pass
        with self._cond:
            self.alive = False
            self._cond.notify_all()

    def _line(self, line: bytes) -> None:
        found = _OUTPUT.match(line)
        with self._cond:
            if found is not None:
                pane = found[1].decode()
                armed = self._armed
                if armed is not None and armed.ready:
                    if pane == armed.pane:
                        armed.heard_pane, armed.overtaken = True, False
                    elif armed.heard_pane:
                        armed.overtaken = True
                stream = self._streams.setdefault(pane, _Stream())
                data = _unescape(found[2])
                stream.total += len(data)
                stream.pending = settle(stream.pending, data)
                if stream.kept is not None and time.monotonic() - stream.cut_at > IDLE_SECONDS:
                    stream.kept = None  # no cut for this pane lately: no mark needs them
                if stream.kept is not None:
                    stream.kept += data
                    if len(stream.kept) > KEEP_BYTES:
                        drop = len(stream.kept) - KEEP_BYTES
                        del stream.kept[:drop]
                        stream.kept_from += drop
                return
            if line.startswith(b"%extended-output %"):  # never asked for: follow no further
                pane = line.split(b" ", 2)[1].decode()
                self._streams.setdefault(pane, _Stream()).pending = None
            elif line == b"%sessions-changed":
                self._sessions_changed += 1
            elif (session := _SESSION.match(line)) is not None:
                self._session = session[1].decode()
                self._moves += 1
            elif line == b"%exit" or line.startswith(b"%exit "):
                self.alive = False
            elif (handler := self._tokens.pop(line, None)) is not None:
                handler()
            self._cond.notify_all()

    # -- cuts ------------------------------------------------------------------
    def arm(self, channel: str, pane: str) -> tuple[bytes, bytes]:
        """Ask for a cut on ``channel``; the READY and CUT tokens to wait for.

        At the CUT the watcher records what it heard of ``pane`` and keeps
        the pane's bytes from there on."""
        ready, cut = (f"gmxw{secrets.token_hex(10)}".encode() for _ in range(2))
        heard: dict[str, _Heard] = {}

        armed = _Armed(pane)

        def at_ready() -> None:
            armed.ready = True

        def at_cut() -> None:
            stream = self._streams.setdefault(pane, _Stream())
            if stream.kept is None:
                stream.kept, stream.kept_from = bytearray(), stream.total
            stream.cut_at = time.monotonic()
            heard[pane] = self._heard(stream, ordered=not armed.overtaken)
            self._armed = None

        with self._cond:
            self._armed = armed
            self._tokens[ready] = at_ready
            self._tokens[cut] = at_cut
            self._cuts[cut] = heard
        line = (
            f"display-message -p {ready.decode()} ; wait-for {channel} ; "
            f"display-message -p {cut.decode()}\n"
        )
        stdin = self._proc.stdin
        assert stdin is not None
        try:
            stdin.write(line.encode())
            stdin.flush()
        except (OSError, ValueError):
            self.close()
        return ready, cut

    def _heard(self, stream: _Stream, *, ordered: bool) -> _Heard:
        return _Heard(
            self._session,
            self._moves,
            self._sessions_changed,
            stream.total,
            stream.pending == b"" and ordered,
        )

    def await_token(self, token: bytes, deadline: float) -> bool:
        """Until ``token`` came back (True) or the watcher ended or ``deadline`` passed."""
        with self._cond:
            while token in self._tokens:
                remaining = deadline - time.monotonic()
                if not self.alive or remaining <= 0:
                    return False
                self._cond.wait(remaining)
            return True

    def take_cut(self, cut: bytes, pane: str) -> _Heard | None:
        with self._cond:
            return self._cuts.pop(cut, {}).get(pane)

    def kept(self, pane: str, start: int, end: int) -> bytes | None:
        """The pane's bytes ``start..end`` of its stream, if all are kept."""
        with self._cond:
            stream = self._streams.get(pane)
            if stream is None or stream.kept is None or start < stream.kept_from:
                return None
            if end > stream.total:
                return None
            return bytes(stream.kept[start - stream.kept_from : end - stream.kept_from])

    def release(self, pane: str, start: int) -> None:
        """Bytes of ``pane`` before ``start`` are no longer needed."""
        with self._cond:
            stream = self._streams.get(pane)
            if stream is not None and stream.kept is not None and start > stream.kept_from:
                del stream.kept[: start - stream.kept_from]
                stream.kept_from = start


@dataclass(frozen=True, slots=True)
class WatchMark:
    """A pane's state and what every watcher had heard of it, at one instant."""

    watch: int
    state: PaneState
    #: the scroll region's first and last row
    region: tuple[int, int]
    heard: tuple[tuple[Watcher, _Heard], ...]


class Watch:
    """The watchers of one tmux server (see the module docstring)."""

    _serial = itertools.count(1)

    def __init__(
        self,
        argv: Sequence[str],
        run: Callable[[Sequence[Command]], bytes],
        *,
        timeout: float,
        idle: float = IDLE_SECONDS,
    ) -> None:
        self._argv = list(argv)
        self._run = run
        self._timeout = timeout
        self._idle = idle
        self._lock = threading.Lock()
        self._watchers: dict[str, Watcher] = {}
        self._id = next(self._serial)
        self._timer: threading.Timer | None = None
        #: ``%sessions-changed`` heard by each watcher when every session was
        #: last found watched: while that holds, a cut lists no sessions first
        self._settled: dict[Watcher, int] | None = None

    def close(self) -> None:
        with self._lock:
            self._close()

    def _close(self) -> None:
        watchers, self._watchers = list(self._watchers.values()), {}
        self._settled = None
        self._id = next(self._serial)  # marks of these watchers vouch for nothing now
        for watcher in watchers:
            watcher.close()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _idle_close(self, timer_id: int) -> None:
        with self._lock:
            if self._timer is not None and id(self._timer) == timer_id:
                self._timer = None
                self._close()

    def cut(
        self, pane: str, run: Callable[[Sequence[Command]], bytes]
    ) -> tuple[bytes, Callable[[PaneState], WatchMark | None]]:
        """Run a snapshot with the cut's commands in front: ``run`` takes
        those commands and runs them as the first of its one command list.
        Its output after theirs, and what makes the mark of the snapshot's
        state (None when the cut cannot vouch: a watcher missing or lost)."""
        with self._lock:
            self._restart_timer()
            for key, watcher in list(self._watchers.items()):
                if not watcher.alive:  # its session ended, or tmux let it go
                    del self._watchers[key]
                    watcher.close()
            if not self._unchanged():
                missing = self._sessions() - set(self._watchers)
                if len(self._watchers) + len(missing) > MAX_WATCHERS:
                    return run([]), lambda state: None
                for session in missing:
                    self._watchers[session] = Watcher(self._argv, session, self._timeout)
            watchers = [w for w in self._watchers.values() if w.alive]
            channel = f"gmxc{secrets.token_hex(12)}"
            armed = [(w, *w.arm(channel, pane)) for w in watchers]
            deadline = time.monotonic() + self._timeout
            ready = all(w.await_token(token, deadline) for w, token, _ in armed)
            signal: Command = ["wait-for", "-S", channel]
            region: Command = ["display-message", "-p", "-t", pane, _REGION_FORMAT]
            try:
                out = run([signal, _LIST_SESSIONS, region])
            except BaseException:
                # The list may have run (and failed later): then every CUT
                # comes at once. Else the watchers must not stay blocked.
                soon = time.monotonic() + 0.5
                if not all(w.await_token(cut, soon) for w, _, cut in armed):
                    with contextlib.suppress(Exception):
                        self._run([signal])
                for w, _, cut in armed:
                    w.take_cut(cut, pane)
                raise
            sessions, scroll, rest = _split_sessions(out)
            deadline = time.monotonic() + self._timeout
            cut_all = all(w.await_token(cut, deadline) for w, _, cut in armed)
            heard = [(w, w.take_cut(cut, pane)) for w, _, cut in armed]
            complete = tuple((w, h) for w, h in heard if h is not None)
            whole = (
                scroll is not None
                and ready
                and cut_all
                and len(complete) == len(armed)
                and sessions <= {h.session for _, h in complete}
            )
            self._settled = {w: h.sessions_changed for w, h in complete} if whole else None
            for key, watcher in list(self._watchers.items()):
                if not watcher.alive or watcher.session != key:  # ended, or moved off
                    del self._watchers[key]
                    watcher.close()
                    self._settled = None
            watch = self._id
        return (
            rest,
            lambda state: (
                WatchMark(watch, state, scroll, complete) if whole and scroll is not None else None
            ),
        )

    def _unchanged(self) -> bool:
        """No session made or ended since every session was last found
        watched, as far as the watchers have heard (the cut's own listing
        still decides: a session too new to be heard of voids the mark)."""
        settled = self._settled
        return (
            settled is not None
            and settled.keys() == set(self._watchers.values())
            and all(w.alive and w.sessions_changed == n for w, n in settled.items())
        )

    def _restart_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        timer = threading.Timer(self._idle, lambda: self._idle_close(id(timer)))
        timer.daemon = True
        self._timer = timer
        timer.start()

    def _sessions(self) -> set[str]:
        out = self._run([_LIST_SESSIONS])
        return set(out.decode(errors="replace").split())

    def vouches(self, before: WatchMark, after: WatchMark) -> bool:
        """Whether the pane only appended plain output from ``before`` to ``after``."""
        if before.watch != self._id or after.watch != self._id:
            return False
        then = dict(before.heard)
        now = dict(after.heard)
        if set(then) != set(now):
            return False
        pane = before.state.pane_id
        talking: list[tuple[Watcher, int, int]] = []
        for watcher, old in then.items():
            new = now[watcher]
            if (old.session, old.moves, old.sessions_changed) != (
                new.session,
                new.moves,
                new.sessions_changed,
            ):
                return False
            if not (old.at_rest and new.at_rest):
                return False
            if new.total != old.total:
                talking.append((watcher, old.total, new.total))
        if len(talking) > 1:
            return False
        data = b""
        if talking:
            watcher, start, end = talking[0]
            kept = watcher.kept(pane, start, end)
            if kept is None:
                return False
            data = kept
        for watcher, new in now.items():
            watcher.release(pane, min(new.total, then[watcher].total))
        return only_appended(before.state, after.state, data, before.region, after.region)


_LIST_SESSIONS: Command = ["list-sessions", "-F", "#{session_id}"]
_SESSION_LINE = re.compile(rb"\$\d+\n")
_REGION_FORMAT = "region #{scroll_region_upper} #{scroll_region_lower}"
_REGION_LINE = re.compile(rb"region (\d+) (\d+)\n")


def _split_sessions(out: bytes) -> tuple[set[str], tuple[int, int] | None, bytes]:
    """The session ids ``list-sessions`` printed at the front of ``out``, the
    scroll region printed after them (None for a pane that is gone), and the rest."""
    at = 0
    found: set[str] = set()
    while (line := _SESSION_LINE.match(out, at)) is not None:
        found.add(line[0][:-1].decode())
        at = line.end()
    region = _REGION_LINE.match(out, at)
    if region is None:
        return found, None, out[out.find(b"\n", at) + 1 :]
    return found, (int(region[1]), int(region[2])), out[region.end() :]


__all__ = [
    "IDLE_SECONDS",
    "KEEP_BYTES",
    "MAX_WATCHERS",
    "WATCHER_FLAGS",
    "Watch",
    "WatchMark",
    "Watcher",
]
