"""The differential test's scripts: operations and the Hypothesis strategies
that generate them (see ``test_differential``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import strategies as st

# -- operations ------------------------------------------------------------------


@dataclass(frozen=True)
class Write:
    """Bytes the pane's program writes to its tty (``\\n`` becomes ``\\r\\n``)."""

    data: bytes


@dataclass(frozen=True)
class Resize:
    """``resize-window`` with ``-x``/``-y`` (None: leave that dimension)."""

    width: int | None = None
    height: int | None = None


@dataclass(frozen=True)
class ClearHistory:
    """``clear-history``."""


@dataclass(frozen=True)
class SetHistoryLimit:
    """``set-option -g history-limit N`` (affects existing panes only on 3.7+)."""

    limit: int


@dataclass(frozen=True)
class Exit:
    """``remain-on-exit on`` for the pane, then its program exits with ``status``
    (or is killed by ``signal``). Later writes go nowhere until a respawn."""

    status: int = 0
    signal: int | None = None


@dataclass(frozen=True)
class Respawn:
    """``respawn-pane -k`` with a fresh driver (live or dead pane)."""


Op = Write | Resize | ClearHistory | SetHistoryLimit | Exit | Respawn


@dataclass(frozen=True)
class Script:
    """A fresh ``width``x``height`` pane made under ``history-limit``, then ``ops``."""

    width: int
    height: int
    history_limit: int
    ops: tuple[Op, ...] = field(default=())


# -- strategies ------------------------------------------------------------------

WIDE = "中文字"
COMBINING = ("\u0301", "\u0308")
TEXT = "abcdefxyz0123456789 .-"


def _csi(param: int | None, final: str) -> bytes:
    return f"\x1b[{'' if param is None else param}{final}".encode()


def _cup(row: int | None, col: int | None) -> bytes:
    if row is None and col is None:
        return b"\x1b[H"
    return f"\x1b[{'' if row is None else row};{'' if col is None else col}H".encode()


def _long_line(length: int, first: int) -> bytes:
    return bytes(ord("a") + (first + i) % 26 for i in range(length))


def numbered_lines(count: int, tag: str) -> bytes:
    return b"".join(f"{tag}{i}\n".encode() for i in range(1, count + 1))


def _region_scroll(top: int, bottom: int, text: bytes, feeds: int) -> bytes:
    # DECSTBM homes the cursor; go to the region's bottom row and linefeed there.
    return f"\x1b[{top};{bottom}r\x1b[{bottom};1H".encode() + text + b"\n" * feeds


_counts = st.one_of(st.none(), st.integers(0, 14), st.just(999))

# SGR: attributes and foreground colours persist; a background colour only
# ever colours the text printed with it (the simulator does not model
# background colour erase), so it is reset right after.
_SGR_ATTRIBUTES = [0, 1, 2, 3, 4, 5, 7, 8, 9, 22, 23, 24, 25, 27, 28, 29, 39]
_sgr_fg = st.one_of(
    st.sampled_from(_SGR_ATTRIBUTES),
    st.integers(30, 37),
    st.integers(90, 97),
    st.integers(0, 255).map(lambda n: f"38;5;{n}"),
    st.tuples(st.integers(0, 255), st.integers(0, 255), st.integers(0, 255)).map(
        lambda c: f"38;2;{c[0]};{c[1]};{c[2]}"
    ),
).map(str)
_sgr_bg = st.one_of(
    st.integers(40, 47),
    st.integers(100, 107),
    st.integers(0, 255).map(lambda n: f"48;5;{n}"),
    st.just("48;2;9;99;199"),
).map(str)


def _sgr(params: list[str]) -> bytes:
    return f"\x1b[{';'.join(params)}m".encode()


def _on_background(params: list[str], text: bytes) -> bytes:
    return _sgr(params) + text + b"\x1b[49m"


_text = st.text(alphabet=TEXT, min_size=1, max_size=12).map(str.encode)

