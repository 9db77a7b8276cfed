"""The names of tmux's hooks (options-table.c), shared by the tools and the simulator.

tmux 3.2a to 3.4 have the ``after-<command>`` hooks and the event hooks;
tmux 3.5 added the client theme hooks.
"""

from __future__ import annotations

#: Commands with an ``after-<command>`` hook.
HOOKED_COMMANDS = (
    "bind-key",
    "capture-pane",
    "copy-mode",
    "display-message",
    "display-panes",
    "kill-pane",
    "list-buffers",
    "list-clients",
    "list-keys",
    "list-panes",
    "list-sessions",
    "list-windows",
    "load-buffer",
    "lock-server",
    "new-session",
    "new-window",
    "paste-buffer",
    "pipe-pane",
    "queue",
    "refresh-client",
    "rename-session",
    "rename-window",
    "resize-pane",
    "resize-window",
    "save-buffer",
    "select-layout",
    "select-pane",
    "select-window",
    "send-keys",
    "set-buffer",
    "set-environment",
    "set-hook",
    "set-option",
    "show-environment",
    "show-messages",
    "show-options",
    "split-window",
    "unbind-key",
)

#: Hooks run on events rather than after a command.
EVENT_HOOKS = (
    "alert-activity",
    "alert-bell",
    "alert-silence",
    "client-active",
    "client-attached",
    "client-detached",
    "client-focus-in",
    "client-focus-out",
    "client-resized",
    "client-session-changed",
    "pane-died",
    "pane-exited",
    "pane-focus-in",
    "pane-focus-out",
    "pane-mode-changed",
    "pane-set-clipboard",
    "pane-title-changed",
    "session-closed",
    "session-created",
    "session-renamed",
    "session-window-changed",
    "window-layout-changed",
    "window-linked",
    "window-pane-changed",
    "window-renamed",
    "window-resized",
    "window-unlinked",
)

#: Event hooks added in tmux 3.5.
THEME_HOOKS = ("client-dark-theme", "client-light-theme")


def hook_names(*, theme_hooks: bool = True) -> frozenset[str]:
    """Every hook name; without the 3.5 theme hooks when ``theme_hooks`` is false."""
    names = [f"after-{command}" for command in HOOKED_COMMANDS] + list(EVENT_HOOKS)
    if theme_hooks:
        names += THEME_HOOKS
    return frozenset(names)
