"""Write ``docs/tools.md``, the tool reference, from the tools as registered.

``python -m gridmux.docgen`` rewrites the file; ``--check`` only compares
and exits 1 when it is out of date (a unit test does the same). Everything
comes from what an MCP client sees in ``tools/list`` on a server exposing
every tier with its output schemas listed (``--output-schemas on``): names,
titles, tiers, annotations (every hint spelt out, the left-out ones at their
MCP defaults), parameter schemas and result schemas; each tool's text is its
whole docstring, of which a client lists the first paragraph. Nothing here
talks to tmux.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from fastmcp import Client
from mcp_types import Tool

from gridmux.app import create_server, load_backend
from gridmux.safety import Tier, effective_hints, listed_tier
from gridmux.settings import Settings
from gridmux.tools import SHARED_PARAMETERS, tool_docs

DEFAULT_PATH = Path("docs/tools.md")
_HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


async def list_tools() -> list[Tool]:
    """Every tool, as a client of a destructive-tier server listing output schemas sees it."""
    settings = Settings(safety="destructive", output_schemas=True)
    async with Client(create_server(load_backend(settings), settings)) as client:
        tools: list[Tool] = await client.list_tools()
    return tools


def _tag(tool: Tool) -> str:
    tier = listed_tier(tool)
    return tier.tag if tier is not None else "-"


def type_of(schema: dict[str, Any], defs: dict[str, Any]) -> str:
    """A short type name for a JSON schema: ``string``, ``integer | null``, ``list[X]``."""
    if "$ref" in schema:
        return str(schema["$ref"]).rsplit("/", 1)[-1]
    if "anyOf" in schema:
        return " | ".join(type_of(s, defs) for s in schema["anyOf"])
    if "enum" in schema:
        return " | ".join(json.dumps(v) for v in schema["enum"])
    if "const" in schema:
        return json.dumps(schema["const"])
    kind = schema.get("type", "any")
    if isinstance(kind, list):  # {"type": ["string", "null"], ...}: one name per type
        return " | ".join(type_of({**schema, "type": one}, defs) for one in kind)
    if kind == "array":
        return f"list[{type_of(schema.get('items', {}), defs)}]"
    if kind == "object" and "properties" not in schema:
        values = schema.get("additionalProperties")
        if isinstance(values, dict) and values:
            return f"object[string, {type_of(values, defs)}]"
        return "object"
    return str(kind)


def bounds(schema: dict[str, Any]) -> str:
    """Numeric, length and pattern constraints, e.g. ``>= 1, <= 10000``."""
    parts = []
    for key, sign in (
        ("minimum", ">="),
        ("exclusiveMinimum", ">"),
        ("maximum", "<="),
        ("exclusiveMaximum", "<"),
        ("minLength", "length >="),
        ("maxLength", "length <="),
        ("minItems", "items >="),
        ("maxItems", "items <="),
    ):
        for part in [schema, *schema.get("anyOf", [])]:
            if key in part:
                parts.append(f"{sign} {part[key]}")
    parts += [
        f"matches `{p['pattern']}`" for p in [schema, *schema.get("anyOf", [])] if "pattern" in p
    ]
    return ", ".join(parts)


def cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def parameters(tool: Tool) -> list[str]:
    schema = tool.input_schema
    props: dict[str, Any] = schema.get("properties", {})
    if not props:
        return ["No parameters."]
    required = set(schema.get("required", []))
    defs = schema.get("$defs", {})
    rows = ["| parameter | type | default | description |", "| --- | --- | --- | --- |"]
    for name, prop in props.items():
        default = "required" if name in required else f"`{json.dumps(prop.get('default'))}`"
        described = prop.get("description", "") or SHARED_PARAMETERS.get(name, "")
        limits = bounds(prop)
        if limits:
            described = f"{described} ({limits})" if described else f"({limits})"
        kind = type_of(prop, defs)
        rows.append(f"| `{name}` | `{cell(kind)}` | {default} | {cell(described)} |")
    for def_name, definition in sorted(defs.items()):
        fields = ", ".join(
            f"`{field}` ({type_of(sub, defs)})"
            for field, sub in definition.get("properties", {}).items()
        )
        rows.append("")
        rows.append(f"`{def_name}`: {cell(fields)}.")
    return rows


def result(tool: Tool) -> str:
    """One sentence naming the result's shape and its fields."""
    schema = tool.output_schema
    if not schema:
        return "Returns text."
    defs = schema.get("$defs", {})
    if schema.get("x-fastmcp-wrap-result"):
        schema = schema["properties"]["result"]
    if schema.get("type") == "array":
        item = resolve(schema.get("items", {}), defs)
        if "properties" in item:
            return f"Returns a list of objects, each with {fields_of(item, defs)}."
        return f"Returns `{type_of(schema, defs)}`."
    schema = resolve(schema, defs)
    if schema.get("type") == "string":
        return "Returns text."
    if "properties" in schema:
        return f"Returns an object with {fields_of(schema, defs)}."
    return f"Returns `{type_of(schema, defs)}`."


