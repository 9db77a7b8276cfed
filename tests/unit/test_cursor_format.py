"""The cursor's wire form: every field checked, every malformed cursor refused
with a message that says what is wrong, and at most ``MAX_LENGTH`` characters
(``gridmux.capture._cursor``)."""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import re

import pytest

from gridmux.capture import MAX_LENGTH, PREFIX, SENTINEL_OFFSETS, WINDOW, Cursor, CursorFormatError
from gridmux.capture._cursor import fits, window_digests

A = b"\x01" * 4  # an anchor or key digest
W = b"\x02"  # a window row digest
S = b"\x03" * 2  # a sentinel digest


def win(k: int) -> tuple[bytes, ...]:
    return (*(W,) * (k - 1), A) if k else ()


def cursor(**changes: object) -> Cursor:
    base = Cursor(
        server_pid=7,
        pane_id="%1",
        pane_pid=100,
        width=80,
        history_size=50,
        anchor=60,
        alternate_on=False,
        shown=True,
        anchor_hash=A,
        window=win(3),
    )
    return dataclasses.replace(base, **changes)  # type: ignore[arg-type]


def wire(body: bytes) -> str:
    """A cursor text around ``body`` with a correct checksum (the documented wire form)."""
    check = hashlib.blake2b(body, digest_size=3).digest()
    return PREFIX + base64.urlsafe_b64encode(body + check).decode().rstrip("=")


#: server 7, pane %1, pane pid 100 (+1), width 80, history 50, anchor 60
HEAD = bytes((7, 1, 101, 80, 50, 60))


def test_a_hand_made_cursor_decodes_to_its_fields() -> None:
    """Flags 2 (shown), counts 1 * 12 + 1: a window of one row and one sentinel."""
    key, sentinel = b"\x09" * 4, b"\x0a\x0b"
    decoded = Cursor.decode(wire(HEAD + bytes((2, 13)) + A + key + sentinel))
    assert decoded == cursor(window=(key,), sentinels=(sentinel,), anchor=60)


def test_integers_travel_as_leb128() -> None:
    """300 = 0b10_0101100: low seven bits first, continuation bit set."""
    decoded = Cursor.decode(wire(bytes((7, 1, 0, 0xAC, 0x02, 50, 60, 5, 0, 9)) + A))
    assert (decoded.width, decoded.pane_pid, decoded.alternate_on, decoded.shown) == (
        300,
        None,
        True,
        False,
    )
    assert decoded.reflow_cells == 9
    assert decoded.window == ()


@pytest.mark.parametrize(
    "changes",
    [
        {"anchor": 0, "window": ()},
        {"width": 1, "reflow_cells": 0},
        {"history_size": 0},
        {"reflow_cells": 79},
        {"window": win(WINDOW)},
        {"anchor": 2, "window": win(2)},
        {"anchor": 3, "window": win(2), "sentinels": (S,)},
        {"sentinels": (S,) * len(SENTINEL_OFFSETS), "anchor": 1024 + 3},
        {"pane_pid": None, "alternate_on": True, "shown": False},
        {"pane_pid": 0, "server_pid": 0, "pane_id": "%0"},
    ],
)
def test_cursors_at_the_edge_of_every_range_round_trip(changes: dict[str, object]) -> None:
    made = cursor(**changes)
    assert Cursor.decode(made.encode()) == made


def test_the_longest_cursor_fits_the_budget() -> None:
    """Every field at its largest plausible value: pids at the Linux maximum,
    a huge pane number, history and width; every digest present."""
    big = cursor(
        server_pid=2**22 - 1,
        pane_id=f"%{2**21 - 1}",
        pane_pid=2**22 - 2,
        width=2**14 - 1,
        history_size=2**21 - 1,
        anchor=2**21 - 1,
        alternate_on=True,
        reflow_cells=2**14 - 2,
        window=win(WINDOW),
        sentinels=(S,) * len(SENTINEL_OFFSETS),
    )
    text = big.encode()
    assert len(text) == MAX_LENGTH == 100
    assert Cursor.decode(text) == big


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"anchor": -1}, "cursor geometry out of range"),
        ({"history_size": -1}, "cursor geometry out of range"),
        ({"width": 0}, "cursor geometry out of range"),
        ({"server_pid": -1}, "cursor process ids out of range"),
        ({"pane_pid": -1}, "cursor process ids out of range"),
        ({"pane_id": "1"}, "cursor pane id is not a tmux pane id (%N)"),
        ({"pane_id": "%01"}, "cursor pane id is not a tmux pane id (%N)"),
        ({"pane_id": "%1x"}, "cursor pane id is not a tmux pane id (%N)"),
        ({"reflow_cells": -1}, "cursor reflow width out of range"),
        ({"reflow_cells": 80}, "cursor reflow width out of range"),
        ({"window": win(WINDOW + 1)}, "cursor window longer than the rows above its anchor"),
        ({"anchor": 2, "window": win(3)}, "cursor window longer than the rows above its anchor"),
        ({"anchor_hash": A[:3]}, "cursor row digest has the wrong size"),
        ({"window": (W, W)}, "cursor row digest has the wrong size"),
        ({"window": (A, A)}, "cursor row digest has the wrong size"),
        ({"sentinels": (S[:1],)}, "cursor row digest has the wrong size"),
        (
            {"anchor": 3, "window": win(2), "sentinels": (S,) * 2},
            "cursor sentinels reach above the first row",
        ),
        (
            {"anchor": 5000, "sentinels": (S,) * (len(SENTINEL_OFFSETS) + 1)},
            "cursor sentinels reach above the first row",
        ),
    ],
)
def test_impossible_cursors_are_refused(changes: dict[str, object], message: str) -> None:
    with pytest.raises(CursorFormatError, match=f"^{re.escape(message)}$"):
        cursor(**changes)


