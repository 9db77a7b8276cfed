"""The audit log: one JSON record per tool call, secrets redacted.

:class:`AuditMiddleware` wraps every ``tools/call`` (including the nested
calls a batch makes, which carry ``parent``) and records the tool, its
arguments, the outcome (``ok``, ``error`` or ``cancelled``), the error's
type and the duration (``duration_ms``: the time inside FastMCP's middleware
chain, from the call reaching it to its result, which ``nox -s bench`` judges
against its budgets). Return values are never recorded. A record is written
on the event loop's next turn, not inside the call it describes.

Arguments are recorded, not digested, so the log says what an agent did,
but first:

* values under secret-looking names (``password``, ``token``, ``api_key``,
  ``GITHUB_TOKEN`` in an ``environment`` object, the ``value`` of
  ``set_environment`` for such a name …) become ``[redacted]``;
* secret-looking parts of any text (``--password x``, ``TOKEN=x``, URL
  credentials, bearer tokens, private-key blocks, well-known token formats)
  are replaced by ``[redacted]``;
* strings are cut to ``MAX_STRING`` characters and lists to ``MAX_ITEMS``
  items (:mod:`gridmux.redaction` has the rules).

Redaction by pattern is best effort: text typed into a pane can hold secrets
no pattern knows. The log file is created private to its owner (mode 0600);
one that already exists is made 0600 at start-up, or refused when it cannot be;
the path is never followed through a symbolic link (one that is, is refused).

Where records go: ``--audit-log PATH`` (``GRIDMUX_AUDIT_LOG``) appends JSON
lines to a file; otherwise they are INFO records of the ``gridmux.audit``
logger, which the ``gridmux`` command sends to stderr (never stdout, which
carries MCP over stdio).
"""

from __future__ import annotations

import asyncio
import errno
import json
import logging
import os
import stat
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import Any, Protocol

import mcp.types as mt
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from fastmcp.tools.base import ToolResult

from gridmux.redaction import MAX_STRING, REDACTED, redact, scrub_text
from gridmux.secret_names import secret_name
from gridmux.settings import Settings

LOGGER_NAME = "gridmux.audit"

logger = logging.getLogger(LOGGER_NAME)

#: The tool call in progress in this task: a nested (batch) call names its parent
#: and, when it has no request of its own, shares its parent's.
_current_call: ContextVar[CallRecord | None] = ContextVar("gridmux_audit_call", default=None)

# -- where records go ------------------------------------------------------------


class AuditSink(Protocol):
    def write(self, record: dict[str, Any]) -> None: ...


class LoggerSink:
    """Records as INFO messages (one JSON line each) of the ``gridmux.audit`` logger."""

    def write(self, record: dict[str, Any]) -> None:
        logger.info("%s", json.dumps(record, ensure_ascii=False), extra={"audit": record})


