"""Tests of scripts/check_reference_ops.py (run by scripts/docs.sh before it checks the site)."""

from __future__ import annotations

import shutil
import tempfile
import unittest
from pathlib import Path

from check_reference_ops import NODE_PAGE, PYTHON_PAGE, check, operations

HEADER = (
    "| Operation | Rust | Python | Node | C | Returns |\n|---|---|---|---|---|---|\n"
)
ROWS = [
    f"| [{name}](#{name}) | `{name}`, `{name}_wait` | `{name}` | `{node}` | `leaseq_queue_{name}` | a reply |\n"
    for name, node in [(f"op_{i}", f"op{i}") for i in range(10)]
    + [("add_batch", "addBatch")]
]


class CheckReferenceOpsTest(unittest.TestCase):
    def _files(
        self, python: str, node: str, rows: list[str] = ROWS
    ) -> tuple[Path, Path]:
        """A built site with these two pages' bodies, and an operations page of these rows."""
        root = Path(tempfile.mkdtemp(prefix="check-reference-ops-"))
        self.addCleanup(shutil.rmtree, root)
        for name, body in ((PYTHON_PAGE, python), (NODE_PAGE, node)):
            path = root / "site" / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"<!DOCTYPE html><html><body>{body}</body></html>")
        md = root / "operations.md"
        md.write_text(
            "# Operations\n\nText | with a pipe.\n\n"
            + HEADER
            + "".join(rows)
            + "\n## add_batch\n"
        )
        return root / "site", md

    @staticmethod
    def _python(names: list[str]) -> str:
        return "".join(
            f'<h4 id="leaseq.Queue.{n}">{n}</h4><h4 id="leaseq.aio.Queue.{n}">{n}</h4>'
            for n in names
        )

    @staticmethod
    def _node(names: list[str]) -> str:
        return "".join(
            f'<h3 class="tsd-anchor-link" id="{n.lower()}">{n}</h3>' for n in names
        )

    def test_the_table_gives_each_language_its_name(self) -> None:
        ops = operations(HEADER + "".join(ROWS))
        self.assertEqual(len(ops), 11)
        self.assertEqual(ops[-1], ("add_batch", "add_batch", "addBatch"))

    def test_references_documenting_every_operation_pass(self) -> None:
        py = [f"op_{i}" for i in range(10)] + ["add_batch"]
        node = [f"op{i}" for i in range(10)] + ["addBatch"]
        self.assertEqual(check(*self._files(self._python(py), self._node(node))), [])

    def test_an_undocumented_operation_fails_in_each_reference(self) -> None:
        py = [f"op_{i}" for i in range(10)]
        node = [f"op{i}" for i in range(10)]
        # Only the sync class documents add_batch; an id that is not a heading does not count.
        python = self._python(py) + '<h4 id="leaseq.Queue.add_batch">add_batch</h4>'
        node_page = self._node(node) + '<a id="addbatch"></a>'
        self.assertEqual(
            check(*self._files(python, node_page)),
            [
                f"{PYTHON_PAGE}: add_batch: no documented leaseq.aio.Queue.add_batch",
                f"{NODE_PAGE}: add_batch: no documented Queue.addBatch",
            ],
        )

    def test_a_table_of_another_shape_is_an_error_not_a_pass(self) -> None:
        with self.assertRaises(ValueError):
            operations(HEADER + "".join(ROWS[:3]))
        with self.assertRaises(ValueError):
            operations(
                HEADER
                + "| [add](#add) | `add` | add | `add` | `x` | y |\n"
                + "".join(ROWS)
            )


if __name__ == "__main__":
    unittest.main()
