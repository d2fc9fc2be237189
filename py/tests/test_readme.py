"""The "Use from Python" section of the README runs as written and passes mypy --strict."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, Server


def python_blocks() -> list[str]:
    text = (REPO / "README.md").read_text()
    section = re.search(
        r"<!-- BEGIN python -->(.*?)<!-- END python -->", text, re.DOTALL
    )
    assert section, "README.md lacks the python markers"
    return re.findall(r"```python\n(.*?)```", section.group(1), re.DOTALL)


BLOCKS = python_blocks()


def test_readme_has_examples() -> None:
    assert len(BLOCKS) >= 2


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_example_runs(index: int, fresh_server: Server, tmp_path: Path) -> None:
    script = tmp_path / f"readme_{index}.py"
    script.write_text(BLOCKS[index])
    env = {**os.environ, "REDIS_URL": fresh_server.url}
    done = subprocess.run(  # noqa: PLW1510 - the return code is asserted
        [sys.executable, str(script)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout  # every example prints what it did


def test_readme_examples_pass_mypy_strict(tmp_path: Path) -> None:
    files = []
    for index, block in enumerate(BLOCKS):
        path = tmp_path / f"readme_{index}.py"
        path.write_text(block)
        files.append(str(path))
    done = subprocess.run(  # noqa: PLW1510 - the return code is asserted
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", *files],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
