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
* strings are cut to :data:`MAX_STRING` characters and lists to
  :data:`MAX_ITEMS` items.

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
import re
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

from gridmux.secret_names import secret_name
from gridmux.settings import Settings

LOGGER_NAME = "gridmux.audit"
MAX_STRING = 200
#: Characters after the logged ones the redaction rules still see (``scrub_text``).
SCRUB_MARGIN = 1024
MAX_ITEMS = 100
MAX_DEPTH = 8
REDACTED = "[redacted]"

logger = logging.getLogger(LOGGER_NAME)

#: The tool call in progress in this task: a nested (batch) call names its parent
#: and, when it has no request of its own, shares its parent's.
_current_call: ContextVar[CallRecord | None] = ContextVar("gridmux_audit_call", default=None)

# -- redaction ----------------------------------------------------------------

_NAME = (
    r"[A-Za-z0-9_.-]*(?:password|passwd|passphrase|secret|token|api[_-]?key|access[_-]?key"
    r"|private[_-]?key|credentials?)[A-Za-z0-9_.-]*"
)
_VALUE = r"(?:\"[^\"]*\"|'[^']*'|[^\s\"',;&|]+)"
#: A word that may name a secret (judged by :func:`secret_name`).
_WORD = r"[A-Za-z_@][A-Za-z0-9_.@-]*"


def _if_secret(name_group: int, keep_group: int) -> Callable[[re.Match[str]], str]:
    """A replacement: the match up to ``keep_group``, then ``[redacted]``, when the
    name in ``name_group`` is secret-looking; the match unchanged otherwise."""

    def replace(match: re.Match[str]) -> str:
        if not secret_name(match.group(name_group).lstrip("@-")):
            return match.group(0)
        return match.group(0)[: match.end(keep_group) - match.start(0)] + REDACTED

    return replace


_Replacement = str | Callable[[re.Match[str]], str]
_TEXT_RULES: tuple[tuple[re.Pattern[str], _Replacement], ...] = (
    (
        re.compile(
            r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\Z)",
            re.S,
        ),
        "[redacted private key]",
    ),
    (re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://[^\s:/@]+:)[^\s@/]+@"), rf"\1{REDACTED}@"),
    (re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}"), rf"\1 {REDACTED}"),
    # an Authorization header of any scheme (token, Digest ...) or none
    (
        re.compile(r"(?i)\b((?:proxy-)?authorization\s*[:=]\s*(?:[A-Za-z][\w-]*\s+)?)" + _VALUE),
        rf"\1{REDACTED}",
    ),
    # openssl's pass phrase argument: -passin pass:X, -passout pass:X, -k pass:X
    (re.compile(r"(?i)(?<![\w-])(pass:)(?=\S)" + _VALUE), rf"\1{REDACTED}"),
    (re.compile(rf"(?i)(--?{_NAME})(\s+|=){_VALUE}"), rf"\1\2{REDACTED}"),
    (re.compile(rf"(?i)\b({_NAME})([\"']?\s*[=:]\s*){_VALUE}"), rf"\1\2{REDACTED}"),
    # NAME=x, --name x, for any name secret_name() flags (DB_PASS, --pass, PGPIN ...)
    (re.compile(rf"(?<![A-Za-z0-9_.-])({_WORD})(\s*=\s*)(?=\S){_VALUE}"), _if_secret(1, 2)),
    (re.compile(rf"(?<!\S)(--?({_WORD}))(\s+|=)(?=[^\s-]){_VALUE}"), _if_secret(2, 3)),
    # set NAME VALUE: aws configure set, git config, tmux set-option @api_token ...
    (
        re.compile(
            rf"(?i)\b(?:set[a-z_-]*|config|setenv)\s+(?:-[A-Za-z]+\s+)*({_WORD})(\s+){_VALUE}"
        ),
        _if_secret(1, 2),
    ),
    # a password right after -p: mysql -px, sshpass -p x, docker login -p x
    (
        re.compile(r"\b(mysql\w*|mariadb\w*)\b([^\n;|&]*?\s-p)(?=[^\s-])" + _VALUE),
        rf"\1\2{REDACTED}",
    ),
    (re.compile(r"\b(sshpass|login)\b([^\n;|&]*?\s-p\s*)(?=[^\s-])" + _VALUE), rf"\1\2{REDACTED}"),
    # user:password after -u/--user (curl, wget) and htpasswd -b FILE USER PASSWORD
    (
        re.compile(r"(?<!\S)(-u\s*|-U\s*|--(?:proxy-)?user(?:\s+|=))([^\s:\"']+:)(?!//)" + _VALUE),
        rf"\1\2{REDACTED}",
    ),
    (
        re.compile(
            r"\b(htpasswd\s+(?:-[A-Za-z]+\s+)*-[A-Za-z]*b[A-Za-z]*\s+(?:-[A-Za-z]+\s+)*"
            r"(?:-n\s+)?(?:\S+\s+){1,2})(?=[^\s-])" + _VALUE
        ),
        rf"\1{REDACTED}",
    ),
    (
        # well-known token formats, also glued to a word (TOKENghp_...)
        re.compile(
            r"(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}"
            r"|glpat-[A-Za-z0-9_-]{20,}|xox[abposr]-[A-Za-z0-9-]{10,}|npm_[A-Za-z0-9]{20,}"
            r"|pypi-[A-Za-z0-9_-]{40,}|hf_[A-Za-z0-9]{30,}|[sr]k_(?:live|test)_[A-Za-z0-9]{16,}"
            r"|AKIA[0-9A-Z]{16})"
            r"|\b(?:sk-[A-Za-z0-9_-]{20,}"
            r"|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})"
        ),
        REDACTED,
    ),
)
#: Something every rule above needs in its match; text without any is left as
#: it is in one pass instead of many (tool arguments are mostly ids and cursors).
_TRIGGER = re.compile(
    r"-----BEGIN|://|(?i:\b(?:bearer|basic)\s)"
    r"|(?i:pass|pwd|secret|token|api[_-]?key|key|auth|pin|otp|private|credential|cookie)"
    r"|(?i:mysql|mariadb|login|-u|--user|htpasswd)"
    r"|gh[pousr]_|github_pat_|glpat-|xox[abposr]-|npm_|pypi-|hf_|[sr]k_|sk-|AKIA"
    r"|eyJ[A-Za-z0-9_-]{8,}\."
)
#: Arguments that carry an environment (object, or the same as a JSON string).
_ENVIRONMENT_KEYS = frozenset({"environment"})


