"""gridmux: an MCP server for tmux with an exact incremental pane reader."""

from gridmux.app import create_server, main
from gridmux.backend import TmuxBackend
from gridmux.settings import Settings

__all__ = ["Settings", "TmuxBackend", "create_server", "main"]
