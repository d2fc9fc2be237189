"""``python -m leaseq worker`` against a Redis Cluster (its nodes' URLs as the ``leaseq`` command
takes them) and over a partitioned queue named by its base; and its mistakes, each one line on
standard error and an exit code, without a traceback."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import leaseq
import pytest
from conftest import Server, new_prefix, server_says

HANDLERS = textwrap.dedent(
    """
    import os

    def record(job):
        with open(os.environ["MARK"], "a") as f:
            f.write(f"{job.id} {job.queue_prefix}\\n")
    """
)


@pytest.fixture()
def cluster_client(cluster: Server) -> Iterator[leaseq.Client]:
    with leaseq.Client.cluster(cluster.urls) as c:
        yield c


def command(
    tmp_path: Path, args: list[str], env: dict[str, str] | None = None
) -> tuple[list[str], dict[str, str]]:
    """The command line of ``python -m leaseq worker cli_mod:record`` with `args`, and its
    environment (no LEASEQ_URL or REDIS_URL unless `env` sets them)."""
    (tmp_path / "cli_mod.py").write_text(HANDLERS)
    base = {k: v for k, v in os.environ.items() if k not in ("LEASEQ_URL", "REDIS_URL")}
    full_env = {
        **base,
        "MARK": str(tmp_path / "ran"),
        "PYTHONPATH": str(tmp_path),
        **(env or {}),
    }
    argv = [sys.executable, "-m", "leaseq", "worker", "cli_mod:record", *args]
    return argv, full_env


def start(
    tmp_path: Path, argv: list[str], env: dict[str, str]
) -> subprocess.Popen[str]:
    """Starts the command line `argv` (from `command`), its output and errors in one pipe."""
    return subprocess.Popen(
        argv,
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def run_until_done(
    tmp_path: Path,
    args: list[str],
    ids: set[str],
    env: dict[str, str] | None = None,
) -> list[tuple[str, str]]:
    """Runs the command until its handler recorded every id of `ids`, then stops it with
    SIGTERM: what it recorded, (id, queue prefix) pairs. Asserts it exits 0."""
    return serve_until_done(tmp_path, args, ids, env)[0]


def serve_until_done(
    tmp_path: Path,
    args: list[str],
    ids: set[str],
    env: dict[str, str] | None = None,
    meanwhile: Callable[[subprocess.Popen[str]], None] | None = None,
) -> tuple[list[tuple[str, str]], str]:
    """`run_until_done`, calling `meanwhile` with the running command first: what it recorded,
    and its output."""
    argv, full_env = command(tmp_path, args, env)
    mark = tmp_path / "ran"
    proc = start(tmp_path, argv, full_env)
    try:
        if meanwhile is not None:
            meanwhile(proc)
        deadline = time.monotonic() + 60
        while (
            not mark.exists()
            or {line.split()[0] for line in mark.read_text().splitlines()} != ids
        ):
            assert time.monotonic() < deadline, "not done"
            assert proc.poll() is None, proc.communicate()[0]
            time.sleep(0.05)
    finally:
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0, out
    assert "Traceback" not in out, out
    pairs = [line.split() for line in mark.read_text().splitlines()]
    return [(p[0], p[1]) for p in pairs], out


def fail(
    tmp_path: Path, args: list[str], env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Runs the command, expected to end at once: its outcome."""
    argv, full_env = command(tmp_path, args, env)
    return subprocess.run(
        argv,
        cwd=tmp_path,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def one_line(done: subprocess.CompletedProcess[str]) -> str:
    """The command's error: one line on standard error, no traceback."""
    assert "Traceback" not in done.stderr, done.stderr
    lines = [
        line for line in done.stderr.splitlines() if line.startswith("leaseq worker: ")
    ]
    assert len(lines) == 1, done.stderr
    return lines[0]


def items(n: int) -> tuple[list[leaseq.Item], set[str]]:
    ids = {f"i{i}" for i in range(n)}
    return [leaseq.Item(b"x", id=i) for i in sorted(ids)], ids


@pytest.mark.parametrize(
    "connect", ["commas", "repeated", "env", "one url and --cluster"]
)
def test_it_serves_a_partitioned_queue_of_a_cluster(
    tmp_path: Path, cluster: Server, cluster_client: leaseq.Client, connect: str
) -> None:
    base = new_prefix()
    queue = cluster_client.create_partitioned(base, 3)
    batch, ids = items(30)
    queue.add_batch(batch)
    env: dict[str, str] = {}
    if connect == "commas":
        args = ["--url", ",".join(cluster.urls)]
    elif connect == "repeated":
        args = [arg for url in cluster.urls for arg in ("--url", url)]
    elif connect == "env":
        args, env = [], {"LEASEQ_URL": ",".join(cluster.urls)}
    else:
        args = ["--url", cluster.url, "--cluster"]
    done = run_until_done(tmp_path, [*args, "--queue", base, "-c", "4"], ids, env)
    # Every job ran once, from the partition that holds it; every partition had some.
    assert sorted(i for i, _ in done) == sorted(ids)
    assert {p for _, p in done} == set(queue.partitions)
    for i, prefix in done:
        assert queue.partition(queue.partition_of(leaseq.Item(b"x", id=i))).prefix == (
            prefix
        )
    total = queue.stats().total
    assert total.waiting + total.leased + total.delayed == 0
    assert total.dead == 0


def test_it_serves_plain_queues_of_a_cluster(
    tmp_path: Path, cluster: Server, cluster_client: leaseq.Client
) -> None:
    first, second = new_prefix(), new_prefix()
    cluster_client.queue(first).add_batch(items(5)[0])
    cluster_client.queue(second).add(leaseq.Item(b"x", id="other"))
    done = run_until_done(
        tmp_path,
        ["--url", ",".join(cluster.urls), "-q", first, "-q", second],
        items(5)[1] | {"other"},
    )
    assert ("other", second) in done and ("i0", first) in done


def test_it_serves_a_partitioned_queue_of_one_server(
    tmp_path: Path, client: leaseq.Client, url: str
) -> None:
    base = new_prefix()
    queue = client.create_partitioned(base, 2)
    batch, ids = items(10)
    queue.add_batch(batch)
    done = run_until_done(tmp_path, ["--url", url, "-q", base], ids)
    assert {p for _, p in done} == set(queue.partitions)
    assert queue.stats().total.waiting == 0


def test_a_partitioned_queue_goes_alone(
    tmp_path: Path, client: leaseq.Client, url: str
) -> None:
    base = new_prefix()
    client.create_partitioned(base, 2)
    done = fail(tmp_path, ["--url", url, "-q", new_prefix(), "-q", base])
    assert done.returncode == 2, done.stderr
    line = one_line(done)
    assert f"--queue {base} is a partitioned queue's base (2 partitions)" in line, line
    assert "the only --queue" in line


def test_one_node_of_a_cluster_without_cluster_says_to_connect_as_one(
    tmp_path: Path, cluster: Server, cluster_client: leaseq.Client
) -> None:
    base = new_prefix()
    cluster_client.create_partitioned(base, 3)
    done = fail(tmp_path, ["--url", cluster.url, "-q", base])
    # Refused by the client (2), or by the node, which does not serve the base's slot (4).
    assert done.returncode in (2, 4), done.stderr
    line = one_line(done)
    assert "connect as a Cluster client" in line and "--cluster" in line, line


def test_mistakes_are_one_line_and_an_exit_code(tmp_path: Path, url: str) -> None:
    prefix = new_prefix()
    # A URL that is none.
    done = fail(tmp_path, ["--url", "http://nowhere", "-q", prefix])
    assert done.returncode == 2, done.stderr
    assert one_line(done).startswith("leaseq worker: --url: "), done.stderr
    # A prefix the core refuses.
    done = fail(tmp_path, ["--url", url, "-q", ""])
    assert done.returncode == 2, done.stderr
    assert "`prefix`" in one_line(done)
    # Weights not one per queue.
    done = fail(tmp_path, ["--url", url, "-q", prefix, "--weights", "1,2"])
    assert done.returncode == 2, done.stderr
    assert "`weights`" in one_line(done)
    # A handler that is not there.
    argv, env = command(tmp_path, ["--url", url, "-q", prefix])
    for handler, wanted in [
        ("no_such_mod:record", "no module named 'no_such_mod'"),
        ("cli_mod:nothing", "cli_mod has no function or dict of handlers 'nothing'"),
    ]:
        argv[4] = handler
        done = subprocess.run(
            argv,
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 1, done.stderr
        assert wanted in one_line(done)
    # No URL at all: argparse's usage error.
    done = fail(tmp_path, ["-q", prefix])
    assert done.returncode == 2
    assert "no Redis to talk to" in done.stderr and "Traceback" not in done.stderr


def test_it_waits_for_redis_at_start_and_stops_on_a_signal_meanwhile(
    tmp_path: Path, fresh_server: Server
) -> None:
    # Started before Redis (a compose file, a reboot): one warning, then it serves once Redis
    # answers, as Celery's and BullMQ's workers do.
    prefix = new_prefix()
    server_says(fresh_server, "down")

    def bring_redis_up(proc: subprocess.Popen[str]) -> None:
        time.sleep(1)
        assert proc.poll() is None, proc.communicate()[0]
        server_says(fresh_server, "up")
        with leaseq.Client(fresh_server.url) as client:
            client.queue(prefix).add(leaseq.Item(b"x", id="after"))

    args = ["--url", fresh_server.url, "-q", prefix]
    ran, out = serve_until_done(tmp_path, args, {"after"}, meanwhile=bring_redis_up)
    assert [r[0] for r in ran] == ["after"]
    warned = [line for line in out.splitlines() if " WARNING " in line]
    assert len(warned) == 1 and "cannot be reached" in warned[0], out
    assert any("Redis answers" in line for line in out.splitlines()), out

    # A signal while it waits ends it, 0, with a line that says so.
    server_says(fresh_server, "down")
    proc = start(tmp_path, *command(tmp_path, args))
    time.sleep(1)
    assert proc.poll() is None, proc.communicate()[0]
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0, out
    assert "stopped (SIGTERM) before Redis answered" in out, out
    assert "Traceback" not in out, out


def test_help_tells_of_clusters_and_partitioned_queues(tmp_path: Path) -> None:
    done = fail(tmp_path, ["--help"])
    assert done.returncode == 0, done.stderr
    for words in ("--cluster", "Redis Cluster", "partitioned queue", "Exit codes"):
        assert words in " ".join(done.stdout.split()), done.stdout
