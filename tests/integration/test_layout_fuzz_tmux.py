"""Checksum-valid layouts, fuzzed, on real tmux (issue 26 item 2).

tmux believes any layout whose checksum is right; sizes such as 4294967295
made tmux 3.3a's server exit, and other numbers sent it into endless loops.
Here a three-pane window's own layout is mutated the way a fuzzer does
(numbers replaced by edge values, cells dropped or duplicated, brackets
swapped) and re-signed, and every mutation goes through the backend's
``select_layout``: it is refused before tmux sees it, or it tiles the window
and tmux applies it (or refuses it) and keeps answering at once.
"""

from __future__ import annotations

import random
import re

import pytest

from gridmux.backend import InvalidArgument, ServerRef, TmuxFailure, layout_checksum
from gridmux.backend._command_backend import TmuxCommandBackend
from tests.integration.conftest import RawTmux

pytestmark = pytest.mark.tmux

_EDGES = ["0", "1", "2", "3", "79", "80", "81", "255", "65535", "65536", "4294967295", "99999"]


def _mutate(body: str, rng: random.Random) -> str:
    tokens = re.findall(r"\d+|.", body)
    for _ in range(rng.randint(1, 3)):
        numbers = [i for i, token in enumerate(tokens) if token.isdigit()]
        move = rng.randrange(4)
        if move in {0, 3}:  # a number replaced by an edge value or a neighbour
            at = rng.choice(numbers)
            value = int(tokens[at])
            tokens[at] = rng.choice([*_EDGES, str(value + 1), str(max(value - 1, 0))])
        elif move == 1:  # brackets swapped
            swap = {"{": "[", "[": "{", "}": "]", "]": "}"}
            tokens = [swap.get(token, token) for token in tokens]
        else:  # a cell's geometry repeated
            at = rng.choice(numbers[: len(numbers) - 3] or numbers)
            tokens[at:at] = [*tokens[at : at + 7]]
    return "".join(tokens)


def test_no_fuzzed_layout_reaches_tmux_unless_it_tiles_the_window(
    backend: TmuxCommandBackend, tmux_server: ServerRef, tmux: RawTmux
) -> None:
    tmux("new-session", "-d", "-s", "fuzz", "-x", "80", "-y", "24", "sleep 1000")
    tmux("resize-window", "-t", "fuzz:", "-x", "80", "-y", "24")
    tmux("new-window", "-d", "-t", "fuzz:", "sleep 1000")
    for _ in range(2):
        tmux("split-window", "-t", "fuzz:1", "sleep 1000")
    windows = tmux("list-windows", "-t", "fuzz", "-F", "#{window_id}").split()
    # A body of the checksummed form for each window (3.8 prints JSON to other clients).
    bodies = [
        (windows[0], "80x24,0,0,1"),
        (windows[1], "80x24,0,0{40x24,0,0,1,39x24,41,0[39x12,41,0,2,39x11,41,13,3]}"),
    ]
    rng = random.Random(26)
    accepted = refused = 0
    for _ in range(400):
        window, body = rng.choice(bodies)
        body = _mutate(body, rng)
        layout = f"{layout_checksum(body):04x},{body}"
        try:
            backend.select_layout(tmux_server, window, layout)
            accepted += 1
        except InvalidArgument:
            refused += 1
        except TmuxFailure:  # tmux's own refusal of a layout that tiles another window
            accepted += 1
        # The server is alive and answers now, not after a loop ends.
        assert tmux("list-windows", "-t", "fuzz", "-F", "#{window_panes}").split() == ["1", "3"]
    assert refused > 250 and accepted > 0, (accepted, refused)
