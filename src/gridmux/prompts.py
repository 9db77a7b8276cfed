"""Prompts: short, parameterised recipes that chain gridmux's tools.

Each prompt renders one user message telling the model which tools to call,
in which order, and how to read their results. Arguments are checked first
(a malformed pane id is a prompt error with a hint, not a recipe that fails
later), and user text is quoted as JSON so it reaches the tools verbatim.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import Annotated, get_type_hints

from fastmcp import FastMCP
from fastmcp.exceptions import PromptError
from pydantic import Field

from gridmux.errors import InvalidArgument
from gridmux.tools import check_id

PaneArg = Annotated[str, Field(description="Pane id, e.g. '%3' (see list_panes).")]

#: What search_panes looks for when no pattern is given (a regex, any case).
ERROR_PATTERN = r"error|exception|traceback|failed|fatal|panic"


def _pane(pane_id: str) -> str:
    try:
        check_id("pane", pane_id)
    except InvalidArgument as exc:
        raise PromptError(f"{exc.message}\nHint: {exc.hint}") from exc
    return pane_id


def _q(text: str) -> str:
    """``text`` as a JSON string literal, to be passed to a tool unchanged."""
    return json.dumps(text)


def _shell_word(text: str | None) -> str:
    """``text`` single-quoted for a POSIX shell."""
    return "'" + (text or "").replace("'", "'\\''") + "'"


def run_and_wait(
    command: Annotated[str, Field(description="Shell command line to run.")],
    pane_id: PaneArg,
    timeout: Annotated[
        float, Field(gt=0, description="Seconds to wait for the command to finish.")
    ] = 30.0,
) -> str:
    """Run a shell command in a pane, wait for it, and judge it by its exit status."""
    pane = _pane(pane_id)
    return f"""\
Run this command in tmux pane {pane} and tell me whether it worked:

    {_q(command)}

1. Call run_command with command={_q(command)}, pane_id={_q(pane)}, timeout={timeout:g}.
2. If timed_out is false, exit_status decides: 0 is success, anything else a
   failure. Quote the relevant part of output (what the command printed); do
   not judge from the text alone.
3. If timed_out is true, the command is still running (still_running). Say
   so, then follow it with capture_since (keep the cursor it returns) or
   wait_for_text for the line you expect; send C-c with send_keys only if it
   must be stopped.

If the pane is not at a shell prompt (a REPL, an editor, a full-screen
program), run_command cannot wrap the command. Then: call capture_since on the
pane to get a cursor, type the text with send_keys, and read the answer with
capture_since and that cursor (or wait_for_text for the expected output).
"""


def tail_log(
    pane_id: PaneArg,
    log_path: Annotated[
        str | None,
        Field(description="A log file to start `tail -F` on in the pane first (optional)."),
    ] = None,
    watch_for: Annotated[
        str | None, Field(description="Text worth waking up for (optional).")
    ] = None,
) -> str:
    """Follow what a pane prints, reading only what is new each time."""
    pane = _pane(pane_id)
    start = (
        f"First start the log in the pane: send_keys with keys="
        f"{_q('tail -F ' + _shell_word(log_path))}, pane_id={_q(pane)}.\n\n"
        if log_path
        else ""
    )
    wait = (
        f"Between reads, wait_for_text with patterns=[{_q(watch_for)}] and pane_id="
        f"{_q(pane)} blocks until that text appears, instead of polling.\n"
        if watch_for
        else "Between reads, wait_for_text with patterns=null waits for any new output.\n"
    )
    return f"""\
Follow the output of tmux pane {pane} over the next turns.

{start}1. Call capture_since with pane_id={_q(pane)}. It returns the screen and a
   cursor; remember the cursor.
2. Each time you look again, call capture_since with cursor=<the last cursor>
   and read only `lines`: they are the rows written since. Replace the stored
   cursor with the one just returned.
3. Read the flags: lines_missed=true means some rows could not be recovered
   (cleared, trimmed or reflowed) and lines is the current screen instead;
   may_repeat=N means the first N lines may be ones you already have;
   first_line_rewritten=true means lines[0] is a new version of the last line
   you saw; truncated=true means the oldest new rows were cut (raise max_lines
   or read more often). If the cursor is refused (the pane died or was
   respawned), call capture_since without one to start over.
{wait}"""


def find_error_pane(
    pattern: Annotated[
        str, Field(description="Regular expression to look for (any case).")
    ] = ERROR_PATTERN,
) -> str:
    """Search every pane for an error and explain what failed, without acting."""
    return f"""\
