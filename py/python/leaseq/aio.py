"""The asyncio face of leaseq: the same names as :mod:`leaseq`, with awaitable methods.

Calls run on a small I/O runtime inside leaseq (no Python threads are involved), so a waiting
``lease`` costs one socket and no thread. Cancelling the awaiting task stops the wait::

    async with leaseq.aio.Client(url) as client:
        queue = client.queue("{emails}")
        await queue.add(leaseq.Item(b"hello"))
        lease = await queue.lease(ttl=30.0, timeout=5.0)

``Client(url)`` only checks the URL; ``async with`` (or the first call) connects, off the event
loop.
"""

from __future__ import annotations

import atexit
import builtins
from collections.abc import Iterable, Sequence
from datetime import timedelta
from types import TracebackType

from leaseq import _native
from leaseq._native import (
    DEFAULT_BACKOFF,
    DEFAULT_DEAD_MAX_AGE,
    DEFAULT_DEAD_MAX_COUNT,
    DEFAULT_KEEP_RESULT,
    DEFAULT_MAX_ATTEMPTS,
    DEFAULT_TTL,
    FOREVER,
    MAX_DATA_LEN,
    MAX_DURATION,
    MAX_GROUP_LEN,
    MAX_ID_LEN,
    MAX_NAME_LEN,
    MAX_PAGE,
    MAX_PREFIX_LEN,
    MAX_PRIORITY,
    MAX_TTL,
    Backoff,
    CleanReport,
    Dependencies,
    Entry,
    EventsPage,
    FailOutcome,
    FireReport,
    Flow,
    Found,
    GroupInfo,
    Item,
    Job,
    JobResult,
    Lease,
    Minute,
    NameCounts,
    PartitionedStats,
    QueueConfig,
    QueueEvent,
    RateLimit,
    Schedule,
    ScheduleInfo,
    SchedulePage,
    Stats,
)
from leaseq.batch import Completion, CompletionLike, Failure, FailureLike
from leaseq.enums import RenewOutcome, State
from leaseq.errors import (
    ClosedError,
    InvalidArgumentError,
    InvalidArgumentTypeError,
    JobDeadError,
    JsonError,
    LeaseqConnectionError,
    LeaseqError,
    LeaseqTimeoutError,
    OutOfMemoryError,
    QueueFullError,
    RedisError,
    UnavailableError,
    WrongTypeError,
)
from leaseq.worker import (
    RateLimited,
    Release,
    RetryLater,
    Unrecoverable,
    Worker,
    WorkerReport,
)

# Stop the I/O runtime before the interpreter finalizes, so that none of its threads hands a
# result to asyncio while Python is being torn down.
atexit.register(_native._shutdown)

__all__ = [
    "DEFAULT_BACKOFF",
    "DEFAULT_DEAD_MAX_AGE",
    "DEFAULT_DEAD_MAX_COUNT",
    "DEFAULT_KEEP_RESULT",
    "DEFAULT_MAX_ATTEMPTS",
    "DEFAULT_TTL",
    "FOREVER",
    "MAX_DATA_LEN",
    "MAX_DURATION",
    "MAX_GROUP_LEN",
    "MAX_ID_LEN",
    "MAX_NAME_LEN",
    "MAX_PAGE",
    "MAX_PREFIX_LEN",
    "MAX_PRIORITY",
    "MAX_TTL",
    "Backoff",
    "CleanReport",
    "Client",
    "ClosedError",
    "Completion",
    "Dependencies",
    "Entry",
    "EventsPage",
    "FailOutcome",
    "Failure",
    "FireReport",
    "Flow",
    "Found",
    "GroupInfo",
    "InvalidArgumentError",
    "InvalidArgumentTypeError",
    "Item",
    "Job",
    "JobDeadError",
    "JobResult",
    "JsonError",
    "Lease",
    "LeaseqConnectionError",
    "LeaseqError",
    "LeaseqTimeoutError",
    "Minute",
    "NameCounts",
    "OutOfMemoryError",
    "PartitionedQueue",
    "PartitionedStats",
    "Queue",
    "QueueConfig",
    "QueueEvent",
    "QueueFullError",
    "RateLimit",
    "RateLimited",
    "RedisError",
    "Release",
    "RenewOutcome",
    "RetryLater",
    "Schedule",
    "ScheduleInfo",
    "SchedulePage",
    "State",
    "Stats",
    "UnavailableError",
    "Unrecoverable",
    "Worker",
    "WorkerReport",
    "WrongTypeError",
]


