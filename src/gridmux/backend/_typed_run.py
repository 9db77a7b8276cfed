"""``type_and_wait`` as ONE tmux command list, for the subprocess path.

Step by step, run_command costs a tmux process for each read, the typing,
each wait and the release. Without a control-mode client that is eight
processes a call; this is one. The list is::

    display -p <pid of the pane> ; display -p T1 ;
    display -p <record> ; display -p <state> ; capture-pane -S <window> ; display -p T2 ;
    if-shell -F -t %N <alive, no mode, no alternate screen, moved on> {
        send-keys -l <line> ; send-keys Enter ; wait-for <done> ; display -p T3 ;
        show-options -v <status> ; display -p T4 ;
        display -p <state> ; capture-pane -S - ; display -p T5 ;
        capture-pane -J -S - ; display -p T6 ; wait-for -S <ack>
    } { display -p NOT-TYPED }

tmux runs a client's list back to back, so the reads before typing are one
instant, and so are the reads after ``done`` (the shell is held until
``ack``). The ``T`` lines are random tokens that split the output. While the
client blocks in ``wait-for``, this process watches it: at the timeout, when
``stop`` is set, or when the pane's process no longer exists (checked with
``kill(pid, 0)`` and, where there is procfs, that it is no zombie, when tmux's
own pid is visible here at all), it signals ``done``
itself, a second process, and the list runs on with no status to read.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import select
import threading
import time

from gridmux.errors import GridmuxError, TmuxFailure, TmuxTimeout

from . import _formats as formats
from ._commands import Command, command_text, decode, format_literal
from ._failures import checked, describe_server
from ._formats import STATE_FORMAT, RecordFormat
from ._reads import split_record
from ._runner import TmuxRunner
from ._snapshot import capture_command, parse_snapshot
from ._subprocess_transport import completed, reap
from ._types import LineToType, PaneState, ServerRef, TypedRun

#: How often the waiting process is looked at (timeout, stop, the pane's pid).
_TICK = 0.1


def typeable_condition(pane_id: str, settled_from: PaneState | None) -> str:
    """An ``if-shell -F -t pane_id`` condition: the pane takes a typed line now.

    It names the pane (if-shell expands a missing target's condition for
    another pane), and with ``settled_from`` also requires that the cursor
    moved on from there (``PaneState.moved_from`` as a format): the previous
    command's prompt has been drawn.
    """
    parts = [
        f"#{{==:#{{pane_id}},{pane_id}}}",
        "#{==:#{pane_dead},0}",
        "#{==:#{pane_in_mode},0}",
        "#{==:#{alternate_on},0}",
    ]
    if settled_from is not None:
        held = settled_from
        parts.append(
            f"#{{||:#{{!=:#{{cursor_x}},{held.cursor_x}}},"
            f"#{{||:#{{!=:#{{cursor_y}},{held.cursor_y}}},"
            f"#{{!=:#{{history_size}},{held.history_size}}}}}}}"
        )
    condition = parts[-1]
    for part in reversed(parts[:-1]):  # && takes two operands before tmux 3.4
        condition = f"#{{&&:{part},{condition}}}"
    return condition


def _alive(pid: int) -> bool:
    """The process exists and has not ended (a zombie has: only its reaping is due)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    # tmux 3.3a sometimes misses a child's SIGCHLD, and the shell stays a zombie
    # that kill() still reaches until some other child exits (docs/matrix.md).
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rpartition(b")")[2].split()
    except OSError:
        return True  # no procfs here: kill() is all there is to go by
    return fields[:1] != [b"Z"]


def pipe_literal(command: str) -> str:
    """``command`` as pipe-pane runs it: it expands a format, then strftime(3)."""
    return format_literal(command).replace("%", "%%")


def pipe_open_command(pane_id: str, command: str) -> Command:
    """Pipe the pane's output to ``command`` unless it has a pipe already.

    Not ``pipe-pane -o``: that closes an open pipe (it toggles)."""
    pipe = ["pipe-pane", "-t", pane_id, "--", pipe_literal(command)]
    return ["if-shell", "-F", "-t", pane_id, "#{?pane_pipe,,1}", command_text(pipe)]


class _Tokens:
    def __init__(self) -> None:
        base = secrets.token_hex(10)
        self.pid, self.before, self.piped, self.waited, self.status, self.after, self.joined = (
            f"gridmux-{base}-{i}" for i in range(7)
        )
        self.not_typed = f"gridmux-{base}-n"

    @staticmethod
    def mark(token: str) -> Command:
        return ["display-message", "-p", token]


def commands_for(
    pane_id: str,
    line: LineToType,
    window_start: int,
    settled_from: PaneState | None,
    fmt: RecordFormat,
    tokens: _Tokens,
) -> list[Command]:
    mark = tokens.mark
    typed: list[Command] = [
        ["display-message", "-p", "-t", pane_id, "#{pane_pipe}"],
        mark(tokens.piped),
        *([pipe_open_command(pane_id, line.pipe)] if line.pipe is not None else []),
        ["send-keys", "-l", "-t", pane_id, line.text],
        ["send-keys", "-t", pane_id, "Enter"],
        ["wait-for", line.done],
        mark(tokens.waited),
        ["show-options", "-p", "-q", "-v", "-t", pane_id, line.status_option],
        mark(tokens.status),
        ["display-message", "-p", "-t", pane_id, STATE_FORMAT],
        capture_command(pane_id, "-", None, False),
        mark(tokens.after),
        capture_command(pane_id, "-", None, True),
        mark(tokens.joined),
        ["wait-for", "-S", line.ack],
    ]
    return [
        ["display-message", "-p", "-t", pane_id, "#{pane_pid} #{pid}"],
        mark(tokens.pid),
        ["display-message", "-p", "-t", pane_id, fmt.template],
        ["display-message", "-p", "-t", pane_id, STATE_FORMAT],
        capture_command(pane_id, window_start, None, False),
        mark(tokens.before),
        [
            "if-shell",
            "-F",
            "-t",
            pane_id,
            typeable_condition(pane_id, settled_from),
            " ; ".join(command_text(command) for command in typed),
            command_text(mark(tokens.not_typed)),
        ],
    ]


