import os

import leaseq
from leaseq.worker import Job

url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379")
with leaseq.Client(url) as client:
    # One logical queue stored as three partitions, each a full queue on a hash tag of its
    # own: on a Redis Cluster (leaseq.Client.cluster) they spread over the primaries. The base
    # needs a hash tag.
    queue = client.create_partitioned("{thumbnails}", 3)
    print(f"{len(queue.partitions)} partitions")
    # Every transition recorded in its partition's event stream (off by default).
    queue.set_config(events=True)

    # Items go to a partition by their group, else their id; the batch is split per partition.
    added = queue.add_batch(
        [leaseq.Item(f"photo-{i}.png", id=f"p{i}") for i in range(9)]
    )
    stats = queue.stats()
    print(f"added {added}: {stats.total.waiting} waiting")

    def resize(job: Job) -> None:
        pass  # each job is finished in the partition it came from

    # One runner over every partition, asked in a rotating order.
    worker = leaseq.Worker(queue, resize, concurrency=4)

    def stop_when_drained(*_: object) -> None:
        total = queue.stats().total
        if total.waiting + total.leased == 0:
            worker.stop()

    worker.on("*", stop_when_drained)
    report = worker.run()
    print(f"{report.completed} completed")

    # Every partition's stream, followed as one ("0-0": from the oldest entry kept); each
    # entry names its partition, and follower.position resumes after all of them.
    follower = queue.events(after="0-0")
    kinds: dict[str, int] = {}
    for _ in range(27):
        event = next(follower)
        kinds[event.event] = kinds.get(event.event, 0) + 1
    print(", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items())))
