"""The safety tier policy, whole: which tool is in which tier, what each tier
may do, and the one gate every call and every batch step passes.

Tiers are ``readonly`` < ``mutating`` < ``destructive`` (docs/safety.md#tiers). Each tool's
tier and its MCP annotations are one row of :data:`POLICY`; the tool modules
only name a title (:func:`tool`), so a tool cannot be listed in one tier while
its hints claim another, and a new tool cannot be registered unclassified.
A row becomes the tool's tier tag, which FastMCP filters on: :func:`enforce`
hides every tool above the server's tier and installs :class:`TierGate`, and
:func:`refusal` is the one check both the gate and the batch tools apply.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from enum import IntEnum
from typing import Any, TypeVar

import mcp.types as mt
from fastmcp import FastMCP
from fastmcp.exceptions import ToolError
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from fastmcp.tools import Tool, ToolResult
from fastmcp.tools import tool as fastmcp_tool
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
    def parse(cls, text: str | Tier) -> Tier:
        if isinstance(text, Tier):
            return text
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


#: Each hint's value when a tool leaves it out: the MCP specification's defaults.
HINT_DEFAULTS: Mapping[str, bool] = {
    "readOnlyHint": False,
    "destructiveHint": True,
    "idempotentHint": False,
    "openWorldHint": True,
}


def lean_hints(hints: ToolAnnotations) -> ToolAnnotations:
    """``hints`` with only the hints that say something under :data:`HINT_DEFAULTS`.

    A hint equal to its default goes, and so do destructiveHint and
    idempotentHint on a read-only tool (the specification gives them meaning
    only when readOnlyHint is false). :func:`effective_hints` reads them back.
    """
    wire = hints.model_dump(by_alias=True, exclude_none=True)
    read_only = wire.get("readOnlyHint", HINT_DEFAULTS["readOnlyHint"])
    kept = {
        name: value
        for name, value in wire.items()
        if name not in HINT_DEFAULTS
        or (
            value != HINT_DEFAULTS[name]
            and not (read_only and name in ("destructiveHint", "idempotentHint"))
        )
    }
    return ToolAnnotations.model_validate(kept)


def effective_hints(hints: ToolAnnotations | None) -> dict[str, bool]:
    """What a tool's hints mean, every one spelt out: a hint left out takes its
    default, and a read-only tool is neither destructive nor unsafe to repeat."""
    wire = hints.model_dump(by_alias=True, exclude_none=True) if hints is not None else {}
    out = {name: bool(wire.get(name, default)) for name, default in HINT_DEFAULTS.items()}
    if out["readOnlyHint"]:
        out["destructiveHint"], out["idempotentHint"] = False, True
    return out


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


@dataclass(frozen=True, slots=True)
class Rule:
    """A tool's tier and the annotations that describe its effect honestly."""

    tier: Tier
    annotations: ToolAnnotations

    def check(self, name: str) -> None:
        """What a tier may do: only readonly tools read only; destructive ones say so."""
        if (self.tier is Tier.READONLY) != bool(self.annotations.read_only_hint):
            raise ValueError(f"{name}: a readonly tool must carry readOnlyHint, and only it")
        if self.tier is Tier.DESTRUCTIVE and not self.annotations.destructive_hint:
            raise ValueError(f"{name}: a destructive-tier tool must carry destructiveHint")


