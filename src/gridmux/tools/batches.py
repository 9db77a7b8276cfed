"""Batch tools: call other tools in order, each within the batch's tier ceiling.

Every step is a real MCP tool call made through the server
(``FastMCP.call_tool(..., run_middleware=True)``), so it gets the same
argument validation, safety tier gate and audit record as a direct call. On
top of that a batch never runs a tool above its own tier, never nests another
batch, and refuses tools that wait on their own deadline (a batch of waits
could hold a request open for hours). Each refusal fails its own row, so
``on_error='continue'`` carries on with the next step.
"""

from __future__ import annotations

import difflib
import time
from collections.abc import Collection
from typing import Annotated, Any, Literal

from fastmcp import FastMCP
from fastmcp.dependencies import CurrentFastMCP
from fastmcp.exceptions import NotFoundError, ToolError, ValidationError
from fastmcp.tools.base import ToolResult
from pydantic import Field
from pydantic import ValidationError as PydanticValidationError

from gridmux.safety import Tier, batch_ceiling, refusal, tier_of, tool

from ._batch_models import ToolCallBatchResult, ToolCallOperation, ToolCallOperationResult
from ._context import TOOL_CONTEXT, ToolContext

#: The batch tools themselves: a batch never runs another batch.
BATCH_TOOLS = frozenset(
    {"call_readonly_tools_batch", "call_mutating_tools_batch", "call_destructive_tools_batch"}
)
#: Tools bounded only by their own (long) timeout: each is refused per row.
SELF_BOUNDED_TOOLS = frozenset(
    {"run_command", "wait_for_text", "wait_for_content_change", "wait_for_channel"}
)
#: The whole batch result (as JSON) is kept under this size by eliding payloads.
RESPONSE_LIMIT_BYTES = 1_000_000

Operations = Annotated[
    list[ToolCallOperation],
    Field(
        min_length=1,
        max_length=1000,
        description=(
            "The calls to make, in order (1 to 1000): each {tool, arguments}, "
            'e.g. {"tool": "list_panes", "arguments": {"session_name": "dev"}}.'
        ),
    ),
]
OnError = Annotated[
    Literal["stop", "continue"],
    Field(description="'stop' at the first failed call (default), or 'continue' with the rest."),
]


class _Refused(ToolError):
    """A step the batch will not run (unknown, nested batch, self-bounded, above the ceiling)."""


def _validation_text(exc: ValidationError) -> str:
    """A schema failure without the rejected values (they may be secrets)."""
    cause = exc.__cause__
    if not isinstance(cause, PydanticValidationError):
        return "invalid arguments"
    parts = []
    for err in cause.errors(include_input=False, include_url=False):
        loc = ".".join(str(p) for p in err["loc"]) or "arguments"
        parts.append(f"{loc}: {err['msg']}")
    return "invalid arguments: " + "; ".join(parts)


def _block_dict(block: Any) -> dict[str, Any]:
    dumped: dict[str, Any] = block.model_dump(mode="json", by_alias=True, exclude_none=True)
    return dumped


def _error_text_of(result: ToolResult) -> str:
    text = "".join(getattr(block, "text", "") for block in result.content)
    return text or "the tool reported an error"


class _BatchRunner:
    def __init__(self, mcp: FastMCP, server_tier: Tier, selected: Collection[str] | None) -> None:
        self._mcp = mcp
        self._server_tier = server_tier
        self._selected = selected  # the server's tool selection: a tool switched off stays off

    async def run(
        self,
        operations: list[ToolCallOperation],
        on_error: Literal["stop", "continue"],
        *,
        ceiling: Tier,
        batch_name: str,
    ) -> ToolCallBatchResult:
        rows: list[ToolCallOperationResult] = []
        stopped_at: int | None = None
        for index, operation in enumerate(operations):
            row = await self._run_one(index, operation, ceiling=ceiling, batch_name=batch_name)
            rows.append(row)
            if not row.success and on_error == "stop":
                stopped_at = index
                break
        succeeded = sum(1 for r in rows if r.success)
        result = ToolCallBatchResult(
            results=rows,
            succeeded=succeeded,
            failed=len(rows) - succeeded,
            stopped_at=stopped_at,
            response_truncated=False,
            response_truncated_bytes=0,
        )
        return fit_response(result, RESPONSE_LIMIT_BYTES)

    async def _run_one(
        self, index: int, operation: ToolCallOperation, *, ceiling: Tier, batch_name: str
    ) -> ToolCallOperationResult:
        started = time.perf_counter()
        name = operation.tool
        try:
            await self._check(name, ceiling=ceiling, batch_name=batch_name)
            with batch_ceiling(ceiling):
                result = await self._mcp.call_tool(name, operation.arguments, run_middleware=True)
        except ValidationError as exc:
            error = _validation_text(exc)
        except NotFoundError:  # hidden since _check looked: the server's gate has the last word
            error = await self._unknown_text(name)
        except Exception as exc:  # every failure of a nested call becomes its row's error
            error = str(exc) or type(exc).__name__
        else:
            if result.is_error:
                error = _error_text_of(result)
            else:
                return ToolCallOperationResult(
                    index=index,
                    tool=name,
                    success=True,
                    error=None,
                    content=[_block_dict(b) for b in result.content],
                    structured_content=result.structured_content,
                    meta=result.meta,
                    elapsed_seconds=round(time.perf_counter() - started, 3),
                )
        return ToolCallOperationResult(
            index=index,
            tool=name,
            success=False,
            error=error,
            content=[],
            structured_content=None,
            meta=None,
            elapsed_seconds=round(time.perf_counter() - started, 3),
        )

    async def _check(self, name: str, *, ceiling: Tier, batch_name: str) -> None:
        if name in BATCH_TOOLS:
            raise _Refused(
                f"{name} is a batch tool and batches do not nest\n"
                "Hint: put its operations into this batch directly."
            )
        if name in SELF_BOUNDED_TOOLS:
            raise _Refused(
                f"{name} waits up to its own timeout and cannot run inside a batch\n"
                f"Hint: call {name} directly."
            )
        found = await self._mcp.local_provider.get_tool(name)
        if found is None:
            raise _Refused(await self._unknown_text(name))
        refused = refusal(
            name,
            tier_of(found),
            self._server_tier,
            ceiling=ceiling,
            batch=batch_name,
            selected=self._selected,
        )
        if refused is not None:
            raise _Refused(refused)

    async def _unknown_text(self, name: str) -> str:
        known = [t.name for t in await self._mcp.list_tools(run_middleware=False)]
        close = difflib.get_close_matches(name, known, n=3)
        hint = f"did you mean {', '.join(close)}?" if close else "list the tools to see the names."
        return f"unknown tool {name!r}\nHint: {hint}"


