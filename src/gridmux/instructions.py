"""What the server tells an agent at start-up: which tool to reach for, and when.

A client shows this text to the model once, so it stays short and points at
tools rather than explaining them (each tool's own description does that).
Two lines depend on the running server: the safety tier it exposes (its
note in ``gridmux.safety``), and the pane gridmux itself runs in, when it
runs inside tmux.
"""

from __future__ import annotations

from gridmux.safety import TIER_NOTES, Tier
from gridmux.settings import Settings

GUIDE = """\
gridmux drives tmux: it finds panes, types into them, reads them and waits on them.

Objects: server > session ($1) > window (@2) > pane (%3). Ids stay fixed while \
names and indexes change, so target by id. socket_name or socket_path picks \
another tmux server than the configured one.

Targeting: an id you pass must exist; a session or window means its active \
pane; with no target at all a tool proceeds only when the server has exactly \
one pane, else the error lists the candidates. Kill tools need exact ids. \
Nothing ever acts on an arbitrary "first" pane.

Find: list_servers, list_sessions, list_windows, list_panes (filters match \
metadata such as pane_current_command), get_server_info, get_session_info, \
get_window_info, get_pane_info, find_pane_by_position. To find text on \
screens use search_panes.

Read: snapshot_pane for a look (screen, cursor, size, mode in one atomic \
read); capture_pane for text or history rows (negative start); \
display_message for a tmux format string.

Follow output across turns: capture_since without a cursor returns the screen \
and a cursor; pass the cursor back to get only the rows written since. \
lines_missed=true means rows could not be recovered exactly and you got the \
screen instead; first_line_rewritten means lines[0] replaces the last line you \
saw. A cursor belongs to one pane and its process: if it is refused, call \
without one.

Run things: run_command runs a shell command at a prompt, waits for it and \
returns its exit status and output. For anything else (REPLs, editors, TUIs, \
answering prompts) use send_keys (key names like C-c, Enter, Escape; \
literal=true for text) or paste_text for multi-line text, then read with \
capture_since. send_keys_batch sends several key steps in order.

Wait instead of polling: wait_for_text waits for a pattern in new output \
(patterns=null: any output); wait_for_content_change waits for the screen to \
change at all; wait_for_channel waits for `tmux wait-for -S NAME` from a \
shell, and signal_channel sends one.

Batches: call_readonly_tools_batch, call_mutating_tools_batch and \
call_destructive_tools_batch run several tool calls in one request, in order, \
each checked as if called alone; on_error is stop or continue.

Arrange: create_session, create_window, split_window, rename_session, \
rename_window, select_window, select_pane, select_layout, resize_window, \
resize_pane, move_window, swap_pane, set_pane_title; enter_copy_mode and \
exit_copy_mode scroll back; clear_pane and respawn_pane reset a pane; \
pipe_pane copies a pane's output to a file.

Settings: show_option, set_option, show_environment, set_environment. Hooks \
are read-only: show_hooks, show_hook. Buffers: load_buffer, paste_buffer, \
show_buffer and delete_buffer touch only buffers gridmux made. Ending things: \
kill_pane, kill_window, kill_session, kill_server.
"""


def build_instructions(settings: Settings) -> str:
    """The instructions for a server running with ``settings``."""
    parts = [GUIDE, TIER_NOTES[settings.safety]]
    if settings.caller_pane:
        where = f" on socket {settings.caller_socket}" if settings.caller_socket else ""
        parts.append(
            f"gridmux itself runs in pane {settings.caller_pane}{where} (is_caller=true): "
            "typing there types into your own session, and gridmux refuses to kill it."
        )
    return "\n".join(parts) + "\n"


__all__ = ["GUIDE", "build_instructions"]
