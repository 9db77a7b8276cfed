"""The audit log: what each tool call records, what is redacted, and where it goes."""

from __future__ import annotations

import asyncio
import json
import logging
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import mcp.types as mt
import pytest
from fastmcp import Client
from fastmcp.server.middleware import MiddlewareContext
from fastmcp.tools.base import ToolResult
from hypothesis import given, settings
from hypothesis import strategies as st

from gridmux import Settings, create_server, main, redaction
from gridmux.audit import (
    LOGGER_NAME,
    AuditMiddleware,
    FileSink,
    StderrHandler,
    log_to_stderr,
    secret_name,
)
from gridmux.backend import ServerRef
from gridmux.redaction import MAX_ITEMS, MAX_STRING, REDACTED, redact, scrub_text
from tmuxsim import SimBackend

REF = ServerRef()


@pytest.fixture
def audit(caplog: pytest.LogCaptureFixture) -> Iterator[list[dict[str, Any]]]:
    """The audit records logged so far (the default sink: the gridmux.audit logger)."""
    caplog.set_level(logging.INFO, logger=LOGGER_NAME)
    records: list[dict[str, Any]] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record.audit)  # type: ignore[attr-defined]

    handler = Collect()
    logger = logging.getLogger(LOGGER_NAME)
    logger.addHandler(handler)
    yield records
    logger.removeHandler(handler)


# -- redaction rules ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "password",
        "PGPASSWORD",
        "db_passwd",
        "passphrase",
        "GITHUB_TOKEN",
        "client_secret",
        "api_key",
        "apiKey",
        "AWS_SECRET_ACCESS_KEY",
        "key",
        "SSH_KEY",
        "pass",
        "auth",
        "credentials",
        "DB_PW",
        "MY_CREDS",
        "SIGNING_SALT",
        "@db-pw",
    ],
)
def test_secret_names(name: str) -> None:
    assert secret_name(name)


@pytest.mark.parametrize(
    "name",
    [
        "keys",
        "text",
        "pane_id",
        "session_name",
        "monkey",
        "HISTFILE",
        "PATH",
        "buffer_name",
        "OLDPWD",
        "SALTSTACK_HOME",
    ],
)
def test_ordinary_names(name: str) -> None:
    assert not secret_name(name)


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("export GITHUB_TOKEN=abc123def", "abc123def"),
        ("mysql --password hunter2 db", "hunter2"),
        ("curl --api-key=s3cr3t https://x", "s3cr3t"),
        ('DB_PASSWORD="two words"', "two words"),
        ("psql postgres://admin:pa55w0rd@db/prod", "pa55w0rd"),
        ("curl -H 'Authorization: Bearer eyAbCdEf0123456789'", "eyAbCdEf0123456789"),
        ("ghp_" + "a" * 36, "a" * 36),
        ("key AKIAABCDEFGHIJKLMNOP here", "AKIAABCDEFGHIJKLMNOP"),
        ("sk-" + "Z9" * 12, "Z9" * 12),
        (
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaA\n-----END OPENSSH PRIVATE KEY-----",
            "b3BlbnNzaA",
        ),
    ],
)
def test_secret_looking_text_is_scrubbed(text: str, secret: str) -> None:
    scrubbed = scrub_text(text)
    assert secret not in scrubbed
    assert "redacted" in scrubbed


def test_ordinary_text_is_kept() -> None:
    for text in ("ls -la /tmp", "echo hello; make test", "git log --oneline -5"):
        assert scrub_text(text) == text


def test_long_strings_are_cut() -> None:
    cut = scrub_text("y" * (MAX_STRING + 50))
    assert cut == "y" * MAX_STRING + "…[50 more characters]"


def test_redact_walks_arguments() -> None:
    arguments = {
        "session_name": "dev",
        "x": 80,
        "literal": True,
        "api_token": "should-vanish",
        "environment": {"GITHUB_TOKEN": "gh-secret", "EDITOR": "vim"},
        "operations": [
            {
                "tool": "set_environment",
                "arguments": {"name": "NPM_TOKEN", "value": "npm-secret"},
            },
            {"tool": "set_environment", "arguments": {"name": "EDITOR", "value": "nano"}},
        ],
    }
    assert redact(arguments) == {
        "session_name": "dev",
        "x": 80,
        "literal": True,
        "api_token": REDACTED,
        "environment": {"GITHUB_TOKEN": REDACTED, "EDITOR": "vim"},
        "operations": [
            {"tool": "set_environment", "arguments": {"name": "NPM_TOKEN", "value": REDACTED}},
            {"tool": "set_environment", "arguments": {"name": "EDITOR", "value": "nano"}},
        ],
    }


