"""Bad arguments for an MCP tool, derived from its input schema with Hypothesis.

:func:`bad_arguments` starts from a valid-shaped skeleton (every required
property with a value of its type) and breaks it one way per example: a
property of the wrong type, an unknown property, a required one missing, a
number out of range, a hostile string (control characters, NUL, lone
surrogates, up to 64 KiB, ``#(...)``, ``;``, quotes, ``#{...}``), or a deeply
nested array/object. Every path-like string is inside ``root`` (the test's
temporary directory): properties named like paths get paths under it, and no
other strategy makes an absolute path or a ``..``.

The ``#(...)`` strings run ``touch`` on :func:`canary` under ``root``: tmux
would create that file if agent text ever became a format's shell command.
No string holds ``>`` or ``|``, so text typed into a real shell writes nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import strategies as st

#: The longest hostile string (bytes of UTF-8, about): bounded so a run stays fast.
MAX_STRING = 64 * 1024
#: How deep a nested array/object goes.
MAX_DEPTH = 40

JsonSchema = dict[str, Any]


def canary(root: Path) -> Path:
    """The file a ``#(touch ...)`` string would create if it ever ran."""
    return root / "canary"


def is_path_like(name: str) -> bool:
    return name.endswith(("path", "paths", "directory", "dir", "file"))


