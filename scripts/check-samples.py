#!/usr/bin/env python3
"""Every code sample in the documentation is an example program that the tests run.

Each fenced block of Rust, Python, JavaScript, TypeScript or C in README.md, */README.md and
docs/**/*.md must come right after a line

    <!-- sample: core/examples/quickstart.rs -->

naming a file of core/examples (.rs), py/examples (.py), node/examples (.js, .mjs, .cjs, .ts) or
ffi-c/examples (.c), and the block must be that whole file, word for word. Each language's tests
run every file of its examples directory against a throwaway server (core/tests/integration/examples.rs,
py/tests/test_examples.py, node/test/examples.test.js, ffi-c/test.sh), so a sample cannot go
stale without a test failing.

    scripts/check-samples.py [--root DIR] [--list] [--fix]

Prints each problem as `file:line: what` and exits 1 if there is any; --list prints the example
files the documentation shows, one per line; --fix first rewrites each block that differs from
the file its marker names (after editing an example). Standard library only; `make test` runs
it first.
"""

from __future__ import annotations

import argparse
import difflib
import re
import sys
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

# The fence's language (the first word of its info string) -> the language's examples.
LANGUAGES = {
    "rust": "rust",
    "rs": "rust",
    "python": "python",
    "py": "python",
    "python3": "python",
    "js": "js",
    "javascript": "js",
    "mjs": "js",
    "cjs": "js",
    "node": "js",
    "ts": "ts",
    "typescript": "ts",
    "c": "c",
}
# Where each language's example files live, and the suffixes they may have.
EXAMPLES = {
    "rust": ("core/examples", (".rs",)),
    "python": ("py/examples", (".py",)),
    "js": ("node/examples", (".js", ".mjs", ".cjs")),
    "ts": ("node/examples", (".ts",)),
    "c": ("ffi-c/examples", (".c",)),
}

MARKER = re.compile(r"^\s*<!--\s*sample:\s*(?P<path>\S+)\s*-->\s*$")
OPENING = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")


@dataclass
class Block:
    """A fenced code block: where it starts, its language's first word, and its text."""

    line: int
    end: int
    indent: str
    language: str
    text: str
    marker: str | None
    marker_line: int | None


def documents(root: Path) -> list[Path]:
    """README.md, */README.md and docs/**/*.md, in a stable order."""
    found = [root / "README.md", *sorted(root.glob("*/README.md"))]
    found += sorted((root / "docs").rglob("*.md")) if (root / "docs").is_dir() else []
    return [path for path in found if path.is_file()]


def dedent(line: str, indent: str) -> str:
    """`line` without the fence's indentation (as much of it as the line has)."""
    n = 0
    while n < len(indent) and n < len(line) and line[n] in " \t":
        n += 1
    return line[n:]


def blocks(text: str, problems: list[str], name: str) -> list[Block]:
    """The fenced blocks of a Markdown text, each with the sample marker right before it."""
    lines = text.split("\n")
    found: list[Block] = []
    pending: tuple[str, int] | None = None  # a marker waiting for its block
    i = 0
    while i < len(lines):
        line = lines[i]
        marker = MARKER.match(line)
        opening = OPENING.match(line)
        if marker:
            if pending:
                problems.append(f"{name}:{pending[1]}: sample marker without a code block after it")
            pending = (marker.group("path"), i + 1)
            i += 1
            continue
        if opening and not (opening.group("fence")[0] == "`" and "`" in opening.group("info")):
            indent, fence = opening.group("indent"), opening.group("fence")
            info = opening.group("info").strip().lstrip("{").lstrip(".")
            language = info.split()[0].rstrip("}").lower() if info.split() else ""
            closing = re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
            body: list[str] = []
            j = i + 1
            while j < len(lines) and not closing.match(lines[j]):
                body.append(dedent(lines[j], indent))
                j += 1
            if j == len(lines):
                problems.append(f"{name}:{i + 1}: code block never closed")
            text_of_block = "\n".join(body) + "\n" if body else ""
            found.append(
                Block(
                    i + 1,
                    j + 1,
                    indent,
                    language,
                    text_of_block,
                    pending[0] if pending else None,
                    pending[1] if pending else None,
                )
            )
            pending = None
            i = j + 1
            continue
        if line.strip() and pending:
            problems.append(f"{name}:{pending[1]}: sample marker without a code block after it")
            pending = None
        i += 1
    if pending:
        problems.append(f"{name}:{pending[1]}: sample marker without a code block after it")
    return found


