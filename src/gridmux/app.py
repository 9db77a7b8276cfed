"""Wiring: ``create_server(backend, settings)`` and the ``gridmux`` command."""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence
from importlib.metadata import entry_points, version

from fastmcp import FastMCP

from gridmux import prompts, resources
from gridmux.audit import audit_middleware, log_to_stderr
from gridmux.backend import TmuxBackend
from gridmux.http_auth import bearer_token
from gridmux.instructions import build_instructions
from gridmux.safety import enforce
from gridmux.selection import offered_tools
from gridmux.settings import Settings
from gridmux.tools import AnswerShaper, SurrogateGate, ToolContext, register_all
from gridmux.transport import serve

BACKEND_GROUP = "gridmux.backends"


def create_server(backend: TmuxBackend, settings: Settings | None = None) -> FastMCP:
    """Build the MCP server around a backend. Nothing global, nothing read at import."""
    settings = settings or Settings()
    context = ToolContext(backend=backend, settings=settings)
    # Over HTTP every request needs the bearer token; stdio has one client, its parent.
    auth = bearer_token(settings) if settings.transport == "http" else None
    mcp = FastMCP(
        "gridmux",
        instructions=build_instructions(settings),
        version=version("gridmux"),
        on_duplicate="error",
        lifespan=context.lifespan(),
        auth=auth,
    )
    tier = settings.safety
    mcp.add_middleware(AnswerShaper(mcp))  # outermost: the audit log sees raw exceptions
    mcp.add_middleware(audit_middleware(settings))
    mcp.add_middleware(SurrogateGate())  # refused calls are audited too
    enforce(mcp, tier, settings.selected_tools())
    register_all(mcp, settings)
    # What a switched-off tool would show is not served another way.
    offered = offered_tools(tier, settings.selected_tools())
    resources.register(mcp, offered)
    prompts.register(mcp, offered)
    return mcp


class _OneLinePromptErrors(logging.Filter):
    """A prompt rendered with bad arguments is the caller's error, answered to the
    caller: on stderr it is one line, not FastMCP's 60-line traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if record.exc_info and message.startswith("Error rendering prompt"):
            error = record.exc_info[1]
            first = str(error).strip().splitlines()[0] if str(error).strip() else ""
            record.msg = f"{message}: {type(error).__name__}: {first}"[:500]
            record.args = ()
            record.exc_info = None
            record.exc_text = None
        return True


#: The logger FastMCP reports prompt rendering errors on (its server module's).
PROMPT_ERROR_LOGGER = "fastmcp.server.server"


def quiet_prompt_errors() -> None:
    """Put :class:`_OneLinePromptErrors` on the logger FastMCP reports them with
    (a logger's filter, not a handler's: FastMCP replaces its handlers at start)."""
    logger = logging.getLogger(PROMPT_ERROR_LOGGER)
    if not any(isinstance(f, _OneLinePromptErrors) for f in logger.filters):
        logger.addFilter(_OneLinePromptErrors())


def load_backend(settings: Settings) -> TmuxBackend:
    """Instantiate the backend named in the settings through its entry point.

    Backends are plugins (``[project.entry-points."gridmux.backends"]``), so the
    server can serve the simulator without ``src/`` importing it.
    """
    found = {ep.name: ep for ep in entry_points(group=BACKEND_GROUP)}
    if settings.backend not in found:
        known = ", ".join(sorted(found)) or "none installed"
        print(
            f"gridmux: error: --backend/GRIDMUX_BACKEND={settings.backend!r}: "
            f"unknown backend (installed: {known})",
            file=sys.stderr,
        )
        raise SystemExit(2)
    factory = found[settings.backend].load()
    backend: TmuxBackend = factory(settings)
    return backend


def main(argv: Sequence[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    if "--version" in args:
        print(f"gridmux {version('gridmux')}")
        return
    settings = Settings.from_command_line(args)
    backend = load_backend(settings)
    try:
        server = create_server(backend, settings)
    except ValueError as exc:  # a setting that only proves bad at start-up (audit log, token)
        raise SystemExit(f"gridmux: {exc}") from None
    log_to_stderr()
    quiet_prompt_errors()
    # When the client's input ends, calls stuck on tmux end at once, so the
    # server (which waits for pending calls) can exit.
    shutdown = getattr(backend, "shutdown", None)
    try:
        serve(server, settings, shutdown if callable(shutdown) else lambda: None)
    finally:
        close = getattr(backend, "close", None)  # the real backend's control clients
        if callable(close):
            close()
