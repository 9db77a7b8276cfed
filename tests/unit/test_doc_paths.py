"""Every document that code and docs point to is in the repository.

A contributor who clones gridmux must be able to follow every reference: a
``docs/*.md`` (or ``README.md``) named in code, tests, bench, scripts or docs
exists; a relative markdown link in a document leads to a file, and its
``#anchor`` to a heading of that file (GitHub's heading slugs); a ``§N``
names a numbered section (``## N. Title``) of the document it cites; and
nothing names design notes kept outside the repository.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SELF = Path(__file__).resolve()

SCANNED_DIRS = ("src", "sim", "tests", "bench", "scripts", "docs", "tools", ".ci")
SCANNED_FILES = ("README.md", "noxfile.py", "tox.ini", "pyproject.toml", "run")
TEXT_SUFFIXES = {".py", ".md", ".toml", ".ini", ".cfg", ".sh", ".json", ".yml", ".yaml", ".txt"}
SKIPPED_DIRS = {"__pycache__", "node_modules", ".hypothesis"}

# Notes that live outside the repository (the project's early design papers).
OUTSIDE = re.compile(
    r"DESIGN\.md|\bDESIGN §|(?<![\w-])reference/|tmux-grid\.md|predecessor\.md"
    r"|peers\.md|style-anchors\.md"
)
# A document mentioned in text: an optional folder path, a name, ``.md``, an anchor.
MENTION = re.compile(r"(?<![\w./#-])((?:[\w-][\w.-]*/)*[\w.-]+\.md)(#[\w-]+)?(?![\w])")
# A relative markdown link target: ``](path)`` or ``](path#anchor)`` or ``](#anchor)``.
LINK = re.compile(r"\]\(([^)\s]*)\)")
# A § reference after the document it cites: ``x.md §1``, ``x.md`` (§2, §3 and §4)``...
CITED = re.compile(
    r"((?:[\w-][\w.-]*/)*[\w.-]+\.md)`{0,2}\]?[ \t]*\n?[ \t]*\(?"
    r"(§\d+(?:(?:,[ \t]*\n?[ \t]*|[ \t]+(?:and|to)[ \t]+|/)§\d+)*)"
)
SECTION = re.compile(r"§(\d+)")
NUMBERED = re.compile(r"^#{1,6}[ \t]+(\d+)\.[ \t]")
FENCE = re.compile(r"^[ \t]*(```|~~~)")


def scanned_files(root: Path) -> list[Path]:
    """Every text file of the repository the references are checked in."""
    found = [root / name for name in SCANNED_FILES if (root / name).is_file()]
    for folder in SCANNED_DIRS:
        for path in sorted((root / folder).rglob("*")) if (root / folder).is_dir() else ():
            text = path.suffix in TEXT_SUFFIXES or path.name == "run"
            if text and path.is_file() and SKIPPED_DIRS.isdisjoint(path.relative_to(root).parts):
                found.append(path)
    return [path for path in found if path.resolve() != SELF]


def headings(markdown: str) -> list[str]:
    """The text of every heading of a markdown document, outside code fences."""
    found, fenced = [], False
    for line in markdown.splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced and re.match(r"^#{1,6}[ \t]", line):
            found.append(line.lstrip("#").strip())
    return found


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: link text kept, punctuation dropped, spaces to ``-``."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = re.sub(r"<[^>]+>", "", text).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(markdown: str) -> set[str]:
    """Every anchor GitHub gives the headings (a repeated slug gets ``-1``, ``-2``...)."""
    seen: dict[str, int] = {}
    found: set[str] = set()
    for heading in headings(markdown):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def numbered_sections(markdown: str) -> set[int]:
    """The numbers of the headings written ``## N. Title``."""
    return {int(m.group(1)) for h in headings(markdown) if (m := NUMBERED.match("# " + h))}


def python_prose(source: str) -> str:
    """The comments and docstrings of a Python module, where a bare ``name.md`` is a
    reference (elsewhere it can be a file name the code writes)."""
    parts = [tok.string for tok in _tokens(source) if tok.type == tokenize.COMMENT]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            parts.append(ast.get_docstring(node, clean=False) or "")
    return "\n".join(parts)