def test_an_environment_given_as_json_text_is_redacted_by_name() -> None:
    out = redact({"environment": '{"AWS_SECRET_ACCESS_KEY": "zzz", "LANG": "C"}'})
    assert out == {"environment": {"AWS_SECRET_ACCESS_KEY": REDACTED, "LANG": "C"}}
    assert redact({"environment": "not json, PASSWORD=zzz"}) == {
        "environment": f"not json, PASSWORD={REDACTED}"
    }


def test_long_lists_and_deep_nesting_are_bounded() -> None:
    out = redact({"operations": list(range(MAX_ITEMS + 5))})
    assert out["operations"][-1] == "[5 more items]"
    assert len(out["operations"]) == MAX_ITEMS + 1
    deep: Any = "bottom"
    for _ in range(20):
        deep = [deep]
    assert "[nested too deep]" in json.dumps(redact(deep))
    assert redact(("a", 1)) == ["a", 1]
    assert isinstance(redact({"odd": object()})["odd"], str)


# -- the middleware, through the MCP client ---------------------------------------------------


async def test_a_call_is_recorded_with_outcome_duration_and_arguments(
    audit: list[dict[str, Any]],
) -> None:
    backend = SimBackend(version="3.3a")
    server = create_server(backend, Settings(backend="sim", safety="mutating"))
    async with Client(server) as client:
        await client.call_tool("create_session", {"session_name": "dev", "x": 90})
    (record,) = audit
    assert record["tool"] == "create_session"
    assert record["outcome"] == "ok"
    assert "error_type" not in record and "parent" not in record
    assert record["arguments"] == {"session_name": "dev", "x": 90}
    assert isinstance(record["duration_ms"], float) and record["duration_ms"] >= 0
    assert record["ts"].endswith("+00:00")
    assert record["request_id"]


async def test_failures_are_recorded_with_their_type(
    audit: list[dict[str, Any]],
) -> None:
    server = create_server(SimBackend(version="3.3a"), Settings(backend="sim", safety="readonly"))
    async with Client(server) as client:
        for name, args in [
            ("get_pane_info", {"pane_id": "%404"}),
            ("list_sessions", {"bogus": 1}),
            ("create_session", {"session_name": "hidden-at-readonly"}),
        ]:
            with pytest.raises(Exception):  # noqa: B017, PT011 - each kind is checked below
                await client.call_tool(name, args)
    assert [(r["tool"], r["outcome"], r["error_type"]) for r in audit] == [
        ("get_pane_info", "error", "TaughtError"),  # a ToolError with kind and hint
        ("list_sessions", "error", "ValidationError"),
        ("create_session", "error", "ToolError"),  # refused by the tier gate
    ]


async def test_secrets_and_results_stay_out_of_the_log(
    audit: list[dict[str, Any]], caplog: pytest.LogCaptureFixture
) -> None:
    backend = SimBackend(version="3.3a")
    session = backend.new_session(REF, name="dev", width=80, height=24)
    pane = session.active_pane_id
    backend.send_keys(REF, pane or "", "echo SCREEN-ONLY-MARKER", enter=True)
    server = create_server(backend, Settings(backend="sim", safety="mutating"))
    async with Client(server) as client:
        await client.call_tool(
            "send_keys", {"keys": "export GITHUB_TOKEN=ghp_supersecretvalue1", "pane_id": pane}
        )
        await client.call_tool(
            "create_session",
            {"session_name": "s2", "environment": {"DB_PASSWORD": "pw-in-env", "TERM": "vt100"}},
        )
        await client.call_tool("capture_pane", {"pane_id": pane})
    logged = caplog.text + json.dumps(audit)
    assert "ghp_supersecretvalue1" not in logged
    assert "pw-in-env" not in logged
    assert "SCREEN-ONLY-MARKER" not in logged
    assert audit[0]["arguments"]["keys"] == f"export GITHUB_TOKEN={REDACTED}"
    assert audit[1]["arguments"]["environment"] == {"DB_PASSWORD": REDACTED, "TERM": "vt100"}