def check_block(root: Path, name: str, block: Block, problems: list[str]) -> str | None:
    """Checks one block against its example file; returns the file's path when it matches."""
    language = LANGUAGES.get(block.language)
    if block.marker is None:
        if language is not None:
            problems.append(
                f"{name}:{block.line}: a ```{block.language} block without a "
                f"`<!-- sample: PATH -->` line before it (samples are example files the tests run)"
            )
        return None
    where = f"{name}:{block.marker_line}"
    if language is None:
        problems.append(f"{where}: the sample {block.marker} is in a ```{block.language} block")
        return None
    directory, suffixes = EXAMPLES[language]
    path = PurePosixPath(block.marker)
    if str(path.parent) != directory or path.suffix not in suffixes:
        allowed = " or ".join(f"{directory}/*{suffix}" for suffix in suffixes)
        problems.append(f"{where}: a ```{block.language} sample must be {allowed}, not {path}")
        return None
    file = root / path
    if not file.is_file():
        problems.append(f"{where}: {path} does not exist")
        return None
    expected = file.read_text(encoding="utf-8")
    if block.text != expected:
        diff = difflib.unified_diff(
            expected.splitlines(keepends=True),
            block.text.splitlines(keepends=True),
            fromfile=str(path),
            tofile=f"{name} line {block.line}",
        )
        shown = "".join(list(diff)[:40]).rstrip("\n")
        problems.append(f"{where}: the block differs from {path}:\n{shown}")
        return None
    return str(path)


def fix(root: Path) -> list[str]:
    """Rewrites every block whose marker names an existing example file as that file; returns
    the documents changed."""
    changed = []
    for document in documents(root):
        text = document.read_text(encoding="utf-8")
        lines = text.split("\n")
        # From the last block up, so that earlier line numbers stay right.
        for block in reversed(blocks(text, [], document.name)):
            if block.marker is None or not (root / block.marker).is_file():
                continue
            expected = (root / block.marker).read_text(encoding="utf-8")
            if block.text != expected:
                body = [block.indent + line if line else line for line in expected.split("\n")]
                lines[block.line : block.end - 1] = body[:-1] if body[-1] == "" else body
        new = "\n".join(lines)
        if new != text:
            document.write_text(new, encoding="utf-8")
            changed.append(document.relative_to(root).as_posix())
    return changed


def check(root: Path) -> tuple[list[str], list[str]]:
    """Returns (problems, the example files shown) for the documentation under `root`."""
    problems: list[str] = []
    shown: set[str] = set()
    for document in documents(root):
        name = document.relative_to(root).as_posix()
        text = document.read_text(encoding="utf-8")
        for block in blocks(text, problems, name):
            matched = check_block(root, name, block, problems)
            if matched:
                shown.add(matched)
    return problems, sorted(shown)


def main() -> int:
    """The command line: check, report, exit 1 on any problem."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--list", action="store_true", help="print the example files shown")
    parser.add_argument("--fix", action="store_true", help="rewrite blocks from their files")
    args = parser.parse_args()
    if args.fix:
        for document in fix(args.root):
            print(f"check-samples: rewrote the samples of {document}")
    problems, shown = check(args.root)
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"check-samples: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    if args.list:
        print("\n".join(shown))
    else:
        print(f"check-samples: {len(shown)} example files, every sample matches its file")
    return 0


if __name__ == "__main__":
    sys.exit(main())