def _tokens(source: str) -> list[tokenize.TokenInfo]:
    return list(tokenize.generate_tokens(io.StringIO(source).readline))


class Checker:
    """Resolves the references of one repository tree and collects what is broken."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.problems: list[str] = []

    def where(self, path: Path) -> str:
        return str(path.relative_to(self.root))

    def resolve(self, name: str, base: Path, *, link: bool) -> Path | None:
        """The file a mention names: a link is relative to its document; other
        mentions to the document's folder, then the root, then ``docs/``."""
        if link:
            candidates = [base.parent / name]
        elif "/" in name:
            candidates = [self.root / name, base.parent / name]
        else:
            candidates = [base.parent / name, self.root / name, self.root / "docs" / name]
        return next((c for c in candidates if c.is_file()), None)

    def check_anchor(self, origin: str, target: Path, anchor: str) -> None:
        if anchor not in anchors(target.read_text(encoding="utf-8")):
            self.problems.append(f"{origin}: no heading #{anchor} in {self.where(target)}")

    def check_mentions(self, path: Path, text: str, *, bare: bool) -> None:
        for match in MENTION.finditer(text):
            name, anchor = match.group(1), match.group(2)
            if name.startswith(".") or ("/" not in name and not bare):
                continue  # generated output (.cache/...) or a file name in code
            target = self.resolve(name, path, link=False)
            if target is None:
                self.problems.append(f"{self.where(path)}: {name} does not exist")
            elif anchor:
                self.check_anchor(self.where(path), target, anchor[1:])

    def check_links(self, path: Path, text: str) -> None:
        for match in LINK.finditer(text):
            target_text = match.group(1)
            if not target_text or re.match(r"^[a-z][a-z0-9+.-]*:", target_text):
                continue  # an absolute URL (https:, mailto:)
            name, _, anchor = target_text.partition("#")
            target = self.resolve(name, path, link=True) if name else path
            if target is None:
                self.problems.append(f"{self.where(path)}: link to {name} leads nowhere")
            elif anchor and target.suffix == ".md":
                self.check_anchor(self.where(path), target, anchor)

    def check_sections(self, path: Path, text: str) -> None:
        cited: set[int] = set()
        documents: set[Path] = {path} if path.suffix == ".md" else set()
        for match in MENTION.finditer(text):
            target = self.resolve(match.group(1), path, link=False)
            if target is not None and target.suffix == ".md":
                documents.add(target)
        for match in CITED.finditer(text):
            target = self.resolve(match.group(1), path, link=False)
            numbers = [int(n) for n in SECTION.findall(match.group(2))]
            cited.update(range(match.start(2), match.end(2)))
            if target is not None:
                self.check_numbers(path, target, numbers)
        bare = [m for m in SECTION.finditer(text) if m.start() not in cited]
        if not bare:
            return
        numbered = sorted(d for d in documents if numbered_sections(d.read_text(encoding="utf-8")))
        own = path if path in numbered else None
        if own is None and len(numbered) != 1:
            line = text.count("\n", 0, bare[0].start()) + 1
            self.problems.append(
                f"{self.where(path)}:{line}: §{bare[0].group(1)} does not say which document "
                "it cites (write docs/NAME.md §N)"
            )
            return
        self.check_numbers(path, own or numbered[0], [int(m.group(1)) for m in bare])

    def check_numbers(self, path: Path, target: Path, numbers: list[int]) -> None:
        sections = numbered_sections(target.read_text(encoding="utf-8"))
        for number in numbers:
            if number not in sections:
                self.problems.append(
                    f"{self.where(path)}: {self.where(target)} has no numbered section §{number}"
                )

    def check_file(self, path: Path) -> None:
        text = path.read_text(encoding="utf-8")
        for match in OUTSIDE.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            self.problems.append(
                f"{self.where(path)}:{line}: names {match.group(0)!r}, which is not in the "
                "repository: cite a section of docs/ instead"
            )
        if path.suffix == ".py":
            self.check_mentions(path, text, bare=False)
            self.check_mentions(path, python_prose(text), bare=True)
        else:
            self.check_mentions(path, text, bare=path.suffix == ".md")
        if path.suffix == ".md":
            self.check_links(path, text)
        self.check_sections(path, text)


