"""The benchmark's time inside the server: gridmux's audit records, found by request id."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from bench.clients import McpServer, ServerSpec, audit_durations
from bench.rawclient import RawStdioClient

GRIDMUX = Path(sys.executable).with_name("gridmux")


def test_audit_durations_keeps_top_level_calls_by_request_id(tmp_path: Path) -> None:
    log = tmp_path / "audit.jsonl"
    records = [
        {"tool": "list_sessions", "duration_ms": 1.5, "request_id": "3"},
        {"tool": "call_readonly_tools_batch", "duration_ms": 9.0, "request_id": "4"},
        {"tool": "capture_pane", "duration_ms": 2.0, "request_id": "4", "parent": "x"},
        {"tool": "in_process", "duration_ms": 7.0},  # no request: not a client's call
    ]
    log.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert audit_durations(log) == {"3": 0.0015, "4": 0.009}
    assert audit_durations(tmp_path / "missing.jsonl") == {}


async def test_each_call_is_matched_to_the_servers_own_record(tmp_path: Path) -> None:
    """A real gridmux (simulator backend) over stdio: every call has its time inside,
    no more than the round trip the client measured."""
    audit = tmp_path / "audit.jsonl"
    env = {"GRIDMUX_AUDIT_LOG": str(audit), "PATH": "/usr/bin:/bin"}
    argv = (str(GRIDMUX), "--backend", "sim")
    client = RawStdioClient(argv, env=env, cwd=str(tmp_path), log_file=tmp_path / "stderr.log")
    async with client:
        server = McpServer(ServerSpec("gridmux", "gridmux", argv), client, audit)
        trips: list[float] = []
        requests: list[str] = []
        for name in ("first", "second", "third"):
            elapsed, data = await server.call("create_session", {"session_name": name})
            assert data["session_name"] == name
            trips.append(elapsed)
            requests.append(server.last_request)
        inside = await server.server_seconds(requests)
    assert len(set(requests)) == 3
    assert inside is not None and len(inside) == 3
    for seconds, trip in zip(inside, trips, strict=True):
        assert 0 < seconds <= trip
    assert await McpServer(server.spec, client, None).server_seconds(requests) is None
