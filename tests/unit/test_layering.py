"""Dependencies point one way (docs/architecture.md#layers); these tests keep it so."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from gridmux import tools
from tests.unit.test_import_graph import graph as import_graph

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "gridmux"
SIM = ROOT / "sim" / "tmuxsim"


def imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def test_src_never_imports_the_simulator() -> None:
    offenders = {
        str(path.relative_to(ROOT)): sorted(
            n for n in imported_modules(path) if n.split(".")[0] == "tmuxsim"
        )
        for path in SRC.rglob("*.py")
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_capture_core_imports_only_the_standard_library() -> None:
    files = sorted((SRC / "capture").glob("*.py"))
    assert files, "the capture core is missing"
    for path in files:
        for name in imported_modules(path):
            top = name.split(".")[0]
            assert top in sys.stdlib_module_names or top == "__future__", (
                f"{path.name} imports {name}, which is not in the standard library"
            )
        for banned in ("asyncio", "subprocess", "threading", "socket"):
            assert banned not in {n.split(".")[0] for n in imported_modules(path)}, (
                f"{path.name} does I/O-ish work through {banned}"
            )


def test_simulator_imports_only_backend_value_types_from_src() -> None:
    for path in SIM.rglob("*.py"):
        for name in imported_modules(path):
            top = name.split(".")[0]
            if top == "gridmux":
                assert name == "gridmux.backend", f"{path.name} imports {name}"
            else:
                assert top in sys.stdlib_module_names or top in {"__future__", "tmuxsim"}, (
                    f"{path.name} imports {name}"
                )


# -- the MCP surface's own rules (issue 12) ---------------------------------------------

TOOLS = SRC / "tools"
#: The extras built on the tool layer, which may use its public names only.
EXTRAS = ("resources.py", "prompts.py", "instructions.py")
#: The names that make up the safety tier policy (``gridmux.safety``).
TIER_POLICY = frozenset(
    {"Tier", "TierGate", "POLICY", "Rule", "tier_of", "refusal", "tools_above", "enforce"}
)


def module_name(path: Path) -> str:
    root = SRC.parent if SRC in path.parents else SIM.parent
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> list[tuple[str, str | None]]:
    """Every import in ``path`` as (absolute module, imported name or None)."""
    package = module_name(path)
    if path.name != "__init__.py":
        package = package.rsplit(".", 1)[0]
    found: list[tuple[str, str | None]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.extend((alias.name, None) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            found.extend((module, alias.name) for alias in node.names)
    return found


def imported_paths(path: Path) -> set[str]:
    """Each import as a dotted path: ``from a.b import c`` gives ``a.b.c``."""
    return {f"{m}.{n}" if n else m for m, n in imports(path)}


def _is_private(dotted: str) -> bool:
    return any(part.startswith("_") and part != "__init__" for part in dotted.split("."))


def test_tool_modules_never_borrow_from_a_sibling_tool_module() -> None:
    """Shared helpers live in named support modules (``tools/_x.py``), not in tool modules."""
    tool_modules = {module_name(p) for p in TOOLS.glob("[!_]*.py")}
    offenders = {}
    for path in TOOLS.glob("*.py"):
        if path.name == "__init__.py":
            continue
        own = module_name(path)
        borrowed = sorted(
            dotted
            for dotted in imported_paths(path)
            if any(dotted.startswith(m + ".") or dotted == m for m in tool_modules - {own})
        )
        if borrowed:
            offenders[path.name] = borrowed
    assert offenders == {}


def test_the_extras_use_public_tool_layer_names_only() -> None:
    public = set(tools.__all__)
    offenders = {}
    for name in EXTRAS:
        bad = sorted(
            f"{module}.{imported}"
            for module, imported in imports(SRC / name)
            if module.startswith("gridmux.tools")
            and (module != "gridmux.tools" or imported not in public)
        )
        if bad:
            offenders[name] = bad
    assert offenders == {}


def test_nothing_outside_the_backend_imports_its_private_modules() -> None:
    """The backend's public face is ``gridmux.backend``; only the entry point names more."""
    allowed = {"gridmux.backend._factory"}
    offenders = {}
    for path in [*SRC.rglob("*.py"), *SIM.rglob("*.py")]:
        if SRC / "backend" in path.parents:
            continue
        bad = sorted(
            dotted
            for dotted in imported_paths(path)
            if dotted.startswith("gridmux.backend._")
            and not any(dotted == a or dotted.startswith(a + ".") for a in allowed)
        )
        if bad:
            offenders[str(path.relative_to(ROOT))] = bad
    assert offenders == {}


def test_the_tier_policy_is_defined_and_imported_from_safety_only() -> None:
    """One module says which tool is in which tier and applies it (docs/safety.md#tiers)."""
    safety = SRC / "safety.py"
    assert safety.exists(), "gridmux/safety.py, the tier policy, is missing"
    offenders: dict[str, list[str]] = {}
    for path in SRC.rglob("*.py"):
        if path == safety:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found = [
            f"defines {node.name}"
            for node in ast.walk(tree)
            if isinstance(node, ast.ClassDef | ast.FunctionDef) and node.name in TIER_POLICY
        ]
        found += [
            f"imports {name} from {module}"
            for module, name in imports(path)
            if name in TIER_POLICY and module != "gridmux.safety"
        ]
        found += [
            "builds ToolAnnotations"
            for node in ast.walk(tree)
            if isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "ToolAnnotations"
        ]
        if found:
            offenders[str(path.relative_to(ROOT))] = found
    assert offenders == {}


def test_the_backend_knows_nothing_above_it() -> None:
    """backend/ (protocol, value types, real backend) imports only the error tree and itself."""
    offenders = {
        name: sorted(
            target
            for target in targets
            if target != "gridmux.errors" and not target.startswith("gridmux.backend")
        )
        for name, targets in import_graph().items()
        if name.startswith("gridmux.backend")
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_the_tool_layer_never_reaches_up_to_the_wiring() -> None:
    """tools/ never imports the CLI wiring, the transports or the extras built on the tools."""
    above = {"gridmux.app", "gridmux.transport", "gridmux.resources", "gridmux.prompts"}
    above |= {"gridmux.instructions", "gridmux.docgen", "gridmux.audit"}
    offenders = {
        name: sorted(targets & above)
        for name, targets in import_graph().items()
        if name.startswith("gridmux.tools")
    }
    assert {k: v for k, v in offenders.items() if v} == {}