class EventFollower:
    """An asyncio follower of an event stream (:meth:`Queue.events`,
    :meth:`PartitionedQueue.events`): ``async for event in follower`` yields each
    :class:`leaseq.QueueEvent` in order, waiting for the next; ``position`` is where to resume
    (pass it as ``after``)."""

    __slots__ = ("_closed", "_native")

    def __init__(self, native: _native.AsyncEvents) -> None:
        self._native = native
        self._closed = False

    def __aiter__(self) -> EventFollower:
        return self

    async def __anext__(self) -> QueueEvent:
        if self._closed:
            raise StopAsyncIteration
        event = await self._native.next()
        if event is None:
            raise StopAsyncIteration
        return event

    async def aclose(self) -> None:
        """Ends the follower: iterating it is done (a ``__anext__`` waiting now too), and its
        server-side waits end now. Cancelling a waiting ``__anext__`` stops that call only: the
        follower keeps its waits for the next one."""
        self._closed = True
        self._native.close()

    @property
    def position(self) -> str | None:
        """Where to resume (``None`` before the first entry): a queue's follower gives the id
        of the last entry given; a partitioned queue's, an id per partition joined by ``,``."""
        return self._native.position

    def __repr__(self) -> str:
        return f"leaseq.aio.EventFollower(position={self.position!r})"


