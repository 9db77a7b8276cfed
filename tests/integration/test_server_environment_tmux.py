"""A tmux server gridmux starts gets the user's environment, not gridmux's
secrets (issue 26 item 3): tmux makes a new server's global environment of
its first client's, every pane inherits it and ``show_environment`` reads it.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from fastmcp import Client

from gridmux import Settings, create_server
from gridmux.app import load_backend
from gridmux.backend import ServerRef
from tests.integration.conftest import control_mode
from tests.mcp_calls import call, until_shown

pytestmark = pytest.mark.tmux

SECRETS = {
    "GRIDMUX_HTTP_TOKEN": "gridmux-own-token",
    "OPENAI_API_KEY": "sk-never",
    "DB_PASSWORD": "hunter2",
    "GH_TOKEN": "ghp-passed-on",
}
LINE = "r\u00e9sum\u00e9 \u4e2d\u6587"


@pytest.fixture
async def starting_client(
    isolated_env: Path, tmux_bin: str, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[Client]:  # type: ignore[type-arg]
    """gridmux with secrets in its environment and no locale, on a socket with no server."""
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("KEEP_ME", "kept")
    for name in ("LC_ALL", "LC_CTYPE", "LANG"):
        monkeypatch.delenv(name, raising=False)
    ref = ServerRef(socket_name=f"gmxenv{uuid.uuid4().hex[:8]}")
    settings = Settings(
        backend="tmux",
        tmux_bin=tmux_bin,
        control_mode=control_mode(),
        socket_name=ref.socket_name,
        pass_env="GH_TOKEN",
    )
    backend = load_backend(settings)
    try:
        async with Client(create_server(backend, settings)) as client:
            yield client
    finally:
        close = getattr(backend, "close", None)  # the real backend's control clients
        if callable(close):
            close()


async def test_a_started_server_gets_no_secret_and_a_utf8_locale(
    starting_client: Client,  # type: ignore[type-arg]
) -> None:
    client = starting_client
    made = await call(client, "create_session", session_name="fresh", environment={"X": "1"})
    env = (await call(client, "show_environment"))["variables"]
    assert "GRIDMUX_HTTP_TOKEN" not in env and "OPENAI_API_KEY" not in env
    assert "DB_PASSWORD" not in env
    assert env.get("GH_TOKEN") == "ghp-passed-on"  # passed on by name (--pass-env)
    assert env.get("KEEP_ME") == "kept" and env.get("PATH")
    assert env.get("LANG") == "C.UTF-8"
    pane = made["active_pane_id"]
    start = await call(client, "capture_since", pane_id=pane)
    # bash's line editor takes typed UTF-8 as text only in a UTF-8 locale.
    await call(client, "send_keys", pane_id=pane, keys="exec bash --norc --noprofile")
    await call(client, "send_keys", pane_id=pane, keys=f"echo '{LINE}'")
    await until_shown(client, pane, re.compile(rf"^{LINE}$", re.MULTILINE))
    read = await call(client, "capture_since", cursor=start["cursor"])
    assert LINE in read["lines"], read["lines"]
