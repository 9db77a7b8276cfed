"""Every test module stays under 500 lines (docs/architecture.md#modules-one-concern-each)."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
LIMIT = 500


def too_long(root: Path, limit: int = LIMIT) -> dict[str, int]:
    """Python files under ``root`` with ``limit`` lines or more: path -> line count."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        count = len(path.read_bytes().splitlines())
        if count >= limit:
            found[str(path.relative_to(root))] = count
    return found


def test_every_test_file_is_under_the_limit() -> None:
    assert too_long(TESTS) == {}, f"split these test files below {LIMIT} lines"


def test_the_check_sees_a_long_file_anywhere_below_the_root(tmp_path: Path) -> None:
    (tmp_path / "deep" / "er").mkdir(parents=True)
    (tmp_path / "deep" / "er" / "test_long.py").write_text("x = 1\n" * LIMIT)
    (tmp_path / "test_short.py").write_text("x = 1\n" * (LIMIT - 1))
    (tmp_path / "notes.txt").write_text("x\n" * 2 * LIMIT)
    assert too_long(tmp_path) == {"deep/er/test_long.py": LIMIT}
