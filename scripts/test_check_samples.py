"""Tests of scripts/check-samples.py on small trees: python3 scripts/test_check_samples.py"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent / "check-samples.py"
spec = importlib.util.spec_from_file_location("check_samples", SCRIPT)
assert spec and spec.loader
check_samples = importlib.util.module_from_spec(spec)
sys.modules["check_samples"] = check_samples
spec.loader.exec_module(check_samples)

HELLO_PY = 'print("hello")\n'
HELLO_C = '#include <stdio.h>\nint main(void) { puts("hello"); return 0; }\n'


class CheckSamples(unittest.TestCase):
    def setUp(self) -> None:
        self.dir = tempfile.TemporaryDirectory()
        self.root = Path(self.dir.name)
        self.write("py/examples/hello.py", HELLO_PY)
        self.write("ffi-c/examples/hello.c", HELLO_C)

    def tearDown(self) -> None:
        self.dir.cleanup()

    def write(self, name: str, text: str) -> None:
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)

    def problems(self) -> list[str]:
        return check_samples.check(self.root)[0]

    def test_matching_samples_pass_and_are_listed(self) -> None:
        self.write(
            "README.md",
            "# x\n\n<!-- sample: py/examples/hello.py -->\n```python\n" + HELLO_PY + "```\n",
        )
        self.write(
            "docs/guide/c.md",
            "- a list\n\n  <!-- sample: ffi-c/examples/hello.c -->\n\n  ```c\n"
            + textwrap.indent(HELLO_C, "  ")
            + "  ```\n\n```sh\nmake test\n```\n",
        )
        problems, shown = check_samples.check(self.root)
        self.assertEqual(problems, [])
        self.assertEqual(shown, ["ffi-c/examples/hello.c", "py/examples/hello.py"])

    def test_a_block_without_a_marker_fails(self) -> None:
        self.write("py/README.md", "```py\nprint(1)\n```\n")
        [problem] = self.problems()
        self.assertTrue(problem.startswith("py/README.md:1: a ```py block without"), problem)

    def test_a_marker_naming_a_missing_file_fails(self) -> None:
        self.write("README.md", "<!-- sample: py/examples/gone.py -->\n```python\nx\n```\n")
        [problem] = self.problems()
        self.assertIn("py/examples/gone.py does not exist", problem)

    def test_a_block_that_differs_fails_with_a_diff(self) -> None:
        self.write(
            "docs/a.md",
            '<!-- sample: py/examples/hello.py -->\n```python\nprint("hi")\n```\n',
        )
        [problem] = self.problems()
        self.assertIn("differs from py/examples/hello.py", problem)
        self.assertIn('+print("hi")', problem)

    def test_the_whole_file_or_nothing(self) -> None:
        self.write("py/examples/two.py", "a = 1\nb = 2\n")
        self.write("README.md", "<!-- sample: py/examples/two.py -->\n```python\na = 1\n```\n")
        self.assertEqual(len(self.problems()), 1)

    def test_a_sample_outside_its_language_directory_fails(self) -> None:
        self.write("scripts/hello.py", HELLO_PY)
        self.write("README.md", "<!-- sample: scripts/hello.py -->\n```python\n" + HELLO_PY + "```\n")
        [problem] = self.problems()
        self.assertIn("must be py/examples/*.py", problem)

    def test_a_marker_without_a_block_fails(self) -> None:
        self.write("README.md", "<!-- sample: py/examples/hello.py -->\nSome text.\n")
        [problem] = self.problems()
        self.assertIn("sample marker without a code block", problem)

    def test_other_languages_and_nested_fences_need_no_marker(self) -> None:
        self.write("README.md", "```sh\nmake\n```\n\n````markdown\n```python\nx\n```\n````\n")
        self.assertEqual(self.problems(), [])

    def test_fix_rewrites_a_stale_block_from_its_file(self) -> None:
        self.write(
            "docs/guide/c.md",
            "Text.\n\n  <!-- sample: ffi-c/examples/hello.c -->\n  ```c\n  old\n  ```\nAfter.\n",
        )
        self.write("README.md", "<!-- sample: py/examples/hello.py -->\n```python\n```\n")
        changed = check_samples.fix(self.root)
        self.assertEqual(sorted(changed), ["README.md", "docs/guide/c.md"])
        self.assertEqual(self.problems(), [])
        self.assertTrue((self.root / "docs/guide/c.md").read_text().endswith("  ```\nAfter.\n"))

    def test_the_command_exits_1_on_a_problem(self) -> None:
        self.write("README.md", "```c\nint main(void);\n```\n")
        done = subprocess.run(
            [sys.executable, str(SCRIPT), "--root", str(self.root)],
            capture_output=True,
            text=True,
            check=False,
        )
        self.assertEqual(done.returncode, 1)
        self.assertIn("README.md:1:", done.stderr)


if __name__ == "__main__":
    unittest.main()
