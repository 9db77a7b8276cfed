"""Which tools a server offers: the groups ``--tools`` and
``--exclude-tools`` name, a selection's tools, and what a tier leaves of it
(docs/safety.md, "Choosing tools"). The tiers themselves are ``safety``'s.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Mapping

from gridmux.safety import POLICY, Tier

#: Groups of tools a user switches on and off together (``--tools``,
#: ``--exclude-tools``), after the predecessor's toolsets. Every tool is in
#: exactly one group; the tiers still apply on top of a selection.
GROUPS: Mapping[str, tuple[str, ...]] = {
    "inspect": (
        "list_servers",
        "get_server_info",
        "list_sessions",
        "get_session_info",
        "list_windows",
        "get_window_info",
        "list_panes",
        "get_pane_info",
        "find_pane_by_position",
        "display_message",
    ),
    "read": (
        "capture_pane",
        "snapshot_pane",
        "capture_since",
        "search_panes",
        "wait_for_text",
        "wait_for_content_change",
    ),
    "execute": (
        "send_keys",
        "send_keys_batch",
        "run_command",
        "paste_text",
        "clear_pane",
        "respawn_pane",
        "pipe_pane",
        "load_buffer",
        "paste_buffer",
        "show_buffer",
        "delete_buffer",
        "wait_for_channel",
        "signal_channel",
    ),
    "arrange": (
        "create_session",
        "rename_session",
        "create_window",
        "select_window",
        "split_window",
        "rename_window",
        "select_layout",
        "resize_window",
        "move_window",
        "set_pane_title",
        "resize_pane",
        "select_pane",
        "swap_pane",
        "enter_copy_mode",
        "exit_copy_mode",
    ),
    "settings": (
        "show_option",
        "set_option",
        "show_environment",
        "set_environment",
        "show_hooks",
        "show_hook",
    ),
    "batch": (
        "call_readonly_tools_batch",
        "call_mutating_tools_batch",
        "call_destructive_tools_batch",
    ),
    "teardown": ("kill_pane", "kill_window", "kill_session", "kill_server"),
}


def _names(text: str, option: str) -> set[str]:
    """The tools a comma-separated list of tool and group names stands for."""
    chosen: set[str] = set()
    for word in (part.strip() for part in text.split(",")):
        if not word:
            continue
        if word in GROUPS:
            chosen.update(GROUPS[word])
        elif word in POLICY:
            chosen.add(word)
        else:
            close = difflib.get_close_matches(word, [*GROUPS, *POLICY], n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise ValueError(
                f"{option}: unknown tool or group {word!r} ({hint}groups: {', '.join(GROUPS)}; "
                "or any tool name)"
            )
    return chosen


def select_tools(tools: str | None, exclude_tools: str | None) -> frozenset[str]:
    """The tools a server offers: ``tools`` (all when None) minus ``exclude_tools``.

    Each is a comma-separated list of tool and group names; an unknown name,
    or a selection that leaves no tool, is a ValueError saying so.
    """
    chosen = set(POLICY) if tools is None else _names(tools, "--tools")
    if tools is not None and not chosen:
        raise ValueError("--tools: names no tool (give tool or group names, comma-separated)")
    chosen -= _names(exclude_tools or "", "--exclude-tools")
    if not chosen:
        raise ValueError("--tools/--exclude-tools: the selection leaves no tool")
    return frozenset(chosen)


def offered_tools(tier: Tier, selected: Collection[str] | None = None) -> frozenset[str]:
    """The tools a server at ``tier`` with the ``selected`` ones (None: all) offers."""
    return frozenset(
        name
        for name, rule in POLICY.items()
        if rule.tier <= tier and (selected is None or name in selected)
    )


__all__ = ["GROUPS", "offered_tools", "select_tools"]
