"""The differential test's two sides: a real pane driven by ``pane_driver`` and
the same pane in a simulated server of the same version, each applying a
script's operations and reporting what it shows (``Observed``).
"""

from __future__ import annotations

import re
import subprocess
import time
from dataclasses import dataclass

from gridmux.backend import PaneSnapshot, ServerRef
from gridmux.backend._command_backend import TmuxCommandBackend
from tests.integration.differential_script import (
    ClearHistory,
    Exit,
    Op,
    Resize,
    Script,
    SetHistoryLimit,
    Write,
)
from tests.integration.pane_driver import DriverListener, PaneDriver
from tmuxsim import IdleProgram, ManualClock, SimBackend, SimPane, SimServer, TmuxVersion

SIM_SERVER = ServerRef(socket_path="/sim/differential")

# -- the two sides -----------------------------------------------------------------

DEAD_FORMAT = (
    "#{pane_dead}|#{pane_dead_status}|#{pane_dead_signal}"
    "|#{?#{!=:#{pane_dead_time},},1,0}|#{pane_pid}"
)
#: What ``RealSide.raw_list`` prints between two commands' outputs.
_SEPARATOR = "==gridmux-differential-next=="
_DEAD_MESSAGE = re.compile(r"(Pane is dead \((?:status|signal) \d+, )(.*)$")


def _ctime(when: int) -> str:
    """``ctime(3)`` in UTC without the newline, as tmux prints a time of death."""
    moment = time.gmtime(when)
    return (
        time.strftime("%a %b ", moment)
        + f"{moment.tm_mday:>2}"
        + time.strftime(" %H:%M:%S %Y", moment)
    )


def _common_suffix(a: str, b: str) -> int:
    n = 0
    while n < len(a) and n < len(b) and a[-1 - n] == b[-1 - n]:
        n += 1
    return n


def masked(rows: tuple[str, ...], mask: bool) -> tuple[str, ...]:
    """Rows with the time of a dead-pane message masked (its length kept),
    where the simulator's clock cannot be set to tmux's time of death (3.2a
    has no ``pane_dead_time``)."""
    if not mask:
        return rows
    return tuple(_DEAD_MESSAGE.sub(lambda m: m.group(1) + "#" * len(m.group(2)), r) for r in rows)


@dataclass(frozen=True)
class Observed:
    """What one side shows after a step (the compared values) and how it got there."""

    history_size: int
    history_limit: int
    cursor_x: int
    cursor_y: int
    pane_width: int
    pane_height: int
    alternate_on: bool
    dead: str  # pane_dead|pane_dead_status|pane_dead_signal|time set|pid empty/changed
    rows: tuple[str, ...]
    joined: tuple[str, ...]  # capture-pane -J -S -, trimmed by the backend: WRAPPED flags
    escaped: tuple[str, ...]  # capture-pane -e -S -
    no_trim: tuple[str, ...]  # capture-pane -N -S -
    no_trim_used: tuple[str, ...]  # capture-pane -N -T -S - (3.4+; else empty)

    @classmethod
    def of(
        cls,
        snap: PaneSnapshot,
        joined: PaneSnapshot,
        dead: str,
        captures: tuple[str, str, str],
        mask: bool,
    ) -> Observed:
        state = snap.state
        assert snap.top == 0, snap
        assert joined.state == state, (state, joined.state)
        escaped, no_trim, no_trim_used = (tuple(c.split("\n")[:-1]) for c in captures)
        return cls(
            history_size=state.history_size,
            history_limit=state.history_limit,
            cursor_x=state.cursor_x,
            cursor_y=state.cursor_y,
            pane_width=state.width,
            pane_height=state.height,
            alternate_on=state.alternate_on,
            dead=dead,
            rows=masked(snap.rows, mask),
            joined=masked(joined.rows, mask),
            escaped=masked(escaped, mask),
            no_trim=masked(no_trim, mask),
            no_trim_used=masked(no_trim_used, mask),
        )


STATE_FIELDS = (
    "history_size",
    "history_limit",
    "cursor_x",
    "cursor_y",
    "pane_width",
    "pane_height",
    "alternate_on",
    "dead",
)
CAPTURES = ("escaped", "no_trim", "no_trim_used")
CAPTURE_FLAGS = (("-e",), ("-N",), ("-N", "-T"))


