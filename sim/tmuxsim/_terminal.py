"""One pane's screen as tmux keeps it, behind the API the simulator codes against.

The pieces: ``_grid`` (history + visible rows), ``_screen`` (cursor, region,
alternate screen, resize), ``_reflow``, ``_writer`` (screen operations),
``_vt`` (byte parser) and ``_capture``. The behaviour they reproduce is
specified, with measured examples, in ``docs/tmux-model.md`` (§1 to §16).
"""

from __future__ import annotations

from gridmux.backend import InvalidArgument, RowBound, resolve_row_range

from ._capture import CaptureOptions, capture_rows
from ._line import PAD, char_width
from ._screen import Screen
from ._style import DEFAULT_STYLE
from ._versions import TmuxVersion
from ._vt import VtParser
from ._writer import Writer

# capture-pane parses -S/-E with args_strtonum(INT_MIN, SHRT_MAX): anything
# outside counts as unparsable, i.e. as if the flag were missing.
_BOUND_MIN = -(2**31)
_BOUND_MAX = 32767


def _parsable(bound: RowBound) -> RowBound:
    if isinstance(bound, int) and not _BOUND_MIN <= bound <= _BOUND_MAX:
        return None
    return bound


class Terminal:
    """One pane's screen: the base grid (history + visible rows), the alternate
    screen, the cursor and the VT parser state."""

    def __init__(self, width: int, height: int, history_limit: int, version: TmuxVersion) -> None:
        self.version = version
        self._screen = Screen(
            max(width, 1),
            max(height, 1),
            history_limit,
            padding_width=1 if version.reflow_counts_padding else 0,
            rgb_padding_width=(
                1
                if version.reflow_counts_padding and not version.rgb_background_padding_is_narrow
                else 0
            ),
        )
        self._writer = Writer(self._screen, version)
        self._parser = VtParser(self._writer)

    # -- state ---------------------------------------------------------------

    @property
    def width(self) -> int:
        return self._screen.grid.sx

    @property
    def height(self) -> int:
        return self._screen.grid.sy

    @property
    def history_size(self) -> int:
        return self._screen.grid.hsize

    @property
    def history_limit(self) -> int:
        return self._screen.grid.hlimit

    @property
    def cursor_x(self) -> int:
        return self._screen.cx

    @property
    def cursor_y(self) -> int:
        return self._screen.cy

    @property
    def alternate_on(self) -> bool:
        return self._screen.saved is not None

    @property
    def hscrolled(self) -> int:
        return self._screen.grid.hscrolled

    @property
    def scroll_region(self) -> tuple[int, int]:
        return self._screen.rupper, self._screen.rlower

    @property
    def scroll_on_clear(self) -> bool:
        """The ``scroll-on-clear`` pane option (3.3+); 3.2a always scrolls."""
        return self._writer.scroll_on_clear

    @scroll_on_clear.setter
    def scroll_on_clear(self, value: bool) -> None:
        self._writer.scroll_on_clear = value

    # -- input and commands --------------------------------------------------

    def feed(self, data: bytes) -> None:
        """Bytes as the terminal receives them (after the tty's ONLCR)."""
        self._parser.feed(data)

    def resize(self, width: int, height: int) -> None:
        """``window_pane_resize``: reflow unless the alternate screen is on (§10)."""
        screen = self._screen
        screen.resize(width, height, reflow_rows=screen.saved is None)

    def reset(self) -> None:
        """``send-keys -R`` (``input_reset``): parser to ground, then RIS on the screen."""
        self._parser.reset()
        self._writer.reset()

    def clear_history(self) -> None:
        """``clear-history``: hsize and hscrolled to 0, screen and cursor untouched."""
        self._screen.grid.clear_history()

    def set_history_limit(self, limit: int) -> None:
        """3.7+ semantics: set hlimit and trim at once (the caller gates by version)."""
        grid = self._screen.grid
        grid.hlimit = max(limit, 0)
        grid.collect_history(all_rows=True)

    def respawn_reset(self) -> None:
        """``screen_reinit``: leave alt screen, blank visible rows, cursor home; keep history."""
        self._screen.reinit()
        self._parser.reset()

    def write_dead_message(self, text: str) -> None:
        """remain-on-exit: reset region, cursor to last row, one wrapped linefeed, message.

        3.3+ clips the message to one row and leaves the cursor at column 0;
        3.2a prints it like program output, so it may wrap and scroll (§13).
        """
        screen = self._screen
        writer = self._writer
        writer.scroll_region(0, screen.sy - 1)
        writer.cursor_move(0, screen.sy - 1, False)
        writer.linefeed(wrapped=True)
        if not self.version.dead_pane_message_is_format:
            # Written in the default style, whatever the program left set.
            style = writer.style
            writer.set_style(DEFAULT_STYLE)
            for ch in text:
                if ch >= " " and ch != "\x7f":
                    writer.put_cell(ch, char_width(ch))
            writer.set_style(style)
            return
        # format_draw: the text clipped to the pane width, copied cell by cell
        # onto the last row; the cursor stays where it was (column 0).
        grid = screen.grid
        py = grid.hsize + screen.cy
        x = 0
        for ch in text:
            if ch < " " or ch == "\x7f":
                continue
            width = char_width(ch)
            if width == 0:
                if x > 0:
                    prev = x - 1
                    while prev > 0 and grid.lines[py].cell(prev) == PAD:
                        prev -= 1
                    grid.set_cell(prev, py, grid.lines[py].cell(prev) + ch)
                continue
            if x + width > screen.sx:
                break
            grid.set_cell(x, py, ch)
            for pad in range(x + 1, x + width):
                grid.set_cell(pad, py, PAD)
            x += width

    # -- reading -------------------------------------------------------------

    def capture(
        self,
        start: RowBound = None,
        end: RowBound = None,
        *,
        join: bool = False,
        keep_trailing: bool = False,
        alternate: bool = False,
        trim_used: bool = False,
        escapes: bool = False,
        line_numbers: bool = False,
    ) -> list[str]:
        """``capture-pane -p [-S start] [-E end] [-J] [-N] [-a] [-T] [-e] [-L]`` (§14, §15).

        Whether ``-T``/``-L`` exist at this version is the command layer's
        business (``_commands``); here they only shape the text."""
        screen = self._screen
        if alternate:
            saved = screen.saved
            if saved is None:
                raise InvalidArgument("no alternate screen")
            lines = saved.lines
            hsize = 0
            sy = saved.sy
        else:
            lines = screen.grid.lines
            hsize = screen.grid.hsize
            sy = screen.grid.sy
        top, bottom = resolve_row_range(hsize, sy, _parsable(start), _parsable(end))
        options = CaptureOptions(
            join=join,
            keep_trailing=keep_trailing,
            trim_used=trim_used,
            escapes=escapes,
            line_numbers=line_numbers,
        )
        return capture_rows(
            lines, top, bottom, screen.grid.sx, version=self.version, options=options, hsize=hsize
        )

    def line_serials(self) -> list[int]:
        """Identity of every absolute row (history then screen), for test oracles.

        A row gets a new serial when tmux would create it: appended by a
        scroll, added at the bottom by a height increase or an ED scroll into
        history, left blank by a line insert/delete or a region scroll,
        produced by a reflow split or join, or a fresh alternate screen row.
        It keeps its serial when moved (into history, between screen and
        history by a height change, by region scrolls) or changed in place
        (printing, erasing, ``\\r`` rewrites). The normal screen's rows keep
        theirs across the alternate screen.
        """
        return [line.serial for line in self._screen.grid.lines]

    def row_wrapped(self, absolute_row: int) -> bool:
        """The ``GRID_LINE_WRAPPED`` flag of absolute row ``absolute_row``."""
        return self._screen.grid.lines[absolute_row].wrapped
