"""One every-tier MCP server per test process, pointed at each test's simulator.

Registering the tools costs FastMCP about 0.15 s of schema generation, so the
unit and contract suites build the every-tier server once per process and
point it at the current test's fresh simulator through a :class:`BackendSlot`.
"""

from __future__ import annotations

from typing import Any

from gridmux import Settings
from tmuxsim import SimBackend

EVERY_TIER = Settings(backend="sim", safety="destructive")


class BackendSlot:
    """Stands in for a backend and forwards every attribute to the current one.

    Attributes are looked up at each call, so a test that replaces a method on
    its simulator (a spy) is seen by the shared server too.
    """

    def __init__(self) -> None:
        self.current: SimBackend | None = None

    def __getattr__(self, name: str) -> Any:
        if self.current is None:
            raise RuntimeError("the shared test server was used outside a test's backend")
        return getattr(self.current, name)
