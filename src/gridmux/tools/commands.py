"""Running commands in panes: run_command (send_keys_batch is in ``key_batches``).

run_command, step by step:

1. Claim the pane (``_shells.claim``: a compare-and-set of the pane option
   ``@gridmux-run`` in tmux, so every gridmux process on the server sees it;
   a pane another run holds is refused), wait for the previous run's prompt
   (this process's; or, while the foreground is not the shell, up to 0.5 s
   for the cursor to move: another process's run gives its claim back while
   its shell's ``tmux`` client is still ending, before the prompt is drawn),
   then prove the pane takes a line: alive, not in copy mode, not on the
   alternate screen, not the pane this server runs in, its foreground
   program the pane's own POSIX shell (``nested_shell``: any POSIX shell;
   fish, csh and friends never), no continuation prompt, and an empty
   command line (``_prompt_line``: nothing typed without Enter, judged from
   the cursor's row against the prompt the last run in this pane proved, or
   else the shapes prompts end in; ``prompt_only`` vouches for another
   shape). A prompt may still be being drawn: a shell let go a moment ago is
   read again until its deadline, a pane with nothing on it until the run's
   timeout. Otherwise refuse with nothing typed and the claim given back.
   Take a capture_since cursor.
2. Write the run's script, ``T``, and an empty ``T.pipe`` into this
   process's private directory (``_run_script``: made 0700 by ``mkdtemp``,
   each file created 0600 with ``O_EXCL``). Pipe the pane's output into
   ``T.pipe`` (``pipe-pane 'exec cat >> T.pipe'`` inside
   ``if-shell -F '#{?pane_pipe,,1}'``, read in the same list: only a pane
   with no pipe gets ours; a user's pipe is never replaced or closed, the
   run then reads the screen, step 4). Then type ONE short line at the
   prompt, then Enter::

       [space]. '/tmp/gridmux-XXXX/T'

   ``T`` is a fresh random token. The leading space keeps the line out of
   the history of shells that skip such lines (bash's
   ``HISTCONTROL=ignorespace``, zsh's ``HIST_IGNORE_SPACE``). Agent text is
   never typed and never reaches tmux: it is only in the file. The shell
   sources the script, in the shell itself (``cd`` and ``export``
   persist), which runs::

       printf '\\033[<R>A\\033[<X+1>G\\033[J%s\\n<start>' '<command, as shown>'
       [history -s -- '<command>']           (suppress_history off: bash;
                                              zsh and ksh: print -rs --)
       eval '<command>'
       _gridmux_T=$?
       printf '<end>'
       tmux set-option -p -t %N @gridmux-status-T "$_gridmux_T" \\;
           run-shell -b -d 5 -C "<release>" \\; wait-for -S gridmux-T \\;
           wait-for gridmux-T-ack \\; set-option -p -u -t %N @gridmux-status-T \\;
           <clear a timed-out claim>
       unset _gridmux_T

   The first line redraws the echoed line in place: up the ``R`` rows it
   took (from the prompt's cursor column ``X`` and the pane's width, as
   read in step 1), to column ``X``, erase to the end of the screen, then
   the command as a person would have typed it after the prompt, with its
   control characters in caret notation (``^[``) so none reaches the
   terminal. The prompt itself is never touched. ``<start>`` and ``<end>``
   are OSC sequences (``ESC ] gridmux-T-start BEL``) that tmux drops from
   the screen (their number is no number) and the pipe keeps: they frame the
   command's output in ``T.pipe``. ``eval`` runs the command
   (a trailing comment or ``&`` cannot swallow what follows), and its
   status is the command's. The ``tmux`` client reaches the pane's own
   server through ``$TMUX``: it prints nothing, stores the status in a
   private pane option, signals ``gridmux-T``, and then waits for our
   acknowledgement before the shell prints its next prompt. It also
   schedules, in tmux itself (``run-shell -b -d 5 -C``), an ``if-shell -F``
   that signals the acknowledgement if the status option is still there
   after ``HOLD_LIMIT`` seconds: a gridmux that died never leaves the shell
   held. After a timed-out run it clears that run's ``x.`` claim. So the
   pane ends up showing the prompt, the command and its output, nothing of
   gridmux. The script is deleted when the run is over; a timed-out run's
   when the pane's shell is next proven back at its prompt (step 1); the
   directory at exit.
3. Wait for ``gridmux-T`` through the backend (tmux holds a signal sent
   before anyone waits, so the order cannot race), in slices of a second,
   checking between slices that the pane is still alive. Completion and the
   exit status come from the pane option, never from the screen.
4. While the shell is held, read the pane: the capture core returns every
   row written since the cursor (also rows that scrolled into history),
   starting at the prompt's row, where the redrawn command starts. The
   command -- however many rows it wraps over -- is skipped by its text:
   rows are concatenated with whitespace removed until the whole command
   appears, and everything after that row is output. When the core cannot
   prove the delta (a young cursor, repetitive output above the prompt),
   the prompt's row is still known by its index if tmux provably moved no
   row since (no trim at history-limit, no clear, no resize), so the output
   is exact. Otherwise no row is known to be the command's: every row still
   retained is output, and ``lines_missed`` says the head is gone. The
   prompt has not been drawn yet, so there is none to strip. The output
   rows are then re-read with wrapped rows joined (when the pane provably
   did not change in between). Commands are single lines.

   When the run's pipe is open and the command finished, its output is
   taken from the pipe instead (``_run_output``): once the end marker has
   come through (tmux writes the pipe asynchronously; up to 3 s), the pipe
   is closed and the bytes between the markers become lines (escape
   sequences dropped, a carriage return overwriting its line, tabs to
   columns of 8, trailing blanks trimmed). That is every line the command
   printed, whatever ``history-limit`` and the screen kept, so
   ``lines_missed`` is false. The bytes are kept (0600, beside the script)
   for the resource ``tmux://runs/T/output`` the result names as
   ``full_output``: the last 16 runs, 64 MiB at most; older ones are deleted,
   all at exit. The result holds the newest ``max_lines`` (200) lines within
   ``max_bytes`` (64,000), with ``output_truncated_lines`` and
   ``output_truncated_bytes`` saying what was left out. A timed-out run, or
   one whose end never came through, reads the screen (no ``full_output``);
   its pipe is closed all the same.
5. Signal ``gridmux-T-ack``: the shell removes the option and prints its
   prompt. This happens on every path, also after a timeout, when it is a
   signal held for later: the command keeps running (it is never
   interrupted), and when it finishes the shell goes straight on to its
   prompt. The only leftover is tmux's memory of the late ``gridmux-T``
   signal, on a channel nobody else uses. The call returns without waiting
   for that prompt; the next run_command in the pane does, if it comes so
   soon that the prompt is not there yet (else its line would be typed
   before the prompt, which would then land on its output's first row).
   The claim is given back (marked ``x.`` after a timeout: the shell clears
   it when the command ends; the guard lets a later run take it over once
   the shell is back at its prompt).

Without a control-mode client every command list is a tmux process, so
steps 1-5 then go as ONE list (``TmuxBackend.type_and_wait``): the reads,
an ``if-shell`` that types only into a pane that takes a line (and whose
previous prompt is drawn), the wait, the status, every row both as is and
with wrapped rows joined, and the release; opening the pipe is part of it
too, closing it one more process. The joined lines of the output
are picked out of the second read by walking up from the bottom
(``joined_lines``); when that cannot be told for sure, the output is read
again as in step 4. A timeout, a cancelled call or a shell that is gone
ends the wait with one more process (``wait-for -S``).

Assumptions: a POSIX shell (sh, bash, zsh, dash, ksh; fish and other
shells are refused) idle at its prompt with an empty command line (checked,
see step 1: typed text is seen by its echo, so text typed after an unproven
prompt that itself ends like a prompt, ``echo $``, is not detected), on this
machine as this user (it reads the script), with ``tmux`` on its PATH and
``$TMUX`` set (tmux sets it), whose line editor echoes the typed line from
the prompt's cursor column (bash, zsh, dash and ksh do). Output the
shell has written is in the grid by the time tmux handles the signal, since
the shell writes it before it even starts the tmux client.
"""