class Queue:
    """One queue: the keys under one prefix. Get it from :meth:`Client.queue`. Each method is
    :class:`leaseq.Queue`'s, awaitable; see there for the details."""

    __slots__ = ("_native",)

    def __init__(self, native: _native.AsyncQueue) -> None:
        self._native = native

    @property
    def prefix(self) -> str:
        """The prefix of this queue's keys."""
        return self._native.prefix

    async def add(self, item: Item, timeout: float | timedelta | None = None) -> bool:
        """Adds ``item`` (with its options) unless an item with its id exists; returns whether
        it was added. A full bounded queue raises ``QueueFullError`` at once, or with
        ``timeout`` (``FOREVER``: no limit) after waiting that long for room."""
        return await self._native.add(item, timeout)

    async def add_unique(self, item: Item) -> None:
        """Adds ``item`` without checking whether its id exists (for fresh ids)."""
        await self._native.add_unique(item)

    async def add_batch(
        self, items: Iterable[Item], timeout: float | timedelta | None = None
    ) -> int:
        """Adds every item whose id does not exist yet, in one round trip; returns how many.
        A bounded queue takes the batch whole or not at all; ``timeout`` waits for room as
        ``add`` does."""
        return await self._native.add_batch(items, timeout)

    async def lease(
        self,
        ttl: float | timedelta | None = None,
        timeout: float | timedelta | None = None,
        *,
        block: bool | None = None,
    ) -> Lease | None:
        """Leases the next item for ``ttl`` (``None``: ``DEFAULT_TTL``), or returns ``None``.

        By default it does not wait; ``timeout`` waits up to that long, ``timeout=FOREVER``
        until an item comes, the client is closed, or the task is cancelled. ``block`` is the
        older spelling (``block=True`` without a timeout waits forever).
        """
        return await self._native.lease(ttl, timeout, block=block)

    async def lease_batch(
        self,
        n: int,
        ttl: float | timedelta | None = None,
        timeout: float | timedelta | None = None,
    ) -> builtins.list[Lease]:
        """Leases up to ``n`` items (1 to 1000) in one round trip; waits as ``lease`` does."""
        return await self._native.lease_batch(n, ttl, timeout)

    async def complete(
        self,
        lease: Lease,
        result: bytes | bytearray | str | None = None,
        keep_result_for: float | timedelta | None = None,
    ) -> bool:
        """Completes the leased item, keeping ``result`` if given; ``True`` for exactly one
        caller per item."""
        return await self._native.complete(lease, result, keep_result_for)

    async def complete_and_lease(
        self,
        lease: Lease,
        ttl: float | timedelta | None = None,
        result: bytes | bytearray | str | None = None,
        keep_result_for: float | timedelta | None = None,
    ) -> tuple[bool, Lease | None]:
        """Completes ``lease`` (keeping ``result`` if given, as ``complete`` does) and leases
        the next item (no wait) in one round trip."""
        return await self._native.complete_and_lease(
            lease, ttl, result, keep_result_for
        )

    async def renew(self, lease: Lease, ttl: float | timedelta | None = None) -> bool:
        """Extends the lease to ``ttl`` from now while it is still this holder's."""
        return await self._native.renew(lease, ttl)

    async def renew_outcome(
        self, lease: Lease, ttl: float | timedelta | None = None
    ) -> RenewOutcome:
        """Like ``renew``, returning a ``RenewOutcome`` that says why a renewal failed."""
        return await self._native.renew_outcome(lease, ttl)

    async def fail(
        self,
        lease: Lease,
        error: str | BaseException,
        error_type: str | None = None,
        retry: bool | float | timedelta = True,
        trace: str | None = None,
    ) -> FailOutcome:
        """Records a failed attempt: retried after the backoff (``retry=True``), after a delay
        (``retry=<seconds>``), or dead now (``retry=False``); ``trace`` (default: a raised
        exception's traceback) is kept with the item, shown by ``get``."""
        return await self._native.fail(lease, error, error_type, retry, trace)

    async def release(
        self, lease: Lease, delay: float | timedelta | None = None
    ) -> bool:
        """Hands the item back without counting a failure, at once or after ``delay``."""
        return await self._native.release(lease, delay)

    async def progress(self, lease: Lease, value: bytes | bytearray | str) -> bool:
        """Stores a small progress value on the leased item, shown by ``get``."""
        return await self._native.progress(lease, value)

    def lease_from_parts(
        self, id: str, token: str, incarnation: str, attempt: int
    ) -> Lease:
        """A lease rebuilt from its id, token, incarnation and attempt (nothing is sent)."""
        return self._native.lease_from_parts(id, token, incarnation, attempt)

    async def complete_batch(
        self, completions: Iterable[CompletionLike]
    ) -> builtins.list[bool]:
        """Completes many leases (at most 1000) in one round trip, each a ``Lease`` or a
        :class:`Completion` (``complete``'s arguments); returns, in order, whether each
        completed its item."""
        return await self._native.complete_batch(completions)

    async def complete_and_lease_batch(
        self,
        completions: Iterable[CompletionLike],
        n: int,
        ttl: float | timedelta | None = None,
    ) -> tuple[builtins.list[bool], builtins.list[Lease]]:
        """Completes ``completions`` (as ``complete_batch``) and leases up to ``n`` more items
        (no wait) in one round trip; returns ``(completed, leases)``."""
        return await self._native.complete_and_lease_batch(completions, n, ttl)

    async def renew_batch(
        self, leases: Iterable[Lease], ttl: float | timedelta | None = None
    ) -> builtins.list[RenewOutcome]:
        """Extends many leases (at most 1000) in one round trip; returns each one's
        ``RenewOutcome``, in order."""
        return await self._native.renew_batch(leases, ttl)

    async def fail_batch(
        self, failures: Iterable[FailureLike]
    ) -> builtins.list[FailOutcome]:
        """Records many failed attempts (at most 1000), each a :class:`Failure` (``fail``'s
        arguments), in one round trip; returns their outcomes in order."""
        return await self._native.fail_batch(failures)

    async def result(self, id: bytes | str) -> JobResult | None:
        """The result kept for item ``id`` (``bytes`` or ``str``), or ``None``."""
        return await self._native.result(id)

    async def wait_result(
        self, id: bytes | str, timeout: float | timedelta
    ) -> JobResult | None:
        """Waits server-side up to ``timeout`` for item ``id``'s result (``timeout=FOREVER``:
        until it comes; ``0``: only reads it); ``None`` if none came. Cancelling
        the task stops the wait."""
        return await self._native.wait_result(id, timeout)

    async def get(self, id: bytes | str) -> Job | None:
        """Everything known about item ``id`` (``bytes`` or ``str``), or ``None``."""
        return await self._native.get(id)

    async def add_flow(self, parent: Item, children: Iterable[Item | Flow]) -> int:
        """Adds ``parent`` and its ``children`` (``Item``s, or ``Flow``s with children of their
        own; at most 1000 items in all) in one script call: the children first, then the
        parent, blocked until every child completed. Returns how many items were added."""
        return await self._native.add_flow(parent, children)

    async def dependencies(self, id: bytes | str) -> Dependencies:
        """What item ``id`` waits for and what waits for it."""
        return await self._native.dependencies(id)

    async def dependency_results(
        self, id: bytes | str
    ) -> builtins.list[tuple[str, bytes | None]]:
        """The kept results of the items ``id`` was added to wait for, in order:
        ``(dependency id, result bytes or None)``. A flow's parent reads its children's so."""
        return await self._native.dependency_results(id)

    async def list(
        self, state: State | str, start: int = 0, count: int = 100
    ) -> builtins.list[Entry]:
        """A page of the items in ``state`` (done: completed with their result kept, newest
        first)."""
        return await self._native.list(state, start, count)

    async def find(
        self,
        state: State | str,
        name: str | None = None,
        error_type: str | None = None,
        start: int = 0,
        count: int = 100,
    ) -> Found:
        """The items of ``state`` with this name and error type (``None``: any), among at most
        1000 positions from ``start``; ``Found.next`` is where the next call goes on."""
        return await self._native.find(state, name, error_type, start, count)

    async def promote(self, id: bytes | str) -> bool:
        """Makes the delayed item ``id`` wait now; returns whether it was delayed."""
        return await self._native.promote(id)

    async def upsert_schedule(self, name: str, schedule: Schedule) -> bool:
        """Stores the recurring job ``name`` (a ``Schedule``), new or replacing the one of that
        name; returns whether it is new."""
        return await self._native.upsert_schedule(name, schedule)

    async def remove_schedule(self, name: str) -> bool:
        """Removes the recurring job ``name`` (its items stay); returns whether there was one."""
        return await self._native.remove_schedule(name)

    async def get_schedule(self, name: str) -> ScheduleInfo | None:
        """The recurring job ``name`` with its next fire time, or ``None``."""
        return await self._native.get_schedule(name)

    async def schedules(self, start: int = 0, count: int = 100) -> SchedulePage:
        """``count`` recurring jobs from position ``start``, by next fire time."""
        return await self._native.schedules(start, count)

    async def fire_due_schedules(self) -> FireReport:
        """Fires the due recurring jobs once, as a runner's housekeeping does."""
        return await self._native.fire_due_schedules()

    async def count(self, state: State | str) -> int:
        """How many items are in ``state`` (done: the kept results)."""
        return await self._native.count(state)

    async def stats(self) -> Stats:
        """Counts per state, the oldest waiting item's age, per-minute counters (``None``
        while the queue's counters are off, the default; ``set_config(stats=True)``)."""
        return await self._native.stats()

    async def counts_by_name(self) -> builtins.list[NameCounts] | None:
        """For each item name met in the last hour, its jobs completed, failed and dead
        (``NameCounts``, sorted by name); ``None`` while the queue's counters are off."""
        return await self._native.counts_by_name()

    async def pause(self) -> bool:
        """Pauses the queue: nothing is leased from it until ``resume`` (adds go on); returns
        whether it was running."""
        return await self._native.pause()

    async def resume(self) -> bool:
        """Resumes a paused queue (waiting leases wake at once); returns whether it was
        paused."""
        return await self._native.resume()

    async def is_paused(self) -> bool:
        """Whether the queue is paused (also ``Stats.paused``)."""
        return await self._native.is_paused()

    async def exists(self) -> bool:
        """Whether the queue exists (any of its fixed keys does): ``False`` for a mistyped name,
        where ``count`` and ``stats`` answer zeros as for an empty queue."""
        return await self._native.exists()

    async def pause_group(self, group: str) -> bool:
        """Pauses one group: its items are not leased until ``resume_group`` (the queue goes
        on); returns whether it was running."""
        return await self._native.pause_group(group)

    async def resume_group(self, group: str) -> bool:
        """Resumes a paused group; returns whether it was paused."""
        return await self._native.resume_group(group)

    async def set_group_limit(self, group: str, limit: int | None = None) -> None:
        """Sets how many items of ``group`` may be leased at once (1 to 1000); ``None``: the
        queue's ``group_concurrency`` applies."""
        await self._native.set_group_limit(group, limit)

    async def group(self, group: str) -> GroupInfo:
        """One group at a glance: its waiting and leased items, its limit, whether it is
        paused, how long it waits for its rate limit's window."""
        return await self._native.group(group)

    async def rate_limit(self, duration: float | timedelta) -> timedelta:
        """Holds every client's leases off for ``duration`` (a handler was rate limited);
        returns how long leases are held off."""
        return await self._native.rate_limit(duration)

    async def rate_limit_group(
        self, group: str, duration: float | timedelta
    ) -> timedelta:
        """Holds one group's leases off for ``duration`` (its API was rate limited; the rest
        of the queue goes on); returns how long the group is held off."""
        return await self._native.rate_limit_group(group, duration)

    async def cancel(self, id: bytes | str) -> State | None:
        """Cancels item ``id``; returns the state it was in, or ``None``."""
        return await self._native.cancel(id)

    async def dead_requeue(self, ids: Iterable[bytes | str]) -> int:
        """Puts these dead items (ids ``bytes`` or ``str``) back to waiting; returns how
        many."""
        return await self._native.dead_requeue(ids)

    async def dead_requeue_each(
        self, ids: Iterable[bytes | str]
    ) -> builtins.list[bool]:
        """Like ``dead_requeue``, returning for each id, in order, whether it was requeued
        (``False``: not a dead letter)."""
        return await self._native.dead_requeue_each(ids)

    async def dead_requeue_oldest(self, n: int | None = None) -> int:
        """Requeues the ``n`` oldest dead items (``None``: all); returns how many."""
        return await self._native.dead_requeue_oldest(n)

    async def dead_purge(self, n: int | None = None) -> int:
        """Deletes the ``n`` oldest dead items (``None``: all); returns how many."""
        return await self._native.dead_purge(n)

    async def config(self) -> QueueConfig:
        """The queue's stored configuration."""
        return await self._native.config()

    async def set_config(  # noqa: PLR0913 - the configuration's fields, by keyword
        self,
        *,
        max_attempts: int | None = None,
        backoff: Backoff | None = None,
        priority: int | None = None,
        expires_after: float | timedelta | None = None,
        keep_result_for: float | timedelta | None = None,
        dead_max_count: int | None = None,
        dead_max_age: float | timedelta | None = None,
        stats: bool | None = None,
        capacity: int | None = None,
        rate_limit: RateLimit | None = None,
        group_concurrency: int | None = None,
        group_rate_limit: RateLimit | None = None,
        events: bool | None = None,
        events_max_len: int | None = None,
        events_max_age: float | timedelta | None = None,
    ) -> None:
        """Stores the given fields of the queue's configuration (``stats=True`` turns on the
        per-minute counters; ``capacity`` bounds the waiting and delayed items;
        ``rate_limit=RateLimit(max, per)`` allows ``max`` leases per ``per``;
        ``group_concurrency`` is how many items of a group may be leased at once;
        ``group_rate_limit=RateLimit(max, per)`` allows ``max`` leases of each group per
        ``per``)."""
        await self._native.set_config(
            max_attempts=max_attempts,
            backoff=backoff,
            priority=priority,
            expires_after=expires_after,
            keep_result_for=keep_result_for,
            dead_max_count=dead_max_count,
            dead_max_age=dead_max_age,
            stats=stats,
            capacity=capacity,
            rate_limit=rate_limit,
            group_concurrency=group_concurrency,
            group_rate_limit=group_rate_limit,
            events=events,
            events_max_len=events_max_len,
            events_max_age=events_max_age,
        )

    async def reset_config(self) -> None:
        """Removes the stored configuration: the defaults apply again."""
        await self._native.reset_config()

    async def light_clean(self) -> CleanReport:
        """Promotes due items, recovers expired leases, trims dead letters, re-queues what
        redis-work-queue clients left."""
        return await self._native.light_clean()

    async def deep_clean(self) -> CleanReport:
        """``light_clean`` plus items on no list at all; walks every key of the queue."""
        return await self._native.deep_clean()

    async def queue_len(self) -> int:
        """How many items wait, at every priority: the same as ``count("waiting")``."""
        return await self._native.queue_len()

    async def processing_len(self) -> int:
        """How many items are being processed: leased by leaseq (``count("leased")``) plus
        those in redis-work-queue's processing list."""
        return await self._native.processing_len()

    async def read_events(
        self, after: str | None = None, count: int = 100
    ) -> EventsPage:
        """One page of the queue's event stream, without waiting (see
        :meth:`leaseq.Queue.read_events`)."""
        return await self._native.read_events(after, count)

    async def events(self, after: str | None = None) -> EventFollower:
        """Follows the queue's event stream from now, or after the entry id ``after``:
        ``async for event in await queue.events()`` yields each :class:`leaseq.QueueEvent` in
        order, waiting for the next (see :meth:`leaseq.Queue.events`). "Now" is when this
        call returns; cancelling the task stops the wait."""
        follower = await self._native.events(after)
        return EventFollower(follower)

    def __repr__(self) -> str:
        return f"leaseq.aio.Queue(prefix={self.prefix!r})"


