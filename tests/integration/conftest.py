"""Fixtures for tests against a real tmux: one private, isolated server per test.

Each test gets its own server on its own socket (``-S <short tmp dir>/sock``)
started with a private empty config file, ``default-shell /bin/sh``,
``exit-empty off`` (so it lives with zero sessions) and an environment with an
isolated ``HOME`` and ``TMUX_TMPDIR``, ``LC_ALL=C.UTF-8`` and no ``TMUX``,
``TMUX_PANE`` or ``ENV``. The finalizer kills that server only (by its
socket) and removes its directory. Nothing is shared between tests, so the
suite is xdist-safe.

No tmux binary is a failure, not a skip: CI installs tmux, and a silently
skipped integration suite proves nothing. Each test module marks itself with
``pytestmark = pytest.mark.tmux``.

Helpers are fixtures (``wait_until``, ``write_to_pane``, ``tmux``) rather than
imports, because several ``conftest.py`` files share the module name.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest
from fastmcp import Client

from gridmux import Settings, create_server
from gridmux.backend import PaneSnapshot, ServerRef
from gridmux.backend._command_backend import TmuxCommandBackend

#: What tests type as ``wait_until``: poll ``predicate`` until truthy or fail.
WaitUntil = Callable[..., None]
#: ``write_to_pane(pane_id, data)``: bytes written to the pane's tty.
WriteToPane = Callable[[str, bytes], None]
#: ``tmux(*args)``: run a raw tmux command on the test server, return stdout.
RawTmux = Callable[..., str]
#: ``wait_dead(pane_id, status)``: wait until tmux reports the pane dead with that status.
WaitDead = Callable[[str, int], None]

PROMPT = "$ "


def wait_until(
    predicate: Callable[[], object],
    timeout: float = 5.0,
    interval: float = 0.01,
    *,
    what: str = "a condition",
) -> None:
    """Poll ``predicate`` until it returns something truthy; AssertionError after ``timeout``."""
    deadline = time.monotonic() + timeout
    last: object = None
    while True:
        last = predicate()
        if last:
            return
        if time.monotonic() >= deadline:
            raise AssertionError(
                f"timed out after {timeout:g}s waiting for {what} (last: {last!r})"
            )
        time.sleep(interval)


@pytest.fixture(scope="session")
def tmux_bin() -> str:
    found = shutil.which("tmux")
    if found is None:
        pytest.fail(
            "tmux is not installed or not on PATH: the integration tests need a real tmux "
            "(3.2a or newer). Install it (e.g. apt-get install tmux) or put it first on PATH.",
            pytrace=False,
        )
    wanted = os.environ.get("GRIDMUX_TMUX_VERSION")  # set by the nox matrix sessions
    if wanted:
        out = subprocess.run([found, "-V"], capture_output=True, text=True, check=False).stdout
        if out.strip() != f"tmux {wanted}":
            pytest.fail(f"expected tmux {wanted} first on PATH, found {found}: {out!r}")
    return found


@pytest.fixture(scope="session")
def tmux_release(tmux_bin: str) -> tuple[int, int]:
    """``(major, minor)`` of the tmux under test, for the few checks that differ."""
    out = subprocess.run([tmux_bin, "-V"], capture_output=True, text=True, check=True).stdout
    return release_of(out)


def release_of(version: str) -> tuple[int, int]:
    match = re.search(r"(\d+)\.(\d+)", version)
    assert match, f"cannot read a tmux version from {version!r}"
    return int(match.group(1)), int(match.group(2))


def layout_size(layout: str) -> tuple[int, int]:
    """Width and height of a window layout, as tmux prints it (checksummed, or 3.8's JSON)."""
    if layout.startswith("{"):
        root = json.loads(layout)["L"]
        return int(root["w"]), int(root["h"])
    match = re.match(r"[0-9a-f]{4},(\d+)x(\d+),", layout)
    assert match, f"not a layout: {layout!r}"
    return int(match.group(1)), int(match.group(2))


@pytest.fixture
def isolated_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A short private directory, with HOME and TMUX_TMPDIR inside it."""
    # Unix socket paths are limited to ~108 bytes; pytest's tmp_path can be longer.
    root = Path(tempfile.mkdtemp(prefix="gmx-", dir="/tmp" if os.path.isdir("/tmp") else None))
    home, tmpdir = root / "home", root / "tmp"
    home.mkdir()
    tmpdir.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("TMUX_TMPDIR", str(tmpdir))
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    monkeypatch.setenv("TERM", "xterm-256color")
    for name in ("TMUX", "TMUX_PANE", "ENV", "PROMPT_COMMAND"):
        monkeypatch.delenv(name, raising=False)
    yield root
    shutil.rmtree(root, ignore_errors=True)


def _tmux(tmux_bin: str, socket: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [tmux_bin, "-u", "-S", socket, *args],
        capture_output=True,
        text=True,
        timeout=10,
        check=False,
        stdin=subprocess.DEVNULL,
    )


@pytest.fixture
def tmux_server(tmux_bin: str, isolated_env: Path) -> Iterator[ServerRef]:
    """A running tmux server with no sessions, private to this test."""
    socket = str(isolated_env / "sock")
    config = isolated_env / "tmux.conf"
    config.write_text("")
    started = subprocess.run(
        [tmux_bin, "-u", "-f", str(config), "-S", socket, "start-server"]
        + [";", "set-option", "-g", "exit-empty", "off"]
        + [";", "set-option", "-g", "default-shell", "/bin/sh"]
        + [";", "set-option", "-g", "default-size", "80x24"],
        capture_output=True,
        text=True,
        timeout=10,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    assert started.returncode == 0, f"could not start tmux: {started.stderr}"
    try:
        yield ServerRef(socket_path=socket)
    finally:
        _tmux(tmux_bin, socket, "kill-server")  # only this socket's server
        Path(socket).unlink(missing_ok=True)


def control_mode() -> bool:
    """Whether this run uses the control-mode channel (``GRIDMUX_CONTROL_MODE``, default on)."""
    return os.environ.get("GRIDMUX_CONTROL_MODE", "on") != "off"


@pytest.fixture
def backend(tmux_bin: str) -> Iterator[TmuxCommandBackend]:
    real = TmuxCommandBackend(tmux_bin, command_timeout=10.0, control_mode=control_mode())
    yield real
    real.close()


@pytest.fixture
def tmux(tmux_bin: str, tmux_server: ServerRef) -> RawTmux:
    """Run one raw tmux command on the test server (for setup the protocol lacks)."""
    assert tmux_server.socket_path is not None

    def run(*args: str) -> str:
        result = _tmux(tmux_bin, tmux_server.socket_path or "", *args)
        assert result.returncode == 0, f"tmux {' '.join(args)} failed: {result.stderr}"
        return result.stdout

    return run


@pytest.fixture(name="wait_until")
def wait_until_fixture() -> WaitUntil:
    return wait_until


@pytest.fixture
def wait_dead(tmux: RawTmux) -> WaitDead:
    """Wait until a pane is dead and tmux knows its exit status.

    tmux marks a pane dead when its tty closes and records the status when it
    reaps the child. tmux 3.3a sometimes misses a child's SIGCHLD (about one
    exit in ten here): the zombie then waits, status unknown, until some other
    child of the server exits and tmux reaps every exited child. So while the
    pane is dead without a status, each poll ends a child of its own
    (``run-shell true``) to make tmux reap.
    """

    def wait(pane_id: str, status: int) -> None:
        def dead_with_status() -> bool:
            fmt = "#{pane_dead}:#{pane_dead_status}"
            seen = tmux("display-message", "-p", "-t", pane_id, fmt).strip()
            if seen == "1:":
                tmux("run-shell", "true")
            return seen == f"1:{status}"

        wait_until(dead_with_status, what=f"pane {pane_id} to exit with status {status}")

    return wait


def prompt_shown(snap: PaneSnapshot) -> bool:
    """The ``pane`` fixture's prompt is drawn and the cursor waits after it."""
    state = snap.state
    return snap.rows[state.cursor_y] == PROMPT.rstrip() and state.cursor_x == len(PROMPT)


