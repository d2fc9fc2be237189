"""Every program of py/examples runs against a fresh redis-server, prints what it says, and
passes mypy --strict. The documentation shows them word for word: each Python block of the
READMEs and docs/ names its file in a ``<!-- sample: ... -->`` line, and
scripts/check-samples.py (run by ``make test``) checks that the block is the file."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import REPO, Server

EXAMPLES = REPO / "py" / "examples"


def check_quickstart(out: str) -> None:
    assert out == "sending to ada@example.com (attempt 1)\nresult: sent\n"


def check_runner(out: str) -> None:
    lines = out.splitlines()
    assert len([line for line in lines if line.startswith("sending to ")]) == 2
    assert lines[-1] == "2 completed, 1 dead"


def check_names(out: str) -> None:
    assert out.splitlines() == [
        "send_email: mail to ada@example.com",
        "resize: cat.png to 640 px",
        "fallback: build_report",
        "build_report: 1 completed, 0 dead",
        "resize: 1 completed, 0 dead",
        "send_email: 1 completed, 0 dead",
    ]


def check_partitioned(out: str) -> None:
    assert out.splitlines() == [
        "3 partitions",
        "added 9: 9 waiting",
        "9 completed",
        "9 added, 9 completed, 9 leased",
    ]


def check_events(out: str) -> None:
    assert out.splitlines() == [
        "added order-1 (attempt 0)",
        "leased order-1 (attempt 1)",
        "completed order-1 (attempt 1)",
        "since then: added order-2",
    ]


def check_operations(out: str) -> None:
    lines = out.splitlines()
    # Five items, each leased once, in the order they were added.
    leased = [line for line in lines if " (attempt 1): " in line]
    assert len(leased) == 5
    assert leased[0].endswith(': b\'{"to":"a@example.com"}\'')
    assert leased[1] == "report-7 (attempt 1): b'report 7'"
    assert lines[-2:] == ["re-queued 0, removed 0", "0 0"]


def check_lifecycle(out: str) -> None:
    lines = out.splitlines()
    assert lines[0].startswith("b'done: 42' 1 "), lines[0]
    assert lines[1].startswith("retrying 0:00:00"), lines[1]
    assert lines[2].startswith("dead 2 still refused "), lines[2]
    assert lines[3:] == [
        "dead: flaky still refused",
        "0 2 1 2",  # waiting, delayed, dead, failed in the last hour
        "QueueConfig(max_attempts=5, backoff=Backoff.fixed(30), stats=True)",
    ]


def check_errors(out: str) -> None:
    first, *rest = out.splitlines()
    assert first.startswith("INVALID_ARGUMENT ttl invalid argument `ttl`: "), first
    assert rest == ["priority", "CLOSED"]


def check_logs(out: str) -> None:
    lines = out.splitlines()
    assert lines[0].startswith("INFO leaseq.worker: runner "), lines[0]
    assert " started: queue {invoices} on redis://127.0.0.1:" in lines[0], lines[0]
    assert lines[0].endswith(", concurrency 1"), lines[0]
    dead = [line for line in lines if line.startswith("ERROR leaseq.worker: job ")]
    assert len(dead) == 1, out
    assert re.fullmatch(
        r"ERROR leaseq\.worker: job [0-9a-f-]{36} failed \(attempt 1\) and is dead: could "
        r"not convert string to float: 'twelve'",
        dead[0],
    ), out
    # A success logs at DEBUG: no other line about a job.
    assert sum(" job " in line for line in lines) == 1, out
    assert "stopped: 1 completed, 0 retried, 1 dead" in lines[-2], out
    assert lines[-1] == "ValueError: could not convert string to float: 'twelve'"


def check_aio(out: str) -> None:
    assert out.splitlines()[0] == "{'to': 'b@example.com'}"
    assert out.splitlines()[-1].startswith("JobResult("), out


def check_schedules(out: str) -> None:
    lines = out.splitlines()
    assert lines[0] == "two beats ran: True", out
    # The seconds until each schedule's next tick: the nightly one within a day (25 hours on
    # the night clocks go back), the beat's within a second or two.
    nightly = [line for line in lines if line.startswith("nightly-report: ")]
    assert len(nightly) == 1, out
    match = re.fullmatch(r"nightly-report: fired 0, next in (\d+) s", nightly[0])
    assert match is not None and int(match[1]) <= 25 * 3600, out
    beat = [line for line in lines if line.startswith("beat: ")]
    assert len(beat) == 1, out
    match = re.fullmatch(r"beat: fired \d+, next in (\d+) s", beat[0])
    assert match is not None and int(match[1]) <= 2, out


def check_dependencies(out: str) -> None:
    assert out.splitlines() == [
        "email waits for ['report']",
        "part eu",
        "part us",
        "report from part-eu=42 sales, part-us=42 sales",
        "email sent after the report",
    ], out


CHECKS: dict[str, Callable[[str], None]] = {
    "aio": check_aio,
    "dependencies": check_dependencies,
    "errors": check_errors,
    "lifecycle": check_lifecycle,
    "names": check_names,
    "events": check_events,
    "logs": check_logs,
    "operations": check_operations,
    "partitioned": check_partitioned,
    "quickstart": check_quickstart,
    "runner": check_runner,
    "schedules": check_schedules,
}
FILES = sorted(EXAMPLES.glob("*.py"))


def test_every_example_has_its_check() -> None:
    assert sorted(path.stem for path in FILES) == sorted(CHECKS)


@pytest.mark.parametrize("path", FILES, ids=[path.stem for path in FILES])
def test_example_runs(path: Path, fresh_server: Server, tmp_path: Path) -> None:
    done = subprocess.run(  # noqa: PLW1510 - the return code is asserted
        [sys.executable, str(path)],
        env={**os.environ, "REDIS_URL": fresh_server.url},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout  # every example prints what it did
    CHECKS[path.stem](done.stdout)


def test_examples_pass_mypy_strict(tmp_path: Path) -> None:
    done = subprocess.run(  # noqa: PLW1510 - the return code is asserted
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--no-incremental",
            *map(str, FILES),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
