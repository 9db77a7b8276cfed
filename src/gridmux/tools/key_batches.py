"""send_keys_batch: several send_keys operations in order, each to its own pane.

Every operation is checked first (its pane exists and is alive, and it sends
something); if any is invalid nothing is sent. Then each is sent in turn,
within the batch's own time budget.
"""

from __future__ import annotations

import functools
import time
from typing import Annotated, Literal

from fastmcp.exceptions import ToolError
from pydantic import Field

from gridmux.backend import PaneInfo
from gridmux.errors import GridmuxError, InvalidArgument, PaneDead
from gridmux.safety import tool

from ._context import TOOL_CONTEXT, ToolContext
from ._observe_models import SendKeysBatchResult, SendKeysOperation, SendKeysOperationResult
from ._params import SocketName, SocketPath
from ._targets import check_text, check_text_size
from ._waiting import MAX_WAIT_SECONDS

_MAX_OPERATIONS = 1000


@tool("Send Keys Batch")
async def send_keys_batch(
    operations: Annotated[
        list[SendKeysOperation],
        Field(
            min_length=1,
            max_length=_MAX_OPERATIONS,
            description="send_keys operations, run in order; each names its own pane.",
        ),
    ],
    on_error: Annotated[
        Literal["stop", "continue"],
        Field(description="After a failed operation: stop there, or continue with the rest."),
    ] = "stop",
    timeout: Annotated[
        float | None,
        Field(
            gt=0,
            le=MAX_WAIT_SECONDS,
            description="Budget in seconds for the whole batch; operations not started "
            "by then fail.",
        ),
    ] = None,
    socket_name: SocketName = None,
    socket_path: SocketPath = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> SendKeysBatchResult:
    """Send several send_keys operations in order, each to its own pane; all are checked first, and
    nothing is sent if one is invalid. For a shell command's result, use run_command.

    Use for a sequence of raw inputs -- keys for a TUI, answers to
    prompts, lines for a REPL -- in one call. Every operation is checked
    first (its pane must exist and be alive, and it must send something);
    if any is invalid nothing is sent. Each result says whether its
    operation was sent. For a shell command whose result you need, use
    run_command; to read what the keys caused, capture_since.
    """
    started = time.monotonic()
    server = ctx.server(socket_name, socket_path)

    def validate() -> list[str]:
        targets: list[str] = []
        problems: list[str] = []
        resolved: dict[tuple[str | None, ...], PaneInfo] = {}
        total = 0
        for index, op in enumerate(operations):
            try:
                if not op.keys and not op.enter:
                    raise InvalidArgument("keys is empty and enter is false: nothing to send")
                total += check_text("keys", op.keys, parts="several operations")
                where = (op.pane_id, op.session_name, op.session_id, op.window_id)
                if where not in resolved:
                    resolved[where] = ctx.resolve(server, *where)
                pane = resolved[where]
                if pane.dead:
                    raise PaneDead(f"the program in pane {pane.pane_id} has exited")
                ctx.refuse_input_to_caller(server, pane.pane_id)
                targets.append(pane.pane_id)
            except GridmuxError as exc:
                problems.append(f"operations[{index}]: {exc.message}")
        try:
            check_text_size("the operations' keys together", total, parts="several batches")
        except InvalidArgument as exc:
            problems.append(exc.message)
        if problems:
            listed = "; ".join(problems[:10])
            more = f" (and {len(problems) - 10} more)" if len(problems) > 10 else ""
            raise InvalidArgument(
                f"nothing was sent: {listed}{more}",
                hint="Fix those operations (list_panes shows the panes) and send the batch again.",
            )
        return targets

    targets = await ctx.call(validate)
    deadline = None if timeout is None else started + timeout
    results: list[SendKeysOperationResult] = []
    stopped_at: int | None = None
    for index, (op, target) in enumerate(zip(operations, targets, strict=True)):
        began = time.monotonic()
        error: str | None = None
        if deadline is not None and began >= deadline:
            error = f"the batch timeout ({timeout:g} s) passed before this operation"
        else:
            text = f" {op.keys}" if op.suppress_history and op.keys else op.keys
            send = functools.partial(
                ctx.backend.send_keys, server, target, text, literal=op.literal, enter=op.enter
            )
            try:
                await ctx.call(send)
            except ToolError as exc:
                error = str(exc)
        results.append(
            SendKeysOperationResult(
                index=index,
                pane_id=target,
                success=error is None,
                error=error,
                elapsed_seconds=round(time.monotonic() - began, 3),
            )
        )
        if error is not None and on_error == "stop":
            stopped_at = index
            break
    succeeded = sum(1 for r in results if r.success)
    return SendKeysBatchResult(
        results=results,
        succeeded=succeeded,
        failed=len(results) - succeeded,
        stopped_at=stopped_at,
    )


#: This module's tools, in the order clients list them.
TOOLS = (send_keys_batch,)


__all__ = ["TOOLS", "send_keys_batch"]
