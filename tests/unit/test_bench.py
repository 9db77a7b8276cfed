"""The benchmark harness's pure parts: statistics, read classification, report."""

from __future__ import annotations

import math
import subprocess
from pathlib import Path

import pytest
from bench import report as rpt
from bench.exactness import (
    Outcome,
    Read,
    ReaderState,
    Tally,
    Verdict,
    classify,
    parse,
    start_state,
)
from bench.stats import Summary, percentile, ratio
from bench.tmuxenv import LIST_PANES_CASE, TmuxEnv, tmux_commands
from bench.writer import numbered


def L(n: int) -> str:
    return f"L{n:07d}"


def lines(first: int, last: int) -> list[str]:
    return [L(n) for n in range(first, last + 1)]


# -- statistics ----------------------------------------------------------------


def test_percentile_interpolates_between_order_statistics() -> None:
    assert percentile([3.0, 1.0, 2.0], 0.5) == 2.0
    assert percentile([4.0, 1.0, 3.0, 2.0], 0.5) == 2.5
    assert percentile([float(n) for n in range(1, 11)], 0.9) == pytest.approx(9.1)
    assert percentile([7.0], 0.9) == 7.0
    assert percentile([1.0, 5.0], 0.0) == 1.0
    assert percentile([1.0, 5.0], 1.0) == 5.0


def test_percentile_refuses_empty_samples_and_bad_fractions() -> None:
    with pytest.raises(ValueError, match="no samples"):
        percentile([], 0.5)
    with pytest.raises(ValueError, match="within"):
        percentile([1.0], 1.5)


def test_summary_reports_milliseconds() -> None:
    summary = Summary.of_seconds([0.010, 0.030, 0.020])
    assert summary.n == 3
    assert summary.median_ms == pytest.approx(20.0)
    assert summary.p90_ms == pytest.approx(28.0)


def test_ratio_edge_cases() -> None:
    assert ratio(1.0, 4.0) == 0.25
    assert ratio(0.0, 0.0) == 1.0
    assert math.isinf(ratio(1.0, 0.0))


# -- parsing the pane's numbered lines ------------------------------------------


def test_every_prefix_of_a_written_line_parses_as_a_partial_cursor_row() -> None:
    text = numbered(123, 2).decode()
    assert text == f"{L(123)}\n{L(124)}\n"
    for cut in range(1, len(L(124))):
        parsed = parse([L(123), L(124)[:cut]])
        assert parsed.numbers == [123]
        assert parsed.ends_partial
        assert parsed.garbled == 0


def test_parse_ignores_blank_rows_and_counts_garbage() -> None:
    parsed = parse([L(1), "", L(2), "L00", L(3), "hello", "", ""])
    assert parsed.numbers == [1, 2, 3]
    assert parsed.garbled == 2  # a partial line is only allowed last
    assert parsed.ends_partial  # "hello" is the last line with text
    assert not parse([L(1), "", ""]).ends_partial


# -- classifying reads ------------------------------------------------------------


def judge(
    state: ReaderState,
    got: list[str],
    *,
    missed: bool = False,
    rewritten: bool = False,
    printed: int | None = None,
    retained: set[int] | None = None,
) -> tuple[Outcome, ReaderState]:
    return classify(
        state,
        Read(got, lines_missed=missed, first_line_rewritten=rewritten),
        printed=printed,
        retained=retained,
    )


def test_the_next_rows_in_order_are_exact() -> None:
    outcome, state = judge(ReaderState(10, 10), lines(11, 15), printed=15)
    assert outcome == Outcome(Verdict.EXACT, new_rows=5)
    assert state == ReaderState(15, 15)


def test_an_empty_read_is_exact_unless_the_pane_is_known_to_hold_more() -> None:
    assert judge(ReaderState(10, 10), [])[0].verdict is Verdict.EXACT
    assert judge(ReaderState(10, 10), [], printed=10)[0].verdict is Verdict.EXACT
    outcome, state = judge(ReaderState(10, 10), [], printed=14)
    assert outcome.verdict is Verdict.SILENT
    assert outcome.missing == 4
    assert state.last == 14  # the loss is counted once, not again on the next read


def test_a_gap_without_lines_missed_is_a_silent_loss() -> None:
    outcome, state = judge(ReaderState(10, 10), lines(14, 20))
    assert outcome.verdict is Verdict.SILENT
    assert outcome.missing == 3
    assert outcome.new_rows == 7
    assert state == ReaderState(20, 20)
    # the next read continues from what the reader now holds
    assert judge(state, lines(21, 22))[0].verdict is Verdict.EXACT


def test_duplicates_and_disorder_are_silent_losses() -> None:
    outcome, _ = judge(ReaderState(10, 10), [L(9), L(10), L(11)])
    assert outcome.verdict is Verdict.SILENT
    assert outcome.duplicates == 2
    assert outcome.missing == 0
    outcome, _ = judge(ReaderState(10, 10), [L(12), L(11)])
    assert outcome.verdict is Verdict.SILENT
    assert outcome.disordered
    assert outcome.missing == 0


