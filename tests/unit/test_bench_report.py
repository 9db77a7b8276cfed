"""The benchmark report: budgets and targets judged, the markdown tables rendered."""

from __future__ import annotations

from bench import report as rpt
from bench.exactness import Tally
from bench.tmuxenv import LIST_PANES_CASE


def sample_report() -> rpt.Report:
    report = rpt.Report(
        meta={"date": "2026-01-01 00:00 UTC", "mode": "quick", "tmux": "tmux 3.3a"},
        servers=[
            rpt.Server("gridmux-off", "gridmux (control mode off)", 1.0),
            rpt.Server("gridmux-on", "gridmux (control mode on)", 0.0, budgets=True),
            rpt.Server(rpt.PREDECESSOR, "libtmux-mcp"),
        ],
    )
    report.latency["list_sessions"] = {
        "gridmux-off": [0.011],
        "gridmux-on": [0.010],
        rpt.PREDECESSOR: [0.030],
    }
    report.server_time["list_sessions"] = {"gridmux-off": [0.009], "gridmux-on": [0.005]}
    report.budgets["list_sessions"] = 5.0
    report.latency["capture_since (follow-up)"] = {
        "gridmux-off": [0.004],
        "gridmux-on": [0.006],
        rpt.PREDECESSOR: [0.003],
    }
    report.server_time["capture_since (follow-up)"] = {
        "gridmux-off": [0.003],
        "gridmux-on": [0.0051],
    }
    report.budgets["capture_since (follow-up)"] = 5.0
    report.spawns["list_sessions"] = {"gridmux-off": 1.0, "gridmux-on": 0.5, rpt.PREDECESSOR: 8}
    report.startup = {"gridmux-off": [1.0], "gridmux-on": [5.5], rpt.PREDECESSOR: [1.2]}
    clean = Tally(reads=3, exact=3).as_dict()
    needless = Tally(reads=3, exact=2, missed_retained=1).as_dict()
    report.exactness["resize-width"] = {"gridmux-off": needless, "gridmux-on": clean}
    report.exactness["bursts"] = {"gridmux-off": needless, rpt.PREDECESSOR: needless}
    return report


def test_the_budget_judges_the_median_time_inside_the_server() -> None:
    report = sample_report()
    rows, passes = rpt.time_rows(report, report.servers[1])
    assert rows == [
        # 5.0 ms inside is within a 5 ms budget; the round trip and the ratio are information
        ["list_sessions", "5.0", "5.0", "≤ 5", "PASS", "10.0", "30.0", "0.33"],
        # 5.1 ms misses it; that the predecessor answers faster is never judged
        ["capture_since (follow-up)", "5.1", "5.1", "≤ 5", "FAIL", "6.0", "3.0", "2.00"],
    ]
    assert passes == [True, False]


def test_the_median_is_judged_not_the_tail() -> None:
    report = sample_report()
    report.server_time["list_sessions"]["gridmux-on"] = [0.001, 0.002, 0.009]
    rows, passes = rpt.time_rows(report, report.servers[1])
    assert rows[0][1:5] == ["2.0", "7.6", "≤ 5", "PASS"]
    assert passes[0] is True


def test_budgets_apply_to_control_mode_on_only() -> None:
    report = sample_report()
    rows, passes = rpt.time_rows(report, report.servers[0])  # 9 ms inside, but mode off
    assert [row[3:5] for row in rows] == [["—", "—"], ["—", "—"]]
    assert rows[0][1] == "9.0"
    assert passes == []


def test_a_budget_without_measurements_or_with_failed_calls_is_missed() -> None:
    report = sample_report()
    report.server_time["list_sessions"]["gridmux-on"] = []  # no audit record found
    assert rpt.time_rows(report, report.servers[1])[1] == [False, False]
    report = sample_report()
    report.latency["list_sessions"]["gridmux-on"] = []  # every call failed
    rows, passes = rpt.time_rows(report, report.servers[1])
    assert rows[0][5] == "error"
    assert passes == [False, False]