#: Lower-case literals, one of which is in every text ``_TRIGGER`` matches: a
#: few substring tests (fast, in C) spare most texts the regex, which tries
#: its alternatives at every position (55 µs for a capture_since cursor).
_MARKS = (
    "-----begin",
    "://",
    "bearer",
    "basic",
    "pass",
    "pwd",
    "secret",
    "token",
    "key",
    "auth",
    "pin",
    "otp",
    "private",
    "credential",
    "cookie",
    "mysql",
    "mariadb",
    "login",
    "-u",
    "--user",
    "htpasswd",
    "gh",
    "github_pat_",
    "glpat-",
    "xox",
    "npm_",
    "pypi-",
    "hf_",
    "k_",
    "sk-",
    "akia",
    "eyj",
)


#: A UTF-16 surrogate in a ``str``: not text UTF-8 can carry (a refused call's
#: argument may hold one); logged as U+FFFD.
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def scrub_text(text: str) -> str:
    """``text`` with secret-looking parts replaced, cut to :data:`MAX_STRING` characters,
    lone surrogates shown as U+FFFD.

    The rules see only the first ``MAX_STRING + SCRUB_MARGIN`` characters: what is
    logged, and enough after it to finish a secret that starts there. Some rules
    take time quadratic in their input, and a tool's argument may be megabytes
    (4 MiB through load_buffer): the whole of it froze every call for minutes.
    """
    rest = max(0, len(text) - (MAX_STRING + SCRUB_MARGIN))
    text = _LONE_SURROGATE.sub("\ufffd", text[: MAX_STRING + SCRUB_MARGIN])
    lowered = text.lower()
    if any(mark in lowered for mark in _MARKS) and _TRIGGER.search(text) is not None:
        for pattern, replacement in _TEXT_RULES:
            text = pattern.sub(replacement, text)
    if len(text) + rest > MAX_STRING:
        text = f"{text[:MAX_STRING]}…[{len(text) + rest - MAX_STRING} more characters]"
    return text


def redact(value: Any, depth: int = 0) -> Any:
    """A JSON-ready copy of ``value`` (tool arguments) that is safe to log."""
    if depth > MAX_DEPTH:
        return "[nested too deep]"
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, str):
        return scrub_text(value)
    if isinstance(value, Mapping):
        return _redact_mapping(value, depth)
    if isinstance(value, list | tuple):
        items = [redact(v, depth + 1) for v in value[:MAX_ITEMS]]
        if len(value) > MAX_ITEMS:
            items.append(f"[{len(value) - MAX_ITEMS} more items]")
        return items
    return scrub_text(repr(value))


def _redact_mapping(mapping: Mapping[Any, Any], depth: int) -> dict[str, Any]:
    # set_environment(name=..., value=...), set_option(option="@api_token", value=...):
    # the value is as secret as its name says.
    secret_value = any(
        isinstance(named, str) and secret_name(named.lstrip("@"))
        for named in (mapping.get("name"), mapping.get("option"), mapping.get("variable"))
    )
    out: dict[str, Any] = {}
    for i, (raw_key, item) in enumerate(mapping.items()):
        if i >= MAX_ITEMS:
            out["…"] = f"[{len(mapping) - MAX_ITEMS} more keys]"
            break
        key = scrub_text(str(raw_key))
        if secret_name(key) or (secret_value and key in ("value", "values")):
            out[key] = REDACTED
        elif key in _ENVIRONMENT_KEYS and isinstance(item, str):
            out[key] = _redact_environment_text(item, depth)
        else:
            out[key] = redact(item, depth + 1)
    return out


def _redact_environment_text(text: str, depth: int) -> Any:
    try:
        loaded = json.loads(text)
    except ValueError:
        return scrub_text(text)
    return redact(loaded, depth + 1) if isinstance(loaded, dict) else scrub_text(text)


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
