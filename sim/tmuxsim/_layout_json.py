"""Window layouts as text, in the form the version prints: the checksummed
``csum,WxH,X,Y{...}`` string, or from 3.8 JSON (``TmuxVersion.layouts_are_json``).

The JSON form, as tmux 3.8 prints it (measured): ``{"V":2,"L":CELL}`` where a
cell is ``{"t":"h"|"v"|"p","w":W,"h":H,"x":X,"y":Y, ...}`` -- ``"h"`` splits
left-right, ``"v"`` top-bottom -- a container adds ``"c":[cells]`` and a pane
adds ``"a":true`` if it is the active pane or ``"l":N`` if it is N-th in the
window's last-pane list, then ``"i"`` (its index) and ``"I"`` (its id).
``select-layout`` takes either form on 3.8; a JSON layout is applied to the
panes in order (``"I"`` is not used) and its ``"a"``/``"l"`` keys set the
active pane and the last-pane list. A control-mode client attached without
the ``new-layouts`` flag is still shown the checksummed form on 3.8.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from gridmux.backend import InvalidArgument, layout_checksum

from ._layout import Cell, Kind, Layout, parse_layout

if TYPE_CHECKING:
    from ._model import SimWindow

_KIND_CODE: dict[Kind, str] = {"lr": "h", "tb": "v", "pane": "p"}
_CODE_KIND: dict[str, Kind] = {code: kind for kind, code in _KIND_CODE.items()}


def window_layout(window: SimWindow, *, visible: bool = False, control: bool = False) -> str:
    """``#{window_layout}`` (or ``#{window_visible_layout}``: only the zoomed pane)
    as a client sees it: on 3.8 a control-mode client attached without the
    ``new-layouts`` flag (``control``) still gets the checksummed form
    (measured; gridmux's own control clients set the flag)."""
    layout = window.layout
    if visible and window.zoomed is not None:
        layout = Layout.single(window.zoomed.number, window.sx, window.sy)
    if control or not window.server.version.layouts_are_json:
        return layout.dump()
    return json.dumps({"V": 2, "L": _cell_json(window, layout.root)}, separators=(",", ":"))


def _cell_json(window: SimWindow, cell: Cell) -> dict[str, Any]:
    out: dict[str, Any] = {
        "t": _KIND_CODE[cell.kind],
        "w": cell.sx,
        "h": cell.sy,
        "x": cell.xoff,
        "y": cell.yoff,
    }
    if cell.kind != "pane":
        out["c"] = [_cell_json(window, child) for child in cell.children]
        return out
    pane = next(p for p in window.panes if p.number == cell.pane)
    if window.active is pane:
        out["a"] = True
    elif pane in window.last_panes:
        out["l"] = window.last_panes.index(pane)
    out["i"] = pane.index
    out["I"] = pane.pane_id
    return out


def apply_layout(window: SimWindow, text: str) -> Layout:
    """The layout ``select-layout`` makes of ``text`` for ``window``'s panes
    (setting the active and last panes a JSON layout names)."""
    numbers = [pane.number for pane in window.panes]
    if not (window.server.version.layouts_are_json and text.lstrip().startswith("{")):
        return parse_layout(text, numbers)
    try:
        document = json.loads(text)
        root = _cell_from_json(document["L"], text)
    except (ValueError, KeyError, TypeError):
        raise InvalidArgument(f"invalid layout: {text}") from None
    # The checksummed reader does the checks (pane count, sizes adding up).
    body = _dump_body(root)
    layout = parse_layout(f"{layout_checksum(body):04x},{body}", numbers)
    marks = _pane_marks(document["L"])
    panes = list(window.panes)
    last = sorted((m["l"], panes[i]) for i, m in enumerate(marks) if isinstance(m.get("l"), int))
    active = [panes[i] for i, m in enumerate(marks) if m.get("a") is True]
    if active:
        window.active = active[0]
    window.last_panes = [pane for _, pane in last if pane is not window.active]
    return layout


def _cell_from_json(node: dict[str, Any], text: str) -> Cell:
    for key in ("t", "w", "h", "x", "y"):
        if key not in node:
            raise InvalidArgument(f'key "{key}" not found: {text}')
    kind = _CODE_KIND[node["t"]]
    cell = Cell(kind, int(node["w"]), int(node["h"]), int(node["x"]), int(node["y"]))
    if kind == "pane":
        if "i" not in node:
            raise InvalidArgument(f'key "i" not found: {text}')
        return cell
    cell.children = [_cell_from_json(child, text) for child in node["c"]]
    for child in cell.children:
        child.parent = cell
    return cell


def _pane_marks(node: dict[str, Any]) -> list[dict[str, Any]]:
    if node.get("t") == "p":
        return [node]
    return [mark for child in node.get("c", []) for mark in _pane_marks(child)]


def _dump_body(cell: Cell) -> str:
    text = f"{cell.sx}x{cell.sy},{cell.xoff},{cell.yoff}"
    if cell.kind == "pane":
        return text
    inner = ",".join(_dump_body(child) for child in cell.children)
    return f"{text}{{{inner}}}" if cell.kind == "lr" else f"{text}[{inner}]"