from __future__ import annotations

import contextlib
import secrets
import threading
import time
from collections.abc import Sequence
from typing import Annotated

import anyio
from fastmcp import Context
from fastmcp.exceptions import ToolError
from pydantic import Field

from gridmux.backend import (
    LineToType,
    PaneInfo,
    PaneSnapshot,
    PaneState,
    ServerRef,
    TypedRun,
)
from gridmux.capture import FOLLOW_PLAN, WINDOW, Cursor, first, limit_tail
from gridmux.errors import GridmuxError, InvalidArgument, NotFound
from gridmux.safety import tool

from ._command_line import (
    Output,
    TypedLine,
    busy_error,
    check_at_prompt,
    check_not_caller,
    check_typeable,
    checked,
    is_shell,
    joined_lines,
    output_rows,
    parse_status,
    shell_exited,
    typed_line,
)
from ._context import TOOL_CONTEXT, ToolContext, tool_error
from ._observe_models import (
    RunCommandResult,
)
from ._params import PaneId, SessionId, SessionName, SocketName, SocketPath, WindowId
from ._prompt_line import PartlyTyped, PromptRow, check_line_empty, split_row
from ._refusals import guarded
from ._run_output import OUTPUTS, output_uri, piped_output, terminal_lines
from ._run_script import SCRIPTS
from ._shells import Busy, Claim, Released, claim, give_back
from ._waiting import Progress, Timeout

