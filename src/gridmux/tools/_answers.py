"""The one place every tool answer takes its final shape (:class:`AnswerShaper`).

A successful answer keeps its ``structuredContent`` as the tool built it; its
text ``content`` becomes the compact form a model reads (:func:`compact_text`)
instead of the same JSON again: fields as ``name: value`` lines, pane text
as plain lines after a ``name (n):`` header (last, so nothing follows the
rows but another counted block), lists of records as tab-separated tables
with one header row.

A failed answer says what was wrong and what to call instead, in its text
(``message`` then ``Hint: ...``) and in ``_meta["gridmux/error"]``: the error
``kind`` (``invalid_argument``, ``not_found``, ``pane_dead``, ...), the
offending ``parameter`` when there is one, and the ``suggestion``. A schema
failure is told in our words, never pydantic's (an unknown parameter gets
"did you mean `pattern`?"), a lone surrogate in a string argument is refused
before the tool runs, and no error echoes an argument longer than
:data:`ECHO_LIMIT` characters in full.

The shaper is the server's outermost middleware, so nested batch calls pass
through it too, and the audit log still sees every exception's type.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from difflib import get_close_matches
from typing import Any

import mcp.types as mt
from fastmcp import FastMCP
from fastmcp.exceptions import NotFoundError, ToolError, ValidationError
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from fastmcp.tools import ToolResult
from pydantic import ValidationError as PydanticValidationError

from ._context import TaughtError

#: The key of an error's structured metadata in a failed answer's ``_meta``.
ERROR_META_KEY = "gridmux/error"
#: Longest argument text an error repeats; longer ones are cut, their length said.
ECHO_LIMIT = 200

_PLAIN = re.compile(r"[^\s\"\\\x00-\x1f\x7f]([^\t\n\r\x00-\x1f\x7f]*[^\s\x00-\x1f\x7f])?")


# -- text content -------------------------------------------------------------------------


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value if _PLAIN.fullmatch(value) else json.dumps(value, ensure_ascii=False)
    if isinstance(value, int | float):
        return str(value)
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _is_scalar(value: Any) -> bool:
    return (
        value is None
        or isinstance(value, bool | int | float)
        or (isinstance(value, str) and "\n" not in value)
    )


def _table(rows: list[Mapping[str, Any]]) -> list[str]:
    columns: dict[str, None] = {}
    for row in rows:
        columns.update(dict.fromkeys(row))
    lines = ["\t".join(columns)]
    for row in rows:
        lines.append("\t".join(_scalar(row[c]) if c in row else "" for c in columns))
    return lines


def _block(name: str, value: Any) -> list[str]:
    """A field that is not one line: a counted header, then its lines."""
    if isinstance(value, str):
        lines = value.split("\n")
        return [f"{name} ({len(lines)} lines):", *lines]
    if value and all(isinstance(v, Mapping) for v in value):
        return [f"{name} ({len(value)}):", *_table(value)]
    return [f"{name} ({len(value)}):", *(v if isinstance(v, str) else _scalar(v) for v in value)]


def compact_text(data: Mapping[str, Any]) -> str:
    """A structured result as the text a model reads best (see the module docstring)."""
    if set(data) == {"result"}:  # FastMCP's wrapping of a list or scalar result
        value = data["result"]
        if isinstance(value, list):
            if not value:
                return "(none)"
            if all(isinstance(v, Mapping) for v in value):
                return "\n".join(_table(value))
            return "\n".join(v if isinstance(v, str) else _scalar(v) for v in value)
        if isinstance(value, Mapping):
            return compact_text(value)
        return value if isinstance(value, str) else _scalar(value)
    head: list[str] = []
    tail: list[str] = []
    for name, value in data.items():
        if _is_scalar(value) or isinstance(value, Mapping):
            head.append(f"{name}: {_scalar(value)}")
        else:
            tail.extend(_block(name, value))
    return "\n".join(head + tail)


# -- errors -------------------------------------------------------------------------------


def cap(text: str, limit: int = ECHO_LIMIT) -> str:
    """``text``, or its first ``limit`` characters, an ellipsis and its length."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text)} characters)"


