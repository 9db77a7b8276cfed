"""limit_tail keeps a suffix of the lines, within budget, and accounts for the rest."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from gridmux.capture import limit_tail, line_cost

lines = st.lists(st.text(max_size=30).map(lambda s: s.replace("\n", "")), max_size=60)
limits = st.none() | st.integers(1, 400)


@given(lines, limits, limits)
def test_tail_within_budget_and_accounted(
    rows: list[str], max_lines: int | None, max_bytes: int | None
) -> None:
    result = limit_tail(tuple(rows), max_lines, max_bytes)
    kept = list(result.lines)
    total = sum(line_cost(x) for x in rows)
    assert sum(line_cost(x) for x in kept) + result.truncated_bytes == total
    if max_lines is not None:
        assert len(kept) <= max_lines
    if max_bytes is not None:
        assert sum(line_cost(x) for x in kept) <= max(max_bytes, 1)
    if rows:
        assert kept, "some output must survive"
        # whole lines kept are the newest ones; the first may be a cut tail
        assert kept[1:] == rows[len(rows) - len(kept) + 1 :]
        assert rows[len(rows) - len(kept)].endswith(kept[0])
    assert result.truncated_lines == len(rows) - len(kept)
    assert result.truncated == (result.truncated_lines > 0 or result.truncated_bytes > 0)
