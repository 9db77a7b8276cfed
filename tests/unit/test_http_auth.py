"""HTTP needs a bearer token (issue 16, item 12): real HTTP on loopback, the simulator behind.

Before, any local process could drive the terminals over HTTP; now a request
without the token, or with another one, gets 401 and changes nothing.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport
from pydantic import SecretStr

from gridmux import Settings
from gridmux.http_auth import MIN_LENGTH, bearer_token

ANNOUNCED = re.compile(r"serving MCP at http://127\.0\.0\.1:(\d+)/mcp\n")
TOKEN = re.compile(r"^gridmux: send Authorization: Bearer (.+)$", re.M)
FILE_TOKEN = "f" * 20 + "0123456789abcdef"


class Server:
    """``gridmux --backend sim --transport http --port 0``, started by this test."""

    def __init__(self, log: Path, *args: str, **env: str) -> None:
        self.log = log
        clean = {k: v for k, v in os.environ.items() if not k.startswith("GRIDMUX_")}
        with log.open("wb") as sink:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "gridmux", "--backend", "sim", "--transport", "http"]
                + ["--port", "0", *args],
                env={**clean, **env},
                stdin=subprocess.DEVNULL,
                stdout=sink,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + 90
        while not (ANNOUNCED.search(self.text()) and TOKEN.search(self.text())):
            assert self.process.poll() is None, self.text()
            assert time.monotonic() < deadline, self.text()
            time.sleep(0.05)
        found = ANNOUNCED.search(self.text())
        announced = TOKEN.search(self.text())
        assert found is not None and announced is not None
        self.port = int(found.group(1))
        self.announced = announced.group(1)

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=30)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    running = Server(tmp_path / "log")
    try:
        yield running
    finally:
        running.stop()


def post(port: int, body: dict[str, object], token: str | None) -> tuple[int, str]:
    status, text, _ = post_headers(port, body, token)
    return status, text


def post_headers(
    port: int, body: dict[str, object], token: str | None
) -> tuple[int, str, http.client.HTTPMessage]:
    """``post``, and the answer's headers."""
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("POST", "/mcp", body=json.dumps(body), headers=headers)
        response = connection.getresponse()
        return response.status, response.read().decode(errors="replace"), response.headers
    finally:
        connection.close()


CREATE = {
    "jsonrpc": "2.0",
    "id": 2,
    "method": "tools/call",
    "params": {"name": "create_session", "arguments": {"session_name": "intruder"}},
}


async def test_requests_without_the_generated_token_are_refused(server: Server) -> None:
    assert len(server.announced) >= 40  # generated: 256 random bits
    for token in (None, "", "wrong-token-of-enough-length", server.announced[:-1]):
        status, _ = post(server.port, CREATE, token)
        assert status == 401
    url = f"http://127.0.0.1:{server.port}/mcp"
    async with Client(StreamableHttpTransport(url, auth=server.announced)) as client:
        sessions = (await client.call_tool("list_sessions", {})).structured_content
        assert sessions == {"result": []}  # the refused create_session changed nothing
    assert "intruder" not in server.text()


async def test_the_401_says_what_a_bearer_token_client_must_do(server: Server) -> None:
    """FastMCP's own 401 told the client to re-register (OAuth): wrong for a fixed token."""
    for token in (None, "wrong-token-of-enough-length", server.announced[:-1]):
        status, body, headers = post_headers(server.port, CREATE, token)
        assert status == 401
        challenge = headers["WWW-Authenticate"]
        said = json.loads(body)
        for text in (said["error_description"], challenge):
            assert "Authorization: Bearer <token>" in text
            assert "--http-token-file" in text and "GRIDMUX_HTTP_TOKEN" in text
            assert "register" not in text.replace("nothing to register", "")
            assert server.announced not in text
        assert challenge.startswith('Bearer realm="gridmux"')
        # RFC 6750: an error code only when a token was sent
        assert ('error="invalid_token"' in challenge) == (token is not None)
        assert said["error"] == ("invalid_token" if token is not None else "unauthorized")


async def test_the_token_from_a_private_file(tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text(FILE_TOKEN + "\n")
    token_file.chmod(0o600)
    running = Server(tmp_path / "log", "--http-token-file", str(token_file))
    try:
        # the file's token is never printed, only where it is
        assert running.announced == f"<the token from file {token_file}>"
        assert FILE_TOKEN not in running.text()
        assert post(running.port, CREATE, "x" * 40)[0] == 401
        url = f"http://127.0.0.1:{running.port}/mcp"
        async with Client(StreamableHttpTransport(url, auth=FILE_TOKEN)) as client:
            assert (await client.call_tool("list_sessions", {})).structured_content == {
                "result": []
            }
    finally:
        running.stop()


@pytest.mark.parametrize(
    ("mode", "content", "expected"),
    [
        (0o644, FILE_TOKEN, "can be read by others (mode 0644): chmod 600 it"),
        (0o600, "short", f"at least {MIN_LENGTH} printable characters"),
        (0o600, "", f"at least {MIN_LENGTH} printable characters"),
    ],
)
def test_bad_token_files_are_refused(
    tmp_path: Path, mode: int, content: str, expected: str
) -> None:
    token_file = tmp_path / "token"
    token_file.write_text(content)
    token_file.chmod(mode)
    with pytest.raises(ValueError, match=re.escape(expected)):
        bearer_token(Settings(transport="http", http_token_file=str(token_file)))
    with pytest.raises(ValueError, match="cannot read the HTTP token file"):
        bearer_token(Settings(transport="http", http_token_file=str(tmp_path / "missing")))


async def test_the_token_from_the_environment() -> None:
    verifier = bearer_token(Settings(transport="http", http_token=SecretStr(FILE_TOKEN)))
    assert verifier.source == "GRIDMUX_HTTP_TOKEN" and not verifier.generated
    assert await verifier.verify_token(FILE_TOKEN) is not None
    assert await verifier.verify_token(FILE_TOKEN + "x") is None
    assert FILE_TOKEN not in repr(Settings(http_token=SecretStr(FILE_TOKEN)))
    with pytest.raises(ValueError, match="GRIDMUX_HTTP_TOKEN must hold"):
        bearer_token(Settings(transport="http", http_token=SecretStr("a b c d e f g h i j")))
    generated = bearer_token(Settings(transport="http"))
    assert generated.generated and len(generated.reveal()) >= 40
    assert generated.reveal() != bearer_token(Settings(transport="http")).reveal()


def test_a_bad_token_file_stops_the_command_at_start(tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text(FILE_TOKEN)
    token_file.chmod(0o640)
    clean = {k: v for k, v in os.environ.items() if not k.startswith("GRIDMUX_")}
    done = subprocess.run(
        [sys.executable, "-m", "gridmux", "--backend", "sim", "--transport", "http"]
        + ["--port", "0", "--http-token-file", str(token_file)],
        env=clean,
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        f"gridmux: the HTTP token file {str(token_file)!r} can be read by others "
        "(mode 0640): chmod 600 it"
    ]
    assert done.stdout == ""
