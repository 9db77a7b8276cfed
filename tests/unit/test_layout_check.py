"""Layouts are checked, not trusted (issue 26 item 2): ``parse_layout``
accepts what tmux prints and nothing whose geometry could hurt tmux.

tmux itself only checks a layout's checksum, which anyone can compute, and
then believes its numbers: ``8f53,80x4294967295,0,0,0`` made tmux 3.3a's
server exit. The oracle here is independent of the parser: every cell a
accepted layout describes is painted on a grid, and no two panes may share a
cell, none may leave the window, and panes and borders must cover it.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridmux.backend import (
    LAYOUT_PRESETS,
    InvalidArgument,
    LayoutCell,
    check_fits,
    layout_checksum,
    parse_layout,
)
from tmuxsim._layout import Layout, named_layout


def signed(body: str) -> str:
    return f"{layout_checksum(body):04x},{body}"


def leaves(cell: LayoutCell) -> list[LayoutCell]:
    return [cell] if cell.kind == "pane" else [leaf for c in cell.children for leaf in leaves(c)]


def painted(root: LayoutCell) -> None:
    """Panes never overlap or leave the root; panes plus borders fill it."""
    owner: dict[tuple[int, int], int] = {}
    for number, leaf in enumerate(leaves(root)):
        assert leaf.x >= root.x and leaf.x + leaf.width <= root.x + root.width
        assert leaf.y >= root.y and leaf.y + leaf.height <= root.y + root.height
        for x in range(leaf.x, leaf.x + leaf.width):
            for y in range(leaf.y, leaf.y + leaf.height):
                assert (x, y) not in owner, f"cell {x},{y} belongs to two panes"
                owner[(x, y)] = number
    assert len(owner) <= root.width * root.height


@st.composite
def tmux_layouts(draw: st.DrawFn) -> tuple[str, int, int, int]:
    """A layout as tmux prints it: random splits of a random window, or a preset
    (in a window with room for every preset: tmux makes a preset's layout
    larger than a window too small for it)."""
    sx, sy = draw(st.integers(20, 200)), draw(st.integers(20, 60))
    layout = Layout.single(0, sx, sy)
    panes = [0]
    for _ in range(draw(st.integers(0, 8))):
        pane = draw(st.sampled_from(panes))
        vertical = draw(st.booleans())
        cell = layout.find(pane)
        if (cell.sy if vertical else cell.sx) < 3:
            continue
        layout.split(pane, len(panes), vertical=vertical, before=draw(st.booleans()), size=None)
        panes.append(len(panes))
    if draw(st.booleans()) and len(panes) > 1:
        name = draw(st.sampled_from(LAYOUT_PRESETS))
        layout = named_layout(name, panes, sx, sy, main_width="50%", main_height="50%")
    return layout.dump(), sx, sy, len(panes)


@given(tmux_layouts())
@settings(max_examples=300)
def test_every_layout_tmux_prints_is_accepted_for_its_window(
    made: tuple[str, int, int, int],
) -> None:
    text, sx, sy, panes = made
    root = parse_layout(text)
    assert root is not None and root.panes() == panes
    check_fits(text, root, sx, sy, panes)
    painted(root)


@given(tmux_layouts(), st.data())
@settings(max_examples=400)
def test_a_layout_with_any_number_changed_is_refused_or_still_tiles(
    made: tuple[str, int, int, int], data: st.DataObject
) -> None:
    """The fuzzer's move: change numbers, recompute the checksum."""
    text, *_ = made
    body = text[5:]
    numbers = [i for i, part in enumerate(body.replace("x", ",").split(",")) if part.isdigit()]
    replacement = data.draw(st.sampled_from(["0", "1", "2", "65535", "4294967295", "99999"]))
    which = data.draw(st.sampled_from(numbers)) if numbers else 0
    count = -1
    out = []
    for token in _tokens(body):
        if token.isdigit():
            count += 1
        out.append(replacement if token.isdigit() and count == which else token)
    mutated = signed("".join(out))
    try:
        root = parse_layout(mutated)
    except InvalidArgument:
        return
    assert root is not None
    painted(root)


