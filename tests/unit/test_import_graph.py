"""No import circle in ``src/`` or ``sim/`` (docs/architecture.md#layers).

Every ``import`` statement counts: at module level, inside functions and under
``TYPE_CHECKING`` alike, because each one is a dependency of the design even
when Python would tolerate the cycle at run time.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = {"gridmux": ROOT / "src" / "gridmux", "tmuxsim": ROOT / "sim" / "tmuxsim"}


def module_name(package: str, base: Path, path: Path) -> str:
    parts = [package, *path.relative_to(base).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def all_modules() -> dict[str, Path]:
    return {
        module_name(package, base, path): path
        for package, base in PACKAGES.items()
        for path in sorted(base.rglob("*.py"))
    }


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The project modules ``name`` imports, with ``from pkg import mod`` as ``pkg.mod``."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            for alias in node.names:
                full = f"{base}.{alias.name}"
                found.add(full if full in known else base)
    return {target for target in found if target in known and target != name}


def graph() -> dict[str, set[str]]:
    modules = all_modules()
    known = set(modules)
    return {name: imports_of(name, path, known) for name, path in modules.items()}


def circles(edges: dict[str, set[str]]) -> Iterator[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    yield sorted(component)


def test_the_import_graph_covers_both_packages() -> None:
    edges = graph()
    assert "gridmux.capture._core" in edges and "tmuxsim._server" in edges
    assert "gridmux.backend._types" in edges["gridmux.backend"]


def test_relative_imports_resolve_to_project_modules(tmp_path: Path) -> None:
    """``from . import x`` names the submodule; unknown and outside modules drop out."""
    probe = tmp_path / "_probe.py"
    probe.write_text(
        "from .._never import x\nfrom . import _types\nimport gridmux.app\nimport os\n"
    )
    known = {"gridmux.backend", "gridmux.backend._types", "gridmux.app"}
    found = imports_of("gridmux.backend._probe", probe, known)
    assert found == {"gridmux.backend._types", "gridmux.app"}


def test_the_circle_finder_finds_a_circle() -> None:
    found = list(circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}))
    assert found == [["a", "b", "c"]]


def test_no_import_circle_in_src_or_sim() -> None:
    assert list(circles(graph())) == []