#: Every tool, its tier and its effect, grouped as the tool modules are.
POLICY: Mapping[str, Rule] = {
    # servers
    "list_servers": Rule(Tier.READONLY, READONLY),
    "get_server_info": Rule(Tier.READONLY, READONLY),
    "kill_server": Rule(Tier.DESTRUCTIVE, DESTROYS),
    # sessions
    "list_sessions": Rule(Tier.READONLY, READONLY),
    "create_session": Rule(Tier.MUTATING, CREATES),
    "get_session_info": Rule(Tier.READONLY, READONLY),
    "rename_session": Rule(Tier.MUTATING, SETS),
    "kill_session": Rule(Tier.DESTRUCTIVE, DESTROYS),
    # windows
    "list_windows": Rule(Tier.READONLY, READONLY),
    "get_window_info": Rule(Tier.READONLY, READONLY),
    "create_window": Rule(Tier.MUTATING, CREATES),
    "select_window": Rule(Tier.MUTATING, SETS),
    "split_window": Rule(Tier.MUTATING, CREATES),
    "rename_window": Rule(Tier.MUTATING, SETS),
    "kill_window": Rule(Tier.DESTRUCTIVE, DESTROYS),
    "select_layout": Rule(Tier.MUTATING, SETS),
    "resize_window": Rule(Tier.MUTATING, SETS),
    "move_window": Rule(Tier.MUTATING, SETS),
    # panes
    "list_panes": Rule(Tier.READONLY, READONLY),
    "get_pane_info": Rule(Tier.READONLY, READONLY),
    "capture_pane": Rule(Tier.READONLY, READONLY),
    "snapshot_pane": Rule(Tier.READONLY, READONLY),
    "send_keys": Rule(Tier.MUTATING, TYPES_INPUT),
    # pane_control
    "display_message": Rule(Tier.READONLY, READONLY),
    "find_pane_by_position": Rule(Tier.READONLY, READONLY),
    "set_pane_title": Rule(Tier.MUTATING, SETS),
    "clear_pane": Rule(Tier.MUTATING, RESETS),
    "resize_pane": Rule(Tier.MUTATING, SETS),
    "select_pane": Rule(Tier.MUTATING, SETS),
    "swap_pane": Rule(Tier.MUTATING, CREATES),
    "paste_text": Rule(Tier.MUTATING, TYPES_INPUT),
    # pane_lifecycle
    "respawn_pane": Rule(Tier.MUTATING, RESETS),
    "kill_pane": Rule(Tier.DESTRUCTIVE, DESTROYS),
    "enter_copy_mode": Rule(Tier.MUTATING, CREATES),
    "exit_copy_mode": Rule(Tier.MUTATING, SETS),
    "pipe_pane": Rule(Tier.MUTATING, TYPES_INPUT),
    # capture_since, search, waits
    "capture_since": Rule(Tier.READONLY, READONLY),
    "search_panes": Rule(Tier.READONLY, READONLY),
    "wait_for_text": Rule(Tier.READONLY, READONLY),
    "wait_for_content_change": Rule(Tier.READONLY, READONLY),
    # commands
    "run_command": Rule(Tier.MUTATING, TYPES_INPUT),
    "send_keys_batch": Rule(Tier.MUTATING, TYPES_INPUT),
    # options
    "show_option": Rule(Tier.READONLY, READONLY),
    "set_option": Rule(Tier.MUTATING, SETS),
    "show_environment": Rule(Tier.READONLY, READONLY),
    "set_environment": Rule(Tier.MUTATING, SETS),
    # buffers
    "load_buffer": Rule(Tier.MUTATING, CREATES),
    "paste_buffer": Rule(Tier.MUTATING, TYPES_INPUT),
    "show_buffer": Rule(Tier.READONLY, READONLY),
    "delete_buffer": Rule(Tier.MUTATING, DESTROYS),
    # hooks
    "show_hooks": Rule(Tier.READONLY, READONLY),
    "show_hook": Rule(Tier.READONLY, READONLY),
    # channels
    "wait_for_channel": Rule(Tier.MUTATING, CREATES),
    "signal_channel": Rule(Tier.MUTATING, SETS),
    # batches: the mutating and destructive ones may run send_keys & co, whose
    # effects are whatever the pane's program does (as open as TYPES_INPUT)
    "call_readonly_tools_batch": Rule(Tier.READONLY, READONLY),
    "call_mutating_tools_batch": Rule(Tier.MUTATING, TYPES_INPUT),
    "call_destructive_tools_batch": Rule(Tier.DESTRUCTIVE, TYPES_INPUT),
}
for _name, _rule in POLICY.items():
    _rule.check(_name)

#: What each tier lets an agent do, as the server's instructions say it.
TIER_NOTES: Mapping[Tier, str] = {
    Tier.READONLY: (
        "Safety tier: readonly. Only tools that read are available: explore freely. "
        "Typing, creating and killing need a restart with --safety mutating or destructive."
    ),
    Tier.MUTATING: (
        "Safety tier: mutating. You can read, type, create and rearrange; kill_pane, "
        "kill_window, kill_session, kill_server and call_destructive_tools_batch need "
        "--safety destructive."
    ),
    Tier.DESTRUCTIVE: (
        "Safety tier: destructive. Every tool is available, kill tools included; "
        "kill only what you created or were asked to."
    ),
}


#: The tier a batch runs its steps at (unset outside a batch).
_BATCH_CEILING: ContextVar[Tier | None] = ContextVar("gridmux_batch_ceiling", default=None)


@contextmanager
def batch_ceiling(tier: Tier) -> Iterator[None]:
    """Run the nested calls of a ``tier`` batch: checks inside see :func:`acting_tier` lowered."""
    token = _BATCH_CEILING.set(tier)
    try:
        yield
    finally:
        _BATCH_CEILING.reset(token)


def acting_tier(server_tier: Tier) -> Tier:
    """The tier a call acts at: the server's, or its batch's when lower."""
    ceiling = _BATCH_CEILING.get()
    return server_tier if ceiling is None else min(server_tier, ceiling)


def tool(title: str, *, always_load: bool = False) -> Callable[[F], F]:
    """Mark a module-level function as an MCP tool, its tier and hints from :data:`POLICY`.

    ``always_load`` marks the few discovery tools a client should keep loaded
    rather than defer (``anthropic/alwaysLoad``). Register the function with
    ``FastMCP.add_tool``.
    """

    def declare(fn: F) -> F:
        rule = POLICY.get(fn.__name__)
        if rule is None:
            raise ValueError(f"tool {fn.__name__!r} has no row in gridmux.safety.POLICY")
        meta = {"anthropic/alwaysLoad": True} if always_load else None
        marked: F = fastmcp_tool(
            title=title, annotations=rule.annotations, tags={rule.tier.tag}, meta=meta
        )(fn)
        return marked

    return declare


