"""The benchmark harness's pure parts: statistics, read classification, counting tmux runs
(the report: test_bench_report.py)."""

from __future__ import annotations

import math
import subprocess
from pathlib import Path

import pytest
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
from bench.tmuxenv import TmuxEnv, tmux_commands
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


def test_tmux_commands_abridge_a_repeating_command_list() -> None:
    line = "tmux -u -L s " + " ; ".join(["display-message -p x", "capture-pane -p"] * 3)
    assert tmux_commands(line) == "(display-message+capture-pane)x3"
    assert tmux_commands("tmux -L s list-panes -a ; list-panes -a") == "(list-panes)x2"
    assert tmux_commands("tmux -L s a ; b ; a") == "a+b+a"