class PartitionedQueue:
    """One logical queue stored as partitions (``Client.create_partitioned``,
    ``Client.partitioned``), as :class:`leaseq.PartitionedQueue` with awaitable methods."""

    __slots__ = ("_native",)

    def __init__(self, native: _native.AsyncPartitionedQueue) -> None:
        self._native = native

    @property
    def base(self) -> str:
        """The base that names the logical queue."""
        return self._native.base

    @property
    def partitions(self) -> builtins.list[str]:
        """The partitions' prefixes, in order."""
        return self._native.partitions

    def partition(self, i: int) -> Queue:
        """Partition ``i`` as a :class:`Queue` (``InvalidArgumentError`` naming ``partition``
        when out of range); nothing is sent."""
        return Queue(self._native.partition(i))

    def partition_of(self, item: Item) -> int:
        """The index of the partition ``item`` goes to, as ``add`` routes it (nothing is
        sent)."""
        return self._native.partition_of(item)

    def queue_of(self, lease: Lease) -> Queue:
        """The partition that issued ``lease``, as a :class:`Queue` (nothing is sent): to
        finish it in ways this class does not offer (``renew``, ``release``, ``progress``)."""
        return Queue(self._native.queue_of(lease))

    async def add(self, item: Item, timeout: float | timedelta | None = None) -> bool:
        """Adds ``item`` to its partition unless an item with its id exists there; a full
        bounded partition raises ``QueueFullError`` at once, or with ``timeout`` after waiting
        that long for room."""
        return await self._native.add(item, timeout)

    async def add_unique(self, item: Item) -> None:
        """Adds ``item`` to its partition, routed as ``add`` routes it, without checking whether
        its id exists there (for fresh ids)."""
        await self._native.add_unique(item)

    async def add_batch(
        self, items: Iterable[Item], timeout: float | timedelta | None = None
    ) -> int:
        """Adds every item whose id does not exist yet in its partition; how many were added.
        ``timeout`` waits for room in each bounded partition as ``add`` does."""
        return await self._native.add_batch(items, timeout)

    async def add_flow(self, parent: Item, children: Iterable[Item | Flow]) -> int:
        """Adds ``parent`` and its ``children``, the whole flow to the parent's partition."""
        return await self._native.add_flow(parent, children)

    async def lease(
        self,
        ttl: float | timedelta | None = None,
        timeout: float | timedelta | None = None,
        *,
        block: bool | None = None,
    ) -> Lease | None:
        """Leases one item from any partition, asked in a rotating order, or returns ``None``;
        a wait covers every partition and is cancelled with the awaiting task (``block`` as
        :meth:`Queue.lease`)."""
        return await self._native.lease(ttl, timeout, block=block)

    async def lease_batch(
        self,
        n: int,
        ttl: float | timedelta | None = None,
        timeout: float | timedelta | None = None,
    ) -> builtins.list[Lease]:
        """Leases up to ``n`` items (1 to 1000) from as many partitions as it takes."""
        return await self._native.lease_batch(n, ttl, timeout)

    async def complete(
        self,
        lease: Lease,
        result: bytes | bytearray | str | None = None,
        keep_result_for: float | timedelta | None = None,
    ) -> bool:
        """Completes ``lease`` in its own partition (a result kept as ``Queue.complete``)."""
        return await self._native.complete(lease, result, keep_result_for)

    async def fail(
        self,
        lease: Lease,
        error: str | BaseException,
        error_type: str | None = None,
        retry: bool | float | timedelta = True,
        trace: str | None = None,
    ) -> FailOutcome:
        """Records a failed attempt of ``lease`` in its own partition, as
        :meth:`Queue.fail` does: retried there, or dead there."""
        return await self._native.fail(lease, error, error_type, retry, trace)

    async def complete_batch(
        self, completions: Iterable[CompletionLike]
    ) -> builtins.list[bool]:
        """Completes many leases (at most 1000), each in its own partition (one call per
        partition touched, sent at once), as :meth:`Queue.complete_batch` does; returns, in
        order, whether each completed its item."""
        return await self._native.complete_batch(completions)

    async def renew_batch(
        self, leases: Iterable[Lease], ttl: float | timedelta | None = None
    ) -> builtins.list[RenewOutcome]:
        """Extends many leases (at most 1000), each in its own partition; returns each one's
        ``RenewOutcome``, in order."""
        return await self._native.renew_batch(leases, ttl)

    async def fail_batch(
        self, failures: Iterable[FailureLike]
    ) -> builtins.list[FailOutcome]:
        """Records many failed attempts (at most 1000), each in its own partition, as
        :meth:`Queue.fail_batch` does; returns their outcomes in order."""
        return await self._native.fail_batch(failures)

    async def get(self, id: bytes | str) -> Job | None:
        """Item ``id`` from whichever partition holds it, or ``None``."""
        return await self._native.get(id)

    async def cancel(self, id: bytes | str) -> State | None:
        """Cancels item ``id`` in whichever partition holds it; the state it was in."""
        return await self._native.cancel(id)

    async def result(self, id: bytes | str) -> JobResult | None:
        """The result kept for item ``id``, or ``None``."""
        return await self._native.result(id)

    async def promote(self, id: bytes | str) -> bool:
        """Makes the delayed item ``id`` wait now in whichever partition holds it; returns
        whether it was delayed."""
        return await self._native.promote(id)

    async def dependencies(self, id: bytes | str) -> Dependencies:
        """What item ``id`` waits for and what waits for it, read in the partition that holds
        it."""
        return await self._native.dependencies(id)

    async def dependency_results(
        self, id: bytes | str
    ) -> builtins.list[tuple[str, bytes | None]]:
        """The kept results of the items ``id`` was added to wait for, in order, read in the
        partition that holds it: ``(dependency id, result bytes or None)``."""
        return await self._native.dependency_results(id)

    async def wait_result(
        self, id: bytes | str, timeout: float | timedelta
    ) -> JobResult | None:
        """Waits up to ``timeout`` for item ``id``'s result where the item is (looked up in
        every partition at once; waited for in all of them when it is in none yet), as
        ``Queue.wait_result`` does; ``None`` if none came. Cancelling the task stops the
        wait."""
        return await self._native.wait_result(id, timeout)

    async def pause_group(self, group: str) -> bool:
        """Pauses group ``group`` in its partition, where all its items live; returns whether
        it was running."""
        return await self._native.pause_group(group)

    async def resume_group(self, group: str) -> bool:
        """Resumes group ``group`` in its partition; returns whether it was paused."""
        return await self._native.resume_group(group)

    async def set_group_limit(self, group: str, limit: int | None = None) -> None:
        """Sets group ``group``'s limit in its partition (1 to 1000; ``None``: the queue's
        ``group_concurrency``)."""
        await self._native.set_group_limit(group, limit)

    async def rate_limit_group(
        self, group: str, duration: float | timedelta
    ) -> timedelta:
        """Holds group ``group``'s leases off for ``duration`` in its partition; returns how
        long."""
        return await self._native.rate_limit_group(group, duration)

    async def group(self, group: str) -> GroupInfo:
        """Group ``group``, read in its partition, which holds all of it."""
        return await self._native.group(group)

    async def stats(self) -> PartitionedStats:
        """The logical queue's figures and each partition's (a ``PartitionedStats``)."""
        return await self._native.stats()

    async def count(self, state: State | str) -> int:
        """How many items are in ``state``, summed over the partitions."""
        return await self._native.count(state)

    async def list(
        self, state: State | str, start: int = 0, count: int = 100
    ) -> builtins.list[Entry]:
        """A page of the logical queue's items in ``state``: partition 0's, then 1's, ..."""
        return await self._native.list(state, start, count)

    async def find(
        self,
        state: State | str,
        name: str | None = None,
        error_type: str | None = None,
        start: int = 0,
        count: int = 100,
    ) -> Found:
        """The items of ``state`` with this name and error type (``None``: any), in the one
        partition that holds position ``start`` (positions numbered as ``list`` numbers them),
        among at most 1000 of its positions; ``Found.next`` is where the next call goes on."""
        return await self._native.find(state, name, error_type, start, count)

    async def pause(self) -> bool:
        """Pauses every partition; whether any was running."""
        return await self._native.pause()

    async def resume(self) -> bool:
        """Resumes every partition; whether any was paused."""
        return await self._native.resume()

    async def is_paused(self) -> bool:
        """Whether the logical queue is paused: every partition is."""
        return await self._native.is_paused()

    async def exists(self) -> bool:
        """Whether any partition exists: ``False`` for a partitioned queue created and never
        used."""
        return await self._native.exists()

    async def queue_len(self) -> int:
        """How many items wait, at every priority, summed over the partitions."""
        return await self._native.queue_len()

    async def processing_len(self) -> int:
        """How many items are being processed (leased by leaseq, or in redis-work-queue's
        processing list), summed over the partitions."""
        return await self._native.processing_len()

    async def counts_by_name(self) -> builtins.list[NameCounts] | None:
        """For each item name met in the last hour, its jobs completed, failed and dead
        (``NameCounts``), summed over the partitions, sorted by name;
        ``None`` when no partition counts."""
        return await self._native.counts_by_name()

    async def rate_limit(self, duration: float | timedelta) -> timedelta:
        """Holds every partition's leases off for ``duration`` (a handler was rate limited,
        and the limit is the logical queue's); returns the longest hold now in place."""
        return await self._native.rate_limit(duration)

    async def dead_requeue(self, ids: Iterable[bytes | str]) -> int:
        """Puts these dead items (ids ``bytes`` or ``str``) back to waiting, each in the
        partition that holds it; returns how many."""
        return await self._native.dead_requeue(ids)

    async def dead_requeue_each(
        self, ids: Iterable[bytes | str]
    ) -> builtins.list[bool]:
        """Like ``dead_requeue``, returning for each id, in order, whether it was requeued
        (``False``: not a dead letter in any partition)."""
        return await self._native.dead_requeue_each(ids)

    async def dead_requeue_oldest(self, n: int | None = None) -> int:
        """Requeues the ``n`` oldest dead items of the logical queue, by time of death over
        every partition (``None``: all); how many."""
        return await self._native.dead_requeue_oldest(n)

    async def dead_purge(self, n: int | None = None) -> int:
        """Deletes the ``n`` oldest dead items of the logical queue, by time of death over every
        partition (``None``: all); how many."""
        return await self._native.dead_purge(n)

    async def config(self) -> QueueConfig:
        """The logical queue's stored configuration: partition 0's, which ``set_config`` writes
        to every partition alike."""
        return await self._native.config()

    async def set_config(  # noqa: PLR0913 - the configuration's fields, by keyword
        self,
        *,
        max_attempts: int | None = None,
        backoff: Backoff | None = None,
        priority: int | None = None,
        expires_after: float | timedelta | None = None,
        keep_result_for: float | timedelta | None = None,
        dead_max_count: int | None = None,
        dead_max_age: float | timedelta | None = None,
        stats: bool | None = None,
        capacity: int | None = None,
        rate_limit: RateLimit | None = None,
        group_concurrency: int | None = None,
        group_rate_limit: RateLimit | None = None,
        events: bool | None = None,
        events_max_len: int | None = None,
        events_max_age: float | timedelta | None = None,
    ) -> None:
        """Stores the given fields of the configuration in every partition, as
        :meth:`Queue.set_config` does (limits then hold per partition)."""
        await self._native.set_config(
            max_attempts=max_attempts,
            backoff=backoff,
            priority=priority,
            expires_after=expires_after,
            keep_result_for=keep_result_for,
            dead_max_count=dead_max_count,
            dead_max_age=dead_max_age,
            stats=stats,
            capacity=capacity,
            rate_limit=rate_limit,
            group_concurrency=group_concurrency,
            group_rate_limit=group_rate_limit,
            events=events,
            events_max_len=events_max_len,
            events_max_age=events_max_age,
        )

    async def reset_config(self) -> None:
        """Removes every partition's stored configuration: the defaults apply again."""
        await self._native.reset_config()

    async def light_clean(self) -> CleanReport:
        """A light clean of every partition, all at once (as :meth:`Queue.light_clean`); the
        reports summed."""
        return await self._native.light_clean()

    async def deep_clean(self) -> CleanReport:
        """A deep clean of every partition, one after another (each walks its node's keys: run
        it rarely); the reports summed."""
        return await self._native.deep_clean()

    async def upsert_schedule(self, name: str, schedule: Schedule) -> bool:
        """:meth:`Queue.upsert_schedule` in partition 0, where the queue's recurring jobs live
        (their items are added there); returns whether it is new."""
        return await self._native.upsert_schedule(name, schedule)

    async def remove_schedule(self, name: str) -> bool:
        """:meth:`Queue.remove_schedule` in partition 0; returns whether there was one."""
        return await self._native.remove_schedule(name)

    async def get_schedule(self, name: str) -> ScheduleInfo | None:
        """:meth:`Queue.get_schedule` in partition 0."""
        return await self._native.get_schedule(name)

    async def schedules(self, start: int = 0, count: int = 100) -> SchedulePage:
        """:meth:`Queue.schedules` in partition 0, by next fire time."""
        return await self._native.schedules(start, count)

    async def fire_due_schedules(self) -> FireReport:
        """:meth:`Queue.fire_due_schedules` in partition 0, as a runner over the queue does."""
        return await self._native.fire_due_schedules()

    async def events(self, after: str | None = None) -> EventFollower:
        """Follows every partition's event stream at once: ``async for event in await
        queue.events()`` yields each :class:`leaseq.QueueEvent` with its ``partition`` (see
        :meth:`leaseq.PartitionedQueue.events`). ``after`` is a follower's ``position`` (an id
        per partition, joined by ``,``) or one id for every partition. "Now" is when this call
        returns; cancelling the task stops the wait."""
        follower = await self._native.events(after)
        return EventFollower(follower)

    def __repr__(self) -> str:
        return (
            f"PartitionedQueue(base={self.base!r}, partitions={len(self.partitions)})"
        )


