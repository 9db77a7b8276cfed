"""Our own ``-F`` formats for tmux listings and their parsing into value types.

Free text (names, titles, paths, commands) can hold anything: a directory may
be named ``"a\\x1fb\\nc"``, a window name may contain ``\\x1f``. So a fixed
separator cannot delimit fields, and neither can length prefixes
(``#{n:x}:#{x}``): ``pane_current_command`` and ``pane_current_path`` are read
from ``/proc`` each time they are expanded, so the two halves can disagree
while a new pane is exec'ing. Instead every listing uses a fresh random
delimiter (``RecordFormat``): each field is expanded once and followed by the
delimiter, which no pane content can contain because it did not exist before
the call. One ``list-*`` call per listing, no per-object follow-ups.
"""

from __future__ import annotations

import re
import secrets
from collections import Counter
from dataclasses import dataclass, field

from ._types import BufferInfo, PaneInfo, PaneState, SessionInfo, WindowInfo

#: Separator for formats whose fields are all numbers or ids (the pane state).
SEPARATOR = "\x1f"


class FormatError(ValueError):
    """tmux printed something our format cannot have produced."""


def _new_delimiter() -> str:
    return f"\x1f{secrets.token_hex(8)}\x1e"


@dataclass(frozen=True, slots=True)
class RecordFormat:
    """A ``-F`` template for ``fields`` and the parser for what tmux prints with it.

    Each field is followed by ``delimiter``; tmux ends each record with a
    newline, which therefore starts every record's first field but the first.
    """

    fields: tuple[str, ...]
    delimiter: str = field(default_factory=_new_delimiter)

    @property
    def template(self) -> str:
        return "".join(f"#{{{name}}}{self.delimiter}" for name in self.fields)

    def parse(self, data: bytes) -> list[dict[str, str]]:
        data = unescaped(data, self.delimiter)
        # The delimiter is ASCII, so decoding first cannot merge it with a
        # neighbouring invalid byte.
        parts = data.decode("utf-8", errors="replace").split(self.delimiter)
        tail = parts.pop()
        width = len(self.fields)
        if tail not in ("", "\n") or len(parts) % width or (tail == "") != (not parts):
            raise FormatError(
                f"{len(parts)} fields and trailer {tail[:20]!r} for {width}-field records"
            )
        records: list[dict[str, str]] = []
        for index in range(0, len(parts), width):
            values = parts[index : index + width]
            if index:
                if not values[0].startswith("\n"):
                    raise FormatError(f"record {index // width} does not start on a new line")
                values[0] = values[0][1:]
            records.append(dict(zip(self.fields, values, strict=True)))
        return records


_C_ESCAPES = {b"\\": b"\\", b"t": b"\t", b"n": b"\n", b"r": b"\r", b"a": b"\a", b"b": b"\b"}
_C_ESCAPES |= {b"f": b"\f", b"v": b"\v", b"s": b" ", b"0": b"\0"}
#: tmux 3.4 also prints a ``$`` that starts a name as ``\$`` (3.5 and later do not;
#: they double every backslash, so ``\$`` cannot come from them).
_C_ESCAPES[b"$"] = b"$"


def escape(text: str) -> str:
    """``text`` (ASCII) as tmux 3.5a prints it: control characters as ``\\ooo``."""
    return "".join(f"\\{ord(c):03o}" if ord(c) < 32 or ord(c) == 127 else c for c in text)


def unescape(data: bytes) -> bytes:
    """Undo the vis(3) escaping tmux 3.4 to 3.5a apply to format output.

    Those releases print ``display-message -p`` and ``-F`` listings with
    backslashes doubled, tabs and newlines as ``\\t``/``\\n`` and other
    control bytes as octal ``\\ooo`` (3.3a and 3.7c print them raw). Since the
    backslash itself is escaped, decoding left to right is unambiguous. tmux
    3.4 escapes control bytes the same way and ``$name`` as ``\\$name``, but
    prints backslashes raw.
    """
    out = bytearray()
    i, n = 0, len(data)
    while i < n:
        byte = data[i : i + 1]
        if byte != b"\\" or i + 1 >= n:
            out += byte
            i += 1
            continue
        octal = data[i + 1 : i + 4]
        if len(octal) == 3 and all(48 <= c <= 55 for c in octal):
            out.append(int(octal, 8) & 0xFF)
            i += 4
            continue
        code = data[i + 1 : i + 2]
        out += _C_ESCAPES.get(code, b"\\" + code)
        i += 2
    return bytes(out)


