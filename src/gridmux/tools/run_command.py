"""run_command's flow: type one line, wait for the shell, answer with the output.

The whole run is one worker-thread call (``_run``), going one way: the
guard (``_run_guard``: every refusal, all of it before anything is typed),
the typing, the wait, the reads, the release. Step by step:

1. ``_run_guard.take``: validate the command, claim the pane, wait for the
   previous run's prompt, prove the pane takes a line; take a capture_since
   cursor.
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
   checking between slices that the pane is still alive and that the call
   was not cancelled, and sending progress. Completion and the exit status
   come from the pane option, never from the screen.
4. While the shell is held, read the pane (``_run_screen``): the rows after
   the redrawn command, exact when the capture core or the untouched grid
   proves where it starts, with wrapped rows joined. When that read holds
   every line the command printed, it is the answer and the full output;
   else, when the run's pipe is open and the command finished, the output
   is taken from the pipe (``_run_output``: every line the command printed,
   whatever ``history-limit`` and the screen kept, so ``lines_missed`` is
   false). The pipe is closed either way. The lines are kept (0600, beside
   the script) for the resource ``tmux://runs/T/output`` the result names as
   ``full_output``. The result holds the newest ``max_lines`` (200) lines
   within ``max_bytes`` (64,000), with ``output_truncated_lines`` and
   ``output_truncated_bytes`` saying what was left out. A timed-out run, or
   one whose end never came through the pipe, answers from the screen (no
   ``full_output``).
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

The same steps run over either transport (with control mode off each step
is a tmux process of its own) and on the simulator.

Assumptions: a POSIX shell (sh, bash, zsh, dash, ksh; fish and other
shells are refused) idle at its prompt with an empty command line (checked,
see the guard: typed text is seen by its echo, so text typed after an
unproven prompt that itself ends like a prompt, ``echo $``, is not
detected), on this machine as this user (it reads the script), with
``tmux`` on its PATH and ``$TMUX`` set (tmux sets it), whose line editor
echoes the typed line from the prompt's cursor column (bash, zsh, dash and
ksh do). Output the shell has written is in the grid by the time tmux
handles the signal, since the shell writes it before it even starts the
tmux client.
"""

from __future__ import annotations

import contextlib
import functools
import secrets
import time
from typing import Annotated

import anyio.from_thread
from fastmcp import Context
from pydantic import Field

from gridmux.backend import PaneState, ServerRef
from gridmux.capture import Cursor, first, limit_tail
from gridmux.errors import GridmuxError, NotFound
from gridmux.safety import tool

from ._command_line import TypedLine, parse_status, typed_line
from ._context import TOOL_CONTEXT, ToolContext
from ._observe_models import RunCommandResult
from ._params import PaneId, SessionId, SessionName, SocketName, SocketPath, WindowId
from ._refusals import guarded
from ._run_guard import SETTLE, RunRequest, Taken, shell_exited, take
from ._run_output import Pipe
from ._run_screen import Output, read_screen
from ._run_script import SCRIPTS
from ._shells import Released, give_back
from ._waiting import Progress, Timeout

#: Longest single wait on the channel between two liveness checks.
_SLICE = 1.0


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
    request = RunRequest(
        command=command,
        pane_id=pane_id,
        session_name=session_name,
        session_id=session_id,
        window_id=window_id,
        timeout=timeout,
        suppress_history=suppress_history,
        nested_shell=nested_shell,
        prompt_only=prompt_only,
        started=started,
        token=secrets.token_hex(8),
    )
    output, status, target = await ctx.call_waiting(
        guarded(functools.partial(_run, ctx, server, request, context))
    )
    limited = limit_tail(tuple(output.lines), max_lines, max_bytes)
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