def problems(root: Path) -> list[str]:
    checker = Checker(root)
    for path in scanned_files(root):
        checker.check_file(path)
    return sorted(set(checker.problems))


def test_every_document_reference_resolves() -> None:
    assert problems(ROOT) == []


def test_the_scan_covers_code_tests_and_docs() -> None:
    names = {str(p.relative_to(ROOT)) for p in scanned_files(ROOT)}
    assert {"README.md", "noxfile.py", "docs/tmux-model.md", "src/gridmux/safety.py"} <= names
    assert "tests/unit/test_layering.py" in names
    assert str(SELF.relative_to(ROOT)) not in names


GOOD_DOC = """# A

## 1. First

Text, see [b](b.md#b-heading) and [the first](#1-first) and §1.

```
## 7. Not a heading inside a fence
```

## Second: with `code`
"""


def make_tree(tmp_path: Path, code: str, doc: str = GOOD_DOC) -> Path:
    (tmp_path / "docs").mkdir()
    (tmp_path / "src").mkdir()
    (tmp_path / "docs" / "a.md").write_text(doc)
    (tmp_path / "docs" / "b.md").write_text("# B heading\n\nSee README.md.\n")
    (tmp_path / "README.md").write_text("# R\n\nSee docs/a.md#second-with-code.\n")
    (tmp_path / "src" / "m.py").write_text(code)
    return tmp_path


def test_a_tree_whose_references_resolve_passes(tmp_path: Path) -> None:
    code = (
        '"""Rules in docs/a.md §1 (and a.md); see docs/b.md."""\n\n'
        "# docs/a.md#1-first, docs/a.md (§1)\n"
        'NAME = "notes.md"  # a file the code writes, not a reference\n'
    )
    assert problems(make_tree(tmp_path, code)) == []


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("# see docs/missing.md\n", "src/m.py: docs/missing.md does not exist"),
        ('"""See missing.md."""\n', "src/m.py: missing.md does not exist"),
        ("# docs/a.md §2\n", "src/m.py: docs/a.md has no numbered section §2"),
        ("# docs/a.md §1, §7\n", "src/m.py: docs/a.md has no numbered section §7"),
        ("# docs/a.md#second\n", "src/m.py: no heading #second in docs/a.md"),
        ("# the rule (§1)\n", "src/m.py:1: §1 does not say which document it cites"),
        ("# DESIGN §3\n", "src/m.py:1: names 'DESIGN §'"),
        ("# see DESIGN.md\n", "src/m.py:1: names 'DESIGN.md'"),
        ("# reference/notes.txt\n", "src/m.py:1: names 'reference/'"),
    ],
)
def test_a_broken_reference_in_code_is_reported(tmp_path: Path, code: str, expected: str) -> None:
    found = problems(make_tree(tmp_path, code))
    assert any(p.startswith(expected) for p in found), found


@pytest.mark.parametrize(
    ("doc", "expected"),
    [
        ("# A\n\n[x](c.md)\n", "docs/a.md: link to c.md leads nowhere"),
        ("# A\n\n[x](b.md#nope)\n", "docs/a.md: no heading #nope in docs/b.md"),
        ("# A\n\n[x](#a-1)\n", "docs/a.md: no heading #a-1 in docs/a.md"),
        ("# A\n\nsee b.md §1\n", "docs/a.md: docs/b.md has no numbered section §1"),
        ("# A\n\n## 1. One\n\n§2\n", "docs/a.md: docs/a.md has no numbered section §2"),
    ],
)
def test_a_broken_reference_in_a_document_is_reported(
    tmp_path: Path, doc: str, expected: str
) -> None:
    found = problems(make_tree(tmp_path, "", doc))
    assert any(p.startswith(expected) for p in found), found


def test_slugs_follow_github() -> None:
    assert slug("19. Version differences, 3.2a to 3.8") == "19-version-differences-32a-to-38"
    assert slug("`list_servers`") == "list_servers"
    assert slug("Options: an allow-list") == "options-an-allow-list"
    assert slug("See [the tools](tools.md)") == "see-the-tools"
    assert anchors("# X\n\n## X\n\n## X\n") == {"x", "x-1", "x-2"}
