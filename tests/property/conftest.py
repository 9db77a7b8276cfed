"""Hypothesis profiles: ``dev`` (default, quick), ``ci`` (derandomized, the
1,000-example bar), ``nightly`` (many more examples and longer runs),
``mutation`` (derandomized and quick: every mutant of the capture core meets
the same examples, so a verdict does not change between runs; no shrinking:
a mutant needs one failing example, not the smallest)."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, Phase, settings

settings.register_profile(
    "dev",
    max_examples=100,
    stateful_step_count=30,
    deadline=None,
)
settings.register_profile(
    "ci",
    max_examples=1000,
    stateful_step_count=30,
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "nightly",
    max_examples=20000,
    stateful_step_count=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "mutation",
    max_examples=100,
    stateful_step_count=30,
    derandomize=True,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    report_multiple_bugs=False,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))