Find which tmux pane shows an error, and explain it. Do not run anything yet.

1. Call search_panes with pattern={_q(pattern)}, regex=true. Each match names a
   pane (pane_id, session and window) and the matching lines.
2. No match? Widen the search into history with content_start (e.g. -2000), or
   list_panes to see what is running where.
3. For each likely pane, call snapshot_pane to see the screen around the error,
   its current command and working directory; capture_pane with a negative
   start reads further back.
4. Report: which pane, the error text quoted exactly, the likely cause, and
   what you would do next. Ask before typing into any pane.
"""


def diagnose_failing_pane(pane_id: PaneArg) -> str:
    """Work out why a pane's program is failing, by reading only."""
    pane = _pane(pane_id)
    return f"""\
Something in tmux pane {pane} is failing. Find out why, by reading only.

1. Call snapshot_pane with pane_id={_q(pane)}: screen, cursor, current command,
   working directory, and whether a full-screen program (alternate_on) or copy
   mode is active. If content_truncated is true, call it again with
   max_lines=null.
2. Read further back with capture_pane (negative start) if the cause scrolled
   away; pane_dead=true means the program exited.
3. To watch it fail again, call capture_since for a cursor and read with it
   later.
4. Write down the most likely cause and the evidence for it. Do not send keys
   or run commands until asked.
"""


def build_dev_workspace(
    session_name: Annotated[str, Field(description="Name for the new session.")],
    log_command: Annotated[str, Field(description="Command for the log pane.")] = "watch -n 1 date",
) -> str:
    """Create a session with an editor, a shell and a log pane."""
    return f"""\
Build a tmux workspace called {_q(session_name)} with three panes.

1. create_session with session_name={_q(session_name)}; note active_pane_id
   (the editor pane).
2. split_window on that pane with direction="right" (the shell pane), then
   split_window on the new pane with direction="below" (the log pane). Note
   each pane_id the calls return.
3. send_keys "vi" to the editor pane and {_q(log_command)} to the log pane.
4. Confirm each started: wait_for_text with patterns=null on the pane, or a
   snapshot_pane.
Report the three pane ids and what runs in each.
"""


def interrupt_gracefully(pane_id: PaneArg) -> str:
    """Stop what a pane runs with C-c, checking the result, never escalating alone."""
    pane = _pane(pane_id)
    return f"""\
Stop the program running in tmux pane {pane}, gently.

1. get_pane_info with pane_id={_q(pane)}: note pane_current_command.
2. send_keys with keys="C-c", pane_id={_q(pane)}, enter=false.
3. wait_for_text with a pattern for the shell prompt (for example regex=true,
   patterns=["[$#%>] ?$"]) and a short timeout, then get_pane_info again.
4. If pane_current_command is now the shell, report success. If not, say what
   still runs and ask before anything stronger (C-\\, kill_pane, respawn_pane).
"""


#: Each recipe, its title and the tools its steps need (it is offered only
#: where they all are), in the order clients list them.
RECIPES = (
    (run_and_wait, "Run a Command and Check It", ("run_command",)),
    (tail_log, "Follow a Pane's Output Across Turns", ("capture_since",)),
    (find_error_pane, "Find the Pane Showing an Error", ("search_panes", "snapshot_pane")),
    (diagnose_failing_pane, "Diagnose a Failing Pane", ("snapshot_pane",)),
    (
        build_dev_workspace,
        "Build a Three-Pane Workspace",
        ("create_session", "split_window", "send_keys"),
    ),
    (interrupt_gracefully, "Interrupt a Pane's Program Gently", ("send_keys", "get_pane_info")),
)


def register(mcp: FastMCP, offered: Collection[str]) -> None:
    """Add the recipes whose tools are all ``offered`` to ``mcp``."""
    for fn, title, needs in RECIPES:
        if not set(needs) <= set(offered):
            continue
        # FastMCP 4.1.2 converts prompt arguments with the raw annotations, which
        # are strings under postponed evaluation: hand it the resolved types.
        fn.__annotations__ = get_type_hints(fn, include_extras=True)
        mcp.prompt(name=fn.__name__, title=title)(fn)


__all__ = ["ERROR_PATTERN", "register"]
