"""The cursor's wire form: every field checked, every malformed cursor refused
with a message that says what is wrong (``gridmux.capture._cursor``)."""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import json
import re

import pytest

from gridmux.capture import PREFIX, SENTINEL_OFFSETS, WINDOW, Cursor, CursorFormatError

H = b"\x01" * 8
FIELDS: dict[str, object] = {
    "s": 7,
    "p": "%1",
    "pp": 100,
    "w": 80,
    "h": 24,
    "hs": 50,
    "hl": 2000,
    "a": 60,
    "alt": 0,
    "sh": 1,
}


def cursor(**changes: object) -> Cursor:
    base = Cursor(
        server_pid=7,
        pane_id="%1",
        pane_pid=100,
        width=80,
        height=24,
        history_size=50,
        history_limit=2000,
        anchor=60,
        alternate_on=False,
        shown=True,
        anchor_hash=H,
        window=(H,) * 3,
    )
    return dataclasses.replace(base, **changes)  # type: ignore[arg-type]


def wire(body: bytes) -> str:
    """A cursor text around ``body`` with a correct checksum (the documented wire form)."""
    check = hashlib.blake2b(body, digest_size=4).digest()
    return PREFIX + base64.urlsafe_b64encode(body + check).decode().rstrip("=")


def body(fields: dict[str, object], hashes: bytes = H * 2) -> bytes:
    return json.dumps(fields).encode() + b"\0" + hashes


def header_of(text: str) -> bytes:
    payload = text[len(PREFIX) :]
    raw = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
    return raw[:-4].partition(b"\0")[0]


def test_a_hand_made_cursor_decodes_to_its_fields() -> None:
    decoded = Cursor.decode(wire(body(FIELDS, H + b"\x02" * 8)))
    assert decoded == cursor(window=(b"\x02" * 8,), alternate_on=False)


@pytest.mark.parametrize(
    "changes",
    [
        {"anchor": 0, "window": ()},
        {"width": 1, "reflow_cells": 0},
        {"height": 1},
        {"history_size": 0},
        {"reflow_cells": 79},
        {"window": (H,) * WINDOW},
        {"anchor": 2, "window": (H,) * 2},
        {"anchor": 3, "window": (H,) * 2, "sentinels": (H,)},
        {"sentinels": (H,) * len(SENTINEL_OFFSETS), "anchor": 1024 + 3},
        {"pane_pid": None, "alternate_on": True, "shown": False},
    ],
)
def test_cursors_at_the_edge_of_every_range_round_trip(changes: dict[str, object]) -> None:
    made = cursor(**changes)
    assert Cursor.decode(made.encode()) == made


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"anchor": -1}, "cursor geometry out of range"),
        ({"history_size": -1}, "cursor geometry out of range"),
        ({"width": 0}, "cursor geometry out of range"),
        ({"height": 0}, "cursor geometry out of range"),
        ({"reflow_cells": -1}, "cursor reflow width out of range"),
        ({"reflow_cells": 80}, "cursor reflow width out of range"),
        ({"window": (H,) * (WINDOW + 1)}, "cursor window longer than the rows above its anchor"),
        ({"anchor": 2, "window": (H,) * 3}, "cursor window longer than the rows above its anchor"),
        ({"anchor_hash": H[:7]}, "cursor row hash has the wrong size"),
        ({"window": (H, H + b"\0")}, "cursor row hash has the wrong size"),
        ({"sentinels": (H[:7],)}, "cursor row hash has the wrong size"),
        (
            {"anchor": 3, "window": (H,) * 2, "sentinels": (H,) * 2},
            "cursor sentinels reach above the first row",
        ),
        (
            {"anchor": 5000, "sentinels": (H,) * (len(SENTINEL_OFFSETS) + 1)},
            "cursor sentinels reach above the first row",
        ),
    ],
)
def test_impossible_cursors_are_refused(changes: dict[str, object], message: str) -> None:
    with pytest.raises(CursorFormatError, match=f"^{re.escape(message)}$"):
        cursor(**changes)


@pytest.mark.parametrize("anchor", range(60, 66))
def test_the_wire_form_is_compact(anchor: int) -> None:
    """No padding and no whitespace: an agent pays for every character it echoes."""
    text = cursor(anchor=anchor, sentinels=(H,) * (anchor % 4)).encode()
    assert "=" not in text
    header = header_of(text)
    assert b" " not in header
    assert set(json.loads(header)) == {*FIELDS, *(["sn"] if anchor % 4 else [])}


