from __future__ import annotations

import pytest

from gridmux.capture import limit_tail, line_cost


def test_no_limits_keep_everything() -> None:
    result = limit_tail(("a", "b"), None, None)
    assert result.lines == ("a", "b")
    assert not result.truncated
    assert (result.truncated_lines, result.truncated_bytes) == (0, 0)


def test_max_lines_keeps_the_newest() -> None:
    result = limit_tail(tuple(f"L{i}" for i in range(10)), 3, None)
    assert result.lines == ("L7", "L8", "L9")
    assert result.truncated_lines == 7
    assert result.truncated_bytes == sum(line_cost(f"L{i}") for i in range(7))


def test_max_bytes_drops_whole_lines_from_the_head() -> None:
    result = limit_tail(("aaaa", "bb", "cc"), None, 6)
    assert result.lines == ("bb", "cc")
    assert result.truncated_lines == 1
    assert result.truncated_bytes == 5


def test_a_single_oversized_line_keeps_its_tail_on_a_character_boundary() -> None:
    line = "x" * 10 + "é" * 4  # é is two bytes
    result = limit_tail((line,), None, 6)
    assert result.lines == ("éé",)
    assert sum(line_cost(x) for x in result.lines) <= 6
    assert result.truncated_lines == 0
    assert result.truncated_bytes == line_cost(line) - line_cost("éé")


def test_limits_compose_and_never_exceed_the_budget() -> None:
    lines = tuple(f"row {i:03d}" for i in range(100))
    result = limit_tail(lines, 50, 40)
    assert sum(line_cost(x) for x in result.lines) <= 40
    assert result.lines == lines[-len(result.lines) :]
    assert result.truncated_lines == 100 - len(result.lines)


@pytest.mark.parametrize(("max_lines", "max_bytes"), [(0, None), (None, 0), (-1, 5)])
def test_non_positive_limits_are_rejected(max_lines: int | None, max_bytes: int | None) -> None:
    with pytest.raises(ValueError, match="at least 1"):
        limit_tail(("a",), max_lines, max_bytes)


@pytest.mark.parametrize(
    ("max_lines", "max_bytes", "what"), [(0, None, "lines"), (None, 0, "bytes")]
)
def test_the_refusal_names_the_limit(
    max_lines: int | None, max_bytes: int | None, what: str
) -> None:
    with pytest.raises(ValueError, match=rf"^max_{what} must be at least 1$"):
        limit_tail(("a",), max_lines, max_bytes)


def test_exactly_max_lines_is_not_truncated() -> None:
    result = limit_tail(("a", "b", "c"), 3, None)
    assert result.lines == ("a", "b", "c")
    assert not result.truncated


def test_an_ascii_tail_keeps_exactly_the_budget() -> None:
    result = limit_tail(("abcdef",), None, 4)  # 3 bytes and the newline
    assert result.lines == ("def",)
    assert result.truncated_bytes == 3


def test_a_line_that_just_fits_is_kept_whole() -> None:
    result = limit_tail(("abc",), None, 4)
    assert result.lines == ("abc",)
    assert not result.truncated


def test_a_budget_of_one_byte_keeps_an_empty_line() -> None:
    result = limit_tail(("abc",), None, 1)
    assert result.lines == ("",)
    assert result.truncated_bytes == 3


def test_a_two_byte_budget_keeps_one_ascii_byte() -> None:
    assert limit_tail(("abc",), None, 2).lines == ("c",)


@pytest.mark.parametrize(("line", "budget", "kept"), [("é", 2, ""), ("a€", 3, ""), ("a€", 4, "€")])
def test_a_cut_inside_a_character_drops_the_whole_character(
    line: str, budget: int, kept: str
) -> None:
    result = limit_tail((line,), None, budget)
    assert result.lines == (kept,)
    assert result.truncated_bytes == line_cost(line) - line_cost(kept)


def test_dropped_lines_and_a_cut_newest_line_add_up() -> None:
    result = limit_tail(("aaaa", "bb", "bbbbbbbbbb"), 2, 5)
    assert result.lines == ("bbbb",)
    assert result.truncated_lines == 2
    assert result.truncated_bytes == line_cost("aaaa") + line_cost("bb") + 6


def test_a_budget_smaller_than_two_lines_keeps_only_the_newest_cut() -> None:
    result = limit_tail(("aaaa", "bbbbbbbb"), None, 5)
    assert result.lines == ("bbbb",)
    assert result.truncated_lines == 1
    assert result.truncated_bytes == line_cost("aaaa") + 4


def test_whole_lines_dropped_by_bytes_are_counted_after_lines_dropped_by_count() -> None:
    result = limit_tail(("a1", "b1", "c1", "d1"), 3, 6)  # 3 bytes per line
    assert result.lines == ("c1", "d1")
    assert (result.truncated_lines, result.truncated_bytes) == (2, 6)


def test_no_lines_stay_no_lines() -> None:
    result = limit_tail((), 1, 1)
    assert result.lines == ()
    assert not result.truncated


def test_a_cut_alone_marks_the_result_truncated() -> None:
    result = limit_tail(("abcdef",), None, 4)
    assert result.truncated_lines == 0
    assert result.truncated


def test_line_cost_counts_utf8_bytes_and_the_newline() -> None:
    assert line_cost("") == 1
    assert line_cost("é€") == 6
