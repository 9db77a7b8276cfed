"""A refused call changes nothing: regressions the fuzz suite (tests/fuzz) found."""

from __future__ import annotations

from fastmcp import Client

from gridmux.backend import ServerRef, TmuxBackend
from tests.contract.conftest import Side


async def test_create_session_with_empty_window_name_makes_no_session(
    side: Side,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    ref: ServerRef,
) -> None:
    # Found by the fuzz suite: the simulator made the session, then refused the name.
    backend.new_session(ref, name="kept")
    before = backend.list_sessions(ref)
    result = await client.call_tool("create_session", {"window_name": ""}, raise_on_error=False)
    assert result.is_error
    assert "window name" in str(result.content[0].text)  # type: ignore[union-attr]
    assert backend.list_sessions(ref) == before
