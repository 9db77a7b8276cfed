"""The JSON schemas a client lists, said in fewer bytes and meaning the same.

An agent pays for ``tools/list`` in tokens on every conversation, so each
tool's input and output schema is rewritten once, at registration, into an
equivalent shorter form: ``anyOf`` of plain types becomes one ``type`` list
(``{"type": ["string", "null"], "pattern": ...}`` -- a pattern constrains
strings only, so it means what the ``anyOf`` meant; a choice or null becomes
one ``enum`` holding null), and keywords that say
nothing (``additionalProperties: true``, ``title``) go. An input parameter
whose default is null is listed without the null (leaving it out is the same
call), and the target parameters every tool shares without their pattern
(:func:`lean_input`). Validation does not read these schemas: pydantic checks
the function's own signature, and the target parameters' checks say what a
valid value looks like. :class:`UnlistedResults` leaves the output schemas
out of the listing (``--output-schemas off``, the default).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from fastmcp.tools import Tool
from mcp import types as mt

#: Keywords that apply to one JSON type only, so merging branches of
#: different types keeps each branch's meaning.
_TYPED_KEYWORDS = {
    "string": {"pattern", "minLength", "maxLength", "format"},
    "integer": {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"},
    "number": {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"},
    "array": {"items", "minItems", "maxItems", "uniqueItems", "prefixItems"},
    "object": {"properties", "required", "additionalProperties", "propertyNames"},
    "boolean": set(),
    "null": set(),
}


def _merged(branches: list[dict[str, Any]]) -> dict[str, Any] | None:
    """One schema for an ``anyOf`` whose branches are plain, distinct types; else None."""
    values = [b["enum"] for b in branches if set(b) <= {"enum", "type"} and "enum" in b]
    if len(branches) == 2 and {"type": "null"} in branches and len(values) == 1:
        return {"enum": [*values[0], None]}  # a choice or null: the choice's values and null
    merged: dict[str, Any] = {}
    types: list[str] = []
    for branch in branches:
        kind = branch.get("type")
        if not isinstance(kind, str) or kind in types or kind not in _TYPED_KEYWORDS:
            return None
        if kind in ("integer", "number") and {"integer", "number"} & set(types):
            return None  # an integer is a number: their keywords would mix
        rest = {k: v for k, v in branch.items() if k != "type"}
        if not set(rest) <= _TYPED_KEYWORDS[kind] or set(rest) & set(merged):
            return None
        types.append(kind)
        merged.update(rest)
    return {"type": types, **merged}


def lean_input(schema: dict[str, Any], shared: Collection[str] = ()) -> dict[str, Any]:
    """An input schema, lean; an optional parameter's ``"default": null`` goes too,
    and so does the null in its type or choices.

    An argument left out is null: that is what leaving it out of ``required``
    already says. Other defaults (``true``, ``500``) stay: they say something,
    and where one is not null, null stays a value of its own (``max_lines``:
    null for no limit). The ``shared`` parameters (the target parameters every tool takes, which
    the server instructions describe once) are listed as their plain type: no
    ``null`` (leave the argument out instead) and no ``pattern`` -- the
    server checks each value itself and says what a valid one looks like.
    """
    out: dict[str, Any] = lean(schema)
    _optional_plain(out, shared)
    return out


def _optional_plain(schema: Any, shared: Collection[str]) -> None:
    """Every object's properties in ``schema`` (nested ones too, such as a
    batch's operations) without null defaults, and its shared ones plain."""
    if isinstance(schema, list):
        for item in schema:
            _optional_plain(item, shared)
        return
    if not isinstance(schema, dict):
        return
    for key, value in schema.items():
        if key in ("properties", "$defs") and isinstance(value, dict):
            for name, prop in value.items():
                if not isinstance(prop, dict):
                    continue
                if key == "properties" and ("default" in prop and prop["default"] is None):
                    del prop["default"]
                    _no_null(prop)
                if key == "properties" and name in shared:
                    _plain(prop)
                _optional_plain(prop, shared)
        else:
            _optional_plain(value, shared)


def _plain(prop: dict[str, Any]) -> None:
    """``prop`` without its pattern and with null left out of its type."""
    prop.pop("pattern", None)
    _no_null(prop)


def _no_null(prop: dict[str, Any]) -> None:
    """``prop`` with null left out of its type or its choices, when others remain."""
    kind = prop.get("type")
    if isinstance(kind, list) and "null" in kind and len(kind) > 1:
        rest = [k for k in kind if k != "null"]
        prop["type"] = rest[0] if len(rest) == 1 else rest
    choices = prop.get("enum")
    if isinstance(choices, list) and None in choices and len(choices) > 1:
        prop["enum"] = [c for c in choices if c is not None]


def lean_output(schema: dict[str, Any] | None) -> dict[str, Any] | None:
    """An output schema, lean; an object whose every property is required says so
    as ``additionalProperties: false`` with ``minProperties`` (the number of its
    properties): no other name may appear and that many must, so each one does.
    Results are pydantic models, which emit exactly their fields, so closing the
    object promises nothing new, in fewer bytes than naming each property twice.
    """
    if schema is None:
        return None
    out: dict[str, Any] = _all_present(lean(schema))
    return out


def _all_present(schema: Any) -> Any:
    if isinstance(schema, list):
        return [_all_present(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: _all_present(value) for key, value in schema.items()}
    props = out.get("properties")
    required = out.get("required")
    if (
        isinstance(props, dict)
        and isinstance(required, list)
        and len(props) > 2
        and sorted(required) == sorted(props)
        and out.get("additionalProperties", False) is False
    ):
        del out["required"]
        out["additionalProperties"] = False
        out["minProperties"] = len(props)
    return out


def lean(schema: Any) -> Any:
    """``schema`` rewritten shorter with the same meaning (see the module's text)."""
    if isinstance(schema, list):
        return [lean(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "title" and isinstance(value, str):
            continue
        if key == "additionalProperties" and value is True:
            continue
        if key in ("properties", "$defs", "patternProperties") and isinstance(value, dict):
            out[key] = {name: lean(sub) for name, sub in value.items()}
        else:
            out[key] = lean(value)
    branches = out.get("anyOf")
    if isinstance(branches, list):
        merged = _merged(branches)
        if merged is not None:
            del out["anyOf"]
            out = {**merged, **out}
    return out


class UnlistedResults(Middleware):
    """List tools without their output schemas (``--output-schemas off``).

    Only the listing changes: each registered tool keeps its output schema, so
    a call answers exactly as with the schemas listed -- ``structuredContent``
    always, a list result wrapped as ``{"result": [...]}`` with FastMCP's
    ``wrap_result`` mark in the answer's ``_meta``. The result fields are
    documented in docs/tools.md; clients that validate structured results
    turn the schemas on.
    """

    async def on_list_tools(
        self,
        context: MiddlewareContext[mt.ListToolsRequest],
        call_next: CallNext[mt.ListToolsRequest, Sequence[Tool]],
    ) -> Sequence[Tool]:
        tools = await call_next(context)
        return [t.model_copy(update={"output_schema": None}) for t in tools]


__all__ = ["UnlistedResults", "lean", "lean_input", "lean_output"]