class FileSink:
    """Records appended as JSON lines to a file, created with mode 0600.

    The file is opened for each record, so it can be rotated or removed while
    the server runs, and never through a symbolic link (``O_NOFOLLOW``: a path
    that is one is refused at start-up). Construction checks that it can be
    written, and makes a file that already exists private too (0600, through
    the open file, never a path); one it cannot make private (not the user's
    own) is refused.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self._lock = threading.Lock()
        try:
            fd = self._open()
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise ValueError(
                    f"the audit log {path!r} is a symbolic link, which gridmux does not "
                    "follow (it could point anywhere): name the file itself"
                ) from None
            raise ValueError(f"cannot write the audit log {path!r}: {exc.strerror}") from None
        try:
            self._make_private(fd)
        finally:
            os.close(fd)

    def _make_private(self, fd: int) -> None:
        status = os.fstat(fd)  # a device or pipe (/dev/stderr) is the user's choice
        if stat.S_ISREG(status.st_mode) and stat.S_IMODE(status.st_mode) & 0o077:
            try:
                os.fchmod(fd, 0o600)
            except OSError as exc:
                raise ValueError(
                    f"the audit log {self.path!r} is readable by others "
                    f"(mode {stat.S_IMODE(status.st_mode):04o}) and cannot be made private: "
                    f"{exc.strerror}; name a file of your own"
                ) from None

    def _open(self) -> int:
        # never through a symbolic link: neither the records nor the chmod reach its target
        return os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o600)

    def write(self, record: dict[str, Any]) -> None:
        line = (json.dumps(record, ensure_ascii=False) + "\n").encode()
        with self._lock:
            try:
                fd = self._open()
                try:
                    os.write(fd, line)
                finally:
                    os.close(fd)
            except OSError as exc:
                logger.warning("could not append to the audit log %s: %s", self.path, exc)


# -- the middleware ---------------------------------------------------------------


class AuditMiddleware(Middleware):
    """Record every tool call (see the module docstring); the record is written
    just after the call, on the event loop's next turn."""

    def __init__(self, sink: AuditSink) -> None:
        self.sink = sink

    async def on_call_tool(
        self,
        context: MiddlewareContext[mt.CallToolRequestParams],
        call_next: CallNext[mt.CallToolRequestParams, ToolResult],
    ) -> ToolResult:
        request = context.fastmcp_context.request_context if context.fastmcp_context else None
        client_id = context.fastmcp_context.client_id if context.fastmcp_context else None
        return await self.audited(
            CallRecord(
                name=context.message.name,
                arguments=context.message.arguments or {},
                request_id=str(request.request_id) if request is not None else None,
                client_id=client_id if request is not None else None,
            ),
            lambda: call_next(context),
        )

    async def audited(
        self, call: CallRecord, run: Callable[[], Awaitable[ToolResult]]
    ) -> ToolResult:
        """``await run()``, recorded as ``call``."""
        parent = _current_call.get()
        if parent is not None and call.request_id is None:
            call = replace(call, request_id=parent.request_id, client_id=parent.client_id)
        token = _current_call.set(call)
        started = time.perf_counter()
        outcome, error_type = "error", None
        try:
            result = await run()
            outcome = "error" if result.is_error else "ok"
            return result
        except Exception as exc:
            error_type = type(exc).__name__
            raise
        except BaseException:
            outcome = "cancelled"
            raise
        finally:
            _current_call.reset(token)
            self._emit(
                call,
                parent.name if parent is not None else None,
                outcome,
                error_type,
                time.perf_counter() - started,
            )

    def _emit(
        self,
        call: CallRecord,
        parent: str | None,
        outcome: str,
        error_type: str | None,
        seconds: float,
    ) -> None:
        """Write the record on the event loop's next turn, in call order."""

        def write() -> None:
            self.sink.write(_record(call, parent, outcome, error_type, seconds))

        try:
            asyncio.get_running_loop().call_soon(write)
        except RuntimeError:  # no loop running: write now
            write()


@dataclass(frozen=True, slots=True)
class CallRecord:
    """What the log says of a call besides its outcome."""

    name: str
    arguments: Mapping[str, Any]
    request_id: str | None = None
    client_id: str | None = None


def _record(
    call: CallRecord,
    parent: str | None,
    outcome: str,
    error_type: str | None,
    seconds: float,
) -> dict[str, Any]:
    record: dict[str, Any] = {
        "ts": datetime.now(timezone.utc).isoformat(timespec="milliseconds"),
        "tool": scrub_text(call.name),
        "outcome": outcome,
        "duration_ms": round(seconds * 1000, 1),
        "arguments": redact(call.arguments),
    }
    if error_type is not None:
        record["error_type"] = error_type
    if parent is not None:
        record["parent"] = parent
    if call.request_id is not None:
        record["request_id"] = call.request_id
        if call.client_id is not None:
            record["client_id"] = call.client_id
    return record


def audit_middleware(settings: Settings) -> AuditMiddleware:
    """The audit middleware for ``settings``: a file sink with ``audit_log``, else the logger.

    An audit log that cannot be written raises ValueError (a start-up error).
    """
    sink: AuditSink = FileSink(settings.audit_log) if settings.audit_log else LoggerSink()
    return AuditMiddleware(sink)


class StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """The handler :func:`log_to_stderr` installs (once)."""

    def __init__(self) -> None:
        super().__init__(sys.stderr)
        self.setFormatter(logging.Formatter("%(asctime)s %(name)s %(message)s"))


def log_to_stderr() -> None:
    """Send ``gridmux.audit`` records to stderr at INFO (the ``gridmux`` command does this)."""
    if not any(isinstance(h, StderrHandler) for h in logger.handlers):
        logger.addHandler(StderrHandler())
    logger.setLevel(logging.INFO)
    logger.propagate = False


__all__ = [
    "LOGGER_NAME",
    "MAX_STRING",
    "REDACTED",
    "AuditMiddleware",
    "CallRecord",
    "FileSink",
    "LoggerSink",
    "StderrHandler",
    "audit_middleware",
    "log_to_stderr",
    "redact",
    "scrub_text",
    "secret_name",
]
