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