#: Longest single wait on the channel between two liveness checks.
_SLICE = 1.0
#: A run_command waits at most this long after the previous one in its pane
#: for the shell to show its prompt.
_SETTLE = 0.5
_SETTLE_POLL = 0.0005
#: The longest pause between two reads of a pane whose prompt is still to come.
_PROMPT_POLL = 0.02
#: tmux reads ``capture-pane -S/-E`` values beyond this as unparsable.
_CAPTURE_BOUND = 32767


def collect(
    ctx: ToolContext,
    server: ServerRef,
    pane_id: str,
    cursor: Cursor,
    line: TypedLine,
    held: PaneSnapshot | None = None,
    joined: Sequence[str] | None = None,
) -> Output:
    """The command's output so far: rows after its echoed line (see module doc).

    ``held`` is every retained row as read while the shell was held, and
    ``joined`` the same rows with wrapped rows joined (the one-list path);
    without them both are read here.
    """
    snap = held or ctx.backend.snapshot(server, pane_id, start=FOLLOW_PLAN.start, end=None)
    lines, missed, start, end = output_rows(snap, cursor, line, ctx.row_memory)
    state = snap.state
    if joined is not None:
        found = joined_lines(snap, joined, start, end)
        if found is not None:
            return Output(found, lines_missed=missed, held=state)
    first_row, last_row = start - state.history_size, end - state.history_size
    if lines and first_row >= -_CAPTURE_BOUND and last_row <= _CAPTURE_BOUND:
        again = ctx.backend.snapshot(
            server, pane_id, start=first_row, end=last_row, join_wrapped=True
        )
        if again.state == state:  # nothing moved between the two reads
            lines = list(again.rows)
    return Output(lines, lines_missed=missed, held=state)


