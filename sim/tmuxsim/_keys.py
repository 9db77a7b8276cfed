"""``send-keys``: from a key argument to the bytes the pane's program reads.

tmux looks one argument up as a key name (``key-string.c``); if it is not a
key name it sends the argument's characters one by one, which is why an
unknown word like ``hello`` is simply typed. With ``-l`` the argument is
always literal text. The byte sequences are what tmux writes for a pane in
normal (not application) cursor mode (``input-keys.c``).
"""

from __future__ import annotations

_NAMED: dict[str, bytes] = {
    "Enter": b"\r",
    "Escape": b"\x1b",
    "Tab": b"\t",
    "BTab": b"\x1b[Z",
    "Space": b" ",
    "BSpace": b"\x7f",
    "Up": b"\x1b[A",
    "Down": b"\x1b[B",
    "Right": b"\x1b[C",
    "Left": b"\x1b[D",
    "Home": b"\x1b[1~",
    "End": b"\x1b[4~",
    "IC": b"\x1b[2~",
    "Insert": b"\x1b[2~",
    "DC": b"\x1b[3~",
    "Delete": b"\x1b[3~",
    "PPage": b"\x1b[5~",
    "PageUp": b"\x1b[5~",
    "PgUp": b"\x1b[5~",
    "NPage": b"\x1b[6~",
    "PageDown": b"\x1b[6~",
    "PgDn": b"\x1b[6~",
    "F1": b"\x1bOP",
    "F2": b"\x1bOQ",
    "F3": b"\x1bOR",
    "F4": b"\x1bOS",
    "F5": b"\x1b[15~",
    "F6": b"\x1b[17~",
    "F7": b"\x1b[18~",
    "F8": b"\x1b[19~",
    "F9": b"\x1b[20~",
    "F10": b"\x1b[21~",
    "F11": b"\x1b[23~",
    "F12": b"\x1b[24~",
}
_NAMED_FOLDED = {name.lower(): value for name, value in _NAMED.items()}


def _control(base: bytes) -> bytes | None:
    """C-x: the control code of a single character key."""
    if len(base) != 1:
        return None
    char = base.decode("latin-1")
    if char in (" ", "@"):
        return b"\x00"
    if char == "?":
        return b"\x7f"
    if char.isalpha() or char in "[\\]^_":
        return bytes([ord(char.upper()) & 0x1F])
    return None


def key_bytes(name: str) -> bytes | None:
    """Bytes for a tmux key name (``Enter``, ``C-c``, ``M-x``, ``^D``, ``a``), else None."""
    if not name:
        return None
    if len(name) == 1:
        return name.encode()
    if name.startswith("^") and len(name) == 2:
        return _control(name[1].encode())
    modifiers = ""
    rest = name
    while len(rest) > 2 and rest[1] == "-" and rest[0] in "CMScms":
        modifiers += rest[0].upper()
        rest = rest[2:]
    base = _NAMED_FOLDED.get(rest.lower())
    if base is None:
        if len(rest) != 1:
            return None
        base = rest.encode()
    if "C" in modifiers:
        controlled = _control(base)
        if controlled is None:
            return None
        base = controlled
    if "M" in modifiers:
        base = b"\x1b" + base
    return base


def keys_to_bytes(keys: str, *, literal: bool) -> bytes:
    """One ``send-keys`` argument as the program receives it."""
    if not literal:
        named = key_bytes(keys)
        if named is not None:
            return named
    return keys.encode()