async def test_batch_steps_are_recorded_under_their_batch(
    audit: list[dict[str, Any]],
) -> None:
    server = create_server(SimBackend(version="3.3a"), Settings(backend="sim", safety="mutating"))
    async with Client(server) as client:
        await client.call_tool(
            "call_mutating_tools_batch",
            {
                "operations": [
                    {"tool": "create_session", "arguments": {"session_name": "b1"}},
                    {"tool": "get_pane_info", "arguments": {"pane_id": "%404"}},
                    {"tool": "list_sessions", "arguments": {}},
                ],
                "on_error": "continue",
            },
        )
    assert [(r["tool"], r["outcome"], r.get("parent")) for r in audit] == [
        ("create_session", "ok", "call_mutating_tools_batch"),
        ("get_pane_info", "error", "call_mutating_tools_batch"),
        ("list_sessions", "ok", "call_mutating_tools_batch"),
        ("call_mutating_tools_batch", "ok", None),
    ]
    assert len({r["request_id"] for r in audit}) == 1
    assert audit[-1]["arguments"]["operations"][0]["tool"] == "create_session"


def _context(name: str, arguments: dict[str, Any]) -> MiddlewareContext[mt.CallToolRequestParams]:
    return MiddlewareContext(
        message=mt.CallToolRequestParams(name=name, arguments=arguments), method="tools/call"
    )


class _ListSink:
    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []

    def write(self, record: dict[str, Any]) -> None:
        self.records.append(record)


async def test_error_results_and_cancellations_are_recorded() -> None:
    sink = _ListSink()
    middleware = AuditMiddleware(sink)

    async def error_result(context: MiddlewareContext[mt.CallToolRequestParams]) -> ToolResult:
        return ToolResult(content="failed", is_error=True)

    async def cancelled(context: MiddlewareContext[mt.CallToolRequestParams]) -> ToolResult:
        raise asyncio.CancelledError

    await middleware.on_call_tool(_context("a", {}), error_result)
    with pytest.raises(asyncio.CancelledError):
        await middleware.on_call_tool(_context("b", {"token": "t"}), cancelled)
    assert sink.records == []  # written on the loop's next turn, after the answer
    await asyncio.sleep(0)
    assert [(r["tool"], r["outcome"]) for r in sink.records] == [("a", "error"), ("b", "cancelled")]
    assert sink.records[1]["arguments"] == {"token": REDACTED}
    assert "request_id" not in sink.records[0]


# -- where records go -----------------------------------------------------------------------


async def test_audit_log_file_gets_json_lines_and_the_logger_nothing(
    tmp_path: Path, audit: list[dict[str, Any]]
) -> None:
    path = tmp_path / "audit.jsonl"
    settings = Settings(backend="sim", safety="mutating", audit_log=str(path))
    server = create_server(SimBackend(version="3.3a"), settings)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    async with Client(server) as client:
        await client.call_tool("create_session", {"session_name": "f1"})
        path.unlink()  # rotated away: the next record starts a new file
        await client.call_tool("list_sessions", {})
    lines = path.read_text().splitlines()
    assert [json.loads(line)["tool"] for line in lines] == ["list_sessions"]
    assert audit == []


async def test_a_call_refused_for_a_lone_surrogate_is_audited(
    tmp_path: Path, audit: list[dict[str, Any]], caplog: pytest.LogCaptureFixture
) -> None:
    """The refusal is recorded like any failed call, in the file and in the logger,
    the surrogate logged as U+FFFD (UTF-8 cannot carry it)."""
    path = tmp_path / "audit.jsonl"
    for configured in (
        Settings(backend="sim", safety="mutating", audit_log=str(path)),
        Settings(backend="sim", safety="mutating"),
    ):
        async with Client(create_server(SimBackend(version="3.3a"), configured)) as client:
            result = await client.call_tool(
                "list_panes", {"session_name": "dev\ud800x"}, raise_on_error=False
            )
        assert result.is_error
    (record,) = [json.loads(line) for line in path.read_text().splitlines()]
    (logged,) = audit
    for seen in (record, logged):
        assert seen["tool"] == "list_panes" and seen["outcome"] == "error"
        assert seen["error_type"] == "TaughtError"
        assert seen["arguments"] == {"session_name": "dev\ufffdx"}
    assert "Logging error" not in caplog.text


