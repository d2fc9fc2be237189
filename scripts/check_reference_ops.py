#!/usr/bin/env python3
"""Checks that the built API references document every operation of a queue.

Usage: check_reference_ops.py SITE_DIR OPERATIONS_MD

The operations are the rows of OPERATIONS_MD (docs/reference/operations.md, rendered from the
core's table, core/src/operations.rs, and kept equal to it by a core test), with each one's
Python and Node name. Each must be a documented member (a heading with its anchor) of:
  - the Python reference (reference/python.html, mkdocstrings): ``leaseq.Queue.NAME`` and
    ``leaseq.aio.Queue.NAME``; mkdocstrings leaves out a member without a docstring, so an
    undocumented stub method fails here;
  - the Node reference (reference/node/classes/Queue.html, TypeDoc): the camelCase name,
    which TypeDoc's anchors spell in lower case.
Exits 1 and lists what is missing.
"""

from __future__ import annotations

import argparse
import re
import sys
from html.parser import HTMLParser
from pathlib import Path

PYTHON_PAGE = "reference/python.html"
NODE_PAGE = "reference/node/classes/Queue.html"
# A row of the table: | [name](#name) | Rust | `python` | `node` | `c` | reply |
_ROW = re.compile(r"^\| \[(\w+)\]\(#\1\) \|")
_CODE = re.compile(r"^`(\w+)`$")
# Fewer rows than this means the page's table changed shape, not that operations went away.
_FEWEST = 10


class _Headings(HTMLParser):
    """The ids of a page's headings (h1 to h6)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if re.fullmatch(r"h[1-6]", tag):
            for name, value in attrs:
                if name == "id" and value:
                    self.ids.add(value)


def operations(markdown: str) -> list[tuple[str, str, str]]:
    """(operation, Python name, Node name) of each row of the operations page's table."""
    found = []
    for line in markdown.splitlines():
        row = _ROW.match(line)
        if not row:
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        python = _CODE.match(cells[2]) if len(cells) >= 6 else None
        node = _CODE.match(cells[3]) if len(cells) >= 6 else None
        if not (python and node):
            raise ValueError(f"a row of the operations table not understood: {line}")
        found.append((row.group(1), python.group(1), node.group(1)))
    if len(found) < _FEWEST:
        raise ValueError(
            f"only {len(found)} operations read from the table: has its shape changed?"
        )
    return found


def _heading_ids(page: Path) -> set[str]:
    parser = _Headings()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser.ids


def check(site: Path, operations_md: Path) -> list[str]:
    """What is missing: one line per operation and reference."""
    ops = operations(operations_md.read_text(encoding="utf-8"))
    python = _heading_ids(site / PYTHON_PAGE)
    node = _heading_ids(site / NODE_PAGE)
    missing = []
    for op, py_name, node_name in ops:
        for anchor in (f"leaseq.Queue.{py_name}", f"leaseq.aio.Queue.{py_name}"):
            if anchor not in python:
                missing.append(f"{PYTHON_PAGE}: {op}: no documented {anchor}")
        if node_name.lower() not in node:
            missing.append(f"{NODE_PAGE}: {op}: no documented Queue.{node_name}")
    return missing


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path)
    parser.add_argument("operations_md", type=Path)
    args = parser.parse_args()
    missing = check(args.site, args.operations_md)
    for line in missing:
        print(line, file=sys.stderr)
    if missing:
        print(f"check_reference_ops: {len(missing)} missing", file=sys.stderr)
        return 1
    count = len(operations(args.operations_md.read_text(encoding="utf-8")))
    print(
        f"check_reference_ops: the Python and Node references document all {count} operations"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