def unescaped(data: bytes, marker: str) -> bytes:
    """Format output as tmux expanded it, whether or not it was printed escaped.

    ``marker`` is a control-character string our format put in the output:
    present raw, the output is raw; present only escaped, tmux escaped it.
    """
    if marker.encode() not in data and escape(marker).encode() in data:
        return unescape(data)
    return data


def _int(value: str) -> int:
    return int(value) if value else 0


def _opt_int(value: str) -> int | None:
    return int(value) if value else None


def _flag(value: str) -> bool:
    return value not in ("", "0")


def _opt_text(value: str) -> str | None:
    return value or None


# -- pane state (display-message -p; numbers only) -----------------------------

STATE_FIELDS = (
    "pane_id",
    "pane_pid",
    "pane_dead",
    "pane_dead_status",
    "history_size",
    "history_limit",
    "cursor_x",
    "cursor_y",
    "pane_width",
    "pane_height",
    "alternate_on",
    "pane_in_mode",
    "pid",
)
#: Fixed, so a state line reads the same before and after a capture.
STATE = RecordFormat(STATE_FIELDS, delimiter=SEPARATOR)
STATE_FORMAT = STATE.template


def parse_state(line: bytes) -> PaneState | None:
    """A ``PaneState`` from one ``STATE_FORMAT`` line; None when the pane is gone.

    ``display-message -t %N`` on a pane that does not exist succeeds with an
    empty expansion, so an empty ``pane_id`` is how a gone pane shows.
    """
    records = STATE.parse(line.rstrip(b"\n") + b"\n")
    if len(records) != 1:
        raise FormatError(f"expected one state record, got {len(records)}")
    r = records[0]
    if not r["pane_id"]:
        return None
    return PaneState(
        pane_id=r["pane_id"],
        pid=_opt_int(r["pane_pid"]),
        dead=_flag(r["pane_dead"]),
        dead_status=_opt_int(r["pane_dead_status"]),
        history_size=_int(r["history_size"]),
        history_limit=_int(r["history_limit"]),
        cursor_x=_int(r["cursor_x"]),
        cursor_y=_int(r["cursor_y"]),
        width=_int(r["pane_width"]),
        height=_int(r["pane_height"]),
        alternate_on=_flag(r["alternate_on"]),
        in_mode=_flag(r["pane_in_mode"]),
        server_pid=_int(r["pid"]),
    )


# -- sessions ------------------------------------------------------------------

SESSION_FIELDS = (
    "session_id",
    "session_name",
    "session_windows",
    "session_attached",
    "session_created",
    "pane_id",
    "session_group",
)
#: ``list-clients -F``: each client's session and flags, one line each.
CLIENT_SESSION_FORMAT = "#{client_pid}:#{session_id}:#{client_flags}"
_CLIENT_LINE = re.compile(rb"\d+:(\$\d+):([A-Za-z0-9,-]*)\n")
#: The flags gridmux attaches its control clients with (``_control_transport.ATTACH``).
_GRIDMUX_CLIENT = frozenset({"control-mode", "no-output", "ignore-size"})


def gridmux_clients(data: bytes) -> tuple[Counter[str], bytes]:
    """Count gridmux's control clients per session off the front of ``data``.

    ``data`` is ``list-clients`` output (``CLIENT_SESSION_FORMAT``) followed
    by session records; a record starts with its id (``$N``), never with a
    digit, so the client lines end where the first record begins. A control
    client with no output and no say in sizes is gridmux's (this process's
    or another's): attached, but nobody is looking.
    """
    ours: Counter[str] = Counter()
    at = 0
    while (match := _CLIENT_LINE.match(data, at)) is not None:
        if set(match.group(2).decode().split(",")) >= _GRIDMUX_CLIENT:
            ours[match.group(1).decode()] += 1
        at = match.end()
    return ours, data[at:]


def parse_sessions(data: bytes, fmt: RecordFormat) -> list[SessionInfo]:
    """Sessions from ``[list-clients ;] list-sessions`` output, gridmux's clients not counted."""
    ours, data = gridmux_clients(data)
    return [
        SessionInfo(
            session_id=r["session_id"],
            session_name=r["session_name"],
            window_count=_int(r["session_windows"]),
            attached=_int(r["session_attached"]) - ours[r["session_id"]],
            created=_int(r["session_created"]),
            active_pane_id=_opt_text(r["pane_id"]),
            group=_opt_text(r["session_group"]),
        )
        for r in fmt.parse(data)
    ]


