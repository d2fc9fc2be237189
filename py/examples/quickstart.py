import os

import leaseq

url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379")
with leaseq.Client(url) as client:
    queue = client.queue("{quickstart}")

    # A producer adds an item: JSON here, any bytes in general.
    queue.add(leaseq.Item.from_json({"to": "ada@example.com"}))

    # A worker leases it for 30 s, waiting up to 1 s for one, and completes it with a result.
    # Had the worker died instead, the lease would expire and the item come back.
    lease = queue.lease(ttl=30, timeout=1)
    if lease is not None:
        print(f"sending to {lease.json()['to']} (attempt {lease.attempt})")
        assert queue.complete(lease, result=b"sent")

        # Anyone may read the result (or wait for it: wait_result).
        result = queue.result(lease.id)
        assert result is not None
        print(f"result: {result.data.decode()}")
