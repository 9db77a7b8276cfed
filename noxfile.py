"""Sessions for the tmux matrix; the Python matrix is tox's (``tox.ini``).

One job each: tox runs lint, types and unit on Python 3.10-3.13, property and
fuzz on 3.11;
nox runs what needs tmux -- integration and fidelity per tmux release, bench,
docs -- and the ``python`` session, which calls ``tox p`` for the Python
matrix. ``nox`` with no arguments runs ``python``, ``integration`` and
``fidelity`` on every tmux release the machine can provision
(``scripts/provision_tmux.py``). A release that cannot be had is skipped with
the reason, unless ``GRIDMUX_TMUX_REQUIRED`` names it (CI names every release
this kind of machine has). Pick one cell with
``nox -s "integration(tmux='3.8', control='on')"``; ``lint``, ``types``,
``unit`` and ``property`` remain as names that call the same tox environments.

The integration session needs npm, with which it installs the pinned MCP
Inspector (``tools/inspector``); ``./run tests`` installs tmux and npm.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import nox

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "scripts"))

import provision_tmux  # noqa: E402  (a script of this project, not a package)

nox.options.sessions = ["python", "integration", "fidelity"]
nox.options.error_on_missing_interpreters = True
nox.options.reuse_venv = "yes"

PYTHON = "3.11"
PYTHONS = ["3.10", "3.11", "3.12", "3.13"]
#: Releases whose integration cell also runs with control mode off (docs/matrix.md):
#: the oldest and the newest, which bound the range. ``GRIDMUX_CONTROL_OFF="3.4 3.6b"``
#: (or ``all``) names others.
CONTROL_OFF_VERSIONS = os.environ.get("GRIDMUX_CONTROL_OFF", "3.2a 3.8").split()
#: Releases whose control-mode-on integration cell also runs the tests of gridmux's
#: MCP layer as a process (``MCP_LAYER_TESTS``: stdio, HTTP, the MCP Inspector CLI,
#: schema-derived bad input over stdio). They start gridmux processes and speak MCP
#: to them, which no tmux release and no command transport changes, and cost a
#: CPU-minute a cell; the two releases that bound the range run them.
#: ``GRIDMUX_MCP_TMUX="3.5a"`` (or ``all``) names others.
MCP_LAYER_VERSIONS = os.environ.get("GRIDMUX_MCP_TMUX", "3.2a 3.8").split()
INSPECTOR_TEST = "tests/integration/test_inspector_cli.py"
MCP_LAYER_TESTS = [
    INSPECTOR_TEST,
    "tests/integration/test_stdio.py",
    "tests/integration/test_transports.py",
    "tests/fuzz/test_fuzz_stdio.py",
]
#: ``GRIDMUX_TMUX_LANE="3.2a 3.4"``: only these releases' tmux cells exist in this nox
#: run, so ``./run tests`` can run the tmux matrix as two lanes side by side.
LANE = os.environ.get("GRIDMUX_TMUX_LANE", "").split()
#: The tmux sessions run in the interpreter that runs nox (./run's .venv, which holds
#: the project with its test extra): one environment for every cell instead of a new
#: virtualenv and install per cell (about a minute each).
HERE = Path(sys.executable).parent
TMUX_VERSIONS = [v for v in provision_tmux.KNOWN_VERSIONS if not LANE or v in LANE]
TOX = "tox>=4.30"
INSPECTOR = ROOT / "tools" / "inspector"
FIDELITY = ROOT / ".cache" / "fidelity"
#: The simulator-vs-tmux test: the fidelity session's, not the integration session's.
DIFFERENTIAL = "tests/integration/test_differential.py"


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


def tox(session: nox.Session, *envs: str) -> None:
    """Run tox environments (``tox.ini``) side by side; arguments after ``--`` go to pytest.

    Two at a time on two cores, each pytest then with one worker per environment.
    """
    session.install(TOX)
    listed = ",".join(envs)
    posargs = ["--", *session.posargs] if session.posargs else []
    cores = str(min(len(envs), os.cpu_count() or 2))
    env = {"GRIDMUX_XDIST": os.environ.get("GRIDMUX_XDIST", "0" if len(envs) > 1 else "auto")}
    if len(envs) > 1:
        session.run("tox", "p", "-p", cores, "-e", listed, *posargs, env=env)
    else:
        session.run("tox", "-e", listed, *posargs, env=env)


PY_ENVS = [f"py{v.replace('.', '')}" for v in PYTHONS]


@nox.session(python=PYTHON)
def python(session: nox.Session) -> None:
    """The whole Python matrix: ``tox p`` (lint, types, unit on 3.10-3.13, and the
    property and simulator fuzz suites once, on 3.11)."""
    tox(session, "lint", "types", *(f"{py}-unit" for py in PY_ENVS), "property", "fuzz")


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    """ruff lint and format check (tox -e lint)."""
    tox(session, "lint")


@nox.session(python=PYTHON)
def types(session: nox.Session) -> None:
    """mypy --strict over src, sim, tests, scripts and this file (tox -e types)."""
    tox(session, "types")


@nox.session(python=PYTHON)
def unit(session: nox.Session) -> None:
    """Simulator-backed tests of every layer, contract suite on the sim (tox -e py3X-unit)."""
    tox(session, *(f"{py}-unit" for py in PY_ENVS))


@nox.session(python=PYTHON)
def property(session: nox.Session) -> None:
    """Hypothesis suite (on 3.11); HYPOTHESIS_PROFILE picks dev, ci (default), nightly."""
    tox(session, "property")


@contextlib.contextmanager
def _held(name: str) -> Iterator[None]:
    """Hold ``.cache/<name>.lock``: nox runs of other lanes wait for it."""
    lock = ROOT / ".cache" / f"{name}.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    with lock.open("w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        yield


def use_tmux(session: nox.Session, version: str) -> dict[str, str]:
    """Provision tmux ``version``; the environment that puts it first on PATH.

    The PATH reaches the tmux servers the tests start and so the panes'
    programs: a ``tmux wait-for`` typed in a pane runs the same release.
    """
    cache = Path(os.environ.get("GRIDMUX_TMUX_CACHE", provision_tmux.DEFAULT_CACHE))
    try:
        # Lanes may want the same release at once (./run: one lane's integration
        # cells, another's fidelity cells): one provisions, the other waits.
        with _held("tmux"):
            found = provision_tmux.provision(version, cache.resolve())
    except provision_tmux.Unavailable as exc:
        if version in os.environ.get("GRIDMUX_TMUX_REQUIRED", "").split():
            session.error(f"tmux {version} is required (GRIDMUX_TMUX_REQUIRED) but: {exc}")
        session.skip(f"tmux {version} could not be obtained: {exc}")
    session.log(f"tmux {version}: {found.bin_dir} ({found.source})")
    path = os.pathsep.join([str(HERE), str(found.bin_dir), os.environ.get("PATH", "")])
    env = {"PATH": path, "GRIDMUX_TMUX_VERSION": version}
    session.run(str(HERE / "python"), "-c", "import gridmux, libtmux, pytest", external=True)
    session.run(str(found.bin_dir / "tmux"), "-V", env=env, external=True)
    return env


def _integration_cells() -> list[nox.param]:
    return [
        nox.param(tmux, control, id=f"tmux='{tmux}', control='{control}'")
        for tmux in TMUX_VERSIONS
        for control in (["on", "off"] if {tmux, "all"} & set(CONTROL_OFF_VERSIONS) else ["on"])
    ]


@nox.session(venv_backend="none")
@nox.parametrize(("tmux", "control"), _integration_cells())
def integration(session: nox.Session, tmux: str, control: str) -> None:
    """The same contracts on real tmux ``tmux`` (private sockets, isolated HOME).

    ``control``: the backend's control-mode channel on, or forced off (one
    tmux process per command); the suite must pass both ways. The contract
    suite (``tests/contract``) runs its real-tmux side here, and the fault
    suite (``tests/faults``: gridmux, its control clients and tmux killed mid-call).
    The differential test (``test_differential.py``) is left to the ``fidelity``
    session of the same release, which runs it with eight times the scripts; the
    MCP layer's tests (``MCP_LAYER_TESTS``) run in the control-mode-on cells of
    the releases in ``MCP_LAYER_VERSIONS``.
    """
    env = use_tmux(session, tmux) | {"GRIDMUX_CONTROL_MODE": control}
    skipped = [DIFFERENTIAL]
    if control == "on" and {tmux, "all"} & set(MCP_LAYER_VERSIONS):
        install_inspector(session)
    else:
        skipped.extend(MCP_LAYER_TESTS)
    session.run(
        str(HERE / "python"),
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "tests/integration",
        "tests/contract",
        "tests/faults",
        "tests/fuzz",
        *(f"--ignore={path}" for path in skipped),
        "-m",
        "not sim",
        "-q",
        "-n",
        "2",
        *session.posargs,
        env=env,
    )


@nox.session(venv_backend="none")
@nox.parametrize("tmux", TMUX_VERSIONS)
def fidelity(session: nox.Session, tmux: str) -> None:
    """Simulator against real tmux ``tmux``: GRIDMUX_FIDELITY_SCRIPTS scripts (default 500).

    Prints scripts run, steps compared and disagreements for every version
    measured so far (kept in .cache/fidelity/), this one last.
    """
    env = use_tmux(session, tmux)
    scripts = os.environ.get("GRIDMUX_FIDELITY_SCRIPTS", "500")
    FIDELITY.mkdir(parents=True, exist_ok=True)
    junit = FIDELITY / f"{tmux}.xml"
    junit.unlink(missing_ok=True)
    session.run(
        str(HERE / "python"),
        "-m",
        "pytest",
        DIFFERENTIAL,
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
    # Two tmux lanes may get here at once on a fresh clone: one installs, one waits.
    with _held("inspector"):
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


@nox.session(python=PYTHON)
def mutation(session: nox.Session) -> None:
    """Mutation testing of the capture core (mutmut, pinned; config in pyproject.toml).

    Mutates src/gridmux/capture/ only and runs the core's unit tests and the
    property suite at the derandomized ``mutation`` Hypothesis profile against
    every mutant. Fails unless every mutant is killed (a timeout counts: the
    mutant loops). Equivalent mutants are not generated: their lines say why in
    a comment and carry ``# pragma: no mutate`` (docs/testing.md). Not in the
    default sessions: about 6 minutes on two shared cores.
    """
    import shutil  # noqa: PLC0415  (kept inside: this session is self-contained)

    install(session, "test,mutation")
    shutil.rmtree(ROOT / "mutants", ignore_errors=True)
    env = {"HYPOTHESIS_PROFILE": "mutation"}
    children = str(os.cpu_count() or 2)
    session.run("mutmut", "run", "--max-children", children, env=env)
    listed = session.run("mutmut", "results", env=env, silent=True)
    unkilled = [
        line.strip()
        for line in str(listed or "").splitlines()
        if line.strip() and not line.rstrip().endswith(": timeout")
    ]
    if unkilled:
        session.error("mutants not killed:\n" + "\n".join(unkilled))
    session.log("every mutant of the capture core was killed")
