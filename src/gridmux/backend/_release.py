"""What a tmux version string says: the one reading of ``tmux -V`` and ``#{version}``.

tmux names its build the way its ``configure`` was told to, and prints that
name both in ``tmux -V`` (after ``tmux ``) and in the ``#{version}`` format.
The spellings, and the release gridmux takes each for:

* ``3.3a``, ``3.8``: a release. A trailing letter is a fix release with the
  behaviour of its release: ``(3, 3)``, ``(3, 8)``.
* ``next-3.9``: a build of tmux's development branch on its way to 3.9. It
  holds everything of 3.8 and maybe some of 3.9, so it counts as ``(3, 8)``.
* ``3.2-rc``, ``3.2-rc3``: a candidate for 3.2, made before it: ``(3, 1)``.
* ``openbsd-7.4``: the tmux in OpenBSD's base system, numbered by OpenBSD's
  release, which says nothing about tmux's: not placed.
* ``master`` and anything else: no release number: not placed. So is a
  development build or candidate of an ``X.0`` (its predecessor is unknown).

**A release gridmux cannot place counts as the oldest supported one,**
``OLDEST_RELEASE`` (3.2). Every difference between releases is decided by
comparing with the first release that has it (``tmux_release(v) >= (3, 8)``),
so an unplaced tmux gets the behaviour that is safe on every supported
release: no JSON layouts (tmux before 3.8 reads them as the old form, and
3.3a's server crashes on one), captures over control mode through a buffer
(the route for tmux before 3.6, which works on all of them). A release
before the oldest (a 3.2 candidate) is below it and gets the same.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

#: The oldest tmux release gridmux supports, and what an unplaced one counts as.
OLDEST_RELEASE = (3, 2)

_NAME = re.compile(
    r"(?P<next>next-)?(?P<major>\d+)\.(?P<minor>\d+)(?P<letter>[a-z]?)(?P<rc>-rc\d*)?"
)

Stage = Literal["release", "candidate", "development"]


@dataclass(frozen=True, slots=True)
class VersionName:
    """A version string that names a tmux release: ``3.3a``, ``next-3.9``, ``3.2-rc2``."""

    major: int
    minor: int
    letter: str
    stage: Stage

    @property
    def release(self) -> tuple[int, int]:
        """The release whose behaviour this build is taken to have (see the module)."""
        if self.stage == "release":
            return (self.major, self.minor)
        # A candidate or development build of X.Y comes before X.Y.
        return (self.major, self.minor - 1) if self.minor > 0 else OLDEST_RELEASE


def read_version(text: str) -> VersionName | None:
    """The release ``text`` names (``tmux -V``'s line or ``#{version}``), None if none."""
    name = text.strip().removeprefix("tmux ").strip()
    found = _NAME.fullmatch(name)
    if found is None:
        return None
    if found["next"] and found["rc"]:
        return None
    stage: Stage = "development" if found["next"] else "candidate" if found["rc"] else "release"
    return VersionName(int(found["major"]), int(found["minor"]), found["letter"], stage)


def tmux_release(text: str) -> tuple[int, int]:
    """``(major, minor)`` of the behaviour to expect from a tmux naming itself ``text``.

    ``OLDEST_RELEASE`` when ``text`` names no release gridmux can place.
    """
    named = read_version(text)
    return OLDEST_RELEASE if named is None else named.release