def dead_summary(raw: str, last_pid: str | None) -> tuple[str, str]:
    """The compared form of DEAD_FORMAT's expansion (pids differ between the
    sides; whether it is empty, or changed since the last step, does not)."""
    dead, status, signal, time_set, pid = raw.split("|")
    pid_rule = "empty" if not pid else "changed" if last_pid and pid != last_pid else "same"
    return f"{dead}|{status}|{signal}|{time_set}|{pid_rule}", pid or (last_pid or "")


class RealSide:
    """A fresh pane on the test's tmux server, its program a ``PaneDriver``."""

    def __init__(
        self,
        backend: TmuxCommandBackend,
        server: ServerRef,
        listener: DriverListener,
        script: Script,
        tmux_bin: str,
    ) -> None:
        self.backend = backend
        self.server = server
        self.listener = listener
        self.tmux_bin = tmux_bin
        self.version = TmuxVersion.parse(self.raw("-V"))
        backend.set_option(
            server, "history-limit", str(script.history_limit), scope="session", global_=True
        )
        session = backend.new_session(
            server, width=script.width, height=script.height, command=listener.command
        )
        self.session_id = session.session_id
        self.driver: PaneDriver | None = None
        self.last_pid: str | None = None
        try:
            assert session.active_pane_id is not None
            self.pane_id = session.active_pane_id
            self.window_id = backend.list_windows(server, session.session_id)[0].window_id
            self.driver = listener.accept(self.pane_id)
        except BaseException:
            self.close()
            raise
        self.last_report: tuple[int, int] | None = None
        self.dead_time: int | None = None  # tmux's pane_dead_time after an Exit

    def raw(self, *args: str) -> str:
        """One tmux command on the test server; its stdout (it must succeed)."""
        assert self.server.socket_path is not None
        argv = [self.tmux_bin, "-u", "-S", self.server.socket_path, *args]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=10, check=False)
        assert done.returncode == 0, f"{args}: {done.stderr}"
        return done.stdout

    def raw_list(self, *commands: tuple[str, ...]) -> list[str]:
        """Several tmux commands as one command list in one process (a step's
        observation costs one process, not one per read); each one's stdout.
        Between two commands a ``display-message`` prints a separator line no
        script writes (``differential_script.TEXT`` has no ``=``)."""
        argv: list[str] = []
        for i, command in enumerate(commands):
            if i:
                argv += [";", "display-message", "-p", _SEPARATOR, ";"]
            argv += command
        parts = self.raw(*argv).split(_SEPARATOR + "\n")
        assert len(parts) == len(commands), f"{commands}: {parts}"
        return parts

    def apply(self, op: Op) -> None:
        backend, server = self.backend, self.server
        if isinstance(op, Write):
            if self.driver is not None:  # a dead pane's output goes nowhere
                self.last_report = self.driver.write(op.data)
        elif isinstance(op, Resize):
            backend.resize_window(server, self.window_id, width=op.width, height=op.height)
        elif isinstance(op, ClearHistory):
            backend.clear_history(server, self.pane_id)
        elif isinstance(op, SetHistoryLimit):
            backend.set_option(
                server, "history-limit", str(op.limit), scope="session", global_=True
            )
        elif isinstance(op, Exit):
            if self.driver is not None:
                backend.set_option(
                    server, "remain-on-exit", "on", scope="pane", target=self.pane_id
                )
                self.driver.exit(op.status, signal=op.signal)
                self.driver = None
                self._wait_dead()
        else:
            backend.respawn_pane(server, self.pane_id, kill=True, command=self.listener.command)
            if self.driver is not None:
                self.driver.close()
            self.driver = self.listener.accept(self.pane_id)

    def _wait_dead(self) -> None:
        """Until tmux shows the pane dead and knows how it ended. (tmux 3.3a can
        miss a SIGCHLD until another child exits: a ``run-shell true`` makes it
        reap, as conftest's ``wait_dead`` does.)"""
        knows_signal = self.version.has_dead_signal_and_time
        deadline = time.monotonic() + 10

        def ended() -> bool:
            dead, status, signal, _, _ = (
                self.raw("display-message", "-p", "-t", self.pane_id, DEAD_FORMAT)
                .rstrip("\n")
                .split("|")
            )
            if dead == "1" and (status or signal or (not knows_signal and self._told())):
                return True
            if dead == "1":
                self.raw("run-shell", "true")
            return False

        while not ended():
            assert time.monotonic() < deadline, f"pane {self.pane_id} did not die in time"
            time.sleep(0.01)  # polling a condition, with the deadline above
        when = self.raw("display-message", "-p", "-t", self.pane_id, "#{pane_dead_time}")
        self.dead_time = int(when) if when.strip() else self._time_in_dead_message()

    def _told(self) -> bool:
        """3.2a (no ``pane_dead_signal``) can show a pane dead before it has reaped
        the status and printed its message: its last character, ")" (after the
        year, the text least likely trimmed from history), says it has. Only the
        ")" is certain: with autowrap off (``ESC[?7l``) the message overwrites the
        last cell, leaving ")" after the message's first characters, and no
        script writes a ")" of its own (differential_script.TEXT)."""
        joined = self.raw("capture-pane", "-p", "-J", "-S", "-", "-t", self.pane_id)
        return "".join(joined.split()).endswith(")")  # "... 2026)", or "Pane)" unwrapped

    def _time_in_dead_message(self) -> int:
        """tmux 3.2a has no ``pane_dead_time``: the time its message prints (UTC),
        read from the joined capture. A small ``history-limit`` may already have
        trimmed the message's start, down to a part of the time of day or
        less: the time of death is the latest second of the last ten minutes
        whose ctime text ends the capture furthest (when even the seconds
        are gone, every second agrees and now is as good as any)."""
        joined = self.raw("capture-pane", "-p", "-J", "-S", "-", "-t", self.pane_id)
        # Rows whose wrap flag went with the history are lines of their own.
        text = "".join(joined.splitlines()).rstrip()
        now = int(time.time())
        best, best_shown = now, -1
        for when in range(now, now - 600, -1):
            shown = _common_suffix(text, _ctime(when) + ")")
            if shown > best_shown:
                best, best_shown = when, shown
        return best

    def observe(self) -> Observed:
        snap = self.backend.snapshot(self.server, self.pane_id, start="-")
        joined = self.backend.snapshot(self.server, self.pane_id, start="-", join_wrapped=True)
        wanted = [
            flags
            for flags in CAPTURE_FLAGS
            if "-T" not in flags or self.version.capture_has_trim_flag
        ]
        raw_dead, *read = self.raw_list(
            ("display-message", "-p", "-t", self.pane_id, DEAD_FORMAT),
            *(("capture-pane", "-p", *flags, "-S", "-", "-t", self.pane_id) for flags in wanted),
        )
        dead, self.last_pid = dead_summary(raw_dead.rstrip("\n"), self.last_pid)
        by_flags = dict(zip(wanted, read, strict=True))
        captures = tuple(by_flags.get(flags, "") for flags in CAPTURE_FLAGS)
        mask = self.dead_time is None and not self.version.has_dead_signal_and_time
        return Observed.of(snap, joined, dead, (captures[0], captures[1], captures[2]), mask)

    def close(self) -> None:
        # Kill first: once the socket closes the driver exits, and tmux would be
        # destroying the session while kill-session looks for it.
        try:
            self.backend.kill_session(self.server, self.session_id)
        finally:
            if self.driver is not None:
                self.driver.close()


