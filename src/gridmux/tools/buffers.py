"""Paste-buffer tools: load_buffer, paste_buffer, show_buffer, delete_buffer.

Every buffer these tools touch is one load_buffer made: its name is
``gridmux_<32 hex digits>_<logical name>``, unique per call and recognisable
as ours. Other buffers (the user's copies, buffers mirroring the system
clipboard) are neither listed, read, pasted nor deleted.
"""

from __future__ import annotations

import re
import uuid
from typing import Annotated

from pydantic import Field

from gridmux.backend import ServerRef, TmuxBackend
from gridmux.capture import limit_tail
from gridmux.errors import InvalidArgument, NotFound, PaneDead
from gridmux.safety import tool

from ._config_models import BufferContent, BufferRef
from ._context import TOOL_CONTEXT, ToolContext
from ._params import MaxLines, PaneId, SessionId, SessionName, SocketName, SocketPath, WindowId
from ._targets import check_text

PREFIX = "gridmux_"
_LOGICAL = re.compile(r"[A-Za-z0-9_.-]{1,64}")
_OURS = re.compile(r"gridmux_[0-9a-f]{32}_[A-Za-z0-9_.-]{1,64}")

BufferName = Annotated[str, Field(description="A buffer name exactly as load_buffer returned it.")]


def new_buffer_name(logical_name: str | None) -> tuple[str, str]:
    """(unique tmux buffer name, logical name) for a buffer load_buffer makes."""
    logical = logical_name or "buf"
    if not _LOGICAL.fullmatch(logical):
        raise InvalidArgument(
            f"logical_name {logical_name!r} must be 1-64 of A-Z a-z 0-9 _ . -",
            hint="Pick a short label like 'patch' or 'script.sh'.",
        )
    return f"{PREFIX}{uuid.uuid4().hex}_{logical}", logical


def check_ours(buffer_name: str) -> None:
    if not _OURS.fullmatch(buffer_name):
        raise InvalidArgument(
            f"{buffer_name!r} is not a buffer made by load_buffer",
            hint=(
                "Pass buffer_name exactly as load_buffer returned it "
                "(gridmux_<32 hex digits>_<name>); other tmux buffers are off limits."
            ),
        )


def require_buffer(backend: TmuxBackend, server: ServerRef, buffer_name: str) -> None:
    check_ours(buffer_name)
    if not any(b.name == buffer_name for b in backend.list_buffers(server)):
        raise NotFound(
            f"no buffer {buffer_name!r} on this tmux server",
            hint="It was deleted (or the server restarted); load the content again with "
            "load_buffer.",
        )


def _split_content(content: str) -> tuple[tuple[str, ...], bool]:
    """Lines of ``content`` and whether it ended with a newline."""
    ends = content.endswith("\n")
    body = content[:-1] if ends else content
    return tuple(body.split("\n")), ends


@tool("Load tmux Buffer")
async def load_buffer(
    content: Annotated[
        str, Field(description="Text to store (at most 4 MiB of UTF-8); must not be empty.")
    ],
    logical_name: Annotated[
        str | None,
        Field(description="Short label (1-64 of A-Z a-z 0-9 _ . -) kept in the name."),
    ] = None,
    socket_name: SocketName = None,
    socket_path: SocketPath = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> BufferRef:
    """Store text in a new tmux paste buffer and return its unique name; for a one-off paste,
    paste_text is simpler.

    Use to stage text once and then paste it (paste_buffer), possibly into
    several panes, or check it (show_buffer) first. For a one-off paste,
    paste_text does load, paste and delete in one call. Delete the buffer
    with delete_buffer when done.
    """
    server = ctx.server(socket_name, socket_path)

    def load() -> BufferRef:
        if not content:
            raise InvalidArgument("content must not be empty", hint="tmux stores no empty buffers.")
        check_text("content", content, parts="several buffers")
        name, logical = new_buffer_name(logical_name)
        ctx.backend.load_buffer(server, name, content)
        return BufferRef(buffer_name=name, logical_name=logical)

    return await ctx.call(load)


@tool("Paste tmux Buffer")
async def paste_buffer(
    buffer_name: BufferName,
    pane_id: PaneId = None,
    bracket: Annotated[
        bool,
        Field(
            description=(
                "Wrap the text in bracketed-paste markers when the program asked for "
                "them, so shells and editors take it as one paste, not typed keys."
            )
        ),
    ] = True,
    session_name: SessionName = None,
    session_id: SessionId = None,
    window_id: WindowId = None,
    socket_name: SocketName = None,
    socket_path: SocketPath = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> str:
    """Paste a buffer made by load_buffer into a pane as input (newlines arrive as Enter); the
    buffer is kept.

    Each newline arrives as Enter, so pasted commands run. The buffer is
    kept (paste it again, or delete it with delete_buffer).
    """
    server = ctx.server(socket_name, socket_path)

    def paste() -> str:
        check_ours(buffer_name)
        pane = ctx.resolve(server, pane_id, session_name, session_id, window_id)
        if pane.dead:
            raise PaneDead(f"pane {pane.pane_id} is dead; nothing would read the paste")
        ctx.refuse_input_to_caller(server, pane.pane_id)
        require_buffer(ctx.backend, server, buffer_name)
        ctx.backend.paste_buffer(server, buffer_name, pane.pane_id, bracket=bracket)
        return f"Pasted buffer {buffer_name} into pane {pane.pane_id}"

    return await ctx.call(paste)


@tool("Show tmux Buffer")
async def show_buffer(
    buffer_name: BufferName,
    max_lines: MaxLines = 500,
    socket_name: SocketName = None,
    socket_path: SocketPath = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> BufferContent:
    """Read a buffer made by load_buffer (its newest max_lines lines), to check staged text before
    pasting it.

    Use to check staged text before pasting it. Long content keeps its
    last max_lines lines; content_truncated_lines counts the ones left out.
    """
    server = ctx.server(socket_name, socket_path)

    def read() -> BufferContent:
        require_buffer(ctx.backend, server, buffer_name)
        content = ctx.backend.show_buffer(server, buffer_name)
        lines, ends = _split_content(content)
        limited = limit_tail(lines, max_lines, None)
        if limited.truncated:
            content = "\n".join(limited.lines) + ("\n" if ends else "")
        return BufferContent(
            buffer_name=buffer_name,
            content=content,
            content_truncated=limited.truncated,
            content_truncated_lines=limited.truncated_lines,
        )

    return await ctx.call(read)


@tool("Delete tmux Buffer")
async def delete_buffer(
    buffer_name: BufferName,
    socket_name: SocketName = None,
    socket_path: SocketPath = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> str:
    """Delete a buffer made by load_buffer, once it is no longer needed."""
    server = ctx.server(socket_name, socket_path)

    def delete() -> str:
        require_buffer(ctx.backend, server, buffer_name)
        ctx.backend.delete_buffer(server, buffer_name)
        return f"Deleted buffer {buffer_name}"

    return await ctx.call(delete)


#: This module's tools, in the order clients list them.
TOOLS = (
    load_buffer,
    paste_buffer,
    show_buffer,
    delete_buffer,
)


__all__ = [
    "PREFIX",
    "TOOLS",
    "check_ours",
    "delete_buffer",
    "load_buffer",
    "new_buffer_name",
    "paste_buffer",
    "require_buffer",
    "show_buffer",
]
