"""Sessions for linting, type checking, the test pyramid and the tmux matrix.

``nox`` with no arguments runs lint, types, unit and property on every
supported Python, and integration and fidelity on every tmux release the
machine can provision (``scripts/provision_tmux.py``). A release that cannot
be had is skipped with the reason, unless ``GRIDMUX_TMUX_REQUIRED`` names it
(CI names the four this kind of machine always has). Pick one cell with
``nox -s "integration(tmux='3.8')"``, a Python with ``nox -s unit-3.13``.

The integration session needs npm, with which it installs the pinned MCP
Inspector (``tools/inspector``); ``./run tests`` installs tmux and npm.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import nox

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "scripts"))

import provision_tmux  # noqa: E402  (a script of this project, not a package)

nox.options.sessions = ["lint", "types", "unit", "property", "integration", "fidelity"]
nox.options.error_on_missing_interpreters = True
nox.options.reuse_venv = "yes"

PYTHON = "3.11"
PYTHONS = ["3.10", "3.11", "3.12", "3.13"]
TMUX_VERSIONS = list(provision_tmux.KNOWN_VERSIONS)
INSPECTOR = ROOT / "tools" / "inspector"
FIDELITY = ROOT / ".cache" / "fidelity"


def _pyenv_pythons() -> None:
    """Put pyenv's interpreters on PATH, so ``python3.10`` etc. are found.

    pyenv's shims only run the versions named in ``pyenv global``; the
    interpreters themselves live in ``$PYENV_ROOT/versions/<v>/bin``.
    """
    root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    found = sorted(root.glob("3.*/bin")) if root.is_dir() else []
    if found:
        os.environ["PATH"] = os.pathsep.join([*map(str, found), os.environ.get("PATH", "")])


_pyenv_pythons()


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
    """mypy --strict over src, sim, tests, scripts and this file."""
    install(session, "test,types")
    session.run("mypy", "--strict", "src", "sim", "tests", "scripts", "bench", "noxfile.py")


@nox.session(python=PYTHONS)
def unit(session: nox.Session) -> None:
    """Fast, simulator-backed tests of every layer, and the contract suite's simulator side."""
    install(session, "test")
    session.run(
        "pytest",
        "tests/unit",
        "tests/contract",
        "-m",
        "not tmux",
        "-q",
        "-n",
        "auto",
        *session.posargs,
    )


@nox.session(python=PYTHONS)
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


def use_tmux(session: nox.Session, version: str) -> dict[str, str]:
    """Provision tmux ``version``; the environment that puts it first on PATH.

    The PATH reaches the tmux servers the tests start and so the panes'
    programs: a ``tmux wait-for`` typed in a pane runs the same release.
    """
    cache = Path(os.environ.get("GRIDMUX_TMUX_CACHE", provision_tmux.DEFAULT_CACHE))
    try:
        found = provision_tmux.provision(version, cache.resolve())
    except provision_tmux.Unavailable as exc:
        if version in os.environ.get("GRIDMUX_TMUX_REQUIRED", "").split():
            session.error(f"tmux {version} is required (GRIDMUX_TMUX_REQUIRED) but: {exc}")
        session.skip(f"tmux {version} could not be obtained: {exc}")
    session.log(f"tmux {version}: {found.bin_dir} ({found.source})")
    path = os.pathsep.join([session.bin, str(found.bin_dir), os.environ.get("PATH", "")])
    env = {"PATH": path, "GRIDMUX_TMUX_VERSION": version}
    session.run(str(found.bin_dir / "tmux"), "-V", env=env, external=True)
    return env


@nox.session(python=PYTHON)
@nox.parametrize("control", ["on", "off"])
@nox.parametrize("tmux", TMUX_VERSIONS)
def integration(session: nox.Session, tmux: str, control: str) -> None:
    """The same contracts on real tmux ``tmux`` (private sockets, isolated HOME).

    ``control``: the backend's control-mode channel on, or forced off (one
    tmux process per command); the suite must pass both ways. The contract
    suite (``tests/contract``) runs its real-tmux side here.
    """
    env = use_tmux(session, tmux) | {"GRIDMUX_CONTROL_MODE": control}
    install(session, "test")
    install_inspector(session)
    session.run(
        "pytest",
        "tests/integration",
        "tests/contract",
        "-m",
        "not sim",
        "-q",
        "-n",
        "2",
        *session.posargs,
        env=env,
    )


