"""The asyncio face of leaseq: the same names as :mod:`leaseq`, with awaitable methods.

Calls run on a small I/O runtime inside leaseq (no Python threads are involved), so a waiting
``lease`` costs one socket and no thread. Cancelling the awaiting task stops the wait::

    async with leaseq.aio.Client(url) as client:
        queue = client.queue("{emails}")
        await queue.add(leaseq.Item(b"hello"))
        lease = await queue.lease(ttl=30.0, timeout=5.0)

``Client(url)`` connects before returning (one round trip, without the GIL).
"""

from __future__ import annotations

import atexit
from collections.abc import Iterable, Sequence
from types import TracebackType

from leaseq import _native
from leaseq._native import CleanReport, Item, Lease
from leaseq.errors import (
    ClosedError,
    InvalidArgumentError,
    InvalidArgumentTypeError,
    JsonError,
    LeaseqConnectionError,
    LeaseqError,
    LeaseqTimeoutError,
    RedisError,
    WrongTypeError,
)

# Stop the I/O runtime before the interpreter finalizes, so that none of its threads hands a
# result to asyncio while Python is being torn down.
atexit.register(_native._shutdown)

__all__ = [
    "CleanReport",
    "Client",
    "ClosedError",
    "InvalidArgumentError",
    "InvalidArgumentTypeError",
    "Item",
    "JsonError",
    "Lease",
    "LeaseqConnectionError",
    "LeaseqError",
    "LeaseqTimeoutError",
    "Queue",
    "RedisError",
    "WrongTypeError",
]


class Queue:
    """One queue: the keys under one prefix. Get it from :meth:`Client.queue`."""

    __slots__ = ("_native",)

    def __init__(self, native: _native.AsyncQueue) -> None:
        self._native = native

    @property
    def prefix(self) -> str:
        """The prefix of this queue's keys."""
        return self._native.prefix

    async def add(self, item: Item) -> bool:
        """Adds ``item`` unless an item with its id exists; returns whether it was added."""
        return await self._native.add(item)

    async def add_unique(self, item: Item) -> None:
        """Adds ``item`` without checking whether its id exists (for fresh ids)."""
        await self._native.add_unique(item)

    async def add_batch(self, items: Iterable[Item]) -> int:
        """Adds every item whose id does not exist yet, in one round trip; returns how many."""
        return await self._native.add_batch(items)

    async def lease(
        self, ttl: float = 30.0, block: bool = True, timeout: float | None = None
    ) -> Lease | None:
        """Leases the next item for ``ttl`` seconds, or returns ``None``.

        ``block=False`` returns at once; otherwise it waits up to ``timeout`` seconds
        (``None``: until an item comes, the client is closed, or the task is cancelled).
        """
        return await self._native.lease(ttl, block, timeout)

    async def complete(self, lease: Lease) -> bool:
        """Completes the leased item; ``True`` for exactly one caller per item."""
        return await self._native.complete(lease)

    async def complete_and_lease(
        self, lease: Lease, ttl: float = 30.0
    ) -> tuple[bool, Lease | None]:
        """Completes ``lease`` and leases the next item (no wait) in one round trip."""
        return await self._native.complete_and_lease(lease, ttl)

    async def renew(self, lease: Lease, ttl: float = 30.0) -> bool:
        """Extends the lease to ``ttl`` seconds from now while it is still this holder's."""
        return await self._native.renew(lease, ttl)

    async def light_clean(self) -> CleanReport:
        """Re-queues items whose lease is gone; drops ids of complete items."""
        return await self._native.light_clean()

    async def deep_clean(self) -> CleanReport:
        """``light_clean`` plus items on no list at all; walks every key of the queue."""
        return await self._native.deep_clean()

    async def queue_len(self) -> int:
        """How many ids wait in the queue."""
        return await self._native.queue_len()

    async def processing_len(self) -> int:
        """How many ids are in processing."""
        return await self._native.processing_len()

    def __repr__(self) -> str:
        return f"leaseq.aio.Queue(prefix={self.prefix!r})"


class Client:
    """A connection to one Redis server (``Client(url)``) or a Redis Cluster
    (``Client.cluster(urls)``), shared by its queues. Use it with ``async with`` or call
    :meth:`close`. A client used in a forked child reconnects by itself."""

    __slots__ = ("_native",)

    def __init__(self, url: str) -> None:
        self._native = _native.AsyncClient(url)

    @classmethod
    def cluster(cls, urls: Sequence[str]) -> Client:
        """Connects to a Redis Cluster; queue prefixes must then carry a ``{hash tag}``."""
        client = cls.__new__(cls)
        client._native = _native.AsyncClient.cluster(urls)
        return client

    def queue(self, prefix: str) -> Queue:
        """The queue whose keys live under ``prefix`` (validated here; nothing is sent)."""
        return Queue(self._native.queue(prefix))

    def close(self) -> None:
        """Closes the client: waiting leases raise ``ClosedError``, as does every later call."""
        self._native.close()

    @property
    def is_cluster(self) -> bool:
        """Whether this client talks to a Redis Cluster."""
        return self._native.is_cluster

    @property
    def warnings(self) -> list[str]:
        """Risks found in the server's configuration when connecting."""
        return self._native.warnings

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
