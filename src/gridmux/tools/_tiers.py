"""Safety tiers and honest tool annotations, declared once per tool.

Every tool is registered through :func:`tool`, which ties together its tier
(a tag FastMCP filters on), its MCP annotations and its title, so a tool
cannot be listed in one tier while its hints claim another. The server
hides every tool above the configured tier (``create_server``); hidden tools
can neither be listed nor called, and :class:`TierGate` answers a call to one
with the tier it needs instead of FastMCP's bare "unknown tool".
"""

from __future__ import annotations

from collections.abc import Callable
from enum import IntEnum
from typing import Any, TypeVar

import mcp.types as mt
from fastmcp import FastMCP
from fastmcp.exceptions import ToolError
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from fastmcp.tools.base import Tool, ToolResult
from mcp.types import ToolAnnotations

F = TypeVar("F", bound=Callable[..., Any])


class Tier(IntEnum):
    """``readonly`` < ``mutating`` < ``destructive``; a server exposes its tier and below."""

    READONLY = 0
    MUTATING = 1
    DESTRUCTIVE = 2

    @property
    def tag(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> Tier:
        try:
            return cls[text.strip().upper()]
        except KeyError:
            names = ", ".join(t.tag for t in cls)
            raise ValueError(f"unknown safety tier {text!r} (choose one of: {names})") from None


def _hints(
    *, read_only: bool, destructive: bool, idempotent: bool, open_world: bool
) -> ToolAnnotations:
    return ToolAnnotations(
        read_only_hint=read_only,
        destructive_hint=destructive,
        idempotent_hint=idempotent,
        open_world_hint=open_world,
    )


#: Reads tmux state; never changes it.
READONLY = _hints(read_only=True, destructive=False, idempotent=True, open_world=False)
#: Sets something to a given value (rename, select, set an option): repeating it changes nothing.
SETS = _hints(read_only=False, destructive=False, idempotent=True, open_world=False)
#: Creates something new each call (a session, window, pane, copy-mode entry).
CREATES = _hints(read_only=False, destructive=False, idempotent=False, open_world=False)
#: Hands input to whatever program runs in a pane: its effects are that program's.
TYPES_INPUT = _hints(read_only=False, destructive=True, idempotent=False, open_world=True)
#: Throws away a pane's content or process but keeps the pane (clear, respawn).
RESETS = _hints(read_only=False, destructive=True, idempotent=False, open_world=False)
#: Ends a tmux object and everything running in it.
DESTROYS = _hints(read_only=False, destructive=True, idempotent=True, open_world=False)


def tool(
    mcp: FastMCP,
    *,
    tier: Tier,
    title: str,
    annotations: ToolAnnotations,
    always_load: bool = False,
) -> Callable[[F], F]:
    """Register the decorated function as a tool in ``tier`` with ``annotations``.

    ``always_load`` marks the few discovery tools a client should keep loaded
    rather than defer (``anthropic/alwaysLoad``).
    """
    if (tier is Tier.READONLY) != bool(annotations.read_only_hint):
        raise ValueError(f"{title!r}: a readonly tool must carry readOnlyHint, and only it")
    meta = {"anthropic/alwaysLoad": True} if always_load else None

    def register(fn: F) -> F:
        mcp.tool(title=title, annotations=annotations, tags={tier.tag}, meta=meta)(fn)
        return fn

    return register


def tools_above(tier: Tier) -> set[str]:
    """The tier tags a server at ``tier`` hides."""
    return {t.tag for t in Tier if t > tier}


def tier_of(found: Tool) -> Tier | None:
    """The tier a registered tool was declared in (None for a tool without one)."""
    tiers = [t for t in Tier if t.tag in found.tags]
    return max(tiers) if tiers else None


def above_tier_text(name: str, tier: Tier, server_tier: Tier) -> str:
    """The refusal for calling ``name`` (a ``tier`` tool) on a server at ``server_tier``."""
    return (
        f"{name} is a {tier.tag} tool and this server runs at safety tier {server_tier.tag}\n"
        f"Hint: ask the user to restart gridmux with --safety {tier.tag} "
        f"(or GRIDMUX_SAFETY={tier.tag}) if {name} is really needed."
    )


class TierGate(Middleware):
    """Refuse a direct call to a tool above the server's tier, saying which tier it needs.

    The tool is hidden already (FastMCP would answer "unknown tool"); this only
    makes the refusal say why and what to do.
    """

    def __init__(self, mcp: FastMCP, server_tier: Tier) -> None:
        self._mcp = mcp
        self._server_tier = server_tier
        # A tool's tier is fixed at registration; FastMCP's lookup scans every
        # component, so each name is looked up once.
        self._tiers: dict[str, Tier | None] = {}

    async def on_call_tool(
        self,
        context: MiddlewareContext[mt.CallToolRequestParams],
        call_next: CallNext[mt.CallToolRequestParams, ToolResult],
    ) -> ToolResult:
        name = context.message.name
        if name in self._tiers:
            tier = self._tiers[name]
        else:
            found = await self._mcp.local_provider.get_tool(name)
            tier = tier_of(found) if found is not None else None
            if found is not None:
                self._tiers[name] = tier
        if tier is not None and tier > self._server_tier:
            raise ToolError(above_tier_text(name, tier, self._server_tier))
        return await call_next(context)