# -- windows -------------------------------------------------------------------

WINDOW_FIELDS = (
    "window_id",
    "window_name",
    "window_index",
    "session_id",
    "session_name",
    "window_panes",
    "window_layout",
    "window_active",
    "window_width",
    "window_height",
    "pane_id",
    "window_zoomed_flag",
    "window_last_flag",
)


def parse_windows(data: bytes, fmt: RecordFormat) -> list[WindowInfo]:
    return [
        WindowInfo(
            window_id=r["window_id"],
            window_name=r["window_name"],
            window_index=_int(r["window_index"]),
            session_id=r["session_id"],
            session_name=r["session_name"],
            pane_count=_int(r["window_panes"]),
            layout=r["window_layout"],
            active=_flag(r["window_active"]),
            width=_int(r["window_width"]),
            height=_int(r["window_height"]),
            active_pane_id=_opt_text(r["pane_id"]),
            zoomed=_flag(r["window_zoomed_flag"]),
            last=_flag(r["window_last_flag"]),
        )
        for r in fmt.parse(data)
    ]


# -- panes ---------------------------------------------------------------------

PANE_FIELDS = (
    "pane_id",
    "pane_index",
    "session_id",
    "session_name",
    "window_id",
    "window_index",
    "window_name",
    "pane_width",
    "pane_height",
    "pane_left",
    "pane_top",
    "pane_right",
    "pane_bottom",
    "pane_at_left",
    "pane_at_right",
    "pane_at_top",
    "pane_at_bottom",
    "pane_active",
    "pane_tty",
    "pane_pid",
    "pane_current_command",
    "pane_current_path",
    "pane_title",
    "pane_dead",
    "pane_dead_status",
    "pane_in_mode",
    "pane_mode",
    "history_size",
    "history_limit",
    "cursor_x",
    "cursor_y",
    "alternate_on",
)


def parse_panes(data: bytes, fmt: RecordFormat) -> list[PaneInfo]:
    return [
        PaneInfo(
            pane_id=r["pane_id"],
            pane_index=_int(r["pane_index"]),
            session_id=r["session_id"],
            session_name=r["session_name"],
            window_id=r["window_id"],
            window_index=_int(r["window_index"]),
            window_name=r["window_name"],
            width=_int(r["pane_width"]),
            height=_int(r["pane_height"]),
            left=_int(r["pane_left"]),
            top=_int(r["pane_top"]),
            right=_int(r["pane_right"]),
            bottom=_int(r["pane_bottom"]),
            at_left=_flag(r["pane_at_left"]),
            at_right=_flag(r["pane_at_right"]),
            at_top=_flag(r["pane_at_top"]),
            at_bottom=_flag(r["pane_at_bottom"]),
            active=_flag(r["pane_active"]),
            tty=r["pane_tty"],
            pid=_opt_int(r["pane_pid"]),
            current_command=r["pane_current_command"],
            current_path=r["pane_current_path"],
            title=r["pane_title"],
            dead=_flag(r["pane_dead"]),
            dead_status=_opt_int(r["pane_dead_status"]),
            in_mode=_flag(r["pane_in_mode"]),
            mode=_opt_text(r["pane_mode"]),
            history_size=_int(r["history_size"]),
            history_limit=_int(r["history_limit"]),
            cursor_x=_int(r["cursor_x"]),
            cursor_y=_int(r["cursor_y"]),
            alternate_on=_flag(r["alternate_on"]),
        )
        for r in fmt.parse(data)
    ]


# -- buffers and the server ----------------------------------------------------

BUFFER_FIELDS = ("buffer_name", "buffer_size", "buffer_created")


def parse_buffers(data: bytes, fmt: RecordFormat) -> list[BufferInfo]:
    return [
        BufferInfo(
            name=r["buffer_name"], size=_int(r["buffer_size"]), created=_int(r["buffer_created"])
        )
        for r in fmt.parse(data)
    ]


SERVER_FIELDS = ("pid", "version", "socket_path")


#: Prefix for ``display_message``: a target that does not exist expands every
#: format to "" (no error), and a found target always has a session id.
TARGET_PROBE = "#{session_id}" + SEPARATOR
