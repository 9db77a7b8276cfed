"""The byte parser: a subset of ``input.c`` that turns pane output into
``Writer`` calls.

Printable ASCII, UTF-8, C0 controls, ESC, CSI and the string sequences (OSC,
DCS, APC, PM, SOS and tmux's ``ESC k`` rename) are recognised. SGR sets the
style printed cells take (``_style``); DECSC/DECRC and ``?1049h``/``l`` save
and restore it with the cursor. Sequences that do not change the grid (modes
such as mouse or bracketed paste, queries, OSC titles) are parsed and
ignored so they never print. Invalid UTF-8 is
dropped, as tmux drops it (``input_top_bit_set``).
"""

from __future__ import annotations

import re

from ._line import char_width
from ._style import DEFAULT_STYLE, apply_sgr
from ._writer import Writer

_GROUND, _ESC, _ESC_INTER, _CSI, _CSI_IGNORE, _OSC, _STRING, _STRING_ESC = range(8)

_PRINTABLE = re.compile(rb"[\x20-\x7e]+")
# Lead byte -> sequence length (utf8_open); anything else starts nothing.
_UTF8_LENGTH = {
    **dict.fromkeys(range(0xC2, 0xE0), 2),
    **dict.fromkeys(range(0xE0, 0xF0), 3),
    **dict.fromkeys(range(0xF0, 0xF5), 4),
}

# input.c keeps at most this many parameter bytes and parameters.
_MAX_PARAM_BYTES = 63
_MAX_PARAMS = 24
_INT_MAX = 2**31 - 1
_STRING_PARAM = -1  # input_get's answer for a "a:b" sub-parameter list