class Client:
    """A connection to one Redis server (``Client(url)``) or a Redis Cluster
    (``Client.cluster(urls)``), shared by its queues. Use it with ``async with`` (which
    connects) or call :meth:`close`. A client used in a forked child reconnects by itself.

    Constructing it only checks the URL (``InvalidArgumentError`` naming ``url``) and never
    blocks the event loop: the connection is made off the loop, by ``async with``,
    :meth:`connect` or the first call that needs it, whichever comes first."""

    __slots__ = ("_native",)

    def __init__(self, url: str) -> None:
        self._native = _native.AsyncClient(url)

    @classmethod
    def cluster(cls, urls: Sequence[str]) -> Client:
        """A client of a Redis Cluster (its URLs checked here; connected as ``Client(url)``
        is); queue prefixes must then carry a ``{hash tag}``."""
        client = cls.__new__(cls)
        client._native = _native.AsyncClient.cluster(urls)
        return client

    async def connect(self) -> None:
        """Connects now, unless connected already: ``ConnectionError`` and the like surface
        here instead of at the first call."""
        await self._native.connect()

    def queue(self, prefix: str) -> Queue:
        """The queue whose keys live under ``prefix`` (validated here; nothing is sent)."""
        return Queue(self._native.queue(prefix))

    async def create_partitioned(self, base: str, partitions: int) -> PartitionedQueue:
        """Creates (or opens) the partitioned queue ``base`` of ``partitions`` partitions, as
        :meth:`leaseq.Client.create_partitioned`."""
        return PartitionedQueue(await self._native.create_partitioned(base, partitions))

    async def partitioned(self, base: str) -> PartitionedQueue:
        """The partitioned queue ``base`` as stored, as :meth:`leaseq.Client.partitioned`."""
        return PartitionedQueue(await self._native.partitioned(base))

    def close(self) -> None:
        """Closes the client: waiting leases raise ``ClosedError``, as does every later call."""
        self._native.close()

    @property
    def is_cluster(self) -> bool:
        """Whether this client talks to a Redis Cluster."""
        return self._native.is_cluster

    @property
    def warnings(self) -> list[str]:
        """Risks found in the server's configuration when connecting (empty until then)."""
        return self._native.warnings

    async def __aenter__(self) -> Client:
        await self.connect()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
