"""The MCP surface: tools grouped by concern, one module-level function per tool.

Each tool module lists its tools in ``TOOLS``; a tool is declared with
:func:`gridmux.safety.tool` (its tier and hints come from the safety policy)
and takes its :class:`ToolContext` as the injected ``ctx`` parameter.
:func:`register_all` adds them to a server, whose lifespan must carry the
context (``FastMCP(lifespan=context.lifespan())``).

The names exported here are the tool layer's public API for the rest of
gridmux (resources, prompts): result builders and target resolution.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from fastmcp import FastMCP
from fastmcp.tools import Tool

from gridmux.safety import lean_hints
from gridmux.settings import Settings

from . import (
    batches,
    buffers,
    capture_since,
    channels,
    hooks,
    key_batches,
    options,
    pane_control,
    pane_lifecycle,
    panes,
    run_command,
    search,
    servers,
    sessions,
    waits,
    window_arrange,
    windows,
)
from ._answers import AnswerShaper, SurrogateGate
from ._context import TOOL_CONTEXT, ToolContext
from ._models import PaneInfo, SessionInfo, WindowInfo
from ._params import SHARED_PARAMETERS
from ._results import pane_result, session_result, window_result
from ._run_output import KEEP_RUNS, OUTPUTS
from ._schemas import UnlistedResults, lean_input, lean_output
from ._server_defaults import ServerDefaults, listed
from ._targets import check_id, resolve_session
from ._text import strip_blank_tail

_MODULES = (
    servers,
    sessions,
    windows,
    window_arrange,
    panes,
    pane_control,
    pane_lifecycle,
    capture_since,
    search,
    waits,
    run_command,
    key_batches,
    options,
    buffers,
    hooks,
    channels,
    batches,
)


def lead(description: str | None) -> str | None:
    """The part of a tool's docstring a client lists: its first paragraph, on one
    line (what the tool is for and when to prefer another). The paragraphs
    after it are detail for docs/tools.md (:func:`tool_docs`)."""
    if description is None:
        return None
    return " ".join(description.split("\n\n", 1)[0].split())


def tool_docs() -> dict[str, str]:
    """Every tool's whole docstring by tool name: its listed description, then its detail."""
    return {
        fn.__name__: inspect.cleandoc(fn.__doc__ or "")
        for module in _MODULES
        for fn in module.TOOLS
    }


#: Each tool function's FastMCP tool, as ``FastMCP.add_tool`` built it for the
#: first server of this process. Building one generates its pydantic JSON
#: schemas (a quarter of a second for all the tools), and nothing in it depends
#: on the server or its settings: every later server copies the same tool, and
#: the copies' listed schemas are new dicts (``lean_input``), so no server's
#: defaults reach another's.
_BUILT: dict[Callable[..., Any], Tool] = {}


def _built(mcp: FastMCP, fn: Callable[..., Any]) -> Tool:
    """``fn``'s tool as ``mcp.add_tool`` builds it, left out of ``mcp``."""
    found = _BUILT.get(fn)
    if found is None:
        found = mcp.add_tool(fn)
        mcp.local_provider.remove_tool(found.name)
        _BUILT[fn] = found
    return found


def register_all(mcp: FastMCP, settings: Settings | None = None) -> None:
    """Add every tool to ``mcp``, in the order clients list them, with lean schemas
    (``_schemas``) that say the server's defaults (``_server_defaults``), only
    the hints that differ from the MCP defaults (``safety.lean_hints``), and the
    middleware that applies those defaults to every call; with
    ``--output-schemas off`` the listing leaves the output schemas out."""
    settings = settings or Settings()
    past_ceiling: dict[str, float] = {}
    for module in _MODULES:
        for fn in module.TOOLS:
            found = _built(mcp, fn)
            timeout = found.parameters.get("properties", {}).get("timeout", {})
            default = timeout.get("default")
            if isinstance(default, int | float) and default > settings.wait_max_seconds:
                past_ceiling[found.name] = float(default)
            inputs = lean_input(found.parameters, shared=SHARED_PARAMETERS)
            mcp.add_tool(
                found.model_copy(
                    update={
                        "description": lead(found.description),
                        "parameters": listed(found.name, inputs, settings),
                        "output_schema": lean_output(found.output_schema),
                        "annotations": found.annotations and lean_hints(found.annotations),
                    }
                )
            )
    mcp.add_middleware(ServerDefaults(settings, past_ceiling))
    if not settings.output_schemas:
        mcp.add_middleware(UnlistedResults())


def run_output(run_id: str) -> list[str] | None:
    """The whole output of a recent run_command (its ``full_output``), or None
    when this process does not keep it (any more)."""
    return OUTPUTS.lines(run_id)


__all__ = [
    "KEEP_RUNS",
    "SHARED_PARAMETERS",
    "TOOL_CONTEXT",
    "AnswerShaper",
    "PaneInfo",
    "SessionInfo",
    "SurrogateGate",
    "ToolContext",
    "WindowInfo",
    "check_id",
    "pane_result",
    "register_all",
    "resolve_session",
    "run_output",
    "session_result",
    "strip_blank_tail",
    "tool_docs",
    "window_result",
]