def tools_above(tier: Tier) -> set[str]:
    """The tier tags a server at ``tier`` hides."""
    return {t.tag for t in Tier if t > tier}


def tier_of(found: Tool) -> Tier | None:
    """The tier a registered tool was declared in (None for a tool without one)."""
    tiers = [t for t in Tier if t.tag in found.tags]
    return max(tiers) if tiers else None


def listed_tier(tool: mt.Tool) -> Tier | None:
    """The tier of a tool as a client lists it (FastMCP's tags in its ``_meta``)."""
    tags = ((tool.meta or {}).get("fastmcp") or {}).get("tags") or []
    tiers = [t for t in Tier if t.tag in tags]
    return max(tiers) if tiers else None


def refusal(
    name: str,
    tier: Tier | None,
    server_tier: Tier,
    *,
    ceiling: Tier | None = None,
    batch: str = "",
    selected: Collection[str] | None = None,
) -> str | None:
    """Why ``name`` (a ``tier`` tool) may not run here, or None when it may.

    ``ceiling`` and ``batch`` are a batch tool's own tier and name: a batch
    runs no tool without a tier and none above its ceiling. ``selected`` is
    the server's tool selection (None: every tool): a tool outside it is off.
    """
    if tier is None:
        return f"{name} has no safety tier, so no batch runs it" if batch else None
    if selected is not None and name not in selected:
        return (
            f"{name} is switched off on this server (--tools/--exclude-tools)\n"
            f"Hint: use the tools it lists, or ask the user to restart gridmux with {name} "
            "in --tools (GRIDMUX_TOOLS) and not in --exclude-tools (GRIDMUX_EXCLUDE_TOOLS)."
        )
    if tier > server_tier:
        return (
            f"{name} is a {tier.tag} tool and this server runs at safety tier "
            f"{server_tier.tag}\n"
            f"Hint: ask the user to restart gridmux with --safety {tier.tag} "
            f"(or GRIDMUX_SAFETY={tier.tag}) if {name} is really needed."
        )
    if ceiling is not None and tier > ceiling:
        allowed = " and ".join(t.tag for t in Tier if t <= ceiling)
        return (
            f"{name} is a {tier.tag} tool; {batch} runs {allowed} tools only\n"
            f"Hint: use call_{tier.tag}_tools_batch, or call {name} directly."
        )
    return None


class TierGate(Middleware):
    """Refuse a direct call to a tool above the server's tier, saying which tier it needs.

    The tool is hidden already (FastMCP would answer "unknown tool"); this only
    makes the refusal say why and what to do.
    """

    def __init__(
        self, mcp: FastMCP, server_tier: Tier, selected: Collection[str] | None = None
    ) -> None:
        self._mcp = mcp
        self._server_tier = server_tier
        self._selected = selected
        # A tool's tier is fixed at registration; FastMCP's lookup scans every
        # component, so each name is looked up once.
        self._tiers: dict[str, Tier | None] = {}

    async def tier(self, name: str) -> Tier | None:
        """The tier of the tool registered as ``name`` (None: no such tool, or no tier)."""
        if name in self._tiers:
            return self._tiers[name]
        found = await self._mcp.local_provider.get_tool(name)
        tier = tier_of(found) if found is not None else None
        if found is not None:
            self._tiers[name] = tier
        return tier

    async def on_call_tool(
        self,
        context: MiddlewareContext[mt.CallToolRequestParams],
        call_next: CallNext[mt.CallToolRequestParams, ToolResult],
    ) -> ToolResult:
        name = context.message.name
        refused = refusal(name, await self.tier(name), self._server_tier, selected=self._selected)
        if refused is not None:
            raise ToolError(refused)
        return await call_next(context)


def enforce(mcp: FastMCP, tier: Tier, selected: Collection[str] | None = None) -> None:
    """Expose ``tier`` and below on ``mcp``, only the ``selected`` tools of it (None: all):
    hide the others and gate calls to them."""
    mcp.add_middleware(TierGate(mcp, tier, selected))
    hidden = tools_above(tier)
    if hidden:
        mcp.disable(tags=hidden)
    off = set(POLICY) - set(selected) if selected is not None else set()
    if off:
        mcp.disable(names=off, components={"tool"})


__all__ = [
    "CREATES",
    "DESTROYS",
    "HINT_DEFAULTS",
    "POLICY",
    "READONLY",
    "RESETS",
    "SETS",
    "TIER_NOTES",
    "TYPES_INPUT",
    "Rule",
    "Tier",
    "TierGate",
    "acting_tier",
    "batch_ceiling",
    "effective_hints",
    "enforce",
    "lean_hints",
    "listed_tier",
    "refusal",
    "tier_of",
    "tool",
    "tools_above",
]