@pytest.fixture
def pane(backend: TmuxCommandBackend, tmux_server: ServerRef) -> str:
    """A fresh 80x24 session running ``sh`` with ``PS1='$ '``; its pane id, prompt shown."""
    session = backend.new_session(
        tmux_server,
        name="main",
        width=80,
        height=24,
        environment={"PS1": PROMPT},
        command="sh",
    )
    assert session.active_pane_id is not None
    pane_id = session.active_pane_id
    wait_until(lambda: prompt_shown(backend.snapshot(tmux_server, pane_id)), what="the prompt")
    return pane_id


@pytest.fixture
def quiet_pane(backend: TmuxCommandBackend, tmux_server: ServerRef) -> str:
    """An 80x24 pane whose program never writes or echoes (``sleep``); for raw tty writes."""
    session = backend.new_session(
        tmux_server, name="quiet", width=80, height=24, command="exec sleep 100000"
    )
    assert session.active_pane_id is not None
    return session.active_pane_id


@pytest.fixture
def write_to_pane(backend: TmuxCommandBackend, tmux_server: ServerRef) -> WriteToPane:
    """Write bytes to a pane's tty, so they pass its ONLCR like program output."""

    def write(pane_id: str, data: bytes) -> None:
        tty = backend.display_message(tmux_server, pane_id, "#{pane_tty}")
        fd = os.open(tty, os.O_WRONLY | os.O_NOCTTY)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)

    return write


@pytest.fixture
async def client(backend: TmuxCommandBackend, tmux_server: ServerRef) -> AsyncIterator[Client]:  # type: ignore[type-arg]
    """An in-memory MCP client on a gridmux server (all tiers) for ``tmux_server``."""
    settings = Settings(socket_path=tmux_server.socket_path, safety="destructive")
    async with Client(create_server(backend, settings)) as c:
        yield c


def counting_tmux(tmp: Path, real: str) -> tuple[str, Path]:
    """A ``tmux`` in ``tmp`` that logs each start (one line) and runs ``real``."""
    log = tmp / "spawns.log"
    wrapper = tmp / "tmux"
    wrapper.write_text(f'#!/bin/sh\necho "$*" >> {log}\nexec {real} "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    return str(wrapper), log


def spawns(log: Path) -> int:
    """How many tmux processes the ``counting_tmux`` wrapper has started."""
    return len(log.read_bytes().splitlines()) if log.exists() else 0