@nox.session(python=PYTHON)
@nox.parametrize("tmux", TMUX_VERSIONS)
def fidelity(session: nox.Session, tmux: str) -> None:
    """Simulator against real tmux ``tmux``: GRIDMUX_FIDELITY_SCRIPTS scripts (default 500).

    Prints scripts run, steps compared and disagreements for every version
    measured so far (kept in .cache/fidelity/), this one last.
    """
    env = use_tmux(session, tmux)
    install(session, "test")
    scripts = os.environ.get("GRIDMUX_FIDELITY_SCRIPTS", "500")
    FIDELITY.mkdir(parents=True, exist_ok=True)
    junit = FIDELITY / f"{tmux}.xml"
    junit.unlink(missing_ok=True)
    session.run(
        "pytest",
        "tests/integration/test_differential.py",
        "-q",
        "-p",
        "no:cacheprovider",
        f"--junitxml={junit}",
        *session.posargs,
        env={**env, "GRIDMUX_DIFF_EXAMPLES": scripts, "CI": os.environ.get("CI", "1")},
        success_codes=[0, 1],
    )
    result = _fidelity_result(tmux, junit)
    (FIDELITY / f"{tmux}.json").write_text(json.dumps(result) + "\n")
    _print_fidelity_table(session)
    if result["disagreements"] or result["errors"]:
        session.error(f"tmux {tmux}: the simulator disagrees with tmux (see the failure above)")


def _fidelity_result(version: str, junit: Path) -> dict[str, object]:
    """Scripts, steps and failures from the differential test's JUnit XML."""
    if not junit.exists():
        return {"tmux": version, "scripts": 0, "steps": 0, "disagreements": 0, "errors": 1}
    suite = ET.parse(junit).getroot()
    suite = suite if suite.tag == "testsuite" else suite[0]
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    disagreements = sum(
        1
        for case in suite.iter("testcase")
        if case.get("name", "").startswith("test_simulator_matches_tmux")
        and case.find("failure") is not None
    )
    failures = int(suite.get("failures", "0")) + int(suite.get("errors", "0"))
    return {
        "tmux": version,
        "scripts": int(props.get("differential_scripts") or 0),
        "steps": int(props.get("differential_steps") or 0),
        "disagreements": disagreements,
        "errors": failures - disagreements,
    }


def _print_fidelity_table(session: nox.Session) -> None:
    rows = [json.loads(p.read_text()) for p in FIDELITY.glob("*.json")]
    order = {v: i for i, v in enumerate(TMUX_VERSIONS)}
    rows.sort(key=lambda r: order.get(r["tmux"], len(order)))
    lines = ["", "fidelity: simulator vs real tmux", "tmux   scripts   steps  disagreements"]
    lines += [
        f"{r['tmux']:<6} {r['scripts']:>7} {r['steps']:>7} {r['disagreements']:>14}"
        + ("  (other test failures)" if r["errors"] else "")
        for r in rows
    ]
    session.log("\n".join(lines))


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


#: The predecessor the benchmark runs beside gridmux, pinned (its PyPI releases are alphas).
PREDECESSOR = "libtmux-mcp==0.1.0a22"


@nox.session(python=PYTHON)
def bench(session: nox.Session) -> None:
    """gridmux beside libtmux-mcp (pinned), both over real MCP stdio clients: docs/bench.md.

    Both servers are installed into this session's venv and started as
    subprocesses against one private tmux server. Arguments after ``--`` go to
    ``python -m bench.run`` (``--quick`` for a smoke run that writes
    .cache/bench/bench-quick.md instead, ``--both-modes`` for gridmux with
    GRIDMUX_CONTROL_MODE off and on, ``--check`` to fail on a missed target),
    except ``--tmux VERSION``: run on that tmux release (scripts/provision_tmux.py)
    instead of the tmux on PATH.
    """
    args = list(session.posargs)
    env: dict[str, str] = {}
    if "--tmux" in args:
        at = args.index("--tmux")
        if at + 1 == len(args):
            session.error("--tmux needs a version, e.g. -- --tmux 3.5a")
        version = args[at + 1]
        del args[at : at + 2]
        cache = Path(os.environ.get("GRIDMUX_TMUX_CACHE", provision_tmux.DEFAULT_CACHE))
        try:
            found = provision_tmux.provision(version, cache.resolve())
        except provision_tmux.Unavailable as exc:
            session.error(f"tmux {version} could not be obtained: {exc}")
        session.log(f"tmux {version}: {found.bin_dir} ({found.source})")
        path = os.pathsep.join([session.bin, str(found.bin_dir), os.environ.get("PATH", "")])
        env = {"PATH": path}
    session.install("-e", ".", PREDECESSOR)
    session.run("python", "-m", "bench.run", *args, env=env)
