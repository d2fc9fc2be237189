import os

import leaseq

url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379")
with leaseq.Client(url) as client:
    queue = client.queue("{orders}")
    # Off by default: on, every transition of an item is appended to the queue's stream.
    queue.set_config(events=True)

    # A follower from now: any process, in any language, can follow the same stream.
    follower = queue.events()
    queue.add(leaseq.Item(b"{}", id="order-1", name="ship"))
    lease = queue.lease()
    if lease is not None:
        queue.complete(lease)
    seen = ""
    for _ in range(3):
        event = next(follower)  # waits for it
        print(f"{event.event} {event.job_id} (attempt {event.attempt})")
        seen = event.id  # store it to resume after it

    # Later, in a process that restarted: what happened after the last entry it saw.
    queue.add(leaseq.Item(b"{}", id="order-2"))
    for event in queue.read_events(after=seen).events:
        print(f"since then: {event.event} {event.job_id}")
    queue.cancel("order-2")  # the example's own: a second run starts as the first did