def test_optional_fields_travel_only_when_set() -> None:
    assert set(json.loads(header_of(cursor().encode()))) == set(FIELDS)
    full = json.loads(header_of(cursor(reflow_cells=5, sentinels=(H,)).encode()))
    assert (full["rw"], full["sn"]) == (5, 1)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "a cursor starts with 'gridmux-since-v1:'"),
        ("gridmux-since-v2:abc", "a cursor starts with 'gridmux-since-v1:'"),
        (
            "capture-since-v1:abc",
            "this cursor was written by another tmux MCP server (libtmux-mcp)",
        ),
        (PREFIX + "A", "the cursor is not valid base64url"),
        (PREFIX + "AAAAAA", "the cursor is damaged (checksum mismatch)"),
        (wire(b"")[:-1] + "B", "the cursor is damaged (checksum mismatch)"),
    ],
)
def test_texts_that_are_not_cursors_are_refused(text: str, message: str) -> None:
    with pytest.raises(CursorFormatError, match=f"^{re.escape(message)}$"):
        Cursor.decode(text)


def test_a_cursor_that_is_only_a_checksum_is_damaged() -> None:
    """Four bytes that happen to be the checksum of nothing are still no cursor."""
    with pytest.raises(CursorFormatError, match=r"^the cursor is damaged \(checksum mismatch\)$"):
        Cursor.decode(wire(b""))


def test_a_non_string_is_refused() -> None:
    with pytest.raises(
        CursorFormatError, match=f"^a cursor starts with {re.escape(repr(PREFIX))}$"
    ):
        Cursor.decode(b"gridmux-since-v1:abc")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (json.dumps(FIELDS).encode() + H, "the cursor's row hashes are malformed"),  # no NUL
        (body(FIELDS, b""), "the cursor's row hashes are malformed"),
        (body(FIELDS, H[:7]), "the cursor's row hashes are malformed"),
        (body(FIELDS, H + H[:4]), "the cursor's row hashes are malformed"),
        (body({**FIELDS, "sn": 1}, H), "the cursor's row hashes are malformed"),
        (b"{not json\0" + H, "the cursor header is not JSON"),
        (b"[1, 2]\0" + H, "the cursor header is not an object"),
        (b"\xff\0" + H, "the cursor header is not JSON"),
    ],
)
def test_malformed_bodies_with_a_good_checksum_are_refused(raw: bytes, message: str) -> None:
    with pytest.raises(CursorFormatError, match=f"^{re.escape(message)}$"):
        Cursor.decode(wire(raw))


@pytest.mark.parametrize("key", ["s", "w", "h", "hs", "hl", "a", "alt", "sh", "pp", "rw", "sn"])
@pytest.mark.parametrize("value", [-1, "1", True, 1.0])
def test_integer_fields_must_be_non_negative_integers(key: str, value: object) -> None:
    with pytest.raises(
        CursorFormatError, match=f"^cursor field '{key}' must be a non-negative integer$"
    ):
        Cursor.decode(wire(body({**FIELDS, key: value}, H * 3)))


@pytest.mark.parametrize("key", ["s", "w", "h", "hs", "hl", "a", "alt", "sh", "p"])
def test_required_fields_must_be_present(key: str) -> None:
    fields = {k: v for k, v in FIELDS.items() if k != key}
    with pytest.raises(
        CursorFormatError,
        match=f"^cursor field '{key}' must be a non-(negative integer|empty string)$",
    ):
        Cursor.decode(wire(body(fields)))


@pytest.mark.parametrize("value", ["", 5, None])
def test_the_pane_id_must_be_a_non_empty_string(value: object) -> None:
    with pytest.raises(CursorFormatError, match=r"^cursor field 'p' must be a non-empty string$"):
        Cursor.decode(wire(body({**FIELDS, "p": value})))


def test_absent_optional_fields_decode_as_none_or_empty() -> None:
    fields = {k: v for k, v in FIELDS.items() if k != "pp"}
    decoded = Cursor.decode(wire(body({**fields, "pp": None, "rw": None, "sn": None})))
    assert decoded.pane_pid is None
    assert decoded.reflow_cells is None
    assert decoded.sentinels == ()


def test_sentinel_hashes_come_last_and_window_hashes_in_between() -> None:
    a, w1, w2, s1 = (bytes([i]) * 8 for i in range(1, 5))
    decoded = Cursor.decode(wire(body({**FIELDS, "sn": 1}, a + w1 + w2 + s1)))
    assert (decoded.anchor_hash, decoded.window, decoded.sentinels) == (a, (w1, w2), (s1,))
    encoded = cursor(anchor_hash=a, window=(w1, w2), sentinels=(s1,)).encode()
    assert Cursor.decode(encoded).sentinels == (s1,)


def test_flags_decode_from_their_integers() -> None:
    decoded = Cursor.decode(wire(body({**FIELDS, "alt": 1, "sh": 0})))
    assert decoded.alternate_on is True
    assert decoded.shown is False


def test_every_wire_form_round_trips() -> None:
    """Whatever characters the base64 ends with (none of them is padding)."""
    endings = set()
    for anchor in range(60, 260):
        made = cursor(anchor=anchor, window=(H,) * (anchor % 3), history_size=anchor % 7)
        text = made.encode()
        endings.add(text[-1])
        assert Cursor.decode(text) == made
    assert {"X", "A", "-"} <= endings
