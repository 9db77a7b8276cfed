"""Text-producing commands of the fake shell: ``echo``, ``printf``, ``seq``.

Each takes its arguments and returns ``(output, exit_status)``; error
messages are part of the output because stdout and stderr share the pane's
tty. Messages follow bash's builtins and GNU coreutils.
"""

from __future__ import annotations

import re

_SIMPLE_ESCAPES = {
    "\\": "\\",
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    '"': '"',
}


class _StopOutput(Exception):
    """``\\c``: produce no further output."""


def _unescape(text: str, *, echo_style: bool) -> str:
    """Backslash escapes: echo -e style (``\\0NNN`` octal, ``\\c`` stops) or printf style."""
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch != "\\" or i + 1 == len(text):
            out.append(ch)
            i += 1
            continue
        nxt = text[i + 1]
        if nxt in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[nxt])
            i += 2
        elif nxt == "c":
            raise _StopOutput("".join(out))
        elif nxt == "x":
            match = re.match(r"[0-9A-Fa-f]{1,2}", text[i + 2 :])
            if match is None:
                out.append("\\x")
                i += 2
            else:
                out.append(chr(int(match.group(), 16)))
                i += 2 + match.end()
        elif nxt in "01234567":
            start = i + 2 if (echo_style and nxt == "0") else i + 1
            match = re.match(r"[0-7]{1,3}", text[start:])
            digits = match.group() if match else "0"
            out.append(chr(int(digits, 8) & 0xFF))
            i = start + (match.end() if match else 0)
        else:
            out.append("\\" + nxt)
            i += 2
    return "".join(out)


def echo(args: list[str]) -> tuple[str, int]:
    newline, escapes = True, False
    while args and re.fullmatch(r"-[neE]+", args[0]):
        flags = args.pop(0)[1:]
        newline = newline and "n" not in flags
        for flag in flags:
            escapes = flag == "e" if flag in "eE" else escapes
    text = " ".join(args)
    if escapes:
        try:
            text = _unescape(text, echo_style=True)
        except _StopOutput as stop:
            return str(stop), 0
    return text + ("\n" if newline else ""), 0


_CONVERSION = re.compile(r"%([-+ #0]*)(\d+|\*)?(?:\.(\d+|\*))?([sbdiuxXocfeEgG%])")


def printf(args: list[str]) -> tuple[str, int]:
    if not args:
        return "printf: usage: printf [-v var] format [arguments]\n", 2
    fmt, values = args[0], args[1:]
    out: list[str] = []
    status = 0
    while True:
        consumed = 0
        pieces: list[str] = []
        position = 0
        try:
            for match in _CONVERSION.finditer(fmt):
                pieces.append(_unescape(fmt[position : match.start()], echo_style=False))
                position = match.end()
                flags, width, precision, conversion = match.groups()
                if conversion == "%":
                    pieces.append("%")
                    continue
                if width == "*":
                    width = values[consumed] if consumed < len(values) else "0"
                    consumed += 1
                if precision == "*":
                    precision = values[consumed] if consumed < len(values) else "0"
                    consumed += 1
                value = values[consumed] if consumed < len(values) else None
                consumed += 1
                text, ok = _convert(flags, width, precision, conversion, value)
                status = status if ok else 1
                pieces.append(text)
            pieces.append(_unescape(fmt[position:], echo_style=False))
        except _StopOutput as stop:
            out.append("".join(pieces) + str(stop))
            return "".join(out), status
        out.append("".join(pieces))
        values = values[consumed:]
        # bash reuses the format while arguments remain (and it consumed some).
        if not values or consumed == 0:
            return "".join(out), status


def _convert(
    flags: str, width: str | None, precision: str | None, conversion: str, value: str | None
) -> tuple[str, bool]:
    spec = "%" + flags + (width or "") + (f".{precision}" if precision is not None else "")
    if conversion in "sb":
        text = value or ""
        if conversion == "b":
            try:
                text = _unescape(text, echo_style=True)
            except _StopOutput as stop:
                text = str(stop)
        return (spec + "s") % text, True
    if conversion == "c":
        return (spec.split(".")[0] + "s") % (value or "")[:1], True
    if conversion in "fFeEgG":
        try:
            number = float(value) if value else 0.0
        except ValueError:
            return f"printf: {value}: invalid number\n" + (spec + conversion) % 0.0, False
        return (spec + conversion) % number, True
    try:
        integer = _parse_int(value) if value else 0
    except ValueError:
        return f"printf: {value}: invalid number\n" + (spec + "d") % 0, False
    python_conversion = "d" if conversion in "iu" else conversion
    return (spec + python_conversion) % integer, True


def _parse_int(text: str) -> int:
    if len(text) >= 2 and text[0] in "'\"":
        return ord(text[1])  # printf %d "'A" is the character code
    return int(text, 0) if text.lower().startswith(("0x", "-0x")) else int(text)


def seq(args: list[str]) -> tuple[str, int]:
    if not args:
        return "seq: missing operand\nTry 'seq --help' for more information.\n", 1
    if len(args) > 3:
        return f"seq: extra operand '{args[3]}'\nTry 'seq --help' for more information.\n", 1
    numbers: list[float] = []
    for arg in args:
        try:
            numbers.append(float(arg))
        except ValueError:
            return (
                f"seq: invalid floating point argument: '{arg}'\n"
                "Try 'seq --help' for more information.\n",
                1,
            )
    first, step, last = (
        (1.0, 1.0, numbers[0])
        if len(numbers) == 1
        else (numbers[0], 1.0, numbers[1])
        if len(numbers) == 2
        else (numbers[0], numbers[1], numbers[2])
    )
    if step == 0:
        return f"seq: invalid Zero increment value: '{args[1]}'\n", 1
    # GNU seq prints with as many decimals as FIRST and INCREMENT have.
    decimals = max((len(a.partition(".")[2]) for a in args[: len(args) - 1] if "." in a), default=0)
    lines: list[str] = []
    index = 0
    while True:
        value = first + index * step
        if (step > 0 and value > last + 1e-9) or (step < 0 and value < last - 1e-9):
            break
        lines.append(f"{value:.{decimals}f}")
        index += 1
    return "".join(line + "\n" for line in lines), 0
