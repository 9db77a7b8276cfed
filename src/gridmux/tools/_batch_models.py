"""Input and result models of the tool-call batches (``call_*_tools_batch``).

Field names follow the predecessor's batch results, so agents written for it
read ours the same way.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class ToolCallOperation(BaseModel):
    """One step of a batch: a tool name and the arguments it takes."""

    model_config = ConfigDict(extra="forbid")

    tool: str = Field(min_length=1, description="Name of the tool to call, e.g. 'list_panes'.")
    arguments: dict[str, Any] = Field(
        default_factory=dict,
        description="The tool's arguments, exactly as a direct call would take them.",
    )


class ToolCallOperationResult(BaseModel):
    """What one step returned, or why it failed."""

    model_config = ConfigDict(frozen=True)

    index: int = Field(description="Position of the operation in the batch, from 0.")
    tool: str
    success: bool
    error: str | None = Field(description="Why the step failed (with a hint); null on success.")
    content: list[dict[str, Any]] = Field(
        description="The tool's MCP content blocks (as a direct call returns them)."
    )
    structured_content: dict[str, Any] | None = Field(
        description="The tool's structured result; null for plain-text results and failures."
    )
    meta: dict[str, Any] | None = Field(description="The tool result's _meta, if any.")
    elapsed_seconds: float = Field(description="Time this step took, in seconds.")


class ToolCallBatchResult(BaseModel):
    """Every step's result, in order, plus counts."""

    model_config = ConfigDict(frozen=True)

    results: list[ToolCallOperationResult] = Field(
        description="One row per operation that ran (with on_error='stop', up to the failure)."
    )
    succeeded: int
    failed: int
    stopped_at: int | None = Field(
        description="Index of the failed operation that stopped the batch (on_error='stop')."
    )
    response_truncated: bool = Field(
        description=(
            "True when nested payloads were replaced by a placeholder, oldest first, "
            "to keep the whole response under the size limit."
        )
    )
    response_truncated_bytes: int = Field(description="Bytes removed from the response.")
