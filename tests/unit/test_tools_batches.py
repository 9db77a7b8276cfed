"""The tool-call batches on the simulator: order, on_error, tier ceilings,
refused rows, argument validation and the response size limit.

Only what needs the simulator is here (its fake shell, injected clock,
pane writes, default socket, spies, known fidelity gaps); what holds on both
backends is in tests/contract/test_batches.py."""

from __future__ import annotations

from typing import Any

from fastmcp import Client, FastMCP

from gridmux.safety import DESTROYS, SETS, Tier
from gridmux.tools import batches
from gridmux.tools._batch_models import ToolCallBatchResult, ToolCallOperationResult
from tests.mcp_calls import call


def op(tool_name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool": tool_name, "arguments": arguments}


def add_probes(server: FastMCP) -> list[str]:
    """Register a mutating and a destructive test tool; the list records which ran."""
    ran: list[str] = []

    # Tools outside the safety policy, tagged by hand with the tier they stand for.
    @server.tool(title="Probe Mutating", annotations=SETS, tags={Tier.MUTATING.tag})
    async def probe_mutating() -> str:
        ran.append("probe_mutating")
        return "mutated"

    @server.tool(title="Probe Destructive", annotations=DESTROYS, tags={Tier.DESTRUCTIVE.tag})
    async def probe_destructive() -> str:
        ran.append("probe_destructive")
        return "destroyed"

    return ran


async def batch(client: Client, name: str, *ops: dict[str, Any], **args: Any) -> dict[str, Any]:  # type: ignore[type-arg]
    result: dict[str, Any] = await call(client, name, operations=list(ops), **args)
    return result


async def test_each_batch_runs_its_own_tier_and_below_only(private_server: FastMCP) -> None:
    ran = add_probes(private_server)
    async with Client(private_server) as client:
        mutating = await batch(
            client,
            "call_mutating_tools_batch",
            op("probe_destructive"),
            op("probe_mutating"),
            on_error="continue",
        )
        assert [r["success"] for r in mutating["results"]] == [False, True]
        assert "probe_destructive is a destructive tool" in mutating["results"][0]["error"]
        assert "call_destructive_tools_batch" in mutating["results"][0]["error"]
        assert ran == ["probe_mutating"]

        destructive = await batch(
            client, "call_destructive_tools_batch", op("probe_destructive"), op("probe_mutating")
        )
        assert destructive["succeeded"] == 2
        assert ran == ["probe_mutating", "probe_destructive", "probe_mutating"]


def _row(index: int, text: str) -> ToolCallOperationResult:
    return ToolCallOperationResult(
        index=index,
        tool="capture_pane",
        success=True,
        error=None,
        content=[{"type": "text", "text": text}],
        structured_content={"result": text},
        meta=None,
        elapsed_seconds=0.0,
    )


def test_fit_response_leaves_a_small_result_alone() -> None:
    result = ToolCallBatchResult(
        results=[_row(0, "a"), _row(1, "b")],
        succeeded=2,
        failed=0,
        stopped_at=None,
        response_truncated=False,
        response_truncated_bytes=0,
    )
    assert batches.fit_response(result, 10_000) is result


def test_fit_response_counts_the_bytes_it_removed() -> None:
    result = ToolCallBatchResult(
        results=[_row(i, "y" * 500) for i in range(4)],
        succeeded=4,
        failed=0,
        stopped_at=None,
        response_truncated=False,
        response_truncated_bytes=0,
    )
    before = len(result.model_dump_json().encode())
    fitted = batches.fit_response(result, 3300)
    after = len(fitted.model_dump_json().encode())
    assert after <= 3300
    assert fitted.response_truncated is True
    assert abs(fitted.response_truncated_bytes - (before - after)) <= 10  # the flags' own size
    assert [r.structured_content is None for r in fitted.results] == [True, True, False, False]
