"""Fixtures for tests against a real tmux: libtmux's pytest plugin, one private server per test.

The servers come from libtmux's pytest plugin (``libtmux.pytest_plugin``,
loaded through its ``pytest11`` entry point): its ``server`` fixture names a
fresh socket (``-L libtmux_test<random>``) and reaps that server and its
socket in a finalizer; its ``session`` fixture and friends build on it. This
file overrides the plugin's ``user_path`` and ``config_file`` so each test
has its own ``HOME`` and ``TMUX_TMPDIR`` (a short private directory, which
holds the socket) and a known config, and wraps ``server`` so the server runs
from the first fixture on, with that config passed by ``-f`` (no
``/etc/tmux.conf``, no user config): ``exit-empty off`` (so it lives with
zero sessions), ``default-shell /bin/sh`` and ``default-size 80x24``. The
environment has ``LC_ALL=C.UTF-8`` and no ``TMUX``, ``TMUX_PANE`` or
``ENV``. After the plugin's finalizer, the private directory's teardown kills
any server still listening in it. Nothing is shared between tests, so the
suite is xdist-safe. tmux is
the one first on ``PATH`` (the nox session puts the chosen release there),
for libtmux and gridmux alike.

gridmux-specific fixtures are small wrappers on top: ``tmux_server`` (the
same server as a gridmux ``ServerRef``, by the socket path tmux reports),
``backend`` (the real backend, from the ``gridmux.backends`` entry point
``tmux``), ``client`` (an in-memory MCP client), ``pane``/``quiet_pane``
(sessions made with libtmux). The raw ``tmux`` fixture runs a tmux process
itself rather than through libtmux, because libtmux drops the trailing empty
lines of every command's output and some tests compare output exactly.

No tmux binary is a failure, not a skip: CI installs tmux, and a silently
skipped integration suite proves nothing. Each test module marks itself with
``pytestmark = pytest.mark.tmux``.

Helpers are fixtures (``wait_until``, ``write_to_pane``, ``tmux``) rather than
imports, because several ``conftest.py`` files share the module name.
"""

from __future__ import annotations

import contextlib
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

import libtmux
import pytest
from fastmcp import Client

from gridmux import Settings, create_server
from gridmux.app import load_backend
from gridmux.backend import PaneSnapshot, ServerRef, TmuxBackend, read_version

#: What tests type as ``wait_until``: poll ``predicate`` until truthy or fail.
WaitUntil = Callable[..., None]
#: ``write_to_pane(pane_id, data)``: bytes written to the pane's tty.
WriteToPane = Callable[[str, bytes], None]
#: ``tmux(*args)``: run a raw tmux command on the test server, return stdout.
RawTmux = Callable[..., str]
#: ``wait_dead(pane_id, status)``: wait until tmux reports the pane dead with that status.
WaitDead = Callable[[str, int], None]

PROMPT = "$ "

#: The test server's whole configuration (passed with ``-f``; nothing else is read).
TEST_CONFIG = """\
set-option -g exit-empty off
set-option -g default-shell /bin/sh
set-option -g default-size 80x24
"""


def wait_until(
    predicate: Callable[[], object],
    timeout: float = 15.0,
    interval: float = 0.01,
    *,
    what: str = "a condition",
) -> None:
    """Poll ``predicate`` until it returns something truthy; AssertionError after ``timeout``.

    The default deadline is for a loaded CI machine, where a shell can take
    seconds to start or answer; a condition that holds returns at once."""
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
    named = read_version(out)
    assert named is not None and named.stage == "release", f"not a tmux release: {out!r}"
    return named.release


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
    for name, value in list(os.environ.items()):
        if "\n" in value:  # show-environment prints one line per variable, unescaped
            monkeypatch.delenv(name)
    yield root
    _kill_servers_under(root)
    shutil.rmtree(root, ignore_errors=True)


def _kill_servers_under(root: Path) -> None:
    """Kill any tmux server still listening under ``root`` (a test that failed midway
    may leave the servers it started); every one of them belongs to this test."""
    for path in root.rglob("*"):
        if path.is_socket():
            leftover = libtmux.Server(socket_path=str(path))
            # A cleanup error must not replace the test's own result (it may exit meanwhile).
            with contextlib.suppress(libtmux.exc.LibTmuxException):
                if leftover.is_alive():
                    leftover.kill()


# -- libtmux's plugin, adapted -------------------------------------------------------------


@pytest.fixture
def user_path(isolated_env: Path) -> Path:
    """Overrides the plugin's (session-wide) user directory: this test's private HOME."""
    return isolated_env / "home"


