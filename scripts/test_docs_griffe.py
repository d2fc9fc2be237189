"""Tests of scripts/docs_griffe.py (run by scripts/docs.sh with the docs' virtualenv, which has
griffe)."""

from __future__ import annotations

import re
import shutil
import tempfile
import unittest
from pathlib import Path

import griffe

REPO = Path(__file__).resolve().parent.parent
EXTENSION = str(REPO / "scripts" / "docs_griffe.py")
# Any reST role left in a docstring would show as typed in the Python reference.
ANY_ROLE = re.compile(r":[a-z:]+:`")


def _load(package: str, path: Path) -> griffe.Module:
    return griffe.load(
        package,
        search_paths=[str(path)],
        extensions=griffe.load_extensions(EXTENSION),
        allow_inspection=False,
    )


def _docstrings(obj: griffe.Object) -> list[str]:
    found = [obj.docstring.value] if obj.docstring else []
    for member in obj.members.values():
        if not member.is_alias:
            found += _docstrings(member)
    return found


class SphinxRolesAsCodeTest(unittest.TestCase):
    def test_roles_become_inline_code(self) -> None:
        root = Path(tempfile.mkdtemp(prefix="docs-griffe-"))
        self.addCleanup(shutil.rmtree, root)
        (root / "pkg").mkdir()
        (root / "pkg/__init__.py").write_text(
            '"""Runs :class:`pkg.Worker`; see :mod:`pkg.aio` and :py:func:`~pkg.run`."""\n'
            "class Worker:\n"
            '    """Made by :meth:`Client.queue`; ``code`` stays."""\n'
            "    def run(self) -> None:\n"
            '        """Raises :exc:`ValueError`."""\n'
        )
        pkg = _load("pkg", root)
        self.assertEqual(pkg.docstring.value, "Runs `pkg.Worker`; see `pkg.aio` and `pkg.run`.")
        self.assertEqual(pkg["Worker"].docstring.value, "Made by `Client.queue`; ``code`` stays.")
        self.assertEqual(pkg["Worker.run"].docstring.value, "Raises `ValueError`.")

    def test_no_role_is_left_in_the_package(self) -> None:
        pkg = _load("leaseq", REPO / "py" / "python")
        docstrings = _docstrings(pkg)
        self.assertGreater(len(docstrings), 50)
        left = [d for d in docstrings if ANY_ROLE.search(d)]
        self.assertEqual(left, [])


if __name__ == "__main__":
    unittest.main()