def test_a_half_printed_cursor_row_is_completed_later_with_or_without_the_flag() -> None:
    outcome, state = judge(ReaderState(10, 10), [*lines(11, 12), "L00000"])
    assert outcome.verdict is Verdict.EXACT
    assert state == ReaderState(12, None)
    # gridmux: first_line_rewritten, lines[0] replaces the half line
    assert judge(state, lines(13, 14), rewritten=True)[0].verdict is Verdict.EXACT
    # the predecessor: the changed anchor row comes again, without a flag
    assert judge(state, lines(13, 14))[0].verdict is Verdict.EXACT


def test_first_line_rewritten_replaces_a_complete_last_line() -> None:
    state = ReaderState(12, 12)
    assert judge(state, lines(12, 14), rewritten=True)[0].verdict is Verdict.EXACT
    # without the flag the same answer repeats row 12
    assert judge(state, lines(12, 14))[0].duplicates == 1
    # the flag on a different row drops row 12 from the reader's transcript
    outcome, _ = judge(state, lines(13, 14), rewritten=True)
    assert outcome.verdict is Verdict.SILENT
    assert outcome.missing == 1


def test_a_reported_loss_of_rows_tmux_still_held_is_needless() -> None:
    screen = lines(40, 45)
    outcome, state = judge(
        ReaderState(10, 10), screen, missed=True, retained=set(range(1, 46)), printed=45
    )
    assert outcome.verdict is Verdict.MISSED_RETAINED
    assert outcome.missing == 29  # 11..39
    assert outcome.gone == 0
    assert state == ReaderState(45, 45)


def test_a_reported_loss_is_justified_when_a_missing_row_was_gone() -> None:
    outcome, _ = judge(ReaderState(10, 10), lines(40, 45), missed=True, retained=set(range(30, 46)))
    assert outcome.verdict is Verdict.MISSED_GONE
    assert (outcome.missing, outcome.gone) == (29, 19)


def test_a_reported_loss_with_nothing_missing_is_needless() -> None:
    outcome, _ = judge(ReaderState(45, 45), lines(30, 45), missed=True, retained=set())
    assert outcome.verdict is Verdict.MISSED_RETAINED
    assert outcome.missing == 0
    assert outcome.new_rows == 0


def test_after_a_cleared_screen_the_reader_resumes_after_what_was_printed() -> None:
    outcome, state = judge(ReaderState(10, 10), [], missed=True, retained=set(), printed=30)
    assert outcome.verdict is Verdict.MISSED_GONE
    assert outcome.gone == 20
    assert judge(state, lines(31, 33), printed=33)[0].verdict is Verdict.EXACT


def test_start_state_takes_the_screen_as_read() -> None:
    assert start_state(lines(5, 9)) == ReaderState(9, 9)
    assert start_state([]) == ReaderState(0, None)


def test_tally_counts_reads_and_rows_by_verdict() -> None:
    tally = Tally()
    tally.add(Outcome(Verdict.EXACT, new_rows=5))
    tally.add(Outcome(Verdict.MISSED_GONE, new_rows=3, missing=10, gone=4))
    tally.add(Outcome(Verdict.MISSED_RETAINED, missing=2))
    tally.add(Outcome(Verdict.SILENT, new_rows=1, missing=7, duplicates=1, garbled=2))
    assert (tally.reads, tally.exact, tally.missed_gone, tally.missed_retained) == (4, 1, 1, 1)
    assert (tally.silent, tally.rows_lost_silently, tally.duplicates, tally.garbled) == (1, 7, 1, 2)
    assert (tally.rows_gone, tally.rows_needlessly_missed, tally.rows_delivered) == (4, 8, 9)
    assert tally.lines_missed == 2
    assert tally.as_dict()["silent"] == 1


# -- counting tmux runs ------------------------------------------------------------


def test_the_counting_wrapper_logs_one_line_per_run_and_execs_the_real_binary(
    tmp_path: Path,
) -> None:
    env = TmuxEnv("/bin/echo", root=tmp_path / "bench", socket="s")
    directory, counter = env.counting_dir("gridmux")
    tmux = str(directory / "tmux")
    out = subprocess.run(
        [tmux, "-u", "-L", "s", "send-keys", "-t", "%1", "two\nlines", ";", "capture-pane"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout == "-u -L s send-keys -t %1 two\nlines ; capture-pane\n"
    offset = counter.stat().st_size
    subprocess.run([tmux, "list-panes", "-a"], check=True, capture_output=True)
    logged = TmuxEnv.spawned(counter)
    assert len(logged) == 2
    assert [tmux_commands(line) for line in logged] == ["send-keys+capture-pane", "list-panes"]
    assert TmuxEnv.spawned(counter, offset) == [logged[1]]


def test_tmux_commands_skips_global_options() -> None:
    assert tmux_commands("x -L sock -f /dev/null display-message -p #{pane_id}") == (
        "display-message"
    )
    assert tmux_commands("x -V") == "(no command)"


# -- the report ---------------------------------------------------------------------


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


def test_tmux_commands_abridge_a_repeating_command_list() -> None:
    line = "tmux -u -L s " + " ; ".join(["display-message -p x", "capture-pane -p"] * 3)
    assert tmux_commands(line) == "(display-message+capture-pane)x3"
    assert tmux_commands("tmux -L s list-panes -a ; list-panes -a") == "(list-panes)x2"
    assert tmux_commands("tmux -L s a ; b ; a") == "a+b+a"