def test_a_case_without_budget_is_shown_but_not_judged() -> None:
    report = sample_report()
    report.latency = {"ping": {"gridmux-on": [0.002], rpt.PREDECESSOR: [0.001]}}
    report.budgets = {"ping": None}
    rows, passes = rpt.time_rows(report, report.servers[1])
    assert rows == [["ping", "—", "—", "—", "—", "2.0", "1.0", "2.00"]]
    assert passes == []


def test_round_trips_are_judged_against_the_floor_and_the_predecessor() -> None:
    """Issue 24: a list or read tool within 1.25x of the one-tool FastMCP server's
    round trip, every timed tool within 1/3 of the predecessor's (medians)."""
    report = sample_report()
    report.latency["list_sessions"][rpt.FLOOR] = [0.008]
    report.latency["capture_since (follow-up)"][rpt.FLOOR] = [0.005]
    report.floor_limits = {"list_sessions": 1.25, "capture_since (follow-up)": 1.25}
    report.predecessor_limits = {"list_sessions": 1 / 3, "capture_since (follow-up)": 1 / 3}
    rows, passes = rpt.relative_rows(report, report.servers[1])
    assert rows == [
        # 10 ms against the floor's 8 (1.25: met) and the predecessor's 30 (1/3: met)
        [
            "list_sessions",
            "10.0",
            "8.0",
            "1.25",
            "≤ 1.25",
            "PASS",
            "30.0",
            "0.33",
            "≤ 0.33",
            "PASS",
        ],
        ["capture_since (follow-up)", "6.0", "5.0", "1.20", "≤ 1.25", "PASS"]
        + ["3.0", "2.00", "≤ 0.33", "FAIL"],
    ]
    assert passes == [True, True, True, False]
    assert rpt.relative_rows(report, report.servers[0]) == ([], [])  # no budgets: not judged
    report.latency["list_sessions"][rpt.FLOOR] = [0.007]  # 10 / 7 = 1.43
    del report.latency["capture_since (follow-up)"][rpt.FLOOR]  # a limit without a floor
    assert rpt.relative_rows(report, report.servers[1])[1] == [False, True, False, False]
    text = rpt.render(report)
    assert "### Round trips against FastMCP's floor and libtmux-mcp" in text
    assert rpt.failed(report) == 5 + 3  # the sample's own five, and these three


def test_spawn_targets_differ_by_mode() -> None:
    rows, passes = rpt.spawn_rows(sample_report())
    assert rows == [["list_sessions", "1.00", "PASS", "0.50", "FAIL", "8.00"]]
    assert passes == [True, False]


def test_startup_has_a_budget_and_its_ratio_is_information() -> None:
    rows, passes = rpt.startup_rows(sample_report())
    # 1000 ms is within the 5000 ms budget; 5500 ms is not
    assert [row[3:5] for row in rows] == [["≤ 5000", "PASS"], ["≤ 5000", "FAIL"], ["—", "—"]]
    assert passes == [True, False]


def test_the_tool_list_size_has_issue_15s_budget_beside_the_predecessor() -> None:
    report = sample_report()
    report.tool_list = {"gridmux-off": 44_000, "gridmux-on": 99_000, rpt.PREDECESSOR: 148_000}
    rows, passes = rpt.tool_list_rows(report)
    assert [row[1:5] for row in rows] == [
        ["44000", "44.0 KB", "45 KB", "PASS"],
        ["99000", "99.0 KB", "45 KB", "FAIL"],
        ["148000", "148.0 KB", "—", "—"],
    ]
    assert passes == [True, False]
    assert "### tools/list: bytes a client receives (default tier)" in rpt.render(report)


def test_the_tool_list_of_every_tool_has_its_own_budget() -> None:
    report = sample_report()
    report.tool_list_all = {"gridmux-off": 47_000, "gridmux-on": 51_000, rpt.PREDECESSOR: 160_000}
    rows, passes = rpt.tool_list_rows(report, every_tool=True)
    assert [row[1:6] for row in rows] == [
        ["47000", "47.0 KB", "50 KB", "PASS", "0.29"],
        ["51000", "51.0 KB", "50 KB", "FAIL", "0.32"],
        ["160000", "160.0 KB", "—", "—", "—"],
    ]
    assert passes == [True, False]
    assert "### tools/list: bytes a client receives (every tool" in rpt.render(report)


