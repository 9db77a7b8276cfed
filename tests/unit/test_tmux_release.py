"""The one reading of a tmux version string (``backend/_release.py``), and that
every place deciding by release goes through it."""

from __future__ import annotations

from pathlib import Path

import pytest

from gridmux.backend import OLDEST_RELEASE, VersionName, read_version, tmux_release
from gridmux.backend._capture_route import FLAT_OUTPUT_FROM

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("text", "named", "release"),
    [
        ("3.3a", VersionName(3, 3, "a", "release"), (3, 3)),
        ("3.8", VersionName(3, 8, "", "release"), (3, 8)),
        ("3.10", VersionName(3, 10, "", "release"), (3, 10)),
        ("tmux 3.2a\n", VersionName(3, 2, "a", "release"), (3, 2)),
        # the development branch on its way to 3.9 has all of 3.8, not surely any of 3.9
        ("next-3.9", VersionName(3, 9, "", "development"), (3, 8)),
        ("tmux next-3.6", VersionName(3, 6, "", "development"), (3, 5)),
        # a candidate comes before its release
        ("3.2-rc", VersionName(3, 2, "", "candidate"), (3, 1)),
        ("3.6-rc3", VersionName(3, 6, "", "candidate"), (3, 5)),
        # an X.0 build's predecessor is unknown: the oldest
        ("next-4.0", VersionName(4, 0, "", "development"), OLDEST_RELEASE),
        ("4.0-rc", VersionName(4, 0, "", "candidate"), OLDEST_RELEASE),
    ],
)
def test_a_named_release_is_placed(text: str, named: VersionName, release: tuple[int, int]) -> None:
    assert read_version(text) == named
    assert tmux_release(text) == release


@pytest.mark.parametrize(
    "text",
    [
        "openbsd-7.4",  # OpenBSD's release number, not tmux's
        "tmux openbsd-7.4",
        "master",
        "",
        "3",
        "3.3a-dirty",
        "next-3.9-rc",
        "v3.3a",
    ],
)
def test_a_tmux_that_cannot_be_placed_counts_as_the_oldest_supported(text: str) -> None:
    assert read_version(text) is None
    assert tmux_release(text) == OLDEST_RELEASE == (3, 2)


def test_an_unplaced_tmux_gets_no_json_layouts_and_the_capture_route() -> None:
    """The decisions that could crash or grow a user's server take an unplaced
    tmux for one that lacks the feature."""
    for text in ("openbsd-7.4", "master", "next-3.8", "3.8-rc1"):
        assert tmux_release(text) < (3, 8), text  # JSON layouts from 3.8 only
    for text in ("openbsd-7.4", "master", "next-3.6", "3.6-rc"):
        assert tmux_release(text) < FLAT_OUTPUT_FROM, text  # captures via a buffer


def test_no_other_module_reads_a_version_number() -> None:
    """One parser: no other source (src, sim, tests) matches ``major.minor`` itself."""
    own = {
        ROOT / "src/gridmux/backend/_release.py",
        Path(__file__).resolve(),
    }
    found = []
    for folder in ("src", "sim", "tests"):
        for path in (ROOT / folder).rglob("*.py"):
            if path.resolve() in own:
                continue
            text = path.read_text()
            if r"(\d+)\.(\d+)" in text or r"(?:next-)?" in text:
                found.append(str(path.relative_to(ROOT)))
    assert found == []