@pytest.fixture
def config_file(user_path: Path) -> Path:
    """Overrides the plugin's config (``base-index 1``) with :data:`TEST_CONFIG`."""
    config = user_path / ".tmux.conf"
    config.write_text(TEST_CONFIG, encoding="utf-8")
    return config


@pytest.fixture
def server(server: libtmux.Server, config_file: Path, tmux_bin: str) -> libtmux.Server:
    """The plugin's ``server``, started now with only :data:`TEST_CONFIG`.

    The plugin names the socket and reaps the server in its finalizer; the
    socket lives in this test's private ``TMUX_TMPDIR``.
    """
    server.config_file = str(config_file)
    server.tmux_bin = tmux_bin
    started = server.cmd("start-server")
    assert started.returncode == 0, f"could not start tmux: {started.stderr}"
    assert server.is_alive(), "the test server exited right after starting"
    return server


@pytest.fixture
def tmux_server(server: libtmux.Server) -> ServerRef:
    """The test server, running with no sessions, as gridmux addresses it (by socket path)."""
    shown = server.cmd("display-message", "-p", "#{socket_path}")
    assert shown.returncode == 0 and shown.stdout, shown.stderr
    return ServerRef(socket_path=shown.stdout[0])


# -- gridmux on top --------------------------------------------------------------------------


def control_mode() -> bool:
    """Whether this run uses the control-mode channel (``GRIDMUX_CONTROL_MODE``, default on)."""
    return os.environ.get("GRIDMUX_CONTROL_MODE", "on") != "off"


@pytest.fixture
def backend(tmux_bin: str) -> Iterator[TmuxBackend]:
    """The real backend, made the way ``gridmux --backend tmux`` makes it (its entry point)."""
    real = load_backend(Settings(backend="tmux", tmux_bin=tmux_bin, control_mode=control_mode()))
    yield real
    close = getattr(real, "close", None)  # the real backend's control clients
    if callable(close):
        close()


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
def tmux(tmux_bin: str, tmux_server: ServerRef) -> RawTmux:
    """Run one raw tmux command on the test server, stdout exactly as tmux wrote it."""
    socket = tmux_server.socket_path
    assert socket is not None

    def run(*args: str) -> str:
        result = _tmux(tmux_bin, socket, *args)
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


def _first_pane(session: libtmux.Session) -> str:
    # tmux 3.2a ignores a detached session's -x/-y (80x23): size it as gridmux's
    # backend does (docs/matrix.md), so every release starts at 80x24.
    target = f"{session.session_id}:"
    session.server.cmd("resize-window", "-t", target, "-x", "80", "-y", "24")
    session.server.cmd("set-option", "-wu", "-t", target, "window-size")
    active = session.active_pane
    assert active is not None and active.pane_id is not None, session
    return active.pane_id


@pytest.fixture
def pane(server: libtmux.Server, backend: TmuxBackend, tmux_server: ServerRef) -> str:
    """A fresh 80x24 session ``main`` running ``sh`` with ``PS1='$ '``; its pane id.

    Returns once the prompt is drawn and the cursor waits after it.
    """
    session = server.new_session(
        "main", x=80, y=24, environment={"PS1": PROMPT}, window_command="sh"
    )
    pane_id = _first_pane(session)
    wait_until(lambda: prompt_shown(backend.snapshot(tmux_server, pane_id)), what="the prompt")
    return pane_id


@pytest.fixture
def quiet_pane(server: libtmux.Server) -> str:
    """An 80x24 pane whose program never writes or echoes (``sleep``); for raw tty writes."""
    session = server.new_session("quiet", x=80, y=24, window_command="exec sleep 100000")
    return _first_pane(session)


@pytest.fixture
def write_to_pane(server: libtmux.Server) -> WriteToPane:
    """Write bytes to a pane's tty, so they pass its ONLCR like program output."""

    def write(pane_id: str, data: bytes) -> None:
        tty = libtmux.Pane.from_pane_id(server=server, pane_id=pane_id).pane_tty
        assert tty, f"pane {pane_id} has no tty"
        fd = os.open(tty, os.O_WRONLY | os.O_NOCTTY)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)

    return write


@pytest.fixture
async def client(backend: TmuxBackend, tmux_server: ServerRef) -> AsyncIterator[Client]:  # type: ignore[type-arg]
    """An in-memory MCP client on a gridmux server (all tiers) for ``tmux_server``."""
    # Tests here reach servers of their own beside the test server: not confined.
    settings = Settings(
        socket_path=tmux_server.socket_path, safety="destructive", allow_other_servers=True
    )
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
