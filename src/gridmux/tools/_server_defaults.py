"""Server-wide defaults a user sets for every call: ``--suppress-history`` and
``--wait-max-seconds``, applied in one place for every tool and batch step.

:func:`listed` rewrites a tool's listed input schema so that it tells the
agent the server's values (``suppress_history``'s default; ``timeout``'s
maximum and, when the ceiling is lower, its default); :class:`ServerDefaults`
is the middleware that makes every call, direct or in a batch, behave as
listed: an omitted ``suppress_history`` takes the setting, an omitted
``timeout`` whose default is past the ceiling takes the ceiling, and a
``timeout`` past it is refused, saying the ceiling.
"""

from __future__ import annotations

from typing import Any

import mcp.types as mt
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from fastmcp.tools import ToolResult

from gridmux.settings import Settings

from ._waiting import within_ceiling

#: The tools whose ``suppress_history`` follows ``--suppress-history`` when omitted
#: (send_keys types into REPLs and editors too, where a leading space is wrong).
HISTORY_TOOLS = frozenset({"run_command"})


def listed(name: str, schema: dict[str, Any], settings: Settings) -> dict[str, Any]:
    """``schema`` (a tool's input schema) saying the server's defaults and ceiling."""
    props = schema.get("properties", {})
    history = props.get("suppress_history")
    if name in HISTORY_TOOLS and isinstance(history, dict):
        history["default"] = settings.suppress_history
    timeout = props.get("timeout")
    if isinstance(timeout, dict):
        ceiling = settings.wait_max_seconds
        timeout["maximum"] = min(timeout.get("maximum", ceiling), ceiling)
        if isinstance(timeout.get("default"), int | float) and timeout["default"] > ceiling:
            timeout["default"] = ceiling
    return schema


class ServerDefaults(Middleware):
    """Every call as the tool list says: the server's defaults filled in, its ceiling held."""

    def __init__(self, settings: Settings, timeout_defaults: dict[str, float]) -> None:
        self._settings = settings
        #: Tools whose timeout default is past the ceiling, and that default.
        self._timeout_defaults = timeout_defaults

    async def on_call_tool(
        self,
        context: MiddlewareContext[mt.CallToolRequestParams],
        call_next: CallNext[mt.CallToolRequestParams, ToolResult],
    ) -> ToolResult:
        name = context.message.name
        arguments = dict(context.message.arguments or {})
        if name in HISTORY_TOOLS and "suppress_history" not in arguments:
            arguments["suppress_history"] = self._settings.suppress_history
        if "timeout" in arguments:
            timeout = arguments["timeout"]
            if isinstance(timeout, int | float) and not isinstance(timeout, bool):
                within_ceiling(float(timeout), self._settings)
        elif name in self._timeout_defaults:
            arguments["timeout"] = self._settings.wait_max_seconds
        if arguments != (context.message.arguments or {}):
            message = context.message.model_copy(update={"arguments": arguments})
            context = context.copy(message=message)
        return await call_next(context)


__all__ = ["HISTORY_TOOLS", "ServerDefaults", "listed"]
