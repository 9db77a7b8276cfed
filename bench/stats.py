"""Order statistics for latency samples (pure)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass


def percentile(samples: Sequence[float], fraction: float) -> float:
    """The ``fraction`` quantile, interpolating linearly between order statistics.

    ``percentile(xs, 0.5)`` is the median; ``0.9`` the p90. Raises on an empty
    sample rather than inventing a number.
    """
    if not samples:
        raise ValueError("no samples")
    if not 0.0 <= fraction <= 1.0:
        raise ValueError(f"fraction {fraction} is not within [0, 1]")
    ordered = sorted(samples)
    position = fraction * (len(ordered) - 1)
    low = math.floor(position)
    high = math.ceil(position)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


@dataclass(frozen=True)
class Summary:
    """Median and p90 of a sample, in milliseconds."""

    n: int
    median_ms: float
    p90_ms: float

    @classmethod
    def of_seconds(cls, samples: Sequence[float]) -> Summary:
        return cls(
            n=len(samples),
            median_ms=percentile(samples, 0.5) * 1000.0,
            p90_ms=percentile(samples, 0.9) * 1000.0,
        )


def ratio(ours: float, theirs: float) -> float:
    """``ours / theirs``; infinity when theirs is zero and ours is not, 1 when both are."""
    if theirs == 0:
        return 1.0 if ours == 0 else math.inf
    return ours / theirs
