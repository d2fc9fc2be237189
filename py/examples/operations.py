import os

import leaseq

url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379")
with leaseq.Client(url) as client:  # or leaseq.Client.cluster([url, ...])
    queue = client.queue("{emails}")

    # Producers: data is bytes or str; Item.from_json encodes JSON. ids are random UUIDs
    # unless you pass id="...": add returns False when that id already exists.
    queue.add(leaseq.Item.from_json({"to": "a@example.com"}))
    assert queue.add(leaseq.Item(b"report 7", id="report-7"))
    assert not queue.add(leaseq.Item(b"report 7 again", id="report-7"))
    assert queue.add_batch([leaseq.Item(f"job {i}") for i in range(3)]) == 3

    # A worker: lease for 30 s (the default TTL is leaseq.DEFAULT_TTL), waiting up to 1 s for
    # work (no timeout: no wait; timeout=leaseq.FOREVER: until an item comes), renew while
    # busy, complete when done.
    lease = queue.lease(ttl=30.0, timeout=1.0)
    while lease is not None:
        print(f"{lease.id} (attempt {lease.attempt}): {lease.data!r}")
        assert queue.renew(lease, ttl=30.0), "still ours"
        completed, lease = queue.complete_and_lease(lease, ttl=30.0)
        assert completed

    # A cleaner, where nobody leases (leases recover expired leases themselves).
    report = queue.light_clean()
    print(f"re-queued {report.requeued}, removed {report.removed}")
    print(queue.count("waiting"), queue.count("leased"))