def types_of(schema: JsonSchema) -> set[str]:
    """The JSON types a property accepts (``anyOf`` and ``enum`` included)."""
    found: set[str] = set()
    kind = schema.get("type")
    if isinstance(kind, str):
        found.add(kind)
    elif isinstance(kind, list):
        found.update(kind)
    for branch in schema.get("anyOf", []) + schema.get("oneOf", []):
        found |= types_of(branch)
    if "enum" in schema:
        found.update(_json_type(v) for v in schema["enum"])
    if "const" in schema:
        found.add(_json_type(schema["const"]))
    return found


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def hostile_strings(root: Path) -> st.SearchStrategy[str]:
    touch = f"#(touch {canary(root)})"
    specials = st.sampled_from(
        [
            "",
            "\x00",
            "a\x00b",
            "\ud800",
            "x\udfffy",
            "\x1b[2J\x1b]0;title\x07",
            "\r\n\t\x7f\x08",
            touch,
            f"#{{pane_id}}{touch}",
            "#{session_name}#{?pane_active,#{pane_id},}#[fg=red]",
            f"a;b; {touch} \\; \"q\" 'q' `q` $(echo q)",
            '"',
            "'",
            ";",
            "\\;",
            "%1",
            "@1",
            "$1",
            "=",
            "-t",
            "--",
            ":.+",
            "{last}",
            "~",
            "*",
            "🦀" * 10,
            "\u202e\u200b\ufeff",
            str(root / "sub" / "x"),
        ]
    )
    mixed = st.lists(
        st.one_of(
            st.characters(codec="utf-8", exclude_characters=">|"),
            st.sampled_from(["\x00", "\ud800", "\udc00", "#(", "#{", ";", '"', "'", "\n"]),
        ),
        max_size=64,
    ).map("".join)
    huge = st.builds(
        lambda unit, n: (unit * n)[:MAX_STRING],
        st.sampled_from(["x", "é", "\x00", "#{", "🦀", "a b;"]),
        st.integers(min_value=1025, max_value=MAX_STRING // 4),
    )
    return st.one_of(specials, mixed, huge)


def _has_surrogate(text: str) -> bool:
    return any(0xD800 <= ord(c) <= 0xDFFF for c in text)


def path_strings(root: Path) -> st.SearchStrategy[str]:
    names = st.text(st.sampled_from("abc.-_ #{};\x01"), min_size=1, max_size=12).filter(
        lambda s: s not in (".", "..") and ".." not in s
    )
    return st.one_of(
        st.just(str(root)),
        st.builds(lambda n: str(root / n), names),
        st.builds(lambda a, b: str(root / a / b), names, names),
        st.builds(lambda n: str(root / n)[:4096] + "y" * 200, names),
    )


def nested(depth: int) -> Any:
    value: Any = "leaf"
    for level in range(depth):
        value = [value] if level % 2 else {"k": value}
    return value


def wrong_values(schema: JsonSchema, root: Path) -> st.SearchStrategy[Any]:
    """Values of every JSON type the property does not accept."""
    accepted = types_of(schema)
    choices: list[st.SearchStrategy[Any]] = []
    if "string" not in accepted:
        choices.append(hostile_strings(root))
    if "integer" not in accepted and "number" not in accepted:
        choices.append(st.integers(min_value=-(2**70), max_value=2**70))
    if "number" not in accepted:
        choices.append(st.sampled_from([0.5, -1.5, 1e308, float("nan"), float("inf")]))
    if "boolean" not in accepted:
        choices.append(st.booleans())
    if "null" not in accepted:
        choices.append(st.none())
    if "array" not in accepted:
        choices.append(st.lists(st.integers(), max_size=3))
    if "object" not in accepted:
        choices.append(st.dictionaries(st.text(max_size=5), st.integers(), max_size=3))
    return st.one_of(choices) if choices else st.just(nested(MAX_DEPTH))


def odd_values(name: str, schema: JsonSchema, root: Path) -> st.SearchStrategy[Any]:
    """Values of an accepted type chosen to hurt: hostile, huge, out of range, deep."""
    accepted = types_of(schema)
    choices: list[st.SearchStrategy[Any]] = []
    if "string" in accepted:
        choices.append(path_strings(root) if is_path_like(name) else hostile_strings(root))
    if "integer" in accepted:
        choices.append(
            st.one_of(
                st.sampled_from([-1, 0, 2**31, 2**63, -(2**63) - 1, 10**30]),
                st.integers(min_value=-(2**40), max_value=2**40),
            )
        )
    if "number" in accepted:
        choices.append(st.sampled_from([-1.0, 0.0, 1e-9, 1e9, 1e308, -0.0, 86400.0 * 365]))
    if "array" in accepted:
        items = path_strings(root) if is_path_like(name) else hostile_strings(root)
        choices.append(
            st.one_of(
                st.lists(items, max_size=4),
                st.just([nested(MAX_DEPTH)]),
                st.lists(st.just({}), min_size=1, max_size=200),
            )
        )
    if "object" in accepted:
        choices.append(
            st.one_of(
                # Keys without lone surrogates: the MCP client's own request encoding
                # fails on them (UnicodeEncodeError in model_dump) before gridmux sees
                # the call -- a client limitation, not a server one.
                st.dictionaries(
                    hostile_strings(root).filter(lambda k: not _has_surrogate(k)),
                    hostile_strings(root),
                    max_size=3,
                ),
                st.just(nested(MAX_DEPTH)),
            )
        )
    if "enum" in schema:
        choices.append(st.sampled_from(["", "UP", "up ", "#(x)", "left;kill-server"]))
    return st.one_of(choices) if choices else st.just(nested(MAX_DEPTH))


def valid_value(name: str, schema: JsonSchema, root: Path) -> Any:
    """A plain value of the property's type: the skeleton others are broken from."""
    if "enum" in schema:
        return schema["enum"][0]
    for branch in schema.get("anyOf", []):
        if "enum" in branch:
            return branch["enum"][0]
    accepted = types_of(schema)
    if "string" in accepted:
        return str(root / "p") if is_path_like(name) else "x"
    for kind, value in (("integer", 1), ("number", 1.0), ("boolean", False), ("array", [])):
        if kind in accepted:
            return value
    return {} if "object" in accepted else None


def bad_arguments(schema: JsonSchema, root: Path) -> st.SearchStrategy[tuple[str, dict[str, Any]]]:
    """``(kind, arguments)``: one way of breaking a valid skeleton per example."""
    props: dict[str, JsonSchema] = schema.get("properties", {})
    required: list[str] = [r for r in schema.get("required", []) if r in props]
    skeleton = {name: valid_value(name, props[name], root) for name in required}
    names = sorted(props)

    def replace(name: str, value: Any) -> dict[str, Any]:
        return {**skeleton, name: value}

    kinds: list[st.SearchStrategy[tuple[str, dict[str, Any]]]] = [
        st.builds(
            lambda extra, value: ("unknown property", {**skeleton, extra: value}),
            st.text(min_size=1, max_size=20).filter(lambda n: n not in props),
            st.one_of(st.none(), hostile_strings(root), st.integers()),
        ),
        st.just(("nested", {**skeleton, "deep": nested(MAX_DEPTH)})),
    ]
    if required:
        kinds.append(
            st.sampled_from(required).map(
                lambda gone: (
                    "missing required",
                    {k: v for k, v in skeleton.items() if k != gone},
                )
            )
        )

    def wrong(name: str) -> st.SearchStrategy[tuple[str, dict[str, Any]]]:
        return wrong_values(props[name], root).map(
            lambda v: (f"wrong type {name}", replace(name, v))
        )

    def odd(name: str) -> st.SearchStrategy[tuple[str, dict[str, Any]]]:
        return odd_values(name, props[name], root).map(
            lambda v: (f"odd value {name}", replace(name, v))
        )

    if names:
        kinds.append(st.sampled_from(names).flatmap(wrong))
        kinds.append(st.sampled_from(names).flatmap(odd))
    return st.one_of(kinds)