def _strings(value: Any, path: str) -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _strings(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _strings(item, f"{path}[{index}]")


def lone_surrogate(arguments: Mapping[str, Any]) -> TaughtError | None:
    """An error for the first string argument holding a lone surrogate, if any."""
    for path, text in _strings(arguments, ""):
        for index, char in enumerate(text):
            if "\ud800" <= char <= "\udfff":
                return TaughtError(
                    f"{path} holds a lone surrogate (U+{ord(char):04X} at character {index}), "
                    "which is not text tmux can take",
                    kind="invalid_argument",
                    hint="Send valid Unicode: pair the surrogate or leave it out.",
                    parameter=path.split(".")[0].split("[")[0],
                )
    return None


def _capped(text: str, arguments: Mapping[str, Any]) -> str:
    """``text`` with every long argument it repeats cut to :data:`ECHO_LIMIT`."""
    for _, value in _strings(arguments, ""):
        if len(value) > ECHO_LIMIT:
            for form in (repr(value)[1:-1], json.dumps(value)[1:-1], value):
                text = text.replace(form, cap(value))
    if len(text) > 4 * ECHO_LIMIT:  # a message built from something else long
        head, _, hint = text.partition("\nHint: ")
        text = cap(head, 4 * ECHO_LIMIT) + (f"\nHint: {hint}" if hint else "")
    return text


def error_result(
    message: str,
    *,
    kind: str,
    hint: str = "",
    parameter: str | None = None,
    arguments: Mapping[str, Any] | None = None,
) -> ToolResult:
    """A failed answer: text for the model, ``_meta`` for the client."""
    text = message if not hint else f"{message}\nHint: {hint}"
    if arguments:
        text = _capped(text, arguments)
        message, _, hint = text.partition("\nHint: ")
    meta = {"kind": kind, "parameter": parameter, "suggestion": hint or None}
    return ToolResult(
        content=[mt.TextContent(type="text", text=text)],
        meta={ERROR_META_KEY: meta},
        is_error=True,
    )


def schema_error(
    tool: str, exc: PydanticValidationError, parameters: Mapping[str, Any]
) -> ToolResult:
    """A failed validation of ``tool``'s arguments, in our words (no values echoed)."""
    names = list(parameters)
    problems: list[str] = []
    first: str | None = None
    suggestion = ""
    errors = exc.errors(include_input=False, include_url=False)
    unknown = [str(e["loc"][0]) for e in errors if e["type"] == "unexpected_keyword_argument"]
    guessed: dict[str, str] = {}
    for name in unknown:
        close = get_close_matches(name, names, n=1, cutoff=0.6)
        if close:
            guessed[name] = close[0]
    for err in errors:
        loc = ".".join(str(p) for p in err["loc"]) or "arguments"
        kind = err["type"]
        if kind == "unexpected_keyword_argument":
            name = str(err["loc"][0])
            if name in guessed:
                text = f"{name}: unknown parameter; did you mean `{guessed[name]}`?"
                suggestion = (
                    suggestion or f"Call {tool} with `{guessed[name]}` instead of `{name}`."
                )
            else:
                text = f"{name}: unknown parameter"
                suggestion = suggestion or f"Parameters of {tool}: {', '.join(names) or 'none'}."
        elif kind in ("missing_argument", "missing") and loc in guessed.values():
            continue  # said already: the misspelt name above
        else:
            text = f"{loc}: {err['msg']}"
        problems.append(text)
        first = first or str(err["loc"][0]) if err["loc"] else first
    hint = (
        suggestion
        or "Fix the parameters named and call again (the input schema gives each one's type)."
    )
    return error_result(
        f"invalid arguments for {tool}: " + "; ".join(problems),
        kind="invalid_argument",
        hint=hint,
        parameter=first,
    )


class SurrogateGate(Middleware):
    """Refuse a call whose string argument holds a lone surrogate, inside the audit
    log (which records it, the surrogate shown as U+FFFD), before any tool runs."""

    async def on_call_tool(
        self,
        context: MiddlewareContext[mt.CallToolRequestParams],
        call_next: CallNext[mt.CallToolRequestParams, ToolResult],
    ) -> ToolResult:
        surrogate = lone_surrogate(context.message.arguments or {})
        if surrogate is not None:
            raise surrogate
        return await call_next(context)


class AnswerShaper(Middleware):
    """Give every ``tools/call`` answer its compact text and every error its teaching."""

    def __init__(self, mcp: FastMCP) -> None:
        self._mcp = mcp

    async def _parameters(self, name: str) -> Mapping[str, Any]:
        found = await self._mcp.local_provider.get_tool(name)
        if found is None:
            return {}
        properties: Mapping[str, Any] = found.parameters.get("properties", {})
        return properties

    async def on_call_tool(
        self,
        context: MiddlewareContext[mt.CallToolRequestParams],
        call_next: CallNext[mt.CallToolRequestParams, ToolResult],
    ) -> ToolResult:
        name = context.message.name
        arguments = context.message.arguments or {}
        try:
            result = await call_next(context)
        except TaughtError as exc:
            return error_result(
                exc.message,
                kind=exc.kind,
                hint=exc.hint,
                parameter=exc.parameter,
                arguments=arguments,
            )
        except ValidationError as exc:
            cause = exc.__cause__
            if not isinstance(cause, PydanticValidationError):
                raise
            return schema_error(name, cause, await self._parameters(name))
        except NotFoundError:
            raise  # an unknown tool is the protocol's error, not the tool's
        except ToolError as exc:
            message, _, hint = str(exc).partition("\nHint: ")
            return error_result(message, kind="refused", hint=hint, arguments=arguments)
        if result.is_error or not isinstance(result.structured_content, dict):
            return result
        return ToolResult(
            content=[mt.TextContent(type="text", text=compact_text(result.structured_content))],
            structured_content=result.structured_content,
            meta=result.meta,
        )


__all__ = [
    "ECHO_LIMIT",
    "ERROR_META_KEY",
    "AnswerShaper",
    "SurrogateGate",
    "cap",
    "compact_text",
    "error_result",
    "lone_surrogate",
    "schema_error",
]