@tool("Run Command")
async def run_command(
    command: Annotated[
        str, Field(min_length=1, description="Shell command line to run in the pane.")
    ],
    pane_id: PaneId = None,
    session_name: SessionName = None,
    session_id: SessionId = None,
    window_id: WindowId = None,
    timeout: Timeout = 30.0,
    max_lines: Annotated[
        int | None,
        Field(
            ge=1,
            description="Return at most this many of the newest lines (null: all).",
        ),
    ] = 200,
    max_bytes: Annotated[
        int | None,
        Field(ge=1, description="Return at most this many UTF-8 bytes (null: all)."),
    ] = 64000,
    suppress_history: Annotated[
        bool,
        Field(
            description="Type a leading space (HISTCONTROL=ignorespace skips it); off: "
            "add the command to bash/zsh/ksh history."
        ),
    ] = True,
    nested_shell: Annotated[
        bool,
        Field(
            description="Type into a POSIX shell started in the pane's own shell (bash in "
            "bash); it must reach this tmux server through $TMUX, so not one behind ssh or "
            "sudo. Off: any program but the pane's own shell is refused."
        ),
    ] = False,
    prompt_only: Annotated[
        bool,
        Field(
            description="Vouch that the cursor's row shows only the shell's prompt, no typed "
            "text, for a prompt gridmux does not recognise."
        ),
    ] = False,
    socket_name: SocketName = None,
    socket_path: SocketPath = None,
    *,
    context: Context,
    ctx: ToolContext = TOOL_CONTEXT,
) -> RunCommandResult:
    """Run a shell command in a pane; return its exit_status and last output lines (full_output:
    all); cd and export persist. The pane must be a POSIX shell idle at its prompt, else it is
    refused and nothing typed; on timeout the command keeps running (still_running). To watch a
    program, use capture_since or wait_for_text.

    Use for commands you author in a shell pane: it waits until the
    command finishes and returns exit_status ($?) and what the command
    printed (the newest max_lines; full_output: a resource with every
    line), without the command line or the next prompt. It runs in the
    pane's shell (cd and export persist); the pane shows the command as if
    typed and its output. On timeout the result says timed_out (not an
    error) with the output so far; the command keeps running
    (still_running) -- send C-c with send_keys to stop it. The pane must be
    a POSIX shell (sh, bash, zsh, dash, ksh; not fish) at its prompt: a
    pane running another program (cat, vim, sudo), in copy mode, on
    the alternate screen, at a continuation prompt, with text typed at
    the prompt without Enter, with synchronize-panes on (its own value or
    its window's), or running another run_command is refused and nothing
    is typed (nested_shell=true for a shell started in the pane's shell;
    not via ssh or sudo). A prompt ending in neither $, #, %, > nor an
    arrow is refused until a run proved it: pass prompt_only=true once if
    the cursor's row shows only the prompt. For long-running programs you
    only watch, use capture_since or wait_for_text.
    """
    started = time.monotonic()
    server = ctx.server(socket_name, socket_path)
    if not command.strip() or "\0" in command:
        raise tool_error(
            InvalidArgument(
                "command must be non-blank text without NUL characters",
                hint="Pass the shell command line to run, e.g. 'make test'.",
            )
        )
    if "\n" in command or "\r" in command:
        raise tool_error(
            InvalidArgument(
                "command must be a single line",
                hint="Join the commands with ';' or '&&', or put a longer script in a file "
                "and run that.",
            )
        )
    token = secrets.token_hex(8)

    def read_pane(target: str) -> tuple[PaneInfo, PaneSnapshot]:
        try:
            # The window and a sentinel row at least: the typed token pins the
            # output's start, the cursor only narrows the search for it.
            return ctx.backend.pane_snapshot(server, target, start=-(WINDOW + 1))
        except NotFound as exc:
            raise NotFound(f"no pane {target} on this tmux server") from exc

    def check_pane(target: str, pane: PaneInfo, snap: PaneSnapshot) -> PromptRow:
        """The pane takes a typed line now (see the module doc, step 1): the
        cursor's row, split at the cursor."""
        check_typeable(ctx, server, pane)
        foreground = None if nested_shell else ctx.backend.foreground_process_group(server, target)
        state = snap.state
        row = snap.rows[state.history_size + state.cursor_y - snap.top]
        check_at_prompt(pane, row, nested_shell=nested_shell, foreground=foreground)
        if prompt_only:
            return split_row(pane, row)
        proven = ctx.shells.prompts.get((server, target))
        return check_line_empty(pane, row, proven, width=state.width)

    def checked_pane(
        target: str, pane: PaneInfo, snap: PaneSnapshot, previous: Released | None
    ) -> tuple[PaneInfo, PaneSnapshot, PromptRow]:
        """``check_pane``, again while a prompt may still be being drawn: the
        shell was let go a moment ago (until ``previous``'s deadline), or has
        drawn nothing yet (until the run's timeout)."""
        pause = _SETTLE_POLL
        while True:
            try:
                return pane, snap, check_pane(target, pane, snap)
            except PartlyTyped:
                blank = not any(row.strip() for row in snap.rows)
                settling = 0.0 if previous is None else previous.deadline
                until = started + timeout if blank else settling
                if time.monotonic() >= until:
                    raise
            time.sleep(pause)  # in a worker thread, between reads of tmux
            pause = min(pause * 2, _PROMPT_POLL)
            pane, snap = read_pane(target)

    def begin() -> tuple[str, Claim, PaneInfo, PaneSnapshot, PromptRow]:
        """Claim the pane, wait for the previous run's prompt, check the pane."""
        target = ctx.pane_target(server, pane_id, session_name, session_id, window_id)
        check_not_caller(ctx, server, target)
        try:
            held = claim(ctx.backend, server, target, token)
        except Busy as exc:
            raise busy_error(target, exc.abandoned) from None
        except NotFound as exc:
            raise NotFound(f"no pane {target} on this tmux server") from exc
        try:
            previous = ctx.shells.released.pop((server, target), None)
            pane, snap = read_pane(target)
            if previous is None and not is_shell(pane.current_command):
                # Another gridmux process may have let this shell go a moment ago:
                # its tmux client is ending and the prompt is still to come. Wait
                # for it as for one of ours; a program that stays in the
                # foreground is refused below all the same.
                previous = Released(snap.state, time.monotonic() + _SETTLE)
            if previous is not None and not previous.settled(snap.state):
                await_prompt(ctx, server, target, previous)
                pane, snap = read_pane(target)
            pane, snap, prompt = checked_pane(target, pane, snap, previous)
            # The shell is at its prompt: a timed-out run's script is read.
            leftover = ctx.shells.scripts.pop((server, target), None)
            if leftover is not None:
                SCRIPTS.discard(leftover)
            return target, held, pane, snap, prompt
        except BaseException:
            with contextlib.suppress(GridmuxError):
                give_back(ctx.backend, held, typed=False)
            raise

    target, held, pane, snap, prompt = await ctx.call(guarded(begin))
    line = typed_line(
        command,
        target,
        token,
        suppress_history=suppress_history,
        script_path=SCRIPTS.path_for(token),
        cursor_x=pane.cursor_x,
        width=snap.state.width,
        shell=pane.current_command,
    )
    outcome: list[RunCommandResult] = []
    typed = False
    pipe = Pipe(ctx, server, target, line, token)
    bounds = (max_lines, max_bytes)
    try:
        SCRIPTS.write(line.script_path, line.script)
        SCRIPTS.write(line.pipe_path, "")  # tmux's ``cat >>`` appends to this private file
        if ctx.backend.typed_runs_in_one_list():
            typed = True  # the list may type it, whatever else happens
            outcome.append(
                await _run_in_one_list(ctx, target, line, started, timeout, bounds, context, pipe)
            )
        else:
            cursor = first(snap, memory=ctx.row_memory).cursor
            pipe.opened = await ctx.call(
                lambda: ctx.backend.open_pipe(server, target, line.pipe_command)
            )
            await ctx.call(
                lambda: ctx.backend.send_keys(server, target, line.text, literal=True, enter=True)
            )
            typed = True
            outcome.append(
                await _finish(ctx, target, cursor, line, started, timeout, bounds, context, pipe)
            )
    finally:
        with anyio.CancelScope(shield=True):
            await ctx.call(pipe.close)
        SCRIPTS.discard(line.pipe_path)
        if outcome and outcome[0].exit_status is not None:
            # The shell ran the script: it read exactly the typed line, so the
            # line was empty and the row left of the cursor was its prompt.
            ctx.shells.prompts[(server, target)] = prompt
        abandoned = bool(outcome) and outcome[0].still_running
        if typed and (abandoned or not outcome):
            # The shell may still read it: deleted once it is back at its prompt.
            ctx.shells.scripts[(server, target)] = line.script_path
        else:
            SCRIPTS.discard(line.script_path)
        with anyio.CancelScope(shield=True), contextlib.suppress(ToolError):
            await ctx.call(lambda: give_back(ctx.backend, held, abandoned=abandoned, typed=typed))
    return outcome[0]