def _tokens(body: str) -> list[str]:
    tokens: list[str] = []
    for char in body:
        if char.isdigit() and tokens and tokens[-1].isdigit():
            tokens[-1] += char
        else:
            tokens.append(char)
    return tokens


@pytest.mark.parametrize(
    ("layout", "needle"),
    [
        ("8f53,80x4294967295,0,0,0", "no 'WxH,X,Y' cell"),  # crashed tmux 3.3a
        (signed("80x0,0,0,0"), "80x0 cell"),
        (signed("0x24,0,0,0"), "0x24 cell"),
        (signed("80x24,9999,0,0"), "beyond 10000"),
        (signed("80x24,0,0{40x24,0,0,1}"), "fewer than two cells"),
        (signed("80x24,0,0{40x24,0,0,1,40x24,41,0,2}"), "do not fill"),
        (signed("80x24,0,0{40x24,0,0,1,39x24,40,0,2}"), "do not tile"),
        (signed("80x24,0,0{40x24,0,0,1,39x23,41,0,2}"), "do not tile"),
        (signed("80x24,0,0[80x12,0,0,1,80x11,0,12,2]"), "do not tile"),
        (signed("80x24,0,0{40x24,0,0,1,39x24,41,0,2"), "no '}'"),
        (signed("80x24,0,0,1,2"), "left over"),
        (signed("80x24,0,0"), "no pane number"),
        (signed("80x24,0,0," + "9" * 12), "left over"),
        (signed("2x2,0,0" + "{1x2,0,0" * 70 + ",1"), "deeper than 64"),
        ("b25f,80x24,0,0,2;kill-server", "neither a layout name"),
        ("ffff,80x24,0,0,2", "wrong checksum"),
        ('{"V":2,"L":{"t":"p","w":80,"h":4294967295,"x":0,"y":0,"i":0}}', "small number"),
        ('{"V":2,"L":{"t":"h","w":80,"h":24,"x":0,"y":0,"c":[]}}', 'without "c"'),
        ('{"V":2,"L":{"t":"q","w":80,"h":24,"x":0,"y":0}}', "not {"),
    ],
)
def test_broken_geometry_is_refused_saying_what(layout: str, needle: str) -> None:
    with pytest.raises(InvalidArgument) as refused:
        parse_layout(layout)
    assert needle in str(refused.value)
    assert "even-horizontal" in (refused.value.hint or "")


def test_json_layouts_are_checked_like_strings() -> None:
    good = {
        "t": "h",
        "w": 80,
        "h": 24,
        "x": 0,
        "y": 0,
        "c": [
            {"t": "p", "w": 40, "h": 24, "x": 0, "y": 0, "a": True, "i": 0, "I": 0},
            {"t": "p", "w": 39, "h": 24, "x": 41, "y": 0, "i": 1, "I": 1},
        ],
    }
    root = parse_layout(json.dumps({"V": 2, "L": good}))
    assert root is not None and root.panes() == 2
    good["c"][1]["w"] = 40  # type: ignore[index]
    with pytest.raises(InvalidArgument, match="do not fill"):
        parse_layout(json.dumps({"V": 2, "L": good}))


def test_a_layout_for_another_window_is_refused() -> None:
    text = signed("80x24,0,0{40x24,0,0,1,39x24,41,0,2}")
    root = parse_layout(text)
    assert root is not None
    check_fits(text, root, 80, 24, 2)
    with pytest.raises(InvalidArgument, match="80x24 window"):
        check_fits(text, root, 100, 24, 2)
    with pytest.raises(InvalidArgument, match="layout has 2 panes"):
        check_fits(text, root, 80, 24, 3)
    assert parse_layout("tiled") is None
