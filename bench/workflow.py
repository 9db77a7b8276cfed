"""An agent's session, byte for byte: what each server sends a client for one task.

The script is what an agent does to run commands in tmux: list the tools,
create a session, find its pane, start following it (``capture_since``), run
three commands (``send_keys``, ``wait_for_text`` on the command's own marker,
``capture_since`` with the cursor), search the panes, and kill the session.
Both servers run it through the same raw stdio client at the destructive
tier (the script kills), and every byte read from the server's stdout is
counted: ``tools/list``, each answer (JSON-RPC envelope included) and any
notification. Per call, the answer's two parts are measured as well: the
text ``content`` (UTF-8 bytes of its text blocks) and ``structuredContent``
(compact JSON).

Run it alone with ``python -m bench.workflow`` in a venv holding both servers;
``python -m bench.run`` runs it as its ``workflow`` phase.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from .clients import ServerSpec, _client, answer_parts, server_specs
from .tmuxenv import BenchError, TmuxEnv, find_tmux

SESSION = "agent-bench"
COMMANDS = 3


def destructive(spec: ServerSpec) -> ServerSpec:
    """``spec`` at the tier that may kill a session."""
    if spec.is_predecessor:
        toolsets = "inspect,manage,execute,teardown"  # libtmux-mcp's tiers, kill included
        return replace(spec, env={**spec.env, "LIBTMUX_TOOLSETS": toolsets})
    argv = list(spec.argv)
    if "--safety" in argv:
        argv[argv.index("--safety") + 1] = "destructive"
    else:
        argv += ["--safety", "destructive"]
    return replace(spec, argv=tuple(argv))


async def run_script(spec: ServerSpec, env: TmuxEnv) -> dict[str, Any]:
    """Run the agent script on one server: bytes received, in total and per step."""
    client, _ = _client(destructive(spec), env, None, "workflow")
    steps: list[dict[str, Any]] = []
    async with client:
        start = client.bytes_received
        await client.list_tools()
        tools_list = client.bytes_received - start

        async def step(tool: str, **arguments: Any) -> Any:
            before = client.bytes_received
            result = await client.call_tool_mcp(tool, arguments)
            raw = client.last_result
            if result.is_error:
                text = " ".join(b.text for b in result.content)
                raise BenchError(f"{spec.label}: workflow: {tool} failed: {text}")
            content, structured = answer_parts(raw)
            steps.append(
                {
                    "tool": tool,
                    "bytes": client.bytes_received - before,
                    "content": content,
                    "structured": structured,
                }
            )
            data = raw.get("structuredContent")
            if isinstance(data, dict) and set(data) == {"result"}:
                return data["result"]
            return data

        await step("create_session", session_name=SESSION, x=100, y=30)
        await step("list_panes", session_name=SESSION)
        first = await step("capture_since", session_name=SESSION)
        cursor = first["cursor"]
        for n in range(1, COMMANDS + 1):
            # the marker is computed by the shell, so only the output matches it
            await step("send_keys", session_name=SESSION, keys=f"seq 1 20; echo fin$((0+{n}))")
            await step("wait_for_text", session_name=SESSION, patterns=[f"fin{n}"], timeout=10)
            read = await step("capture_since", session_name=SESSION, cursor=cursor)
            cursor = read["cursor"]
        await step("search_panes", pattern="fin2", session_name=SESSION)
        await step("kill_session", session_name=SESSION)
    calls = sum(s["bytes"] for s in steps)
    return {"tools_list": tools_list, "calls": calls, "total": tools_list + calls, "steps": steps}


async def measure(specs: Sequence[ServerSpec], env: TmuxEnv) -> dict[str, dict[str, Any]]:
    """The script on every server, one after the other (server key -> figures)."""
    return {spec.key: await run_script(spec, env) for spec in specs}


def _per_tool(steps: Sequence[Mapping[str, Any]]) -> dict[str, tuple[int, int, int, int]]:
    """tool -> (calls, mean wire bytes, mean content bytes, mean structuredContent bytes)."""
    grouped: dict[str, list[Mapping[str, Any]]] = {}
    for s in steps:
        grouped.setdefault(s["tool"], []).append(s)
    return {
        tool: (
            len(rows),
            round(sum(r["bytes"] for r in rows) / len(rows)),
            round(sum(r["content"] for r in rows) / len(rows)),
            round(sum(r["structured"] for r in rows) / len(rows)),
        )
        for tool, rows in grouped.items()
    }


def render(results: Mapping[str, Mapping[str, Any]], labels: Mapping[str, str]) -> list[str]:
    """The workflow section of the report (markdown lines)."""
    if not results:
        return []
    keys = list(results)
    out = ["", "### Agent workflow: bytes the client receives", ""]
    out += [
        "create a session, list its panes, capture_since, then three times send_keys + "
        "wait_for_text + capture_since (cursor), search_panes, kill_session; "
        "through the same raw stdio client.",
        "",
    ]
    header = ["", *(labels.get(k, k) for k in keys)]
    rows = [
        ["`tools/list`", *(f"{results[k]['tools_list']:,}" for k in keys)],
        ["the calls", *(f"{results[k]['calls']:,}" for k in keys)],
        ["**total**", *(f"**{results[k]['total']:,}**" for k in keys)],
    ]
    theirs = results.get("predecessor")
    if theirs:
        for label, part in (("total", "total"), ("calls only (without tools/list)", "calls")):
            rows.append(
                [
                    f"ratio to libtmux-mcp, {label}",
                    *(f"{results[k][part] / theirs[part]:.2f}" for k in keys),
                ]
            )
    out += _table(header, rows)
    out += ["", "Bytes per call (mean: wire answer / text content / structuredContent):", ""]
    per = {k: _per_tool(results[k]["steps"]) for k in keys}
    tools = list(per[keys[0]])
    header = ["tool", "calls", *(labels.get(k, k) for k in keys)]
    rows = []
    for tool in tools:
        cells = [f"`{tool}`", str(per[keys[0]][tool][0])]
        for k in keys:
            n = per[k].get(tool)
            cells.append("—" if n is None else f"{n[1]:,} / {n[2]:,} / {n[3]:,}")
        rows.append(cells)
    out += _table(header, rows)
    return out


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]


def main() -> int:
    env = TmuxEnv(find_tmux(None))
    try:
        env.start()
        specs = server_specs(env, both_modes=False)
        results = asyncio.run(measure(specs, env))
    finally:
        env.kill()
        shutil.rmtree(env.root, ignore_errors=True)
    print("\n".join(render(results, {s.key: s.label for s in specs})))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
