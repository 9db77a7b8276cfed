"""The agent-workflow section of the bench report: totals, ratios, bytes per call."""

from __future__ import annotations

from typing import Any

from bench.clients import ServerSpec
from bench.report import Report, Server, render
from bench.workflow import destructive


def figures(tools_list: int, steps: list[tuple[str, int, int, int]]) -> dict[str, Any]:
    rows = [{"tool": t, "bytes": b, "content": c, "structured": s} for t, b, c, s in steps]
    calls = sum(size for _, size, _, _ in steps)
    return {"tools_list": tools_list, "calls": calls, "total": tools_list + calls, "steps": rows}


def test_the_section_gives_totals_ratios_and_per_call_means() -> None:
    report = Report(meta={}, servers=[Server("gridmux", "gridmux"), Server("predecessor", "old")])
    report.workflow = {
        "gridmux": figures(
            1000, [("capture_since", 300, 100, 120), ("capture_since", 100, 40, 50)]
        ),
        "predecessor": figures(
            3000, [("capture_since", 400, 150, 150), ("capture_since", 400, 150, 150)]
        ),
    }
    text = render(report)
    assert "| **total** | **1,400** | **3,800** |" in text
    assert "| ratio to libtmux-mcp, total | 0.37 | 1.00 |" in text
    assert "| ratio to libtmux-mcp, calls only (without tools/list) | 0.50 | 1.00 |" in text
    assert "| `capture_since` | 2 | 200 / 70 / 85 | 400 / 150 / 150 |" in text


def test_no_workflow_no_section() -> None:
    report = Report(meta={}, servers=[Server("gridmux", "gridmux")])
    assert "Agent workflow" not in render(report)


def test_both_servers_run_the_script_at_the_tier_that_may_kill() -> None:
    ours = destructive(ServerSpec("gridmux", "gridmux", ("gridmux", "--safety", "mutating")))
    assert ours.argv == ("gridmux", "--safety", "destructive")
    bare = destructive(ServerSpec("gridmux", "gridmux", ("gridmux",)))
    assert bare.argv == ("gridmux", "--safety", "destructive")
    theirs = destructive(ServerSpec("predecessor", "old", ("libtmux-mcp",), {"A": "1"}))
    assert theirs.env == {"A": "1", "LIBTMUX_TOOLSETS": "inspect,manage,execute,teardown"}
