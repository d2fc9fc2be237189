import asyncio
import os

import leaseq
import leaseq.aio


async def main() -> None:
    url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379")
    async with leaseq.aio.Client(url) as client:
        queue = client.queue("{emails}")
        worker = asyncio.create_task(queue.lease(ttl=30.0, timeout=5.0))
        await queue.add(leaseq.Item.from_json({"to": "b@example.com"}, id="mail-b"))
        lease = await worker
        if lease is not None:
            print(lease.json())
            assert await queue.complete(lease, result="sent")
        print(await queue.result("mail-b"))


asyncio.run(main())
