"""What ``tools/list`` costs an agent, in bytes, as a client receives it.

Every conversation starts by paying for the tool list, so its size is a
budget, measured here on the JSON of the ``tools/list`` result exactly as
the server sends it (the MCP SDK's compact serialisation, ``None`` fields
left out) through the in-memory client on the simulator.

The limits are issue 15's targets: 45 KB for the default tier and 50 KB for
all 57 tools (down from 134 KB and 142 KB), with output schemas left out as
by default (``--output-schemas off``), one-paragraph descriptions, plain
target parameters and only the hints that differ from the MCP defaults.
"""

from __future__ import annotations

from typing import Any

import pytest
from fastmcp import Client

from gridmux import Settings, create_server
from gridmux.tools import SHARED_PARAMETERS
from tmuxsim import SimBackend

#: Bytes of the ``tools/list`` result, by safety tier.
BUDGET = {"mutating": 45_000, "destructive": 50_000}


async def _listing(safety: str) -> tuple[int, list[dict[str, object]]]:
    server = create_server(SimBackend(version="3.3a"), Settings(backend="sim", safety=safety))
    async with Client(server) as client:
        result = await client.session.list_tools()
    wire = result.model_dump_json(by_alias=True, exclude_none=True)
    tools = result.model_dump(by_alias=True, exclude_none=True)["tools"]
    return len(wire.encode()), tools


def _schema(tool: dict[str, object]) -> dict[str, Any]:
    schema = tool["inputSchema"]
    assert isinstance(schema, dict)
    return schema


@pytest.mark.parametrize("safety", sorted(BUDGET))
async def test_the_tool_list_stays_within_its_budget(safety: str) -> None:
    size, tools = await _listing(safety)
    assert len(tools) == (52 if safety == "mutating" else 57)
    assert size <= BUDGET[safety], f"tools/list at {safety} is {size} bytes"


async def test_every_tool_and_every_own_parameter_is_still_described() -> None:
    """Lean is not bare: a tool says what it is for, a parameter what it means,
    except the shared target parameters, which the server instructions describe."""
    _, tools = await _listing("destructive")
    bare = []
    for tool in tools:
        if len(str(tool.get("description", ""))) < 30:
            bare.append(tool["name"])
        props = _schema(tool).get("properties", {})
        for name, prop in props.items():
            if name not in SHARED_PARAMETERS and not prop.get("description"):
                bare.append(f"{tool['name']}.{name}")
    assert bare == []


async def test_no_optional_parameter_repeats_a_null_default_or_an_any_of() -> None:
    """The lean forms are in place: ``{"type": [..., "null"]}``, no ``default: null``."""
    _, tools = await _listing("destructive")
    found = []
    for tool in tools:
        props = _schema(tool).get("properties", {})
        for name, prop in props.items():
            if "default" in prop and prop["default"] is None:
                found.append(f"{tool['name']}.{name} default null")
            if "anyOf" in prop:
                found.append(f"{tool['name']}.{name} anyOf")
    assert found == []
