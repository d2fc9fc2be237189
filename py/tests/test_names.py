"""Jobs by name (issue 29): an item's ``name``, shown by its leases and ``get``, counted by
``counts_by_name``, and a ``Worker`` given a dict of handlers by name (with a fallback), in
threads, in asyncio and from ``python -m leaseq worker``."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any, Callable

import leaseq
import leaseq.aio
import pytest
import redis
from conftest import new_prefix


def named(id: str, name: str | None) -> leaseq.Item:
    return leaseq.Item(id.encode(), id=id, name=name)


def test_a_named_item_is_added_leased_and_read_back(queue: leaseq.Queue) -> None:
    assert queue.add(named("m1", "send_email"))
    queue.add_unique(leaseq.Item.from_json({"w": 640}, id="r1", name="resize"))
    assert queue.add_batch([named("b1", "send_email"), named("plain", None)]) == 2
    leases = {lease.id: lease for lease in queue.lease_batch(10)}
    assert {i: lease.name for i, lease in leases.items()} == {
        "m1": "send_email",
        "r1": "resize",
        "b1": "send_email",
        "plain": None,
    }
    job = queue.get("r1")
    assert job is not None and job.name == "resize" and job.json() == {"w": 640}
    plain = queue.get("plain")
    assert plain is not None and plain.name is None
    # A retry keeps the name: the next lease of the item carries it again.
    queue.fail(leases["m1"], "smtp down", retry=0)
    again = queue.lease()
    assert again is not None and again.id == "m1" and again.attempt == 2
    assert again.name == "send_email"


def test_a_bad_name_is_refused_naming_name_and_nothing_is_written(
    queue: leaseq.Queue, r: redis.Redis
) -> None:
    for name in ("", "a\nb", "n" * (leaseq.MAX_NAME_LEN + 1)):
        with pytest.raises(leaseq.InvalidArgumentError) as refused:
            leaseq.Item(b"", name=name)
        assert refused.value.argument == "name", name
        with pytest.raises(leaseq.InvalidArgumentError) as refused:
            leaseq.Item.from_json({}, name=name)
        assert refused.value.argument == "name", name
    with pytest.raises(leaseq.InvalidArgumentTypeError) as wrong:
        leaseq.Item(b"", name=b"resize")  # type: ignore[arg-type]
    assert wrong.value.argument == "name"
    assert leaseq.Item(b"", name="n" * leaseq.MAX_NAME_LEN).id, (
        "the longest name is fine"
    )
    assert r.keys(queue.prefix + "*") == [], "nothing written"


def test_counts_by_name_is_none_while_the_counters_are_off_then_counts(
    queue: leaseq.Queue,
) -> None:
    queue.add(named("e0", "email"))
    assert queue.counts_by_name() is None, "off by default: nothing counted"
    lease = queue.lease()
    assert lease is not None and queue.complete(lease)
    queue.set_config(stats=True)
    assert queue.counts_by_name() == [], "on, and nothing happened since"
    queue.add_batch(
        [
            named("e1", "email"),
            named("e2", "email"),
            leaseq.Item(b"", id="r1", name="resize", max_attempts=1),
            named("p1", None),
        ]
    )
    for lease in queue.lease_batch(10):
        if lease.id == "r1":
            assert queue.fail(lease, "too big").dead
        else:
            assert queue.complete(lease)
    counts = queue.counts_by_name()
    assert counts is not None
    assert [(c.name, c.completed, c.failed, c.dead) for c in counts] == [
        ("email", 2, 0, 0),
        ("resize", 0, 1, 1),
    ]
    assert repr(counts[0]) == (
        'NameCounts(name="email", completed=2, failed=0, dead=0)'
    )
    assert counts == queue.counts_by_name(), "compared by value"


def test_asyncio_names_and_counts(url: str) -> None:
    async def main() -> None:
        async with leaseq.aio.Client(url) as client:
            q = client.queue(new_prefix())
            assert await q.counts_by_name() is None
            await q.set_config(stats=True)
            await q.add(named("a", "thumb"))
            lease = await q.lease()
            assert lease is not None and lease.name == "thumb"
            job = await q.get("a")
            assert job is not None and job.name == "thumb"
            assert await q.complete(lease)
            counts = await q.counts_by_name()
            assert counts is not None
            assert [(c.name, c.completed) for c in counts] == [("thumb", 1)]

    asyncio.run(main())


# ---- runners with handlers by name ----------------------------------------------------------


def run_until_settled(
    worker: leaseq.Worker, queue: leaseq.Queue, seconds: float = 30.0
) -> leaseq.WorkerReport:
    """Runs `worker` until nothing of `queue` waits or is leased (checked at each event), and
    stops it anyway after `seconds`, so that a wedged runner fails the asserts."""

    def listener(_name: str, _id: Any, _detail: Any) -> None:
        stats = queue.stats()
        if stats.waiting + stats.delayed + stats.leased == 0:
            worker.stop()

    worker.on("*", listener)
    timer = threading.Timer(seconds, worker.stop)
    timer.start()
    try:
        return worker.run()
    finally:
        timer.cancel()


def table(
    kind: str, calls: list[str]
) -> tuple[dict[str, Callable[..., Any]], Callable[..., Any]]:
    """Handlers `email` and `resize`, and a fallback, plain or `async def` (`kind`), each
    recording ``handler id job.name`` in `calls`."""

    def handler(label: str) -> Callable[..., Any]:
        def sync(job: leaseq.worker.Job) -> str:
            calls.append(f"{label} {job.id} {job.name}")
            return label

        async def coroutine(job: leaseq.worker.Job) -> str:
            calls.append(f"{label} {job.id} {job.name}")
            await asyncio.sleep(0)
            return label

        return sync if kind == "thread" else coroutine

    return {"email": handler("email"), "resize": handler("resize")}, handler("fallback")


def fill_named(queue: leaseq.Queue) -> None:
    queue.add_batch(
        [
            named("e1", "email"),
            named("e2", "email"),
            named("r1", "resize"),
            named("x1", "unknown"),
            named("p1", None),
        ]
    )


@pytest.mark.parametrize("kind", ["thread", "asyncio"])
def test_each_job_runs_with_its_names_handler_and_one_no_handler_takes_is_dead(
    queue: leaseq.Queue, kind: str
) -> None:
    fill_named(queue)
    calls: list[str] = []
    handlers, _ = table(kind, calls)
    report = run_until_settled(leaseq.Worker(queue, handlers, concurrency=2), queue)
    assert sorted(calls) == ["email e1 email", "email e2 email", "resize r1 resize"]
    assert (report.completed, report.dead, report.retried) == (3, 2, 0)
    result = queue.result("r1")
    assert result is not None and result.data == b"resize"
    unknown = queue.get("x1")
    assert unknown is not None and unknown.state == leaseq.State.DEAD
    assert unknown.error_type == "NoHandler" and unknown.attempts == 1
    assert unknown.error is not None
    assert '"unknown"' in unknown.error and "email, resize" in unknown.error
    nameless = queue.get("p1")
    assert nameless is not None and nameless.state == leaseq.State.DEAD
    assert nameless.error_type == "NoHandler"
    assert nameless.error is not None and nameless.error.startswith(
        "the job has no name"
    )


@pytest.mark.parametrize("kind", ["thread", "asyncio"])
def test_a_fallback_runs_the_jobs_no_name_takes(queue: leaseq.Queue, kind: str) -> None:
    fill_named(queue)
    calls: list[str] = []
    handlers, fallback = table(kind, calls)
    worker = leaseq.Worker(queue, handlers, fallback=fallback)
    report = run_until_settled(worker, queue)
    assert sorted(calls) == [
        "email e1 email",
        "email e2 email",
        "fallback p1 None",
        "fallback x1 unknown",
        "resize r1 resize",
    ]
    assert (report.completed, report.dead) == (5, 0)
    result = queue.result("x1")
    assert result is not None and result.data == b"fallback"


def test_a_fallback_alone_takes_every_job(queue: leaseq.Queue) -> None:
    fill_named(queue)
    calls: list[str] = []
    _, fallback = table("thread", calls)
    report = run_until_settled(leaseq.Worker(queue, {}, fallback=fallback), queue)
    assert report.completed == 5 and len(calls) == 5
    assert {call.split()[0] for call in calls} == {"fallback"}


def test_a_bad_table_is_refused_naming_handlers_before_anything_runs(
    queue: leaseq.Queue, r: redis.Redis
) -> None:
    queue.add(named("a", "email"))

    def f(_job: leaseq.worker.Job) -> None:
        raise AssertionError("no handler runs")

    async def g(_job: leaseq.worker.Job) -> None:
        raise AssertionError("no handler runs")

    # The core's checks, as run() starts (the refusal of leaseq::worker, mapped as usual).
    for handlers, why in [
        ({}, "at least one"),
        ({"email": f, "": f}, "must not be empty"),
        ({"line\nbreak": f}, "control characters"),
        ({"n" * (leaseq.MAX_NAME_LEN + 1): f}, "at most"),
    ]:
        with pytest.raises(leaseq.InvalidArgumentError) as refused:
            leaseq.Worker(queue, handlers).run()
        assert refused.value.argument == "handlers", handlers
        assert why in str(refused.value), str(refused.value)
    with pytest.raises(leaseq.InvalidArgumentTypeError) as wrong:
        leaseq.Worker(queue, {b"email": f}).run()  # type: ignore[dict-item]
    assert wrong.value.argument == "handlers"
    # Python's own, as the Worker is made: what is not callable, async mixed with plain.
    made: list[tuple[Any, Any, str]] = [
        ({"email": "f"}, None, "handlers"),
        ({"email": f, "resize": g}, None, "handlers"),
        ({"email": g}, f, "handlers"),
        ({"email": f}, "f", "fallback"),
        (f, f, "fallback"),
    ]
    for handlers, fallback, argument in made:
        with pytest.raises(leaseq.InvalidArgumentError) as refused:
            leaseq.Worker(queue, handlers, fallback=fallback)
        assert refused.value.argument == argument, (handlers, fallback)
    job = queue.get("a")
    assert job is not None and job.state == leaseq.State.WAITING and job.attempts == 0
    assert r.keys(f"{queue.prefix}:worker*") == [], "no runner registered"


HANDLERS_MODULE = textwrap.dedent(
    """
    import os

    def record(label):
        def handler(job):
            with open(os.environ["MARK"], "a") as f:
                f.write(f"{label}:{job.id}\\n")
        return handler

    HANDLERS = {"email": record("email"), "resize": record("resize")}
    other = record("other")
    """
)


@pytest.mark.parametrize("fallback", [False, True])
def test_python_m_leaseq_worker_takes_a_dict_of_handlers(
    tmp_path: Path, client: leaseq.Client, url: str, fallback: bool
) -> None:
    queue = client.queue(new_prefix())
    fill_named(queue)
    (tmp_path / "named_mod.py").write_text(HANDLERS_MODULE)
    mark = tmp_path / "ran"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "leaseq",
            "worker",
            "named_mod:HANDLERS",
            *(["--fallback", "named_mod:other"] if fallback else []),
            "--queue",
            queue.prefix,
            "--url",
            url,
        ],
        cwd=tmp_path,
        env=dict(os.environ, MARK=str(mark), PYTHONPATH=str(tmp_path)),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while queue.count("waiting") + queue.count("leased") > 0:
            assert time.monotonic() < deadline, "not drained"
            assert proc.poll() is None, proc.communicate()[0]
            time.sleep(0.05)
    finally:
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0, out
    ran = sorted(mark.read_text().split())
    named_runs = ["email:e1", "email:e2", "resize:r1"]
    if fallback:
        assert ran == sorted([*named_runs, "other:x1", "other:p1"])
        assert queue.count("dead") == 0
    else:
        assert ran == named_runs
        dead = queue.get("x1")
        assert dead is not None and dead.error_type == "NoHandler"
        assert queue.count("dead") == 2