class Pipe:
    """The run's ``pipe-pane`` into its private file (``_run_output``), when
    it ``opened`` one: the pane had no pipe of its user's."""

    def __init__(
        self, ctx: ToolContext, server: ServerRef, target: str, line: TypedLine, token: str
    ) -> None:
        self.ctx, self.server, self.target, self.line, self.token = ctx, server, target, line, token
        self.opened = False

    def close(self) -> None:
        """Stop piping, if this run's pipe is open (never a user's)."""
        if self.opened:
            self.opened = False
            with contextlib.suppress(GridmuxError):
                self.ctx.backend.pipe_pane(self.server, self.target, None)

    def output(self, screen: Output, status: int | None) -> Output:
        """The command's whole output from the pipe, kept for the resource, if
        it finished and its end came through the pipe; else ``screen``."""
        if not self.opened or status is None:
            return screen
        data = piped_output(self.line.pipe_path, self.token)
        self.close()
        if data is None:
            return screen
        OUTPUTS.keep(self.token, self.line.script_path + ".out", data)
        return Output(terminal_lines(data), False, screen.held, output_uri(self.token))


async def _finish(
    ctx: ToolContext,
    target: str,
    cursor: Cursor,
    line: TypedLine,
    started: float,
    timeout: float,
    bounds: tuple[int | None, int | None],
    context: Context,
    pipe: Pipe,
) -> RunCommandResult:
    server = pipe.server
    progress = Progress(context, started, timeout, f"running a command in pane {target}")
    output: Output | None = None
    try:
        status = await _wait(ctx, server, target, line, timeout, progress)
        screen = await ctx.call(guarded(lambda: collect(ctx, server, target, cursor, line)))
        output = await ctx.call(lambda: pipe.output(screen, status))
    finally:
        # Always release the shell; a server that is gone has nobody waiting.
        with anyio.CancelScope(shield=True), contextlib.suppress(ToolError):
            await ctx.call(lambda: ctx.backend.signal_channel(server, line.ack_channel))
        if output is not None:
            ctx.shells.released[(server, target)] = Released(
                output.held, time.monotonic() + _SETTLE
            )
    assert output is not None  # else the read raised
    return _result(target, status, output, started, timeout, bounds)


