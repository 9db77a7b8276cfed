"""The contract suite: every tool test runs on the simulator and on real tmux.

Each test asks for the ``client`` (an in-memory MCP client on an every-tier
gridmux server), the ``backend`` behind it and the ``ref`` of the server the
client addresses by default, and is run once per *side*:

* ``sim`` and ``sim-legacy`` (marked ``sim``): a fresh ``SimBackend`` behind
  the process's shared server, through both MCP protocol eras (``auto`` speaks
  2026-07-28, ``legacy`` the 2025-11-25 handshake);
* ``tmux`` (marked ``tmux``): the real backend on the private, isolated server
  of ``tests/integration/conftest.py`` (control mode per
  ``GRIDMUX_CONTROL_MODE``, as the nox cell sets it).

The unit session runs ``-m "not tmux"``, each integration cell ``-m "not sim"``.
Where tmux and the simulator differ, the test states tmux's behaviour and the
simulator has to match it. A pane's shell prompts ``$ `` on both sides.

Effects on tmux are asynchronous (a shell draws its prompt when it gets to
it), so a test waits for what it needs with ``eventually``: it polls with a
deadline on tmux and checks exactly once on the simulator, which is
synchronous; a condition the simulator needs time for is a simulator bug.
"""

from __future__ import annotations

import asyncio
import inspect
import os
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import pytest
from fastmcp import Client, FastMCP

from gridmux import Settings, create_server
from gridmux.backend import ServerRef, TmuxBackend
from gridmux.backend._command_backend import TmuxCommandBackend
from tests.backend_slot import EVERY_TIER, BackendSlot
from tests.integration.conftest import (
    config_file,
    control_mode,
    isolated_env,
    server,
    tmux_bin,
    tmux_server,
    user_path,
)
from tmuxsim import SimBackend

#: The integration suite's fixtures behind ``tmux_server``, re-exported.
__all__ = ["config_file", "isolated_env", "server", "tmux_bin", "tmux_server", "user_path"]

#: What the contract tests type as ``eventually``.
Eventually = Callable[..., Awaitable[None]]

#: Every pane's shell prompt on both sides.
PROMPT = "$ "


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "sim: a contract test's simulator side")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test here runs on a side or it belongs in tests/unit."""
    here = Path(__file__).parent
    for item in items:
        if here in item.path.parents and "side" not in getattr(item, "fixturenames", ()):
            raise pytest.UsageError(f"{item.nodeid} uses no backend side: move it to tests/unit")


@dataclass(frozen=True)
class Side:
    """Which backend a contract test runs on and how it waits."""

    kind: str  # "sim" or "tmux"
    backend: TmuxBackend
    ref: ServerRef

    @property
    def sim(self) -> bool:
        return self.kind == "sim"

    async def eventually(
        self,
        predicate: Callable[[], object],
        timeout: float = 15.0,
        *,
        what: str = "a condition",
    ) -> None:
        """Poll ``predicate`` (sync or async) until truthy; AssertionError after ``timeout``.

        On the simulator the condition must already hold: it is checked once.
        On tmux the default deadline is for a loaded CI machine, where a shell
        can take seconds to answer.
        """
        deadline = time.monotonic() + (0.0 if self.sim else timeout)
        while True:
            last = predicate()
            if inspect.isawaitable(last):
                last = await last
            if last:
                return
            if time.monotonic() >= deadline:
                where = "on the simulator (which is synchronous)" if self.sim else "on tmux"
                raise AssertionError(f"{what} did not hold {where} (last: {last!r})")
            await asyncio.sleep(0.01)  # a poll interval, not a synchronisation


@pytest.fixture(scope="session")
def backend_slot() -> BackendSlot:
    return BackendSlot()


@pytest.fixture(scope="session")
def shared_server(backend_slot: BackendSlot) -> FastMCP:
    return create_server(cast("TmuxBackend", backend_slot), EVERY_TIER)


def _sim_side(request: pytest.FixtureRequest) -> Iterator[Side]:
    slot: BackendSlot = request.getfixturevalue("backend_slot")
    fresh = SimBackend(version="3.3a")
    slot.current = fresh
    try:
        yield Side("sim", fresh, ServerRef())
    finally:
        slot.current = None


def _tmux_side(request: pytest.FixtureRequest) -> Iterator[Side]:
    monkeypatch: pytest.MonkeyPatch = request.getfixturevalue("monkeypatch")
    root: Path = request.getfixturevalue("isolated_env")
    # tmux starts a pane's default shell as a login shell, which reads ~/.profile;
    # the server's global environment inherits SHELL, as the simulator's has /bin/sh.
    # /etc/profile resets PATH: put the tmux under test back first, for the panes'
    # own tmux clients (wait-for).
    path = os.environ.get("PATH", "")
    (root / "home" / ".profile").write_text(f"PS1='{PROMPT}'\nexport PATH='{path}'\n")
    monkeypatch.setenv("SHELL", "/bin/sh")
    binary: str = request.getfixturevalue("tmux_bin")
    ref: ServerRef = request.getfixturevalue("tmux_server")
    real = TmuxCommandBackend(binary, command_timeout=10.0, control_mode=control_mode())
    try:
        yield Side("tmux", real, ref)
    finally:
        real.close()


@pytest.fixture(
    params=[
        pytest.param("sim", marks=pytest.mark.sim),
        pytest.param("sim-legacy", marks=pytest.mark.sim),
        pytest.param("tmux", marks=pytest.mark.tmux),
    ]
)
def side(request: pytest.FixtureRequest) -> Iterator[Side]:
    if request.param.startswith("sim"):
        yield from _sim_side(request)
    else:
        yield from _tmux_side(request)


@pytest.fixture
def backend(side: Side) -> TmuxBackend:
    """The backend behind ``client``: set-up the tools lack, and checks of what they did."""
    return side.backend


@pytest.fixture
def ref(side: Side) -> ServerRef:
    """The server the ``client`` addresses when a call names none."""
    return side.ref


@pytest.fixture
def eventually(side: Side) -> Eventually:
    return side.eventually


@pytest.fixture
async def client(request: pytest.FixtureRequest, side: Side) -> AsyncIterator[Client]:  # type: ignore[type-arg]
    if side.sim:
        server = request.getfixturevalue("shared_server")
        mode = "legacy" if request.node.callspec.params["side"] == "sim-legacy" else "auto"
        async with Client(server, mode=mode) as c:
            yield c
        return
    # Tests here reach servers of their own beside the test server: not confined.
    settings = Settings(
        socket_path=side.ref.socket_path, safety="destructive", allow_other_servers=True
    )
    async with Client(create_server(side.backend, settings)) as c:
        yield c


@pytest.fixture
def two_sessions(ref: ServerRef, backend: TmuxBackend) -> dict[str, str]:
    """'dev' with windows 0 (editor) and 1 (shell), 'ops' with window 0; ids by name."""
    dev = backend.new_session(ref, name="dev", window_name="editor", width=80, height=24)
    shell = backend.new_window(ref, dev.session_id, name="shell")
    ops = backend.new_session(ref, name="ops", window_name="logs", width=80, height=24)
    editor = backend.list_windows(ref, dev.session_id)[0]
    logs = backend.list_windows(ref, ops.session_id)[0]
    return {
        "dev": dev.session_id,
        "ops": ops.session_id,
        "editor": editor.window_id,
        "shell": shell.window_id,
        "logs": logs.window_id,
    }
