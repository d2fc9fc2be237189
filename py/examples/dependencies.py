import os

import leaseq

url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379")
with leaseq.Client(url) as client:
    queue = client.queue("{reports}")

    # A flow: a report and the two parts it is built from, in one call. The parts run first.
    parts = [leaseq.Item(b"eu", id="part-eu"), leaseq.Item(b"us", id="part-us")]
    queue.add_flow(leaseq.Item(b"march", id="report"), parts)
    # Any item may wait for others of its queue; by default it dies if one of them dies.
    queue.add(leaseq.Item(b"send the report", id="email", depends_on=["report"]))
    print("email waits for", queue.dependencies("email").pending)

    while (lease := queue.lease()) is not None:
        if lease.id == "report":
            # The children's kept results, in order, in one round trip.
            results = queue.dependency_results(lease.id)
            print(
                "report from", ", ".join(f"{id}={r.decode()}" for id, r in results if r)
            )
            queue.complete(lease)
        elif lease.id == "email":
            print("email sent after the report")
            queue.complete(lease)
        else:
            print("part", lease.data.decode())
            queue.complete(lease, result=f"{len(lease.data) * 21} sales")