def _placeholder(removed: int, limit: int) -> list[dict[str, Any]]:
    text = (
        f"[{removed} bytes of this result elided: the batch response exceeded {limit} bytes; "
        "call this tool directly, or split the batch]"
    )
    return [{"type": "text", "text": text}]


def fit_response(result: ToolCallBatchResult, limit: int) -> ToolCallBatchResult:
    """Replace nested payloads by a placeholder, first row first, until ``result`` fits.

    ``response_truncated_bytes`` counts the payload bytes removed.
    """
    size = len(result.model_dump_json().encode())
    if size <= limit:
        return result
    budget = limit - 32  # room for the truncation fields' own new values
    rows = list(result.results)
    removed = 0
    for i, row in enumerate(rows):
        if size <= budget:
            break
        if not row.content and row.structured_content is None:
            continue
        before = len(row.model_dump_json().encode())
        elided = row.model_copy(
            update={"content": _placeholder(before, limit), "structured_content": None}
        )
        rows[i] = elided
        delta = before - len(elided.model_dump_json().encode())
        size -= delta
        removed += delta
    return result.model_copy(
        update={"results": rows, "response_truncated": True, "response_truncated_bytes": removed}
    )


#: The server a batch calls tools on: the one handling the request (injected).
_SERVER: FastMCP = CurrentFastMCP()


def _runner(mcp: FastMCP, ctx: ToolContext) -> _BatchRunner:
    return _BatchRunner(mcp, ctx.settings.safety, ctx.settings.selected_tools())


@tool("Call Readonly Tools Batch")
async def call_readonly_tools_batch(
    operations: Operations,
    on_error: OnError = "stop",
    *,
    ctx: ToolContext = TOOL_CONTEXT,
    mcp: FastMCP = _SERVER,
) -> ToolCallBatchResult:
    """Call several readonly tools in order in one request and return every result; each call is
    validated and gated like a direct one.

    Use to take several looks in one turn (list panes, capture two panes,
    read an option). Each call is validated and gated like a direct call;
    tools that change anything fail their row, whatever the server allows.
    """
    return await _runner(mcp, ctx).run(
        operations, on_error, ceiling=Tier.READONLY, batch_name="call_readonly_tools_batch"
    )


@tool("Call Mutating Tools Batch")
async def call_mutating_tools_batch(
    operations: Operations,
    on_error: OnError = "stop",
    *,
    ctx: ToolContext = TOOL_CONTEXT,
    mcp: FastMCP = _SERVER,
) -> ToolCallBatchResult:
    """Call readonly and mutating tools in order in one request and return every result; kill_* and
    tools that wait (run_command, wait_for_*) fail their row.

    Use for a short scripted workflow made of ordinary tools (create a
    session, split it, type into the panes). Each call is validated and
    gated like a direct call; destructive tools (kill_*) fail their row.
    Tools that wait on their own timeout (run_command, wait_for_*) cannot
    be batched.
    """
    return await _runner(mcp, ctx).run(
        operations, on_error, ceiling=Tier.MUTATING, batch_name="call_mutating_tools_batch"
    )


@tool("Call Destructive Tools Batch")
async def call_destructive_tools_batch(
    operations: Operations,
    on_error: OnError = "stop",
    *,
    ctx: ToolContext = TOOL_CONTEXT,
    mcp: FastMCP = _SERVER,
) -> ToolCallBatchResult:
    """Call tools of any tier in order, kill_* included, and return every result. Prefer the
    readonly or mutating batch unless a workflow must end tmux objects.

    Use only when a workflow must end or replace tmux objects; prefer the
    readonly or mutating batch otherwise. Each call is validated and gated
    like a direct call.
    """
    return await _runner(mcp, ctx).run(
        operations,
        on_error,
        ceiling=Tier.DESTRUCTIVE,
        batch_name="call_destructive_tools_batch",
    )


#: This module's tools, in the order clients list them.
TOOLS = (
    call_readonly_tools_batch,
    call_mutating_tools_batch,
    call_destructive_tools_batch,
)


__all__ = [
    "BATCH_TOOLS",
    "RESPONSE_LIMIT_BYTES",
    "SELF_BOUNDED_TOOLS",
    "TOOLS",
    "call_destructive_tools_batch",
    "call_mutating_tools_batch",
    "call_readonly_tools_batch",
    "fit_response",
]
