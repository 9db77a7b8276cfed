"""Sessions for linting, type checking and the test pyramid.

``nox`` with no arguments runs lint, types, unit, property and integration.
The integration session needs tmux on PATH (``./run tests`` installs it).
"""

from __future__ import annotations

import os

import nox

nox.options.sessions = ["lint", "types", "unit", "property", "integration"]
nox.options.error_on_missing_interpreters = True
nox.options.reuse_venv = "yes"

PYTHON = "3.11"


def install(session: nox.Session, extras: str) -> None:
    session.install("-e", f".[{extras}]")


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    """ruff lint and format check."""
    session.install("ruff>=0.17")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session(python=PYTHON)
def types(session: nox.Session) -> None:
    """mypy --strict over src, sim, tests and this file."""
    install(session, "test,types")
    session.run("mypy", "--strict", "src", "sim", "tests", "noxfile.py")


@nox.session(python=PYTHON)
def unit(session: nox.Session) -> None:
    """Fast, simulator-backed tests of every layer (no tmux needed)."""
    install(session, "test")
    session.run("pytest", "tests/unit", "-q", "-n", "auto", *session.posargs)


@nox.session(python=PYTHON)
def property(session: nox.Session) -> None:
    """Hypothesis suite; HYPOTHESIS_PROFILE picks dev (default here: ci) or nightly."""
    install(session, "test")
    profile = os.environ.get("HYPOTHESIS_PROFILE", "ci")
    session.run(
        "pytest",
        "tests/property",
        "-q",
        "-n",
        "auto",
        f"--hypothesis-profile={profile}",
        *session.posargs,
    )


@nox.session(python=PYTHON)
def integration(session: nox.Session) -> None:
    """The same contracts on real tmux (private sockets, isolated HOME)."""
    install(session, "test")
    session.run("tmux", "-V", external=True)
    session.run("pytest", "tests/integration", "-q", "-n", "2", *session.posargs)
