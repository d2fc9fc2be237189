"""Dependencies and flows (issue 26, spec/PROTOCOL.md 5.24): an item that waits for others of
its queue, each failure policy, a flow whose parent reads its children's results, what ``get``
and ``dependencies`` say, bad input refused naming the argument; sync and asyncio."""

from __future__ import annotations

import asyncio

import leaseq
import leaseq.aio
import pytest
from conftest import new_prefix


def item(id: str, **options: object) -> leaseq.Item:
    return leaseq.Item(id.encode(), id=id, **options)  # type: ignore[arg-type]


def test_a_dependant_waits_for_every_dependency(queue: leaseq.Queue) -> None:
    queue.add(item("a"))
    queue.add(item("b"))
    assert queue.add(item("c", depends_on=["a", "b"]))
    job = queue.get("c")
    assert job is not None and job.state == leaseq.State.BLOCKED
    assert job.depends_on == ["a", "b"] and job.on_dependency_failure == "fail"
    assert queue.count(leaseq.State.BLOCKED) == 1
    assert queue.stats().blocked == 1
    deps = queue.dependencies("c")
    assert sorted(deps.pending) == ["a", "b"] and deps.on_dependency_failure == "fail"
    assert queue.dependencies("a").dependants == ["c"]
    a, b = queue.lease(), queue.lease()
    assert a is not None and b is not None and queue.lease() is None
    assert queue.complete(a)
    assert queue.lease() is None, "c still waits for b"
    assert queue.complete(b)
    c = queue.lease()
    assert c is not None and c.id == "c"


def test_each_failure_policy(queue: leaseq.Queue) -> None:
    queue.add(item("a"))
    queue.add(item("f", depends_on=["a"]))
    queue.add(item("r", depends_on=["a"], on_dependency_failure="run"))
    a = queue.lease()
    assert a is not None
    queue.fail(a, "boom", retry=False)
    job = queue.get("f")
    assert job is not None and job.state == leaseq.State.DEAD
    assert job.dead_reason == "dependency a is dead"
    r = queue.lease()
    assert r is not None and r.id == "r"


def test_a_flow_runs_children_first_and_the_parent_reads_their_results(
    queue: leaseq.Queue,
) -> None:
    tree = leaseq.Flow(item("mid"), [item("leaf")])
    assert queue.add_flow(item("root"), [tree, item("side")]) == 4
    done: list[str] = []
    while (lease := queue.lease()) is not None:
        done.append(lease.id)
        if lease.id == "root":
            assert queue.dependency_results("root") == [
                ("mid", b"mid!"),
                ("side", None),
            ]
            assert queue.complete(lease)
        elif lease.id == "mid":
            assert queue.dependency_results("mid") == [("leaf", b"leaf!")]
            assert queue.complete(lease, result=b"mid!")
        elif lease.id == "leaf":
            assert queue.complete(lease, result=b"leaf!")
        else:
            assert queue.complete(lease)
    assert done.index("leaf") < done.index("mid") < done.index("root")
    assert done[-1] == "root"


def test_a_runners_parent_job_reads_its_childrens_results(queue: leaseq.Queue) -> None:
    # As BullMQ's job.getChildrenValues(): the parent's handler asks its own job.
    assert queue.add_flow(item("root"), [item("a"), item("b")]) == 3

    def handler(job: leaseq.worker.Job) -> str:
        if job.id != "root":
            return f"{job.id}!"
        return ";".join(f"{dep}={r!r}" for dep, r in job.dependency_results())

    worker = leaseq.Worker(queue, handler)

    def listener(name: str, job_id: object, _detail: object) -> None:
        if name == "completed" and job_id == "root":
            worker.stop()

    worker.on("*", listener)
    worker.run()
    result = queue.result("root")
    assert result is not None
    assert result.data == b"a=b'a!';b=b'b!'"


def test_bad_dependencies_are_refused_naming_the_argument(queue: leaseq.Queue) -> None:
    with pytest.raises(leaseq.InvalidArgumentError) as refused:
        item("a", depends_on=["a"])
    assert refused.value.argument == "depends_on"
    with pytest.raises(leaseq.InvalidArgumentError) as refused:
        item("a", on_dependency_failure="maybe")
    assert refused.value.argument == "on_dependency_failure"
    with pytest.raises(leaseq.InvalidArgumentError) as refused:
        queue.add_batch([item("p", depends_on=["q"]), item("q", depends_on=["p"])])
    assert refused.value.argument == "depends_on"
    with pytest.raises(leaseq.InvalidArgumentError) as refused:
        queue.add_flow(item("p"), [item("c"), item("c")])
    assert refused.value.argument == "children"
    with pytest.raises(TypeError):
        queue.add_flow(item("p"), ["not an item"])  # type: ignore[list-item]
    assert queue.count(leaseq.State.WAITING) == 0
    assert queue.count(leaseq.State.BLOCKED) == 0


def test_asyncio_flows_and_dependencies(url: str) -> None:
    async def main() -> None:
        async with leaseq.aio.Client(url) as client:
            q = client.queue(new_prefix())
            assert await q.add_flow(item("p"), [item("k")]) == 2
            deps = await q.dependencies("p")
            assert deps.pending == ["k"]
            kid = await q.lease()
            assert kid is not None and kid.id == "k"
            assert await q.complete(kid, result=b"42")
            parent = await q.lease()
            assert parent is not None and parent.id == "p"
            assert await q.dependency_results("p") == [("k", b"42")]

    asyncio.run(main())