@pytest.mark.parametrize("anchor", range(60, 66))
def test_the_wire_form_has_no_padding(anchor: int) -> None:
    """An agent pays for every character it echoes."""
    text = cursor(anchor=anchor, sentinels=(S,) * (anchor % 4)).encode()
    assert "=" not in text
    assert re.fullmatch(r"gms2:[A-Za-z0-9_-]+", text)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "a cursor starts with 'gms2:'"),
        ("gms3:abc", "a cursor starts with 'gms2:'"),
        ("gridmux-since-v1:abc", "this cursor was written by an older gridmux"),
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
    """Three bytes that happen to be the checksum of nothing are still no cursor."""
    with pytest.raises(CursorFormatError, match=r"^the cursor is damaged \(checksum mismatch\)$"):
        Cursor.decode(wire(b""))


def test_a_non_string_is_refused() -> None:
    with pytest.raises(
        CursorFormatError, match=f"^a cursor starts with {re.escape(repr(PREFIX))}$"
    ):
        Cursor.decode(b"gms2:abc")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (bytes((7,)), "the cursor is truncated"),
        (HEAD + bytes((2,)), "the cursor is truncated"),
        (HEAD + bytes((2, 0)) + A[:3], "the cursor is truncated"),
        (HEAD + bytes((2, 13)) + A + A, "the cursor is truncated"),  # no sentinel
        (HEAD + bytes((2, 0)) + A + b"\0", "the cursor has trailing bytes"),
        (HEAD + bytes((8, 0)) + A, "the cursor header is malformed"),  # unknown flag
        (HEAD + bytes((2, WINDOW * 12 + 12)) + A, "the cursor header is malformed"),
        (
            bytes((0x80,) * 5 + (1,)) + HEAD[1:] + bytes((2, 0)) + A,
            "the cursor header is malformed",
        ),
        (HEAD + bytes((4, 0, 0x80)), "the cursor is truncated"),  # reflow bound cut short
    ],
)
def test_malformed_bodies_with_a_good_checksum_are_refused(raw: bytes, message: str) -> None:
    with pytest.raises(CursorFormatError, match=f"^{re.escape(message)}$"):
        Cursor.decode(wire(raw))


def test_the_largest_counts_byte_is_accepted() -> None:
    """16 window rows and 11 sentinels: counts 16 * 12 + 11, the bound itself."""
    made = cursor(anchor=2000, window=win(WINDOW), sentinels=(S,) * len(SENTINEL_OFFSETS))
    assert Cursor.decode(made.encode()) == made


def test_digests_are_prefixes_of_the_row_hashes() -> None:
    full = tuple(bytes([i]) * 8 for i in range(1, 4))
    digests = window_digests(full)
    assert digests == (b"\x01", b"\x02", b"\x03" * 4)
    assert window_digests(()) == ()
    assert fits(full, digests)
    assert not fits(full[:2], digests)
    assert not fits((full[0], full[0], full[2]), digests)
    assert not fits(full, (b"\x01", b"\x02", b"\x03\x03\x03\x04"))


def test_every_wire_form_round_trips() -> None:
    """Whatever characters the base64 ends with (none of them is padding)."""
    endings = set()
    for anchor in range(60, 260):
        made = cursor(anchor=anchor, window=win(anchor % 3), history_size=anchor % 7)
        text = made.encode()
        endings.add(text[-1])
        assert Cursor.decode(text) == made
    assert len(endings) > 3