def type_and_wait(
    runner: TmuxRunner,
    server: ServerRef,
    pane_id: str,
    line: LineToType,
    *,
    window_start: int,
    settled_from: PaneState | None,
    timeout: float,
    stop: threading.Event,
) -> TypedRun:
    what = f"run a command in pane {pane_id}"
    fmt = RecordFormat(formats.PANE_FIELDS)
    tokens = _Tokens()
    commands = commands_for(pane_id, line, window_start, settled_from, fmt, tokens)
    out = _watch(runner, server, commands, line, tokens, timeout, stop, what)
    sections = _sections(out, tokens, what)
    pane, rest = split_record(what, sections["before"], fmt)
    before = parse_snapshot(what, pane_id, rest, window_start, None, False)
    if "waited" not in sections:
        return TypedRun(pane=pane, before=before, typed=False)
    piped = line.pipe is not None and decode(sections["piped"]).strip() == "0"
    status = decode(sections["status"]).strip() or None
    after = parse_snapshot(what, pane_id, sections["after"], "-", None, False)
    state_line = sections["after"].partition(b"\n")[0] + b"\n"
    joined = parse_snapshot(what, pane_id, state_line + sections["joined"], "-", None, True)
    return TypedRun(
        pane=pane,
        before=before,
        typed=True,
        status=status,
        after=after,
        joined=joined.rows,
        piped=piped,
    )


def _watch(
    runner: TmuxRunner,
    server: ServerRef,
    commands: list[Command],
    line: LineToType,
    tokens: _Tokens,
    timeout: float,
    stop: threading.Event,
    what: str,
) -> bytes:
    """Run ``commands``, release its wait when it must end; its stdout."""
    proc = runner.start(server, commands, what)
    assert proc.stdout is not None
    assert proc.stderr is not None
    out = bytearray()
    poller = select.poll()
    poller.register(proc.stdout.fileno(), select.POLLIN)
    deadline = time.monotonic() + timeout
    pid: int | None = None
    watch_pid = False
    released = False
    give_up: float | None = None
    pid_mark = tokens.pid.encode() + b"\n"
    before_mark = tokens.before.encode() + b"\n"
    try:
        while True:
            if poller.poll(int(_TICK * 1000)):
                chunk = os.read(proc.stdout.fileno(), 1 << 16)
                if not chunk:
                    break
                out += chunk
            if pid is None and pid_mark in out:
                pane_pid, _, server_pid = bytes(out[: out.index(pid_mark)]).strip().partition(b" ")
                pid = int(pane_pid) if pane_pid.isdigit() else 0
                # Watchable when tmux's own pid is visible here (the same pid namespace):
                # the shell may have exited already, which must end the wait, not the watch.
                watch_pid = pid > 0 and server_pid.isdigit() and _alive(int(server_pid))
            now = time.monotonic()
            waiting = (
                before_mark in out
                and tokens.waited.encode() not in out
                and tokens.not_typed.encode() not in out
            )
            if waiting and not released:
                gone = watch_pid and pid is not None and not _alive(pid)
                if now >= deadline or stop.is_set() or gone:
                    runner.run(server, [["wait-for", "-S", line.done]], what=f"release {what}")
                    released = True
                    give_up = now + runner.command_timeout
            if give_up is not None and now >= give_up:
                raise TmuxTimeout(
                    f"tmux did not finish the reads within {runner.command_timeout:g}s "
                    f"while trying to {what} on {describe_server(server)}"
                )
        stderr = proc.stderr.read()
        returncode = proc.wait()
    finally:
        if proc.poll() is None:
            reap(proc)
            if before_mark in out and tokens.not_typed.encode() not in out:
                # The list may have typed the line; never leave its shell held.
                with contextlib.suppress(GridmuxError):
                    runner.run(server, [["wait-for", "-S", line.ack]], what=f"release {what}")
    return checked(server, what, completed(returncode, bytes(out), stderr))


def _sections(out: bytes, tokens: _Tokens, what: str) -> dict[str, bytes]:
    """The output between the token lines, by name (those that were printed)."""
    names = ["pid", "before", "piped", "waited", "status", "after", "joined"]
    found: dict[str, bytes] = {}
    at = 0
    for name in names:
        token = getattr(tokens, name).encode() + b"\n"
        end = out.find(token, at)
        if end < 0 or (end > 0 and out[end - 1] != 10):
            if name == "piped" and out[at:] == tokens.not_typed.encode() + b"\n":
                return found
            raise TmuxFailure(f"cannot {what}: tmux stopped before its {name} read")
        found[name] = out[at:end]
        at = end + len(token)
    return found