tokens: st.SearchStrategy[bytes] = st.one_of(
    _text,
    st.sampled_from([b"\n", b"\r", b"\t", b"\b", b"\r\n", b"\r\b"]),
    st.builds(_long_line, st.integers(1, 90), st.integers(0, 25)),
    st.builds(numbered_lines, st.integers(1, 40), st.sampled_from(["L", "M", "N"])),
    st.text(alphabet=WIDE + "ab", min_size=1, max_size=8).map(str.encode),
    st.tuples(st.sampled_from(["", "e", "a", "中", " "]), st.sampled_from(COMBINING)).map(
        lambda pair: (pair[0] + pair[1]).encode()
    ),
    st.builds(_csi, _counts, st.sampled_from("ABCD")),
    st.builds(
        _cup,
        st.none() | st.integers(0, 15) | st.just(999),
        st.none() | st.integers(0, 35) | st.just(999),
    ),
    st.sampled_from([b"\x1b[K", b"\x1b[0K", b"\x1b[1K", b"\x1b[2K"]),
    st.sampled_from([b"\x1b[J", b"\x1b[0J", b"\x1b[1J", b"\x1b[2J", b"\x1b[3J"]),
    st.builds(_region_scroll, st.integers(1, 6), st.integers(2, 12), _text, st.integers(0, 12)),
    st.builds(lambda t, b: f"\x1b[{t};{b}r".encode(), st.integers(1, 8), st.integers(1, 12)),
    st.just(b"\x1b[r"),
    st.builds(_csi, _counts, st.sampled_from("ST")),
    st.just(b"\x1bc"),
    st.sampled_from([b"\x1b[?1049h", b"\x1b[?1049l"]),
    # Beyond the brief's list, cheap and grid-relevant: RI, IND, NEL, DECSC/DECRC,
    # auto-wrap off/on (DECAWM), insert mode (IRM), IL, DL, ICH, DCH, ECH.
    st.sampled_from([b"\x1bM", b"\x1bD", b"\x1bE", b"\x1b7", b"\x1b8"]),
    st.sampled_from([b"\x1b[?7l", b"\x1b[?7h", b"\x1b[4h", b"\x1b[4l"]),
    st.builds(_csi, _counts, st.sampled_from("LM@PX")),
    st.lists(_sgr_fg, max_size=3).map(_sgr),
    st.builds(
        _on_background,
        st.lists(st.one_of(_sgr_fg, _sgr_bg), min_size=1, max_size=3),
        st.one_of(_text, st.text(alphabet=WIDE + "ab", min_size=1, max_size=4).map(str.encode)),
    ),
)

_writes = st.lists(tokens, min_size=1, max_size=8).map(lambda parts: Write(b"".join(parts)))
_sizes = st.none() | st.integers(1, 40)
_resizes = st.builds(Resize, width=_sizes, height=st.none() | st.integers(1, 14)).filter(
    lambda op: op.width is not None or op.height is not None
)
_limits = st.one_of(st.integers(10, 50), st.sampled_from([0, 1, 2, 5]))

_lifecycle = st.one_of(
    st.just(Respawn()),
    st.builds(Exit, status=st.integers(0, 3)),
    st.builds(Exit, signal=st.sampled_from([1, 15])),
)

_grid_ops = st.one_of(
    _writes,
    _writes,
    _writes,
    _resizes,
    st.just(ClearHistory()),
    st.builds(SetHistoryLimit, st.integers(0, 60)),
)

# One op in twelve is an exit or a respawn (about a quarter of the scripts
# have an exit): a dead pane takes no output, so more would starve the grid.
ops: st.SearchStrategy[Op] = st.sampled_from(range(12)).flatmap(
    lambda n: _lifecycle if n == 11 else _grid_ops
)

scripts = st.builds(
    Script,
    width=st.integers(2, 30),
    height=st.integers(2, 10),
    history_limit=_limits,
    ops=st.lists(ops, min_size=4, max_size=24).map(tuple),
)


def describe(op: Op) -> str:
    if isinstance(op, Write):
        return f"write {op.data!r}"
    if isinstance(op, Resize):
        return f"resize-window -x {op.width} -y {op.height}"
    if isinstance(op, ClearHistory):
        return "clear-history"
    if isinstance(op, SetHistoryLimit):
        return f"set-option -g history-limit {op.limit}"
    if isinstance(op, Exit):
        how = f"signal {op.signal}" if op.signal is not None else f"status {op.status}"
        return f"remain-on-exit on; the program exits ({how})"
    return "respawn-pane -k (a fresh driver)"
