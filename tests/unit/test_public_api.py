"""Dependencies are used through their public API only (docs/architecture.md#public-api-only).

A private attribute of FastMCP, the MCP SDK or anything else can change in
any release; reading one pins gridmux to internals nobody promised. The scan
below reads every module of ``src/`` and flags:

* ``x._name`` (also ``getattr(x, "_name")``) where no module of ``src/``
  defines ``_name`` (a function, class, assignment, attribute or parameter
  of our own): the attribute can only be someone else's;
* ``from dependency import _name`` and imports of a dependency's private
  module (``mcp.shared._otel``).

Dunder names (``__name__``) are public protocol and are not flagged.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "gridmux"
OWN_PACKAGES = frozenset({"gridmux", "tmuxsim"})
#: The FastMCP internals the short path of old read: named, so a grep-able promise.
FASTMCP_INTERNALS = ("_mcp_server", "_lifespan_manager", "_mask_error_details")


def private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def defined_names(tree: ast.AST) -> set[str]:
    """Every private name a module defines: functions, classes, variables,
    attributes it assigns, parameters, import aliases."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[-1])
    return {name for name in names if private(name)}


def _foreign_import(node: ast.Import | ast.ImportFrom) -> list[str]:
    if isinstance(node, ast.ImportFrom):
        if node.level or not node.module:
            return []  # relative: our own package
        modules = [node.module]
        imported = [alias.name for alias in node.names]
    else:
        modules = [alias.name for alias in node.names]
        imported = []
    found = []
    for module in modules:
        if module.split(".")[0] in OWN_PACKAGES or module == "__future__":
            continue
        if any(private(part) for part in module.split(".")):
            found.append(f"imports the private module {module}")
        found += [f"imports {module}.{name}" for name in imported if private(name)]
    return found


def foreign_private_uses(tree: ast.AST, own: Iterable[str]) -> list[str]:
    """``line: what`` for every private name of someone else's that ``tree`` uses."""
    ours = set(own)
    found: list[str] = []
    for node in ast.walk(tree):
        name: str | None = None
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            name = node.attr
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "hasattr", "setattr")
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
        ):
            name = node.args[1].value
        if name is not None and private(name) and name not in ours:
            assert isinstance(node, ast.expr)
            found.append(f"{node.lineno}: reads {name}")
        if isinstance(node, ast.Import | ast.ImportFrom):
            found += [f"{node.lineno}: {what}" for what in _foreign_import(node)]
    return found


def modules() -> dict[str, ast.AST]:
    files = sorted(SRC.rglob("*.py"))
    assert len(files) > 20, f"src/ is not where it should be: {SRC}"
    return {str(path.relative_to(ROOT)): ast.parse(path.read_text("utf-8")) for path in files}


def test_src_reads_no_private_attribute_of_a_dependency() -> None:
    trees = modules()
    own = set().union(*(defined_names(tree) for tree in trees.values()))
    offenders = {
        path: uses for path, tree in trees.items() if (uses := foreign_private_uses(tree, own))
    }
    assert offenders == {}


def test_fastmcp_internals_are_named_nowhere_in_src() -> None:
    for path in SRC.rglob("*.py"):
        text = path.read_text("utf-8")
        for name in FASTMCP_INTERNALS:
            assert name not in text, f"{path.relative_to(ROOT)} names {name}"


# -- the scan itself: it must catch what it is for --------------------------------------


@pytest.mark.parametrize(
    ("source", "flagged"),
    [
        ("server = mcp._mcp_server", ["1: reads _mcp_server"]),
        (
            "async def f(mcp):\n    async with mcp._lifespan_manager():\n        pass",
            ["2: reads _lifespan_manager"],
        ),
        ("x = getattr(mcp, '_mask_error_details', False)", ["1: reads _mask_error_details"]),
        (
            "from mcp.shared._otel import otel_span",
            ["1: imports the private module mcp.shared._otel"],
        ),
        ("from fastmcp.server import _helper", ["1: imports fastmcp.server._helper"]),
        ("import anyio._backends", ["1: imports the private module anyio._backends"]),
        ("tool._run({})", ["1: reads _run"]),
    ],
)
def test_the_scan_flags_someone_elses_private_names(source: str, flagged: list[str]) -> None:
    tree = ast.parse(source)
    assert foreign_private_uses(tree, defined_names(tree)) == flagged


@pytest.mark.parametrize(
    "source",
    [
        "class A:\n    def __init__(self):\n        self._rows = []\n"
        "    def n(self):\n        return len(self._rows)",
        "def _helper():\n    pass\nimport m\nm._helper()",
        "from gridmux.tools._tiers import Tier\nfrom ._context import ToolContext",
        "x = type(y).__name__",
        "def f(_arg):\n    return other._arg",
    ],
)
def test_the_scan_leaves_our_own_names_alone(source: str) -> None:
    tree = ast.parse(source)
    assert foreign_private_uses(tree, defined_names(tree)) == []


def test_a_name_defined_in_another_module_of_src_counts_as_ours() -> None:
    user = ast.parse("from gridmux import cache\ncache._NEWEST.clear()")
    assert foreign_private_uses(user, defined_names(user)) == ["2: reads _NEWEST"]
    owner = ast.parse("_NEWEST = {}")
    assert foreign_private_uses(user, defined_names(owner)) == []