class VtParser:
    def __init__(self, writer: Writer) -> None:
        self.w = writer
        self.reset()

    def reset(self) -> None:
        # A fresh input_ctx (input_init / respawn): ground state, no partial
        # UTF-8, DECSC slot at the origin.
        self.state = _GROUND
        self.params = ""
        self.inter = ""
        self.csi_has_params = False
        self.csi_has_inter = False
        self.utf8 = bytearray()
        self.utf8_len = 0
        self.last: str | None = None
        self.saved_cx = 0
        self.saved_cy = 0
        self.saved_origin = False
        self.saved_style = DEFAULT_STYLE
        self.w.set_style(DEFAULT_STYLE)

    # -- main loop -----------------------------------------------------------

    def feed(self, data: bytes) -> None:
        i = 0
        n = len(data)
        w = self.w
        while i < n:
            b = data[i]
            if self.state == _GROUND:
                if 0x20 <= b <= 0x7E:
                    m = _PRINTABLE.match(data, i)
                    assert m is not None
                    j = m.end()
                    self.utf8_len = 0
                    w.put_ascii(data[i:j].decode("ascii"))
                    self.last = chr(data[j - 1])
                    i = j
                    continue
                i += 1
                if b >= 0x80:
                    self._utf8_byte(b)
                elif b == 0x1B:
                    self.utf8_len = 0
                    self.state = _ESC
                    self.inter = ""
                elif b != 0x7F:
                    self.utf8_len = 0
                    self._c0(b)
                continue
            i += 1
            self._escape_byte(b)

    def _escape_byte(self, b: int) -> None:
        state = self.state
        if state in (_OSC, _STRING):
            if b == 0x1B:
                self.state = _STRING_ESC if state == _STRING else _ESC
                self.inter = ""
            elif b in (0x18, 0x1A) or (b == 0x07 and state == _OSC):
                self.state = _GROUND
            return
        if state == _STRING_ESC:
            if b == 0x5C:
                self.state = _GROUND
            else:
                self.state = _STRING
            return
        # Anywhere in an escape or control sequence: CAN/SUB abort, ESC
        # restarts, other C0 controls execute in place.
        if b in (0x18, 0x1A):
            self.state = _GROUND
            return
        if b == 0x1B:
            self.state = _ESC
            self.inter = ""
            return
        if b < 0x20:
            self._c0(b)
            return
        if b >= 0x7F:
            return
        if state == _ESC:
            self._esc_enter(b)
        elif state == _ESC_INTER:
            if b < 0x30:
                self.inter += chr(b)
            else:
                self.state = _GROUND
                self._esc_dispatch(chr(b), self.inter)
        elif state == _CSI:
            self._csi_byte(b)
        elif state == _CSI_IGNORE and b >= 0x40:
            self.state = _GROUND

    def _esc_enter(self, b: int) -> None:
        ch = chr(b)
        if b < 0x30:
            self.inter = ch
            self.state = _ESC_INTER
        elif ch == "[":
            self.state = _CSI
            self.params = ""
            self.inter = ""
            self.csi_has_params = False
            self.csi_has_inter = False
        elif ch == "]":
            self.state = _OSC
        elif ch in "PX^_k":
            self.state = _STRING
        else:
            self.state = _GROUND
            self._esc_dispatch(ch, "")

    def _csi_byte(self, b: int) -> None:
        if 0x30 <= b <= 0x3B:
            if self.csi_has_inter:
                # A parameter after an intermediate byte: ignore the sequence.
                self.state = _CSI_IGNORE
                return
            self.csi_has_params = True
            if len(self.params) >= _MAX_PARAM_BYTES:
                self.state = _CSI_IGNORE
                return
            self.params += chr(b)
        elif b <= 0x3F:
            # A private marker is only valid before any parameter.
            if self.csi_has_params or self.inter:
                self.state = _CSI_IGNORE
            else:
                self.inter = chr(b)
        elif b < 0x30:
            self.csi_has_inter = True
            self.inter += chr(b)
        else:
            self.state = _GROUND
            self._csi_dispatch(chr(b))

    # -- UTF-8 ---------------------------------------------------------------

    def _utf8_byte(self, b: int) -> None:
        if self.utf8_len == 0:
            length = _UTF8_LENGTH.get(b, 0)
            if length:
                self.utf8 = bytearray((b,))
                self.utf8_len = length
            return
        if b & 0xC0 != 0x80:
            self.utf8_len = 0
            return
        self.utf8.append(b)
        if len(self.utf8) < self.utf8_len:
            return
        self.utf8_len = 0
        try:
            ch = self.utf8.decode("utf-8")
        except UnicodeDecodeError:
            return
        self.w.put_cell(ch, char_width(ch))
        self.last = ch

    # -- dispatch ------------------------------------------------------------

    def _c0(self, b: int) -> None:
        w = self.w
        if b == 0x08:
            w.backspace()
        elif b == 0x09:
            w.tab()
        elif b in (0x0A, 0x0B, 0x0C):
            w.linefeed()
            if w.s.mode_crlf:
                w.carriage_return()
        elif b == 0x0D:
            w.carriage_return()
        self.last = None

    def _esc_dispatch(self, ch: str, inter: str) -> None:
        w = self.w
        self.last = None
        if inter == "#":
            if ch == "8":
                w.alignment_test()
            return
        if inter:
            return  # charset designations and the like
        if ch == "D":
            w.linefeed()
        elif ch == "E":
            w.carriage_return()
            w.linefeed()
        elif ch == "H":
            if w.s.cx < w.s.sx:
                w.s.tabs.add(w.s.cx)
        elif ch == "M":
            w.reverse_index()
        elif ch == "c":
            self._reset_saved_state()
            w.set_style(DEFAULT_STYLE)
            w.reset()
        elif ch == "7":
            self._save_state()
        elif ch == "8":
            self._restore_state()

    def _reset_saved_state(self) -> None:
        # input_reset_cell also forgets the DECSC position.
        self.saved_cx = 0
        self.saved_cy = 0
        self.saved_origin = False
        self.saved_style = DEFAULT_STYLE

    def _save_state(self) -> None:
        s = self.w.s
        self.saved_cx = s.cx
        self.saved_cy = s.cy
        self.saved_origin = s.mode_origin
        self.saved_style = self.w.style

    def _restore_state(self) -> None:
        self.w.set_style(self.saved_style)
        self.w.s.mode_origin = self.saved_origin
        self.w.cursor_move(self.saved_cx, self.saved_cy, False)

    def _split_params(self) -> list[int | None] | None:
        # input_split: missing -> None, "a:b" -> _STRING_PARAM, overflow -> reject.
        if not self.params:
            return []
        out: list[int | None] = []
        for part in self.params.split(";"):
            if part == "":
                out.append(None)
            elif ":" in part:
                out.append(_STRING_PARAM)
            else:
                value = int(part)
                if value > _INT_MAX:
                    return None
                out.append(value)
        if len(out) >= _MAX_PARAMS:
            return None
        return out

    @staticmethod
    def _get(params: list[int | None], index: int, minval: int, default: int) -> int:
        # input_get: default for missing, -1 for sub-parameters, else >= minval.
        if index >= len(params):
            return default
        value = params[index]
        if value is None:
            return default
        if value == _STRING_PARAM:
            return -1
        return max(value, minval)

    def _csi_dispatch(self, final: str) -> None:
        last = self.last
        self.last = None
        params = self._split_params()
        if params is None:
            return
        inter = self.inter
        if inter == "" and final == "m":
            self.w.set_style(apply_sgr(self.w.style, params))
        elif inter == "":
            self._csi_plain(final, params, last)
        elif inter == "?" and final in "hl":
            for i in range(len(params)):
                self._private_mode(self._get(params, i, 0, -1), final == "h")

    def _csi_plain(self, final: str, params: list[int | None], last: str | None) -> None:
        w = self.w
        s = w.s
        get = self._get
        n = get(params, 0, 1, 1)
        if n == -1 and final in "ABCDEFGIJKLMPSTXZ@`bdfgHr":
            return
        if final == "A":
            w.cursor_up(n)
        elif final == "B":
            w.cursor_down(n)
        elif final == "C":
            w.cursor_right(n)
        elif final == "D":
            w.cursor_left(n)
        elif final == "E":
            w.carriage_return()
            w.cursor_down(n)
        elif final == "F":
            w.carriage_return()
            w.cursor_up(n)
        elif final in "G`":
            w.cursor_move(n - 1, None, True)
        elif final in "Hf":
            m = get(params, 1, 1, 1)
            if m != -1:
                w.cursor_move(m - 1, n - 1, True)
        elif final == "d":
            w.cursor_move(None, n - 1, True)
        elif final == "I":
            self._tab_forward(n)
        elif final == "Z":
            self._tab_backward(n)
        elif final == "J":
            self._erase_display(get(params, 0, 0, 0), get(params, 1, 0, 0))
        elif final == "K":
            mode = get(params, 0, 0, 0)
            if mode == 0:
                w.clear_end_of_line()
            elif mode == 1:
                w.clear_start_of_line()
            elif mode == 2:
                w.clear_line()
        elif final == "L":
            w.insert_lines(n)
        elif final == "M":
            w.delete_lines(n)
        elif final == "@":
            w.insert_characters(n)
        elif final == "P":
            w.delete_characters(n)
        elif final == "X":
            w.clear_characters(n)
        elif final == "S":
            w.scroll_up(n)
        elif final == "T":
            w.scroll_down(n)
        elif final == "b":
            if last is not None:
                self._repeat(last, min(n, s.sx - s.cx))
        elif final == "g":
            mode = get(params, 0, 0, 0)
            if mode == 0:
                s.tabs.discard(s.cx)
            elif mode == 3:
                s.tabs.clear()
        elif final == "r":
            m = get(params, 1, 1, s.sy)
            if m != -1:
                w.scroll_region(n - 1, m - 1)
        elif final == "s":
            self._save_state()
        elif final == "u":
            self._restore_state()
        elif final in "hl":
            for i in range(len(params)):
                mode = get(params, i, 0, -1)
                if mode == 4:
                    s.mode_insert = final == "h"
                elif mode == 20:
                    s.mode_crlf = final == "h"

    def _erase_display(self, mode: int, second: int) -> None:
        w = self.w
        if mode == 0:
            w.clear_end_of_screen()
        elif mode == 1:
            w.clear_start_of_screen()
        elif mode == 2:
            w.clear_screen()
        elif mode == 3 and second == 0:
            w.clear_history()

    def _repeat(self, ch: str, count: int) -> None:
        width = char_width(ch) if ord(ch) >= 0x80 else 1
        for _ in range(count):
            if width == 1 and ord(ch) < 0x80:
                self.w.put_ascii(ch)
            else:
                self.w.put_cell(ch, width)

    def _tab_forward(self, count: int) -> None:
        s = self.w.s
        cx = s.cx
        last = s.sx - 1
        if cx >= last:
            return
        while cx < last and count > 0:
            count -= 1
            cx += 1
            while cx < last and cx not in s.tabs:
                cx += 1
        self.w.cursor_move(cx, None, False)

    def _tab_backward(self, count: int) -> None:
        s = self.w.s
        cx = min(s.cx, s.sx - 1)
        while cx > 0 and count > 0:
            count -= 1
            cx -= 1
            while cx > 0 and cx not in s.tabs:
                cx -= 1
        self.w.cursor_move(cx, None, False)

    def _private_mode(self, mode: int, on: bool) -> None:
        w = self.w
        s = w.s
        if mode == 3:
            # DECCOLM: tmux keeps the width but homes and clears the screen.
            w.cursor_move(0, 0, True)
            w.clear_screen()
        elif mode == 6:
            s.mode_origin = on
            w.cursor_move(0, 0, True)
        elif mode == 7:
            s.mode_wrap = on
        elif mode in (47, 1047, 1049):
            if on:
                if s.saved is None:
                    s.saved_style = w.style  # screen->saved_cell
                s.alternate_on(save_cursor=mode == 1049)
            else:
                restores = mode == 1049 and s.saved_cx is not None and s.saved_cy is not None
                s.alternate_off(restore_cursor=mode == 1049)
                if restores:
                    w.set_style(s.saved_style)
