"""The JSON schemas a client lists, said in fewer bytes and meaning the same.

An agent pays for ``tools/list`` in tokens on every conversation, so each
tool's input and output schema is rewritten once, at registration, into an
equivalent shorter form: ``anyOf`` of plain types becomes one ``type`` list
(``{"type": ["string", "null"], "pattern": ...}`` -- a pattern constrains
strings only, so it means what the ``anyOf`` meant; a choice or null becomes
one ``enum`` holding null), and keywords that say
nothing (``additionalProperties: true``, ``title``) go. Validation does not
read these schemas: pydantic checks the function's own signature.
"""

from __future__ import annotations

from typing import Any

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


def lean_input(schema: dict[str, Any]) -> dict[str, Any]:
    """An input schema, lean; an optional parameter's ``"default": null`` goes too.

    An argument left out is null: that is what leaving it out of ``required``
    already says. Other defaults (``true``, ``500``) stay: they say something.
    """
    out: dict[str, Any] = lean(schema)
    for prop in out.get("properties", {}).values():
        if isinstance(prop, dict) and "default" in prop and prop["default"] is None:
            del prop["default"]
    return out


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


__all__ = ["lean", "lean_input", "lean_output"]
