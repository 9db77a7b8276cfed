"""Unit-test fixtures: a simulator backend and an MCP server around it.

Tools are exercised through FastMCP's in-memory client, in both protocol
eras (``auto`` speaks 2026-07-28, ``legacy`` the 2025-11-25 handshake).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from fastmcp import Client, FastMCP

from gridmux import Settings, create_server
from tmuxsim import SimBackend


@pytest.fixture
def backend() -> SimBackend:
    return SimBackend(version="3.3a")


@pytest.fixture
def server(backend: SimBackend) -> FastMCP:
    """A server with every tier exposed; tier tests build their own."""
    return create_server(backend, Settings(backend="sim", safety="destructive"))


@pytest.fixture(params=["auto", "legacy"])
async def client(request: pytest.FixtureRequest, server: FastMCP) -> AsyncIterator[Client]:  # type: ignore[type-arg]
    async with Client(server, mode=request.param) as c:
        yield c
