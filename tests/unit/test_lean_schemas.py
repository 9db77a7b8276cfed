"""The lean schemas mean what FastMCP's schemas meant: the same values pass and fail."""

from __future__ import annotations

from typing import Any

import jsonschema  # type: ignore[import-untyped]
import pytest
from fastmcp import Client

from gridmux import Settings, create_server
from gridmux.backend import ServerRef
from gridmux.tools._schemas import lean, lean_input, lean_output
from tmuxsim import SimBackend

PATTERNED = {
    "anyOf": [{"type": "string", "pattern": r"^%\d+$"}, {"type": "null"}],
    "default": None,
    "title": "Pane Id",
}
CHOICE = {"anyOf": [{"enum": ["up", "down"], "type": "string"}, {"type": "null"}]}
BOUNDED = {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}], "default": 500}
FILTERS = {
    "anyOf": [
        {"type": "object", "additionalProperties": True},
        {"type": "string"},
        {"type": "null"},
    ]
}
VALUES: list[Any] = [None, "%1", "%x", "up", "down", "left", 0, 1, 500, 2.5, {}, {"a": 1}, [], True]


@pytest.mark.parametrize("schema", [PATTERNED, CHOICE, BOUNDED, FILTERS])
def test_lean_accepts_and_refuses_what_the_original_did(schema: dict[str, Any]) -> None:
    short = lean(schema)
    assert "anyOf" not in short and "title" not in short
    for value in VALUES:
        before = jsonschema.Draft202012Validator(schema).is_valid(value)
        after = jsonschema.Draft202012Validator(short).is_valid(value)
        assert before == after, (value, short)


def test_branches_that_cannot_merge_stay_as_they_were() -> None:
    mixed = {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "number", "maximum": 0}]}
    assert lean(mixed) == mixed
    refs = {"anyOf": [{"$ref": "#/$defs/X"}, {"type": "null"}]}
    assert lean(refs) == refs


def test_only_a_null_default_goes() -> None:
    schema = {"type": "object", "properties": {"a": PATTERNED, "b": BOUNDED}}
    short = lean_input(schema)
    assert "default" not in short["properties"]["a"]
    assert short["properties"]["b"]["default"] == 500


def test_an_object_with_every_property_required_stays_as_strict_and_closes() -> None:
    """Every named property still must be there; and, as a result model emits
    exactly its fields, no other may be (the lean form says both)."""
    schema = {
        "type": "object",
        "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}, "z": {"type": "string"}},
        "required": ["x", "y", "z"],
    }
    short = lean_output(schema)
    assert short is not None and "required" not in short
    values: list[dict[str, Any]] = [
        {"x": 1, "y": 2, "z": "a"},
        {"x": 1, "y": 2},
        {"x": 1, "y": 2, "z": "a", "w": 0},
    ]
    for value in values:
        assert jsonschema.Draft202012Validator(schema).is_valid(value) == (len(value) >= 3)
        assert jsonschema.Draft202012Validator(short).is_valid(value) == (len(value) == 3)


async def test_every_result_conforms_to_its_lean_output_schema(backend: SimBackend) -> None:
    """Real results still validate against the listed schemas (as the SDK's client
    checks), on a server that lists them (``--output-schemas on``)."""
    backend.new_session(ServerRef(), name="work", width=40, height=5)
    settings = Settings(backend="sim", safety="destructive", output_schemas=True)
    server = create_server(backend, settings)
    async with Client(server) as client:
        schemas = {t.name: t.output_schema for t in await client.list_tools()}
        listed = ("list_panes", "get_pane_info", "list_windows", "list_sessions", "snapshot_pane")
        for name in listed:
            result = await client.call_tool(name, {})
            schema = schemas[name]
            assert schema is not None
            jsonschema.validate(result.structured_content, schema)


def test_a_null_default_leaves_the_type_and_shared_parameters_go_plain() -> None:
    """Leaving an argument out is the same call as null, so null leaves the type
    where it is the default; a null that means something else (no limit) stays.
    The shared target parameters also lose their pattern (the server checks them)."""
    schema = {
        "type": "object",
        "properties": {"pane_id": PATTERNED, "other": PATTERNED, "dir": CHOICE, "n": BOUNDED},
    }
    short = lean_input(schema, shared={"pane_id"})["properties"]
    assert short["pane_id"] == {"type": "string"}
    assert short["other"] == {"type": "string", "pattern": r"^%\d+$"}
    assert short["n"] == {"type": ["integer", "null"], "minimum": 1, "default": 500}
    nested = {"type": "object", "properties": {"ops": {"type": "array", "items": schema}}}
    item = lean_input(nested, shared={"pane_id"})["properties"]["ops"]["items"]["properties"]
    assert item["pane_id"] == {"type": "string"} and "default" not in item["other"]
