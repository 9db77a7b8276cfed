"""Dependencies point one way (DESIGN.md §1); these tests keep it so."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

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