def await_prompt(ctx: ToolContext, server: ServerRef, target: str, previous: Released) -> None:
    """Until the previous command's prompt is drawn (or its time is up)."""
    while not previous.settled(ctx.backend.pane_state(server, target)):
        time.sleep(_SETTLE_POLL)  # in a worker thread, between reads of tmux


async def _run_in_one_list(
    ctx: ToolContext,
    target: str,
    line: TypedLine,
    started: float,
    timeout: float,
    bounds: tuple[int | None, int | None],
    context: Context,
    pipe: Pipe,
) -> RunCommandResult:
    """run_command as ONE tmux command list (``TmuxBackend.type_and_wait``):
    the reads before typing, the typing, the wait and the reads after it,
    for a backend that starts a tmux process per list. The pane is claimed
    and checked already; the list checks again that it takes a line."""
    server = pipe.server
    shell = LineToType(
        line.text, line.status_option, line.done_channel, line.ack_channel, line.pipe_command
    )
    progress = Progress(context, started, timeout, f"running a command in pane {target}")
    await progress.report(force=True)
    run = await _type_and_wait(ctx, server, target, shell, None, timeout, progress)
    pipe.opened = run.piped
    if not run.typed:
        checked(lambda: check_typeable(ctx, server, run.pane))
    if run.after is None or not run.typed:
        raise tool_error(
            InvalidArgument(f"pane {target} did not take the command line; nothing ran")
        )
    after, joined = run.after, run.joined
    status = None if run.status is None else parse_status(run.status)
    if status is None and after.state.dead:
        dead = await ctx.call(lambda: _reaped(ctx, server, target, after.state))
        raise tool_error(shell_exited(target, dead))
    cursor = first(run.before, memory=ctx.row_memory).cursor
    screen = await ctx.call(
        guarded(lambda: collect(ctx, server, target, cursor, line, held=after, joined=joined))
    )
    output = await ctx.call(lambda: pipe.output(screen, status))
    ctx.shells.released[(server, target)] = Released(output.held, time.monotonic() + _SETTLE)
    return _result(target, status, output, started, timeout, bounds)


