"""Every line sent over stdio gets an answer (issue 16, items 3 and 13).

The MCP SDK's stdio transport dropped lines it could not read: a request
nested 300 levels deep, text that is not JSON, a request with a malformed
id, method or params, a batch; the client waited forever. The gate answers
each with a JSON-RPC error (-32700 or -32600, with the request's id when it
has a usable one) and the server keeps serving.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from typing import Any

import pytest

from gridmux._stdio_gate import INVALID_REQUEST, PARSE_ERROR, _Gate, check_line

DEEP = '{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"list_sessions",'
DEEP += '"arguments":{"filters":' + '{"a":' * 1000 + "1" + "}" * 1000 + "}}}"
#: (line, the error code it gets, the id it is answered with)
BAD: list[tuple[str, int, Any]] = [
    ("not json", PARSE_ERROR, None),
    ('{"jsonrpc":"2.0","id":11,"method":"ping"', PARSE_ERROR, None),
    (DEEP, PARSE_ERROR, None),
    ("[" * 1000 + "]" * 1000, PARSE_ERROR, None),
    ("[]", INVALID_REQUEST, None),
    ('[{"jsonrpc":"2.0","id":9,"method":"ping"}]', INVALID_REQUEST, None),
    ('"text"', INVALID_REQUEST, None),
    ("{}", INVALID_REQUEST, None),
    ('{"jsonrpc":"2.0"}', INVALID_REQUEST, None),
    ('{"jsonrpc":"1.0","id":5,"method":"ping"}', INVALID_REQUEST, 5),
    ('{"jsonrpc":"2.0","id":{},"method":"ping"}', INVALID_REQUEST, None),
    ('{"jsonrpc":"2.0","id":null,"method":"ping"}', INVALID_REQUEST, None),
    ('{"jsonrpc":"2.0","id":"s6","method":5}', INVALID_REQUEST, "s6"),
    ('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":5}', INVALID_REQUEST, 7),
]
GOOD = [
    '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    '{"jsonrpc":"2.0","method":"notifications/initialized"}',
    '{"jsonrpc":"2.0","id":12,"result":{}}',  # a response to nothing: not answered
    "",
]


@pytest.mark.parametrize(("line", "code", "request_id"), BAD)
def test_malformed_lines_get_their_error(line: str, code: int, request_id: Any) -> None:
    answer = check_line(line.encode() + b"\n")
    assert answer is not None and answer.endswith(b"\n") and answer.count(b"\n") == 1
    reply = json.loads(answer)
    assert reply["jsonrpc"] == "2.0"
    assert reply["id"] == request_id
    assert reply["error"]["code"] == code
    assert len(reply["error"]["message"]) < 600


@pytest.mark.parametrize("line", GOOD)
def test_well_formed_lines_pass(line: str) -> None:
    assert check_line(line.encode() + b"\n") is None


def test_the_server_answers_every_bad_line_and_keeps_serving() -> None:
    init = {
        "jsonrpc": "2.0",
        "id": "init",
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    lines = [json.dumps(init), '{"jsonrpc":"2.0","method":"notifications/initialized"}']
    lines += [line for line, _, _ in BAD]
    lines.append('{"jsonrpc":"2.0","id":"alive","method":"ping"}')
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRIDMUX_")}
    process = subprocess.Popen(
        [sys.executable, "-m", "gridmux", "--backend", "sim"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        process.stdin.write(("\n".join(lines) + "\n").encode())
        process.stdin.flush()
        replies: list[dict[str, Any]] = []
        buffer = b""
        deadline = time.monotonic() + 90
        while len(replies) < len(BAD) + 2:
            left = deadline - time.monotonic()
            assert left > 0, f"only {len(replies)} answers: {replies}"
            ready, _, _ = select.select([process.stdout], [], [], left)
            if ready:
                chunk = os.read(process.stdout.fileno(), 1 << 16)
                assert chunk, f"the server closed stdout after {replies}"
                buffer += chunk
                *complete, buffer = buffer.split(b"\n")
                replies += [json.loads(line) for line in complete]
        process.stdin.close()
        assert process.wait(timeout=60) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    by_id = {}
    errors = []
    for reply in replies:
        if reply["id"] in ("init", "alive"):
            by_id[reply["id"]] = reply
        else:
            errors.append((reply["error"]["code"], reply["id"]))
    assert by_id["alive"]["result"] == {}
    assert sorted(errors, key=repr) == sorted(((c, i) for _, c, i in BAD), key=repr)
    assert process.stderr is not None
    assert b"Traceback" not in process.stderr.read()


def test_an_answer_of_the_gate_never_lands_inside_a_line_of_the_server() -> None:
    """The server's output goes on in whole lines: a malformed line answered while
    the server is half-way through a line waits for that line's end."""
    real_in, client_in = os.pipe()
    client_out, real_out = os.pipe()
    ended: list[bool] = []
    gate = _Gate(real_in, real_out, lambda: ended.append(True))
    try:
        gate.write(b'{"jsonrpc": "2.0", "id": 1, ')
        os.write(client_in, b"not json\n")
        buffer = bytearray(100)
        os.close(client_in)
        assert gate.readinto(buffer) == 0  # the bad line is answered, never passed on
        assert ended == [True]  # the end of input is reported (pending calls end)
        gate.write(b'"result": {}}\n{"partial')
        gate.close()  # the server returned: what it wrote after its last newline goes too
        os.close(real_out)
        sent = b""
        while chunk := os.read(client_out, 1 << 16):
            sent += chunk
    finally:
        for fd in (real_in, client_out):
            os.close(fd)
    answer, line, rest = sent.split(b"\n")
    assert json.loads(answer)["error"]["code"] == PARSE_ERROR
    assert json.loads(line) == {"jsonrpc": "2.0", "id": 1, "result": {}}
    assert rest == b'{"partial'


GATED = """
import os, subprocess, sys
from gridmux._stdio_gate import gated_stdio
with gated_stdio():
    print("a stray print")
    os.write(1, b"a write to descriptor 1\\n")
    subprocess.run(["echo", "a child"], check=True)
    assert sys.stdin.read() == ""  # text reads see the null device
    sys.stdout.buffer.write(b'{"wire": 1}\\n')
    sys.stdout.buffer.flush()
    line = sys.stdin.buffer.readline()
    sys.stdout.buffer.write(line)
    sys.stdout.buffer.flush()
print("after the gate")
"""


def test_only_the_transport_reaches_the_wire_while_the_gate_is_open() -> None:
    """Prints, writes to descriptor 1 and children's output go to stderr; the
    transport's streams (``sys.stdin.buffer``, ``sys.stdout.buffer``) are the wire,
    checked line by line."""
    ping = b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n'
    done = subprocess.run(
        [sys.executable, "-c", GATED],
        input=b"[1, 2]\n" + ping,
        capture_output=True,
        timeout=60,
        check=True,
    )
    wire, answer, passed, after, end = done.stdout.split(b"\n")
    assert json.loads(wire) == {"wire": 1}
    assert json.loads(answer)["error"]["code"] == INVALID_REQUEST  # the batch
    assert passed + b"\n" == ping
    assert (after, end) == (b"after the gate", b"")
    for text in (b"a stray print", b"a write to descriptor 1", b"a child"):
        assert text in done.stderr
