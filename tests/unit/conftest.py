"""Unit-test fixtures: a simulator backend and an MCP server around it.

Tools are exercised through FastMCP's in-memory client, in both protocol
eras (``auto`` speaks 2026-07-28, ``legacy`` the 2025-11-25 handshake).

Registering the 57 tools costs FastMCP about 0.15 s of schema generation, so
each test process builds the every-tier server once and points it at the
current test's fresh simulator through a :class:`~tests.backend_slot.BackendSlot`. A test that
changes the server itself (adds tools, other settings) builds its own with
``private_server`` or ``create_server``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import cast

import pytest
from fastmcp import Client, FastMCP

from gridmux import create_server
from gridmux.backend import TmuxBackend
from tests.backend_slot import EVERY_TIER, BackendSlot
from tmuxsim import SimBackend


@pytest.fixture(scope="session")
def backend_slot() -> BackendSlot:
    return BackendSlot()


@pytest.fixture(scope="session")
def shared_server(backend_slot: BackendSlot) -> FastMCP:
    return create_server(cast("TmuxBackend", backend_slot), EVERY_TIER)


@pytest.fixture
def backend(backend_slot: BackendSlot) -> Iterator[SimBackend]:
    fresh = SimBackend(version="3.3a")
    backend_slot.current = fresh
    yield fresh
    backend_slot.current = None


@pytest.fixture
def server(backend: SimBackend, shared_server: FastMCP) -> FastMCP:
    """The every-tier server on this test's simulator; do not modify it."""
    return shared_server


@pytest.fixture
def private_server(backend: SimBackend) -> FastMCP:
    """A server of this test's own, free to modify (tier tests build their own too)."""
    return create_server(backend, EVERY_TIER)


@pytest.fixture(params=["auto", "legacy"])
async def client(request: pytest.FixtureRequest, server: FastMCP) -> AsyncIterator[Client]:  # type: ignore[type-arg]
    async with Client(server, mode=request.param) as c:
        yield c
