"""The fuzz suite's tallies, printed at the end of the run (pytest's terminal summary).

Each fuzz test counts into its ``tally`` fixture, which ends up in the test's
report as ``fuzz_*`` user properties (so JUnit XML has them too); the process
that reports the run -- xdist's controller, or the one process without
xdist -- sums them from the reports and prints one line.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator

import pytest

#: What every fuzz test counts; the last four must stay 0.
KEYS = ("calls", "errors", "state_changes_on_error", "files_outside_temp", "crashes", "hangs")
_TOTALS: Counter[str] = Counter()


@pytest.fixture
def tally(record_property: Callable[[str, object], None]) -> Iterator[Counter[str]]:
    """This test's counts; they reach the run's summary when it ends."""
    mine: Counter[str] = Counter()
    yield mine
    for key in KEYS:
        record_property(f"fuzz_{key}", mine[key])


def pytest_configure(config: pytest.Config) -> None:
    # The simulator part is marked ``sim`` (as the contract suite's simulator
    # sides are), so the integration cells' ``-m "not sim"`` runs only stdio.
    config.addinivalue_line("markers", "sim: a test's simulator side")


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when == "teardown":  # record_property's finalizer has run by then
        for name, value in report.user_properties:
            if str(name).startswith("fuzz_"):
                _TOTALS[str(name).removeprefix("fuzz_")] += int(str(value))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if _TOTALS:
        figures = ", ".join(f"{key} {_TOTALS[key]}" for key in KEYS)
        terminalreporter.write_sep("-", f"fuzz: {figures}")


# The real-tmux part's private server: the integration suite's fixtures, re-exported.
from tests.integration.conftest import (  # noqa: E402
    config_file,
    isolated_env,
    server,
    tmux_bin,
    tmux_server,
    user_path,
)

__all__ = ["config_file", "isolated_env", "server", "tally", "tmux_bin", "tmux_server", "user_path"]
