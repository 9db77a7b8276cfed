"""Django-style ``field__op`` filters for list results (predecessor parity).

``{"session_name__contains": "dev"}`` keeps rows whose field matches. Values
compare as text, so ``{"pane_active": "true"}`` and ``{"pane_index": "0"}``
work on booleans and numbers alike; a boolean field also takes ``"1"``/``"0"``
(and ``"yes"``/``"no"``, ``"on"``/``"off"``, any case) for true and false.
A JSON string is accepted for clients that cannot send objects.
``__regex``/``__iregex`` match with RE2, in linear time (the dialect:
:mod:`gridmux.tools._text`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from gridmux.errors import InvalidArgument

from ._text import REGEX_HINT, TextPattern, compile_regex

_OPS: dict[str, Callable[[str, Any], bool]] = {
    "eq": lambda a, b: a == str(b),
    "exact": lambda a, b: a == str(b),
    "iexact": lambda a, b: a.lower() == str(b).lower(),
    "contains": lambda a, b: str(b) in a,
    "icontains": lambda a, b: str(b).lower() in a.lower(),
    "startswith": lambda a, b: a.startswith(str(b)),
    "istartswith": lambda a, b: a.lower().startswith(str(b).lower()),
    "endswith": lambda a, b: a.endswith(str(b)),
    "iendswith": lambda a, b: a.lower().endswith(str(b).lower()),
    "in": lambda a, b: a in [str(x) for x in b],
    "nin": lambda a, b: a not in [str(x) for x in b],
    # regex, iregex: compiled once per call by apply_filters
}
_REGEX_OPS = {"regex": True, "iregex": False}  # op: match case


def parse_filters(filters: Mapping[str, Any] | str | None) -> dict[str, Any]:
    if filters is None:
        return {}
    if isinstance(filters, str):
        try:
            loaded = json.loads(filters) if filters.strip() else {}
        except ValueError as exc:
            raise InvalidArgument(
                f"filters is not valid JSON: {exc}",
                hint='Pass an object such as {"session_name__contains": "dev"}.',
            ) from exc
        if not isinstance(loaded, dict):
            raise InvalidArgument("filters must be a JSON object")
        return loaded
    return dict(filters)


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def apply_filters(
    rows: Sequence[Mapping[str, Any]], filters: Mapping[str, Any] | str | None
) -> list[int]:
    """Indexes of ``rows`` that pass every filter."""
    parsed = parse_filters(filters)
    checks: list[tuple[str, Callable[[str, Any], bool], Any]] = []
    fields = set(rows[0]) if rows else set()
    for key, wanted in parsed.items():
        field, _, op = key.partition("__")
        op = op or "exact"
        if op not in _OPS and op not in _REGEX_OPS:
            raise InvalidArgument(
                f"unknown filter operator {op!r} in {key!r}",
                hint=f"Operators: {', '.join(sorted([*_OPS, *_REGEX_OPS]))}.",
            )
        if fields and field not in fields:
            raise InvalidArgument(
                f"unknown filter field {field!r}", hint=f"Fields: {', '.join(sorted(fields))}."
            )
        if op in ("in", "nin") and not isinstance(wanted, list):
            raise InvalidArgument(f"filter {key!r} needs a list of values")
        if op in _REGEX_OPS:
            try:
                compiled = compile_regex(str(wanted), match_case=_REGEX_OPS[op])
            except ValueError as exc:
                raise InvalidArgument(
                    f"filter {key!r} has an invalid regex: {exc}", hint=REGEX_HINT
                ) from None
            checks.append((field, _searcher(compiled), wanted))
            continue
        checks.append((field, _OPS[op], wanted))
    return [
        i
        for i, row in enumerate(rows)
        if all(
            op(_text(row[field]), _comparable(wanted, boolean=isinstance(row[field], bool)))
            for field, op, wanted in checks
        )
    ]


def _searcher(pattern: TextPattern) -> Callable[[str, Any], bool]:
    return lambda text, _wanted: pattern.search(text) is not None


_TRUTH = {"1": "true", "yes": "true", "on": "true", "0": "false", "no": "false", "off": "false"}


def _comparable(value: Any, *, boolean: bool = False) -> Any:
    """``value`` as the text a row's field is compared with; for a boolean
    field, 1/0, yes/no, on/off and any case of true/false read as true/false."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return [_comparable(v, boolean=boolean) for v in value]
    if boolean and isinstance(value, int | str):
        text = str(value).strip().lower()
        return _TRUTH.get(text, text)
    return value
