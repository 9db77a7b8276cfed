"""Sessions for linting, type checking and the test pyramid.

``nox`` with no arguments runs lint, types, unit, property and integration.
The integration session needs tmux on PATH (``./run tests`` installs it) and
npm, with which it installs the pinned MCP Inspector (``tools/inspector``).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import nox

nox.options.sessions = ["lint", "types", "unit", "property", "integration"]
nox.options.error_on_missing_interpreters = True
nox.options.reuse_venv = "yes"

PYTHON = "3.11"
INSPECTOR = Path("tools/inspector")


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
    install_inspector(session)
    session.run("pytest", "tests/integration", "-q", "-n", "2", *session.posargs)


def install_inspector(session: nox.Session) -> None:
    """``npm ci`` the Inspector CLI the foreign-client test runs, when its pins changed."""
    pins = b"".join(
        (INSPECTOR / name).read_bytes() for name in ("package.json", "package-lock.json")
    )
    want = hashlib.sha256(pins).hexdigest()
    stamp = INSPECTOR / "node_modules" / ".gridmux-pins"
    ready = (INSPECTOR / "node_modules" / ".bin" / "mcp-inspector").exists()
    if ready and stamp.exists() and stamp.read_text() == want:
        return
    with session.chdir(INSPECTOR):
        session.run("npm", "ci", "--no-audit", "--no-fund", external=True)
    stamp.write_text(want)
