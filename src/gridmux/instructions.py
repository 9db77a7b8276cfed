"""What the server tells an agent at start-up: which tool to reach for, and when.

A client shows this text to the model once, so it stays within 2 KB and
points at tools rather than explaining them (each tool's own description
does that). It also says, once for every tool, what the target parameters
mean (their schemas carry no description of their own) and when gridmux is
the wrong tool.
Two lines depend on the running server: the safety tier it exposes (its
note in ``gridmux.safety``), and the pane gridmux itself runs in, when it
runs inside tmux.
"""

from __future__ import annotations

from gridmux.safety import TIER_NOTES
from gridmux.settings import Settings

GUIDE = """\
gridmux drives tmux: it finds panes, types into them, reads and waits on them. \
Use it for terminals and programs running in tmux; not for browser tabs, editor \
buffers or files (read and edit those directly), nor for a one-off command your \
own shell tool runs.

Objects: server > session ($1) > window (@2) > pane (%3). Ids stay fixed: \
target by id. The target parameters mean the same on \
every tool: pane_id; window_id (for a pane tool, its active pane); window_index \
(in the session); session_id or session_name (its current window or pane); \
socket_name (tmux -L) or socket_path (tmux -S, wins) for another tmux server than \
the configured one. A list tool lists what a target holds. An id must exist. \
With no target a tool acts only when the server has exactly one candidate; \
otherwise its error lists them.

Find: list_panes (filters on metadata such as pane_current_command), \
search_panes (text on screens), get_pane_info. Read: snapshot_pane for one look, \
capture_pane for history rows. Follow output: capture_since returns the screen \
and a cursor; pass the cursor back to get only the rows written since \
(lines_missed=true: rows were lost and you got the screen). Run: run_command for \
a shell command at a prompt (exit status and output); send_keys (C-c, REPLs, \
TUIs) or paste_text otherwise, then capture_since. Wait, never poll: \
wait_for_text, wait_for_content_change. call_readonly_tools_batch and its \
mutating and destructive siblings run several calls in one request.
"""


def build_instructions(settings: Settings) -> str:
    """The instructions for a server running with ``settings``."""
    parts = [GUIDE, TIER_NOTES[settings.safety]]
    if settings.selected_tools() is not None:
        parts.append(
            "Some tools are switched off on this server (--tools/--exclude-tools): "
            "call only the listed ones."
        )
    if settings.wait_max_seconds < Settings.model_fields["wait_max_seconds"].default:
        parts.append(f"No wait may last longer than {settings.wait_max_seconds:g} s here.")
    if settings.caller_pane:
        where = f" on socket {settings.caller_socket}" if settings.caller_socket else ""
        parts.append(
            f"gridmux itself runs in pane {settings.caller_pane}{where} (is_caller=true): "
            "typing there types into your own session, and gridmux refuses to kill it."
        )
    return "\n".join(parts) + "\n"


__all__ = ["GUIDE", "build_instructions"]