def test_a_size_over_its_budget_fails_the_run() -> None:
    """The size tables count as the time tables do: in the total the report
    shows and in what ``failed`` (the bench's exit status) counts."""
    report = sample_report()
    base = rpt.failed(report)
    report.tool_list = {"gridmux-on": 45_001, rpt.PREDECESSOR: 148_000}
    report.tool_list_all = {"gridmux-on": 49_000}
    assert rpt.failed(report) == base + 1
    assert f"**Budgets and targets met: 5 of {base + 6}.**" in rpt.render(report)
    assert rpt.verdicts(report).count(False) == rpt.failed(report)


def test_bytes_per_call_are_the_median_of_each_part_for_every_timed_tool() -> None:
    report = sample_report()
    report.answer_bytes["list_panes"] = {
        "gridmux-on": rpt.median_bytes([(900, 300, 350), (1000, 400, 360), (5000, 9, 9)]),
        rpt.PREDECESSOR: rpt.median_bytes([(2100, 1000, 1010)]),
    }
    assert report.answer_bytes["list_panes"]["gridmux-on"] == [1000, 300, 350]
    assert rpt.bytes_rows(report) == [
        ["list_panes", "—", "1,000 / 300 / 350", "2,100 / 1,000 / 1,010"]
    ]
    assert "### Bytes per call: the answer as the client reads it (median)" in rpt.render(report)


def test_list_panes_bytes_a_pane_have_issue_15s_budget() -> None:
    report = sample_report()
    report.answer_bytes[LIST_PANES_CASE] = {
        "gridmux-off": [9000, 1400, 6600],  # 400 a pane: within
        "gridmux-on": [9000, 1400, 6620],  # 401 a pane: over
        rpt.PREDECESSOR: [18000, 8000, 8000],
    }
    rows, passes = rpt.pane_bytes_rows(report)
    assert rows == [
        ["gridmux (control mode off)", "400", "≤ 400", "PASS", "0.50"],
        ["gridmux (control mode on)", "401", "≤ 400", "FAIL", "0.50"],
        ["libtmux-mcp", "800", "—", "—", "—"],
    ]
    assert passes == [True, False]
    assert "### list_panes: bytes a pane (20 panes" in rpt.render(report)


def test_the_size_tables_render_exactly() -> None:
    # the tools/list tables (an int size a server, budgets in KB) and list_panes' bytes
    # a pane (a mean over the panes, rounded for display but judged unrounded): a
    # server missing from a table has no row, a size at the budget passes, a table
    # without the predecessor's size has no ratios
    report = sample_report()
    report.tool_list = {"gridmux-off": 45_000, "gridmux-on": 45_001, rpt.PREDECESSOR: 90_000}
    report.tool_list_all = {"gridmux-on": 48_250}
    report.answer_bytes[LIST_PANES_CASE] = {
        "gridmux-off": [9000, 1400, 6608],  # 400.4 a pane: shown as 400, over
        "gridmux-on": [9000, 1400, 5270],  # 333.5 a pane: shown as 334 (even rounding)
        rpt.PREDECESSOR: [18000, 8000, 8650],  # 832.5 a pane
    }
    text = rpt.render(report)
    assert (
        "\n".join(
            [
                "### list_panes: bytes a pane (20 panes, text + structured)",
                "",
                "| server | bytes a pane | budget | pass | ratio (information) |",
                "|---|---|---|---|---|",
                "| gridmux (control mode off) | 400 | ≤ 400 | FAIL | 0.48 |",
                "| gridmux (control mode on) | 334 | ≤ 400 | PASS | 0.40 |",
                "| libtmux-mcp | 832 | — | — | — |",
                "",
            ]
        )
        in text
    )
    assert (
        "\n".join(
            [
                "### tools/list: bytes a client receives (default tier)",
                "",
                "| server | bytes | size | budget | pass | ratio (information) |",
                "|---|---|---|---|---|---|",
                "| gridmux (control mode off) | 45000 | 45.0 KB | 45 KB | PASS | 0.50 |",
                "| gridmux (control mode on) | 45001 | 45.0 KB | 45 KB | FAIL | 0.50 |",
                "| libtmux-mcp | 90000 | 90.0 KB | — | — | — |",
                "",
                "### tools/list: bytes a client receives (every tool: gridmux --safety"
                " destructive, libtmux-mcp every toolset)",
                "",
                "| server | bytes | size | budget | pass | ratio (information) |",
                "|---|---|---|---|---|---|",
                "| gridmux (control mode on) | 48250 | 48.2 KB | 50 KB | PASS | — |",
                "",
            ]
        )
        in text
    )
    assert rpt.pane_bytes_rows(report)[1] == [False, True]
    assert rpt.tool_list_rows(report)[1] == [True, False]
    assert rpt.tool_list_rows(report, every_tool=True)[1] == [True]