async def test_a_failing_audit_file_warns_and_the_call_still_succeeds(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "audit.jsonl"
    sink = FileSink(str(path))
    path.unlink()
    path.mkdir()  # now a directory: appending fails
    caplog.set_level(logging.WARNING, logger=LOGGER_NAME)
    sink.write({"tool": "x"})
    assert "could not append to the audit log" in caplog.text


def test_an_unwritable_audit_log_is_a_start_up_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "no-such-dir" / "audit.jsonl"
    with pytest.raises(ValueError, match="cannot write the audit log"):
        create_server(SimBackend(version="3.3a"), Settings(backend="sim", audit_log=str(missing)))
    with pytest.raises(SystemExit) as exited:
        main(["--backend", "sim", "--audit-log", str(missing)])
    assert "gridmux: cannot write the audit log" in str(exited.value.code)
    assert str(missing) in str(exited.value.code)
    assert capsys.readouterr().out == ""
    assert not missing.parent.exists()


@pytest.mark.parametrize(
    ("argv", "env", "expected"),
    [
        ([], {}, None),
        (["--audit-log", "/tmp/a.jsonl"], {}, "/tmp/a.jsonl"),
        ([], {"GRIDMUX_AUDIT_LOG": "/tmp/b.jsonl"}, "/tmp/b.jsonl"),
        (["--audit-log", "/tmp/a.jsonl"], {"GRIDMUX_AUDIT_LOG": "/tmp/b.jsonl"}, "/tmp/a.jsonl"),
        ([], {"GRIDMUX_AUDIT_LOG": ""}, None),
    ],
)
def test_the_flag_and_the_environment_choose_the_audit_log(
    argv: list[str], env: dict[str, str], expected: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert Settings.from_command_line(argv).audit_log == expected


@pytest.fixture
def restore_audit_logger() -> Iterator[logging.Logger]:
    logger = logging.getLogger(LOGGER_NAME)
    saved = (list(logger.handlers), logger.level, logger.propagate)
    yield logger
    logger.handlers[:] = saved[0]
    logger.setLevel(saved[1])
    logger.propagate = saved[2]


def test_by_default_records_go_to_stderr_never_stdout(
    restore_audit_logger: logging.Logger, capsys: pytest.CaptureFixture[str]
) -> None:
    log_to_stderr()
    log_to_stderr()  # idempotent: one handler
    ours = [h for h in restore_audit_logger.handlers if isinstance(h, StderrHandler)]
    assert len(ours) == 1
    restore_audit_logger.info("%s", json.dumps({"tool": "probe"}))
    captured = capsys.readouterr()
    assert captured.out == ""
    assert f"{LOGGER_NAME} " in captured.err and '{"tool": "probe"}' in captured.err


_TRIGGER_SAMPLES = (
    "-----BEGIN RSA PRIVATE KEY-----",
    "https://user:pw@example.invalid",
    "Authorization: Bearer abcdefghij",
    "BASIC abcdefghij",
    "--Password x",
    "DB_PASSWD=x",
    "passphrase: x",
    "client_secret=x",
    "X_TOKEN=x",
    "api-key=x",
    "ACCESS_KEY=x",
    "private_key=x",
    "credentials=x",
    "ghs_" + "a" * 30,
    "github_pat_" + "a" * 30,
    "glpat-" + "a" * 30,
    "xoxp-" + "a" * 20,
    "sk-" + "a" * 30,
    "AKIA" + "A" * 16,
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJlc2ln",
)


@pytest.mark.parametrize("text", _TRIGGER_SAMPLES)
def test_the_literal_prefilter_passes_every_kind_of_secret(text: str) -> None:
    assert redaction._TRIGGER.search(text) is not None
    assert any(mark in text.lower() for mark in redaction._MARKS)
    assert "[redacted" in scrub_text(text)


@settings(max_examples=300)
@given(
    st.text(alphabet=st.characters(codec="utf-8"), max_size=60),
    st.sampled_from(_TRIGGER_SAMPLES),
    st.text(max_size=60),
)
def test_the_prefilter_never_hides_what_the_trigger_finds(
    before: str, secret: str, after: str
) -> None:
    for text in (before, before + secret + after, (before + secret).swapcase()):
        if redaction._TRIGGER.search(text) is not None:
            assert any(mark in text.lower() for mark in redaction._MARKS), text
