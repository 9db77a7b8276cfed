"""The floor under every gridmux call: a one-tool FastMCP server over stdio.

Its one tool, ``floor``, returns a small structured answer without any work,
so a call's round trip is what FastMCP and the MCP SDK cost by themselves
(read and parse the request, dispatch, validate, run, serialise the result as
text content and ``structuredContent``, write it). The bench starts it the way
gridmux is started (FastMCP's public ``run`` over stdio, no banner, log level
``warning``) with the same Python and packages, and calls it beside gridmux in
the same interleaved run: gridmux's round trip over this one is what gridmux
adds to FastMCP's own path (docs/bench.md).

Run as a script (``python bench/floor_server.py``): it imports FastMCP only.
"""

from __future__ import annotations

from fastmcp import FastMCP
from pydantic import BaseModel

#: The tool's name (``bench.clients`` calls it for every timed case).
TOOL = "floor"


class Floor(BaseModel):
    """A small answer, about the size of a send_keys answer."""

    ok: bool
    pane_id: str


def build() -> FastMCP:
    server = FastMCP("floor")

    @server.tool(name=TOOL)
    def floor() -> Floor:
        """Answer at once (the benchmark's floor)."""
        return Floor(ok=True, pane_id="%0")

    return server


if __name__ == "__main__":
    build().run(transport="stdio", show_banner=False, log_level="warning")