class SimSide:
    """The same pane in a fresh simulated server of the real tmux's version."""

    def __init__(self, version: str, script: Script) -> None:
        # The pane's program never writes or reads, like the real driver between
        # payloads. (SimShell has no ``exec``: ``exec sleep 100000`` exits 127.)
        self.clock = ManualClock()
        server = SimServer(
            version,
            clock=self.clock,
            socket_name=None,
            socket_path=SIM_SERVER.socket_path,
            program_factory=lambda io, command: IdleProgram(io, "python3"),
        )
        self.version = server.version
        self.backend = SimBackend({SIM_SERVER: server}, version=version)
        sim = self.backend
        # As the real test server is configured (conftest.tmux_server).
        sim.set_option(SIM_SERVER, "exit-empty", "off", scope="server", global_=True)
        sim.set_option(SIM_SERVER, "default-shell", "/bin/sh", scope="session", global_=True)
        sim.set_option(
            SIM_SERVER, "history-limit", str(script.history_limit), scope="session", global_=True
        )
        session = sim.new_session(
            SIM_SERVER, width=script.width, height=script.height, command="pane_driver"
        )
        assert session.active_pane_id is not None
        self.pane_id = session.active_pane_id
        self.window_id = sim.list_windows(SIM_SERVER, session.session_id)[0].window_id
        self.last_pid: str | None = None
        self.dead_time: int | None = None  # tmux's, when it could be read

    def apply(self, op: Op, now: int | None = None) -> None:
        """Apply ``op``; ``now`` sets the clock first (tmux's time of death, so
        the dead-pane messages agree)."""
        sim = self.backend
        if now is not None and now > self.clock.now():
            self.clock.advance(now - self.clock.now())
        if isinstance(op, Write):
            sim.server(SIM_SERVER).pane(self.pane_id).write(op.data)
        elif isinstance(op, Resize):
            sim.resize_window(SIM_SERVER, self.window_id, width=op.width, height=op.height)
        elif isinstance(op, ClearHistory):
            sim.clear_history(SIM_SERVER, self.pane_id)
        elif isinstance(op, SetHistoryLimit):
            sim.set_option(
                SIM_SERVER, "history-limit", str(op.limit), scope="session", global_=True
            )
        elif isinstance(op, Exit):
            self.dead_time = now
            pane = sim.server(SIM_SERVER).pane(self.pane_id)
            if not pane.tty_closed:
                sim.set_option(
                    SIM_SERVER, "remain-on-exit", "on", scope="pane", target=self.pane_id
                )
                pane.exit(op.status, signal=op.signal)
        else:
            sim.respawn_pane(SIM_SERVER, self.pane_id, kill=True, command="pane_driver")

    def reflow_overruns_in_tmux(self, op: Op) -> bool:
        """Would ``op`` make tmux reflow a grid whose last row is WRAPPED?

        A row keeps WRAPPED when the row it wrapped into is pushed off the
        bottom (SD, RI, IL, a height shrink below the cursor). If tmux then
        reflows with the cursor past its row's content, grid_unwrap_position
        follows the wrapped chain past the end of the grid: the cursor comes
        out as garbage (``cursor_y`` beyond the pane, ``cursor_x`` random) and
        the next output can crash the server. Undefined behaviour cannot be
        compared, so such scripts are rejected (conservatively: any wrapped
        last row). Reflow happens on a width change outside the alternate
        screen, and on leaving it (?1049l) at another width than it was
        entered at.
        """
        terminal = self.backend.server(SIM_SERVER).pane(self.pane_id).terminal
        last_wrapped = terminal.row_wrapped(terminal.history_size + terminal.height - 1)
        saved = terminal._screen.saved  # the normal screen while the alternate one is on
        if isinstance(op, Resize):
            changes_width = op.width is not None and op.width != terminal.width
            return changes_width and saved is None and last_wrapped
        if isinstance(op, Write) and saved is not None and b"\x1b[?1049l" in op.data:
            return saved.sx != terminal.width and (last_wrapped or saved.lines[-1].wrapped)
        return False

    def observe(self) -> Observed:
        snap = self.backend.snapshot(SIM_SERVER, self.pane_id, start="-")
        joined = self.backend.snapshot(SIM_SERVER, self.pane_id, start="-", join_wrapped=True)
        raw_dead = self.backend.display_message(SIM_SERVER, self.pane_id, DEAD_FORMAT)
        dead, self.last_pid = dead_summary(raw_dead, self.last_pid)
        pane = self.backend.server(SIM_SERVER).pane(self.pane_id)
        captures = tuple(
            self._capture(pane, flags)
            if "-T" not in flags or self.version.capture_has_trim_flag
            else ""
            for flags in CAPTURE_FLAGS
        )
        mask = self.dead_time is None and not self.version.has_dead_signal_and_time
        return Observed.of(snap, joined, dead, (captures[0], captures[1], captures[2]), mask)

    @staticmethod
    def _capture(pane: SimPane, flags: tuple[str, ...]) -> str:
        client = pane.tmux(["capture-pane", "-p", *flags, "-S", "-"])
        assert client.run() and client.status == 0, client.output
        return client.output