async def _type_and_wait(
    ctx: ToolContext,
    server: ServerRef,
    target: str,
    shell: LineToType,
    settled_from: PaneState | None,
    timeout: float,
    progress: Progress,
) -> TypedRun:
    """``type_and_wait`` in a worker thread, with progress; a cancelled call
    ends the wait (``stop``) and then ends."""
    stop = threading.Event()

    def run() -> TypedRun:
        try:
            return ctx.backend.type_and_wait(
                server,
                target,
                shell,
                window_start=-(WINDOW + 1),
                settled_from=settled_from,
                timeout=timeout,
                stop=stop,
            )
        except NotFound as exc:
            raise NotFound(f"no pane {target} on this tmux server") from exc

    async def report() -> None:
        try:
            while True:
                await anyio.sleep(_SLICE)
                await progress.report()
        finally:
            stop.set()

    typed: list[TypedRun] = []
    failed: list[Exception] = []
    async with anyio.create_task_group() as group:
        group.start_soon(report)
        try:
            typed.append(await ctx.call(guarded(run)))
        except Exception as exc:  # raised below: out of the group, not in a group
            failed.append(exc)
        finally:
            group.cancel_scope.cancel()
    if failed:
        raise failed[0]
    return typed[0]


def _result(
    target: str,
    status: int | None,
    output: Output,
    started: float,
    timeout: float,
    bounds: tuple[int | None, int | None],
) -> RunCommandResult:
    limited = limit_tail(tuple(output.lines), *bounds)
    return RunCommandResult(
        pane_id=target,
        exit_status=status,
        timed_out=status is None,
        still_running=status is None,
        elapsed_seconds=round(time.monotonic() - started, 3),
        output=list(limited.lines),
        output_truncated=limited.truncated,
        output_truncated_lines=limited.truncated_lines,
        output_truncated_bytes=limited.truncated_bytes,
        full_output=output.uri,
        lines_missed=output.lines_missed,
        effective_timeout=timeout,
    )


async def _wait(
    ctx: ToolContext,
    server: ServerRef,
    target: str,
    line: TypedLine,
    timeout: float,
    progress: Progress,
) -> int | None:
    """The exit status, or None when ``timeout`` passes first.

    The budget is spent in slices the backend itself times, so a
    simulated clock makes timeouts exact and instant.
    """
    budget = timeout

    def status_now() -> int | None:
        value = ctx.backend.show_options(server, scope="pane", target=target).get(
            line.status_option
        )
        if value is not None:
            return parse_status(value)
        state = ctx.backend.pane_state(server, target)
        if state.dead:
            raise shell_exited(target, _reaped(ctx, server, target, state))
        return None

    await progress.report(force=True)
    while budget > 0:
        piece = min(_SLICE, budget)
        began = time.monotonic()

        def wait_then_read(piece: float = piece) -> tuple[bool, int | None]:
            signalled = ctx.backend.wait_for(server, line.done_channel, piece)
            return signalled, status_now()

        signalled, status = await ctx.call(wait_then_read)
        budget -= time.monotonic() - began if signalled else piece
        if status is not None:
            return status
        await progress.report()
    return None


def _reaped(ctx: ToolContext, server: ServerRef, target: str, state: PaneState) -> PaneState:
    """``state`` of a dead pane once tmux knows the exit status (``exit_state``).

    A pane that goes away meanwhile (``remain-on-exit`` off) keeps the state
    already read.
    """
    if state.dead_status is not None:
        return state
    try:
        return ctx.backend.exit_state(server, target)
    except NotFound:
        return state


#: This module's tools, in the order clients list them.
TOOLS = (run_command,)


__all__ = ["TOOLS", "run_command"]
