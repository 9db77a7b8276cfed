"""docs/tools.md is generated from the registered tools and must be current."""

from __future__ import annotations

from pathlib import Path

from gridmux.docgen import list_tools, main, render
from gridmux.safety import Tier, listed_tier

DOC = Path(__file__).resolve().parents[2] / "docs" / "tools.md"


async def test_docs_tools_md_is_up_to_date() -> None:
    current = DOC.read_text(encoding="utf-8") if DOC.exists() else ""
    assert current == render(await list_tools()), (
        "docs/tools.md is out of date: run `python -m gridmux.docgen`"
    )


async def test_every_tool_has_a_section_with_tier_parameters_and_result() -> None:
    tools = await list_tools()
    text = render(tools)
    for tool in tools:
        start = text.index(f"\n### {tool.name}\n")
        section = text[start : text.find("\n### ", start + 1)]
        tier = listed_tier(tool)
        assert tier is not None
        assert f"Tier: {tier.tag}." in section
        assert "readOnlyHint=" in section
        assert "Returns " in section
        for name in tool.input_schema.get("properties", {}):
            assert f"| `{name}` |" in section
    counts = {tier: sum(listed_tier(t) is tier for t in tools) for tier in Tier}
    summary = ", ".join(f"{n} {tier.tag}" for tier, n in counts.items())
    assert f"gridmux registers {len(tools)} tools ({summary})" in text


def test_check_mode_reports_a_stale_file(tmp_path: Path) -> None:
    stale = tmp_path / "tools.md"
    stale.write_text("# old\n", encoding="utf-8")
    assert main(["--check", str(stale)]) == 1
    assert main([str(stale)]) == 0
    assert main(["--check", str(stale)]) == 0
    assert stale.read_text(encoding="utf-8").startswith("# Tool reference\n")
