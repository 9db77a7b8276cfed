"""Wiring: ``create_server(backend, settings)`` and the ``gridmux`` command."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from importlib.metadata import entry_points, version

from fastmcp import FastMCP

from gridmux.backend import TmuxBackend
from gridmux.settings import Settings
from gridmux.tools import ToolContext, register_all
from gridmux.tools._tiers import Tier, tools_above

INSTRUCTIONS = """\
gridmux drives tmux: find panes, type into them, and read them.

* Find your way: list_sessions, then list_panes (ids look like %3). Target
  panes by pane_id whenever you can; with no target a tool only proceeds when
  the server holds exactly one pane.
* Run something: send_keys types text (and Enter) into a pane. Then read the
  result with capture_since.
* Follow output across turns: call capture_since once without a cursor (it
  returns the screen and a cursor), then pass the cursor back each time to get
  only what is new. If lines_missed is true, rows were trimmed or cleared and
  you got the current screen instead; first_line_rewritten means the first
  line replaces the last one you saw.
* One-off looks: capture_pane for text (negative start reaches history),
  snapshot_pane for text plus cursor, size and mode.
"""

BACKEND_GROUP = "gridmux.backends"


def create_server(backend: TmuxBackend, settings: Settings | None = None) -> FastMCP:
    """Build the MCP server around a backend. Nothing global, nothing read at import."""
    mcp = FastMCP(
        "gridmux",
        instructions=INSTRUCTIONS,
        version=version("gridmux"),
        on_duplicate="error",
    )
    settings = settings or Settings()
    tier = Tier.parse(settings.safety)
    register_all(mcp, ToolContext(backend=backend, settings=settings))
    hidden = tools_above(tier)
    if hidden:
        mcp.disable(tags=hidden)
    return mcp


def load_backend(settings: Settings) -> TmuxBackend:
    """Instantiate the backend named in the settings through its entry point.

    Backends are plugins (``[project.entry-points."gridmux.backends"]``), so the
    server can serve the simulator without ``src/`` importing it.
    """
    found = {ep.name: ep for ep in entry_points(group=BACKEND_GROUP)}
    if settings.backend not in found:
        known = ", ".join(sorted(found)) or "none installed"
        raise SystemExit(f"gridmux: unknown backend {settings.backend!r} (known: {known})")
    factory = found[settings.backend].load()
    backend: TmuxBackend = factory(settings)
    return backend


def main(argv: Sequence[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    if "--version" in args:
        print(f"gridmux {version('gridmux')}")
        return
    settings = Settings.from_sources(args, os.environ)
    server = create_server(load_backend(settings), settings)
    server.run(transport="stdio", show_banner=False)