def resolve(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    if "$ref" in schema:
        found: dict[str, Any] = defs[str(schema["$ref"]).rsplit("/", 1)[-1]]
        return found
    return schema


def fields_of(schema: dict[str, Any], defs: dict[str, Any]) -> str:
    return ", ".join(
        f"`{name}` ({type_of(sub, defs)})" for name, sub in schema.get("properties", {}).items()
    )


def hints(tool: Tool) -> str:
    meant = effective_hints(tool.annotations)
    return ", ".join(f"{hint}={json.dumps(meant[hint])}" for hint in _HINTS)


def render(tools: Sequence[Tool]) -> str:
    by_tier = {tier: [t for t in tools if listed_tier(t) is tier] for tier in Tier}
    docs = tool_docs()
    counts = ", ".join(f"{len(group)} {tier.tag}" for tier, group in by_tier.items())
    lines = [
        "# Tool reference",
        "",
        "<!-- Generated by `python -m gridmux.docgen` from the registered tools. "
        "Do not edit by hand. -->",
        "",
        f"gridmux registers {len(tools)} tools ({counts}). A server started with "
        "`--safety readonly`, `mutating` (the default) or `destructive` exposes its tier "
        "and the tiers below it; see [safety.md](safety.md). Every tool except "
        "`list_servers` and the batch tools takes `socket_name` and `socket_path` to "
        "address another tmux server than the configured one.",
        "",
        "The tool list a client receives is leaner than this page: each tool's first "
        "paragraph below is its description; the target parameters (`pane_id`, "
        "`session_name`, `session_id`, `window_id`, `window_index`, `socket_name`, "
        "`socket_path`) are plain strings there, described once in the server's "
        "instructions and checked by the server, which says what a valid value looks "
        "like; only the hints that differ from the MCP defaults are listed (the table "
        "spells out all four); and the result schemas are listed only with "
        "`--output-schemas on`.",
        "",
        "| tool | tier | title | read-only | destructive | idempotent | open world |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    ordered = [t for group in by_tier.values() for t in group]
    for tool in ordered:
        meant = effective_hints(tool.annotations)
        flags = " | ".join("yes" if meant[h] else "no" for h in _HINTS)
        lines.append(f"| [`{tool.name}`](#{tool.name}) | {_tag(tool)} | {tool.title} | {flags} |")
    for tier, group in by_tier.items():
        lines += ["", f"## {tier.tag.capitalize()} tier", ""]
        for tool in group:
            always = (tool.meta or {}).get("anthropic/alwaysLoad")
            lines += [
                f"### {tool.name}",
                "",
                f"**{tool.title}**. Tier: {tier.tag}. Annotations: {hints(tool)}."
                + (" Marked `anthropic/alwaysLoad`." if always else ""),
                "",
                docs.get(tool.name, tool.description or "").strip(),
                "",
                *parameters(tool),
                "",
                result(tool),
                "",
            ]
    return "\n".join(lines).rstrip() + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gridmux.docgen", description=__doc__)
    parser.add_argument("path", nargs="?", type=Path, default=DEFAULT_PATH)
    parser.add_argument("--check", action="store_true", help="exit 1 if the file is stale")
    args = parser.parse_args(argv)
    text = render(asyncio.run(list_tools()))
    path: Path = args.path
    if args.check:
        current = path.read_text(encoding="utf-8") if path.exists() else ""
        if current != text:
            print(f"{path} is out of date: run python -m gridmux.docgen", file=sys.stderr)
            return 1
        return 0
    path.write_text(text, encoding="utf-8")
    print(f"wrote {path} ({len(text.splitlines())} lines)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