def test_startup_ratio_pairs_the_rounds() -> None:
    report = sample_report()
    # the machine slowed down in round 2 for the predecessor's start-up only, and in
    # round 3 for both: pairing says gridmux was slower in 2 of 3 rounds
    report.startup = {"gridmux-off": [1.0, 1.5, 4.0], rpt.PREDECESSOR: [0.9, 3.0, 3.5]}
    rows, passes = rpt.startup_rows(report)
    assert rows[0][5] == "1.11"  # the ratio of the medians would say 0.50
    assert passes == [True]  # 1500 ms median, within budget: the ratio is not judged


def test_exactness_fails_on_needless_losses_and_silent_reads() -> None:
    rows, passes = rpt.exactness_rows(sample_report())
    verdicts = {(row[0], row[1]): row[-1] for row in rows}
    assert verdicts == {
        ("resize-width", "gridmux (control mode off)"): "FAIL",
        ("resize-width", "gridmux (control mode on)"): "PASS",
        ("bursts", "gridmux (control mode off)"): "FAIL",
        ("bursts", "libtmux-mcp"): "—",  # the predecessor has figures, not targets
    }
    assert passes == [False, True, False]
    assert not rpt.exactness_ok(Tally(reads=1, silent=1).as_dict())
    assert not rpt.exactness_ok(Tally(reads=1, errors=1).as_dict())
    assert rpt.exactness_ok(Tally(reads=3, exact=2, missed_gone=1).as_dict())


def test_render_shows_every_table_and_counts_targets() -> None:
    report = sample_report()
    text = rpt.render(report)
    for heading in (
        "### Time per call: gridmux (control mode off) (ms)",
        "### Time per call: gridmux (control mode on) (ms)",
        "### tmux processes spawned per call",
        "### Start-up",
        "### capture_since exactness",
    ):
        assert heading in text
    # 2 time budgets + 2 spawn targets + 2 start-up budgets + 3 exactness targets;
    # 1 + 1 + 1 + 1 are met
    assert "**Budgets and targets met: 4 of 9.**" in text
    assert rpt.failed(report) == 5
    header = next(line for line in text.splitlines() if line.startswith("| workload"))
    assert header.count("|") - 1 == 13


def test_splice_replaces_only_the_generated_section() -> None:
    fresh = rpt.splice(None, "table one", "# Title\n")
    assert fresh.startswith("# Title\n\n" + rpt.BEGIN)
    assert "table one" in fresh
    again = rpt.splice(fresh + "\nHand-written outro.\n", "table two", "unused")
    assert "table one" not in again
    assert "table two" in again
    assert again.startswith("# Title\n")
    assert again.endswith("\nHand-written outro.\n")
    assert rpt.splice(again, "table two", "unused") == again
    appended = rpt.splice("# Notes\n", "table", "unused")
    assert appended.startswith("# Notes\n\n" + rpt.BEGIN)
    assert appended.endswith(rpt.END + "\n")