def _run(
    ctx: ToolContext, server: ServerRef, request: RunRequest, context: Context
) -> tuple[Output, int | None, str]:
    """The whole run, in a worker thread: its output, the exit status (None:
    timed out) and the pane."""
    taken = take(ctx, server, request)
    target, token = taken.pane_id, request.token
    line = typed_line(
        request.command,
        target,
        token,
        suppress_history=request.suppress_history,
        script_path=SCRIPTS.path_for(token),
        cursor_x=taken.pane.cursor_x,
        width=taken.snap.state.width,
        shell=taken.pane.current_command,
    )
    pipe = Pipe(
        ctx.backend, server, target, token, path=line.pipe_path, kept=line.script_path + ".out"
    )
    done: tuple[Output, int | None] | None = None
    typed = False
    try:
        SCRIPTS.write(line.script_path, line.script)
        SCRIPTS.write(line.pipe_path, "")  # tmux's ``cat >>`` appends to this private file
        cursor = first(taken.snap, memory=ctx.row_memory).cursor
        pipe.open(line.pipe_command)
        ctx.backend.send_keys(server, target, line.text, literal=True, enter=True)
        typed = True
        progress = Progress(
            context, request.started, request.timeout, f"running a command in pane {target}"
        )
        done = _finish(ctx, server, target, cursor, line, request.timeout, pipe, progress)
    finally:
        _end(ctx, server, taken, line, pipe, done, typed=typed)
    return (*done, target)


def _finish(
    ctx: ToolContext,
    server: ServerRef,
    target: str,
    cursor: Cursor,
    line: TypedLine,
    timeout: float,
    pipe: Pipe,
    progress: Progress,
) -> tuple[Output, int | None]:
    """Wait for the command, read its output, let the shell go (steps 3-5)."""
    output: Output | None = None
    try:
        status = _wait(ctx, server, target, line, timeout, progress)
        screen = read_screen(ctx, server, target, cursor, line.needle)
        output = pipe.output(screen, status)
    finally:
        # Always release the shell; a server that is gone has nobody waiting.
        with contextlib.suppress(GridmuxError):
            ctx.backend.signal_channel(server, line.ack_channel)
        if output is not None:
            ctx.shells.released[(server, target)] = Released(output.held, time.monotonic() + SETTLE)
    return output, status


def _end(
    ctx: ToolContext,
    server: ServerRef,
    taken: Taken,
    line: TypedLine,
    pipe: Pipe,
    done: tuple[Output, int | None] | None,
    *,
    typed: bool,
) -> None:
    """Close the pipe, forget or keep the script, give the claim back."""
    target = taken.pane_id
    pipe.close()
    SCRIPTS.discard(line.pipe_path)
    if done is not None and done[1] is not None:
        # The shell ran the script: it read exactly the typed line, so the
        # line was empty and the row left of the cursor was its prompt.
        ctx.shells.prompts[(server, target)] = taken.prompt
    abandoned = done is not None and done[1] is None
    if typed and (abandoned or done is None):
        # The shell may still read it: deleted once it is back at its prompt.
        ctx.shells.scripts[(server, target)] = line.script_path
    else:
        SCRIPTS.discard(line.script_path)
    with contextlib.suppress(GridmuxError):
        give_back(ctx.backend, taken.claim, abandoned=abandoned, typed=typed)


def _wait(
    ctx: ToolContext,
    server: ServerRef,
    target: str,
    line: TypedLine,
    timeout: float,
    progress: Progress,
) -> int | None:
    """The exit status, or None when ``timeout`` passes first.

    The budget is spent in slices the backend itself times, so a
    simulated clock makes timeouts exact and instant. Between slices the
    call's cancellation ends the wait (the caller's cleanup still runs).
    """
    budget = timeout
    _report(progress, force=True)
    while budget > 0:
        piece = min(_SLICE, budget)
        began = time.monotonic()
        signalled = ctx.backend.wait_for(server, line.done_channel, piece)
        budget -= time.monotonic() - began if signalled else piece
        status = _status(ctx, server, target, line)
        if status is not None:
            return status
        _report(progress)
    return None


def _report(progress: Progress, *, force: bool = False) -> None:
    """Progress to the client, from the worker thread; raise if the call was
    cancelled."""
    anyio.from_thread.check_cancelled()
    anyio.from_thread.run(functools.partial(progress.report, force=force))


def _status(ctx: ToolContext, server: ServerRef, target: str, line: TypedLine) -> int | None:
    """The exit status the shell stored, None while it runs; an error if it exited."""
    value = ctx.backend.show_options(server, scope="pane", target=target).get(line.status_option)
    if value is not None:
        return parse_status(value)
    state = ctx.backend.pane_state(server, target)
    if state.dead:
        raise shell_exited(target, _reaped(ctx, server, target, state))
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
