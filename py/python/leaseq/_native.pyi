# Hand-written stubs for the extension module built from py/src (checked by mypy.stubtest). Each
# public docstring is the native one, the doc comment in py/src (tests/test_docs.py checks it).
import asyncio
import builtins
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from types import TracebackType
from typing import Any, ClassVar, TypedDict, final

from leaseq.batch import CompletionLike, FailureLike
from leaseq.enums import RenewOutcome, State

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
    "AsyncClient",
    "AsyncEvents",
    "AsyncPartitionedQueue",
    "AsyncQueue",
    "Backoff",
    "CleanReport",
    "Client",
    "Dependencies",
    "Done",
    "Entry",
    "Events",
    "EventsPage",
    "FailOutcome",
    "FireReport",
    "Flow",
    "Found",
    "GroupInfo",
    "Item",
    "Job",
    "JobResult",
    "Lease",
    "Minute",
    "NameCounts",
    "NativeJob",
    "PartitionedQueue",
    "PartitionedStats",
    "Queue",
    "QueueConfig",
    "QueueEvent",
    "RateLimit",
    "Schedule",
    "ScheduleInfo",
    "SchedulePage",
    "Stats",
    "WorkerRun",
    "_error_class",
    "_shutdown",
    "cli_main",
    "connect_waiting",
    "events",
    "operations",
    "partitioned_operations",
    "start_worker",
]

FOREVER: float
DEFAULT_TTL: timedelta
DEFAULT_MAX_ATTEMPTS: int
DEFAULT_BACKOFF: Backoff
DEFAULT_KEEP_RESULT: timedelta
DEFAULT_DEAD_MAX_COUNT: int
DEFAULT_DEAD_MAX_AGE: timedelta
MAX_PRIORITY: int
MAX_DURATION: timedelta
MAX_PAGE: int
MAX_TTL: float
MAX_ID_LEN: int
MAX_GROUP_LEN: int
MAX_NAME_LEN: int
MAX_DATA_LEN: int
MAX_PREFIX_LEN: int

@final
class Backoff:
    """How long a failed item waits before it runs again: ``Backoff.fixed(seconds)`` or
    ``Backoff.exponential(base, cap, jitter=True)`` (durations in seconds or timedeltas).
    """

    @staticmethod
    def fixed(delay: float | timedelta) -> Backoff:
        """The same delay after every failed attempt."""
    @staticmethod
    def exponential(
        base: float | timedelta, cap: float | timedelta, jitter: bool = True
    ) -> Backoff:
        """``base * 2**(attempt - 1)``, at most ``cap``; with ``jitter``, a random delay between
        half of that and all of it, so that failures do not retry in lockstep.
        """
    @property
    def kind(self) -> str:
        """``"fixed"`` or ``"exponential"``."""
    @property
    def delay(self) -> timedelta | None:
        """The delay of a fixed backoff (``None`` for an exponential one)."""
    @property
    def base(self) -> timedelta | None:
        """The first retry's delay of an exponential backoff (``None`` for a fixed one)."""
    @property
    def cap(self) -> timedelta | None:
        """The longest delay of an exponential backoff (``None`` for a fixed one)."""
    @property
    def jitter(self) -> bool:
        """Whether an exponential backoff randomises its delays (``False`` for a fixed one)."""
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class Item:
    """A piece of work: an id, unique while the item exists, its data (bytes), and its options.

    ``Item(data)`` picks a random UUID id; ``Item(data, id="custom")`` uses yours (1 to 512
    bytes of UTF-8 without control characters). ``data`` is bytes, bytearray or str (stored as
    UTF-8). The keyword options are checked by ``add``; an option left ``None`` takes the queue's
    stored configuration, else the protocol's default:

    - ``delay`` (seconds or timedelta) or ``run_at`` (an aware datetime): not leased before then;
    - ``priority``: -1000 to 1000, higher runs first (0, the default, is redis-work-queue's list);
    - ``max_attempts``: leases before the item is dead (0: no limit);
    - ``backoff``: a ``Backoff``, the wait after a failed attempt;
    - ``expires_after``: dead if no lease took it this long after it was added;
    - ``keep_result_for``: how long a result given to ``complete`` is kept;
    - ``group``: a group name (a customer or tenant id, say; 1 to 256 bytes of UTF-8 without
      control characters): at most the group's limit of its items are leased at once (default 1:
      FIFO per group), and groups take turns;
    - ``name``: what kind of job it is (``"send_email"``, ``"resize"``; 1 to 256 bytes of UTF-8
      without control characters): a ``Worker`` given a dict of handlers runs the item with the
      handler of that name; ``get`` shows it, and ``counts_by_name`` counts it;
    - ``depends_on``: ids of items of the same queue (at most 1000) that must complete before
      this one is leased; until then it is ``State.BLOCKED``. An id no item has counts as
      complete;
    - ``on_dependency_failure``: ``"fail"`` (the default: it dies when a dependency dies or is
      cancelled) or ``"run"`` (it runs anyway once every dependency finished).
    """

    def __new__(
        cls,
        data: bytes | bytearray | str,
        id: str | None = None,
        *,
        delay: float | timedelta | None = None,
        run_at: datetime | None = None,
        priority: int | None = None,
        max_attempts: int | None = None,
        backoff: Backoff | None = None,
        expires_after: float | timedelta | None = None,
        keep_result_for: float | timedelta | None = None,
        group: str | None = None,
        name: str | None = None,
        depends_on: Iterable[str] | None = None,
        on_dependency_failure: str | None = None,
    ) -> Item: ...
    @staticmethod
    def from_json(
        value: Any,
        id: str | None = None,
        *,
        delay: float | timedelta | None = None,
        run_at: datetime | None = None,
        priority: int | None = None,
        max_attempts: int | None = None,
        backoff: Backoff | None = None,
        expires_after: float | timedelta | None = None,
        keep_result_for: float | timedelta | None = None,
        group: str | None = None,
        name: str | None = None,
        depends_on: Iterable[str] | None = None,
        on_dependency_failure: str | None = None,
    ) -> Item:
        """An item whose data is ``value`` encoded as compact JSON (UTF-8), with the same options as
        ``Item``. Raises ``JsonError`` when ``value`` cannot be encoded (NaN included).
        """
    @property
    def id(self) -> str:
        """The id."""
    @property
    def data(self) -> bytes:
        """The data."""
    def json(self) -> Any:
        """The data parsed as JSON; raises ``JsonError`` when it is not JSON."""

@final
class Lease:
    """A leased item. Pass it back to ``complete``, ``fail``, ``release``, ``renew`` or ``progress``
    of the queue it came from.
    """

    @property
    def id(self) -> str:
        """The item's id."""
    @property
    def id_bytes(self) -> bytes:
        """The id exactly as Redis holds it (differs from ``id`` only for an id that is not UTF-8,
        which another kind of client may have added).
        """
    @property
    def data(self) -> bytes:
        """The item's data."""
    @property
    def token(self) -> str:
        """This lease's token: random and unique to this lease; ``renew`` checks it (fencing)."""
    @property
    def count(self) -> int:
        """How many times the item has been leased, this lease included (1 the first time). Above 1,
        an earlier attempt failed, or its holder let the lease expire or crashed.
        """
    @property
    def attempt(self) -> int:
        """The attempt number: the same as ``count``."""
    @property
    def incarnation(self) -> str:
        """The item's incarnation: new each time the id is added anew. A lease of an older
        incarnation can no longer complete, fail, release or renew the item.
        """
    @property
    def max_attempts(self) -> int:
        """The attempts after which the item is dead instead of retried (0: no limit)."""
    @property
    def backoff(self) -> Backoff:
        """The item's backoff: how long it waits after a failed attempt."""
    @property
    def queue_prefix(self) -> str:
        """The prefix of the queue this lease belongs to."""
    @property
    def name(self) -> str | None:
        """The item's name (``Item(..., name=...)``: what kind of job it is), or ``None`` when it
        was added without one.
        """
    def json(self) -> Any:
        """The item's data parsed as JSON; raises ``JsonError`` when it is not JSON."""

@final
class CleanReport:
    """What a clean did: ``requeued`` items put back in a waiting list, ``removed`` stale entries
    dropped, ``promoted`` due delayed items moved to waiting, ``dead`` expired leases with no
    attempts left moved to the dead letters.
    """

    @property
    def requeued(self) -> int:
        """Items put back in a waiting list (their lease expired, or their holder crashed)."""
    @property
    def removed(self) -> int:
        """Stale entries removed: ids of complete items, duplicates, orphaned records."""
    @property
    def promoted(self) -> int:
        """Delayed items that were due, moved to waiting."""
    @property
    def dead(self) -> int:
        """Items whose last lease expired with no attempts left, moved to dead."""
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class JobResult:
    """A kept result (``Queue.result``, ``Queue.wait_result``, ``Job.result``)."""

    @property
    def data(self) -> bytes:
        """The bytes the completing worker gave."""
    @property
    def attempts(self) -> int:
        """The attempt that completed it."""
    @property
    def finished_at(self) -> datetime:
        """When it completed (server clock, aware UTC datetime)."""
    @property
    def added_at(self) -> datetime | None:
        """When the item was added (server clock, aware UTC datetime), or ``None`` when unknown (an
        item added without options, or a result kept by an earlier version).
        """
    @property
    def name(self) -> str | None:
        """The item's name, or ``None`` when it had none."""
    def json(self) -> Any:
        """The data parsed as JSON; raises ``JsonError`` when it is not JSON."""
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class Flow:
    """A parent item and its children (``Item``s, or ``Flow``s with children of their own), for
    ``Queue.add_flow``: the children run first, then the parent, which reads their results
    with ``Queue.dependency_results``.
    """

    def __new__(
        cls, item: Item, children: Iterable[Item | Flow] | None = None
    ) -> Flow: ...
    @property
    def item(self) -> Item:
        """The item at the top of this flow."""

@final
class Dependencies:
    """What an item waits for and what waits for it (``Queue.dependencies``)."""

    @property
    def depends_on(self) -> builtins.list[str]:
        """The ids it was added to wait for, in order."""
    @property
    def on_dependency_failure(self) -> str | None:
        """``"fail"`` or ``"run"``; ``None`` without dependencies."""
    @property
    def pending(self) -> builtins.list[str]:
        """Those it still waits for (while it is blocked)."""
    @property
    def dependants_count(self) -> int:
        """How many blocked items wait for it."""
    @property
    def dependants(self) -> builtins.list[str]:
        """Up to 100 of them."""
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class Job:
    """Everything the queue knows about one item (``Queue.get``). Times are aware UTC datetimes
    from the server's clock.
    """

    @property
    def id(self) -> str:
        """The id (shown with replacement characters when it is not UTF-8; ``id_bytes`` is exact)."""
    @property
    def id_bytes(self) -> bytes:
        """The id exactly as Redis holds it (``bytes``), for ids another kind of client added."""
    @property
    def state(self) -> State:
        """Where the item is: a ``leaseq.State``."""
    @property
    def data(self) -> bytes:
        """The data (empty for a done item)."""
    def json(self) -> Any:
        """The data parsed as JSON; raises ``JsonError`` when it is not JSON."""
    @property
    def attempts(self) -> int:
        """Leases so far."""
    @property
    def max_attempts(self) -> int | None:
        """The item's own max attempts, if it was added with one."""
    @property
    def priority(self) -> int:
        """The item's priority."""
    @property
    def group(self) -> str | None:
        """The item's group (``Item(..., group=...)``), if it has one."""
    @property
    def name(self) -> str | None:
        """The item's name (``Item(..., name=...)``: what kind of job it is), if it has one."""
    @property
    def depends_on(self) -> builtins.list[str]:
        """The ids it was added to wait for (``Item(..., depends_on=...)``), empty without."""
    @property
    def on_dependency_failure(self) -> str | None:
        """``"fail"`` or ``"run"`` for an item with dependencies, else ``None``."""
    @property
    def partition(self) -> int | None:
        """Read from a partitioned queue (``PartitionedQueue.get``): the partition that holds it,
        as its index in ``PartitionedQueue.partitions``. ``None`` from a plain queue."""
    @property
    def error(self) -> str | None:
        """The last failure's message, if it failed."""
    @property
    def error_type(self) -> str | None:
        """The last failure's type (e.g. an exception class name; may be empty), if it failed."""
    @property
    def trace(self) -> str | None:
        """The last failure's trace (a traceback, a stack, an error chain; at most 16 KiB), if it
        gave one.
        """
    @property
    def dead_reason(self) -> str | None:
        """Why it is dead (e.g. ``"failed"``, ``"expired"``), if it is."""
    @property
    def progress(self) -> bytes | None:
        """The last progress value a holder stored."""
    @property
    def result(self) -> JobResult | None:
        """The kept result, for a done item."""
    @property
    def added_at(self) -> datetime | None:
        """When it was added (items added with options only)."""
    @property
    def due_at(self) -> datetime | None:
        """When it is due (delayed items)."""
    @property
    def leased_at(self) -> datetime | None:
        """When the last lease began."""
    @property
    def lease_expires_at(self) -> datetime | None:
        """When the current lease ends."""
    @property
    def finished_at(self) -> datetime | None:
        """When it died, or when it completed."""
    @property
    def lease_ttl(self) -> timedelta | None:
        """How long the current lease has left (a timedelta)."""
    @property
    def cancelled(self) -> bool:
        """Whether it was cancelled while leased (its holder's next call removes it)."""
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class Entry:
    """One line of ``Queue.list``."""

    @property
    def id(self) -> str:
        """The id (shown with replacement characters when it is not UTF-8; ``id_bytes`` is exact)."""
    @property
    def id_bytes(self) -> bytes:
        """The id exactly as Redis holds it (``bytes``), for ids another kind of client added."""
    @property
    def at(self) -> datetime | None:
        """Due time (delayed), lease expiry (leased), time of death (dead) or time finished (done);
        ``None`` for waiting.
        """
    @property
    def attempts(self) -> int:
        """Leases so far."""
    @property
    def error(self) -> str | None:
        """The last failure's message, if any."""
    @property
    def error_type(self) -> str | None:
        """The last failure's type, if any."""
    @property
    def name(self) -> str | None:
        """The item's name, when it has one (a done item's, as its kept result keeps it)."""
    @property
    def reason(self) -> str | None:
        """Why a dead item died (``Job.dead_reason``): e.g. ``"lease expired 3 times"`` or
        ``"dependency a is dead"``, which carry no error of their own; ``None`` in other states.
        """
    @property
    def partition(self) -> int | None:
        """Listed through a partitioned queue (``PartitionedQueue.list``, ``find``): the partition
        that holds it, as its index in ``PartitionedQueue.partitions``. ``None`` from a plain
        queue.
        """
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class Found:
    """What ``Queue.find`` found: the matching entries of a bounded stretch of a state."""

    @property
    def entries(self) -> builtins.list[Entry]:
        """The entries that match (``Entry``), in the state's order."""
    @property
    def next(self) -> int | None:
        """The ``start`` of the next call, or ``None`` once the end of the state was reached."""
    @property
    def examined(self) -> int:
        """How many positions this call looked at (at most 1000), matching or not."""
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class Minute:
    """Counters for one minute (``Stats.minutes``, ``Stats.last_hour``)."""

    @property
    def completed(self) -> int:
        """Items completed."""
    @property
    def failed(self) -> int:
        """Failed attempts (each ``fail``)."""
    @property
    def dead(self) -> int:
        """Items that went dead."""
    @property
    def expired(self) -> int:
        """Leases that expired without their holder reporting."""
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class Stats:
    """A queue's figures, read in one round trip (``Queue.stats``)."""

    @property
    def waiting(self) -> int:
        """Ids in the waiting lists (stale ids included until a lease or clean drops them)."""
    @property
    def delayed(self) -> int:
        """Delayed items."""
    @property
    def leased(self) -> int:
        """Items leased by leaseq clients."""
    @property
    def dead(self) -> int:
        """Dead letters."""
    @property
    def processing(self) -> int:
        """Ids in ``processing``: leased by redis-work-queue clients, or left by them."""
    @property
    def blocked(self) -> int:
        """Items waiting for their dependencies (``State.BLOCKED``)."""
    @property
    def schedules(self) -> int:
        """Recurring jobs the queue holds (``Queue.schedules``)."""
    @property
    def oldest_waiting(self) -> timedelta | None:
        """Age of the oldest waiting item (a timedelta), when known."""
    @property
    def now(self) -> datetime:
        """The server's clock when the figures were read (aware UTC datetime)."""
    @property
    def minutes(self) -> builtins.list[Minute] | None:
        """The last 60 minutes, oldest first; the last is the current minute, so far. ``None``
        while the queue's counters are off (the default; ``set_config(stats=True)`` turns them
        on): not counted, which is not the same as nothing happened.
        """
    @property
    def last_hour(self) -> Minute | None:
        """The counters summed over the last hour; ``None`` while the queue's counters are off."""
    @property
    def paused(self) -> bool:
        """Whether the queue is paused (``Queue.pause``)."""
    @property
    def capacity(self) -> int | None:
        """The queue's capacity (waiting and delayed items at most), or ``None`` when unbounded."""
    @property
    def rate_limited_for(self) -> timedelta | None:
        """While the queue is at its rate limit or held off (``Queue.rate_limit``), how long until
        leases go on (a timedelta); ``None`` otherwise.
        """
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class QueueConfig:
    """The queue's stored configuration (``Queue.config``): defaults for its items that every
    client reads from Redis. A field that is ``None`` is not stored: the protocol's default
    applies.
    """

    @property
    def max_attempts(self) -> int | None:
        """Attempts before an item is dead (0: no limit)."""
    @property
    def backoff(self) -> Backoff | None:
        """Retry delay after a failed attempt."""
    @property
    def priority(self) -> int | None:
        """Priority of items added without one."""
    @property
    def expires_after(self) -> timedelta | None:
        """Items not leased this long after they were added are dead."""
    @property
    def keep_result_for(self) -> timedelta | None:
        """How long a result given to ``complete`` is kept."""
    @property
    def dead_max_count(self) -> int | None:
        """Dead letters kept at most."""
    @property
    def dead_max_age(self) -> timedelta | None:
        """Dead letters older than this go."""
    @property
    def stats(self) -> bool | None:
        """Whether the queue keeps per-minute counters (``Stats.minutes``, ``Stats.last_hour``)."""
    @property
    def capacity(self) -> int | None:
        """The most items the queue holds waiting or delayed; ``None``: no bound."""
    @property
    def rate_limit(self) -> RateLimit | None:
        """At most ``max`` leases per ``per``, for every client; ``None``: no limit."""
    @property
    def group_concurrency(self) -> int | None:
        """How many items of one group may be leased at once, for groups without a limit of their
        own (``Queue.set_group_limit``); ``None``: 1.
        """
    @property
    def group_rate_limit(self) -> RateLimit | None:
        """At most ``max`` leases of each group per ``per``, every group in its own window, for
        every client; ``None``: no limit.
        """
    @property
    def events(self) -> bool | None:
        """Whether every transition of an item is recorded in the queue's event stream
        (``Queue.events``).
        """
    @property
    def events_max_len(self) -> int | None:
        """Entries the event stream keeps, about."""
    @property
    def events_max_age(self) -> timedelta | None:
        """How long the event stream keeps an entry, about."""
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class NameCounts:
    """What the jobs of one item name did in the last hour (``Queue.counts_by_name``)."""

    @property
    def name(self) -> str:
        """The item name (``Item(..., name=...)``)."""
    @property
    def completed(self) -> int:
        """Jobs of this name completed in the last 60 minutes."""
    @property
    def failed(self) -> int:
        """Failed attempts of this name (retried or not)."""
    @property
    def dead(self) -> int:
        """Jobs of this name that went to the dead letters."""
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class Schedule:
    """A recurring job: ``Schedule(cron="0 3 * * *", tz="Europe/Berlin", item=Item(b"...",
    name="report"), missed="once")`` or ``Schedule(every=30, item=...)``.

    - ``cron``: five fields (minute hour day-of-month month day-of-week), or six with the seconds
      first; ``tz`` its IANA time zone (UTC when ``None``). Daylight saving time: a time that
      does not exist that day fires at the first time after the gap; one that occurs twice
      fires once.
    - ``every``: a period (seconds or a timedelta, at least one second) instead.
    - ``item``: the ``Item`` each tick adds (its data and options; its id is not used: each
      item's id is ``<schedule name>@<tick ms>``; no delay or run_at). ``None``: empty data.
    - ``missed``: what ticks missed while no runner ran do: ``"skip"`` (the core's default),
      ``"once"`` (the latest fires) or ``"all:N"`` (the latest N, 1 to 1000).

    Checked by ``upsert_schedule``, which refuses a bad one naming the argument (``cron``,
    ``tz``, ``every``, ``missed``, ``item``) before anything is written. Two schedules are equal
    when they fire alike and add alike items (the template item's id, which no tick uses, does
    not count).
    """

    def __new__(
        cls,
        *,
        cron: str | None = None,
        every: float | timedelta | None = None,
        tz: str | None = None,
        item: Item | None = None,
        missed: str | None = None,
    ) -> Schedule: ...
    @property
    def cron(self) -> str | None:
        """The cron expression, or ``None`` for an ``every`` schedule."""
    @property
    def every(self) -> timedelta | None:
        """The period (a timedelta), or ``None`` for a cron schedule."""
    @property
    def tz(self) -> str | None:
        """The time zone given, or ``None`` (UTC)."""
    @property
    def item(self) -> Item:
        """The item each tick adds."""
    @property
    def missed(self) -> str:
        """``"skip"``, ``"once"`` or ``"all:N"``."""
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class ScheduleInfo:
    """A stored schedule with its next fire time (``Queue.get_schedule``, ``Queue.schedules``)."""

    @property
    def name(self) -> str:
        """Its name."""
    @property
    def schedule(self) -> Schedule | None:
        """The ``Schedule``, or ``None`` when the stored fields are not one this version reads."""
    @property
    def version(self) -> int:
        """Bumped by every upsert (1 for a new schedule)."""
    @property
    def next_at(self) -> datetime | None:
        """The next tick to fire (an aware datetime, the server's clock), or ``None``."""
    @property
    def fired(self) -> int:
        """Ticks fired so far."""
    @property
    def skipped(self) -> int:
        """Missed ticks skipped so far (by the policy)."""
    @property
    def last_tick(self) -> datetime | None:
        """The last tick fired (a datetime), or ``None``."""
    @property
    def created_at(self) -> datetime:
        """When it was created (server clock)."""
    @property
    def updated_at(self) -> datetime:
        """When it was last upserted (server clock)."""
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class SchedulePage:
    """A page of schedules by next fire time (``Queue.schedules``): ``schedules``, ``total`` (how
    many the queue has) and ``now`` (the server's clock).
    """

    @property
    def schedules(self) -> builtins.list[ScheduleInfo]:
        """The page, a list of ``ScheduleInfo``."""
    @property
    def total(self) -> int:
        """How many schedules the queue has."""
    @property
    def now(self) -> datetime:
        """The server's clock when it was read (an aware datetime)."""
    def __len__(self) -> int: ...
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class FireReport:
    """What ``Queue.fire_due_schedules`` did."""

    @property
    def due(self) -> int:
        """Schedules found due."""
    @property
    def fired(self) -> int:
        """Ticks fired (one item each)."""
    @property
    def skipped(self) -> int:
        """Missed ticks skipped by the policies."""
    @property
    def lost_races(self) -> int:
        """Fire calls that found their schedule moved by another firer or an upsert (no effect)."""
    @property
    def next_due_in(self) -> timedelta | None:
        """How long until the next schedule is due (a timedelta), or ``None`` without schedules."""
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class GroupInfo:
    """One group of a queue (``Queue.group``)."""

    @property
    def waiting(self) -> int:
        """Its items waiting."""
    @property
    def leased(self) -> int:
        """Its items leased now."""
    @property
    def limit(self) -> int:
        """How many of its items may be leased at once (its own limit, else the queue's
        ``group_concurrency``).
        """
    @property
    def paused(self) -> bool:
        """Whether it is paused (``Queue.pause_group``)."""
    @property
    def rate_limited_for(self) -> timedelta | None:
        """While the group is at the queue's ``group_rate_limit`` or held off
        (``Queue.rate_limit_group``), how long until its leases go on (a timedelta); ``None``
        otherwise.
        """
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class RateLimit:
    """A queue's rate limit (``set_config(rate_limit=RateLimit(max, per))``): at most ``max``
    leases in each window of ``per`` (seconds or a timedelta), counted on the server for every
    client; as ``set_config(group_rate_limit=...)``, the same for each group, in its own window.
    The queue's ``set_config`` checks the values (``InvalidArgumentError`` naming the argument,
    ``rate_limit`` or ``group_rate_limit``).
    """

    def __new__(cls, max: int, per: float | timedelta) -> RateLimit: ...
    @property
    def max(self) -> int:
        """Leases per window."""
    @property
    def per(self) -> timedelta:
        """The window (a timedelta)."""
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class QueueEvent:
    """One entry of a queue's event stream: a transition of an item (``Queue.events``,
    ``Queue.read_events``).
    """

    @property
    def id(self) -> str:
        """The entry's id in the stream (``"<ms>-<seq>"``): resume after it (``events(after=id)``)."""
    @property
    def event(self) -> str:
        """What happened: ``added``, ``delayed``, ``blocked``, ``unblocked``, ``leased``,
        ``progress``, ``completed``, ``failed``, ``retrying``, ``dead``, ``released``,
        ``cancelled``, ``requeued``,
        ``expired``, ``promoted``, or ``gap`` (entries were trimmed away before they were read).
        """
    @property
    def job_id(self) -> str:
        """The item's id (empty for a gap)."""
    @property
    def inc(self) -> str:
        """The item's incarnation (empty for an item without options not leased yet)."""
    @property
    def attempt(self) -> int:
        """The item's attempts at the transition."""
    @property
    def error(self) -> str | None:
        """The failure's error (``failed``; ``dead`` when the death came with one)."""
    @property
    def name(self) -> str | None:
        """The item's name, when it has one."""
    @property
    def due(self) -> datetime | None:
        """When it runs next (``delayed``, ``retrying``, ``released``): a UTC ``datetime``."""
    @property
    def reason(self) -> str | None:
        """Why it is dead (``dead``)."""
    @property
    def time(self) -> datetime:
        """The entry's time (the server's clock): a UTC ``datetime``."""
    @property
    def extra(self) -> list[tuple[str, str]]:
        """Any other field of the entry (``state`` of a cancel, ``first`` of a gap)."""
    @property
    def partition(self) -> int | None:
        """The partition whose stream it is in, from a partitioned queue's follower
        (``PartitionedQueue.events``); ``None`` from a queue's.
        """
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class EventsPage:
    """One page of a queue's event stream (``Queue.read_events``)."""

    @property
    def events(self) -> list[QueueEvent]:
        """The entries, oldest first (a ``gap`` entry first when some were trimmed away)."""
    @property
    def last(self) -> str:
        """The stream's last id (``"0-0"`` when it has none)."""
    @property
    def on(self) -> bool:
        """Whether the queue's events are on."""
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class Events:
    """A follower of a queue's event stream (``Queue.events``), or of every partition's at once
    (``PartitionedQueue.events``): iterate it for each entry, in order; each step waits
    (without the GIL, Ctrl-C interrupting it) until one comes. It rides through lost
    connections and restarts; ``position`` is where to resume.
    """

    def __iter__(self) -> Events: ...
    def __next__(self) -> QueueEvent: ...
    def close(self) -> None:
        """Ends the follower's server-side waits now, closing their connections (dropping it
        does too); iterating it again waits again.
        """
    @property
    def position(self) -> str | None:
        """Where to resume (``None`` before the first entry): a queue's follower gives the id of
        the last entry given; a partitioned queue's, an id per partition joined by ``,``. Store
        it, and pass it as ``after`` to resume after it.
        """

@final
class AsyncEvents:
    """The asyncio follower (``leaseq.aio.Queue.events`` wraps it in an async iterator): each
    ``next()`` is an asyncio future of the next entry (``None`` once closed); cancelling it
    stops that call only, the follower's server-side waits being kept for the next one.
    """

    def next(self) -> asyncio.Future[QueueEvent | None]:
        """The next entry, as an asyncio future; ``None`` once the follower is closed (a
        ``next()`` waiting when it is closed too).
        """
    def close(self) -> None:
        """Ends the follower: a ``next()`` waiting now gives ``None``, and so does every later
        one; its server-side waits end now, closing their connections.
        """
    @property
    def position(self) -> str | None:
        """Where to resume, as ``Events.position`` (``None`` before the first entry, or while a
        ``next()`` runs).
        """

@final
class FailOutcome:
    """What ``fail`` did. ``name`` is ``"retrying"``, ``"dead"``, or, when the lease was no longer
    this holder's and nothing changed, why (a ``RenewOutcome`` name: ``"expired"``, ``"taken"``,
    ``"completed"``, ``"cancelled"``, ``"older_incarnation"``). ``str(outcome)`` is the name.
    """

    @property
    def name(self) -> str:
        """``"retrying"``, ``"dead"``, or why the lease was not held."""
    @property
    def retrying(self) -> bool:
        """Whether the item will run again."""
    @property
    def dead(self) -> bool:
        """Whether the item is dead now."""
    @property
    def retry_in(self) -> timedelta | None:
        """When retrying: how long until the item is leasable again (a timedelta; zero: now)."""
    @property
    def not_held(self) -> RenewOutcome | None:
        """When the lease was not held (nothing changed): why, as a ``RenewOutcome``."""
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class Client:
    """A connection to one Redis server (``Client(url)``) or a Redis Cluster
    (``Client.cluster(urls)``), shared by its queues and safe to use from many threads.

    URLs: ``redis://[user:pass@]host[:port][/db]``, ``rediss://...`` (TLS),
    ``redis+unix:///path/to.sock``. A client used in a forked child reconnects by itself. Use it as
    a context manager, or call ``close()``.
    """

    def __new__(cls, url: str) -> Client: ...
    @staticmethod
    def cluster(urls: Sequence[str]) -> Client:
        """Connects to a Redis Cluster through one or more of its nodes' URLs. Queue prefixes must
        then carry a ``{hash tag}``.
        """
    def queue(self, prefix: str) -> Queue:
        """The queue whose keys live under ``prefix`` (validated here; nothing is sent)."""
    def create_partitioned(self, base: str, partitions: int) -> PartitionedQueue:
        """Creates (or opens) the partitioned queue ``base`` of ``partitions`` partitions (1 to
        64; more than one need a ``{hash tag}`` in ``base``): a ``PartitionedQueue``.
        Idempotent for the same count; another count, or a plain queue at ``base``, is refused
        naming ``partitions``.
        """
    def partitioned(self, base: str) -> PartitionedQueue:
        """The partitioned queue ``base`` as stored (the plain queue at ``base`` as one partition
        when it is not partitioned): a ``PartitionedQueue``. One round trip.
        """
    def close(self) -> None:
        """Closes the client: a ``lease`` waiting on any thread raises ``ClosedError`` at once, and
        so does every later call.
        """
    @property
    def is_cluster(self) -> bool:
        """Whether this client talks to a Redis Cluster."""
    @property
    def warnings(self) -> builtins.list[str]:
        """Risks found in the server's configuration when connecting, e.g. a ``maxmemory-policy``
        that may evict queue keys.
        """
    def __enter__(self) -> Client: ...
    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
        /,
    ) -> bool: ...

@final
class Queue:
    """One queue: the keys under one prefix. Get it from ``Client.queue(prefix)``; safe to use from
    many threads. Every method is one round trip to Redis (a waiting ``lease``, ``lease_batch`` or
    ``wait_result`` waits server-side), during which other Python threads run.
    """

    @property
    def prefix(self) -> str:
        """The prefix of this queue's keys."""
    def add(self, item: Item, timeout: float | timedelta | None = None) -> bool:
        """Adds ``item`` unless an item with its id exists (waiting, delayed, leased or dead);
        returns whether it was added. The item's options (``Item(data, delay=...)``) are checked
        first: nothing is written when one is refused.

        A bounded queue (``set_config(capacity=...)``) that is full raises ``QueueFullError``
        and adds nothing; with ``timeout`` (seconds or a timedelta, ``leaseq.FOREVER``) the add
        waits up to that long for room first, without the GIL (Ctrl-C interrupts it).
        """
    def add_unique(self, item: Item) -> None:
        """Adds ``item`` without checking whether its id exists: for fresh ids (the random UUID of
        ``Item(data)`` is). An existing id would be overwritten and queued twice.
        """
    def add_batch(
        self, items: Iterable[Item], timeout: float | timedelta | None = None
    ) -> int:
        """Adds every item whose id does not exist yet, each with its own options, in one round
        trip; returns how many were added. A bounded queue takes the batch whole or not at all:
        ``QueueFullError``, or with ``timeout`` a wait for room for all of it, as ``add``.
        """
    def lease(
        self,
        ttl: float | timedelta | None = None,
        timeout: float | timedelta | None = None,
        *,
        block: bool | None = None,
    ) -> Lease | None:
        """Leases the next item (highest priority first, FIFO within one) for ``ttl`` (seconds or a
        timedelta; ``None``: ``leaseq.DEFAULT_TTL``), or returns ``None``.

        By default it does not wait. ``timeout=<seconds or timedelta>`` waits server-side up to
        that long for an item, ``timeout=leaseq.FOREVER`` until one comes; a wait can be
        interrupted with Ctrl-C, or by ``Client.close()`` from another thread (``ClosedError``).
        ``block`` is the older spelling: ``block=True`` without a timeout waits forever,
        ``block=False`` never waits.
        """
    def lease_batch(
        self,
        n: int,
        ttl: float | timedelta | None = None,
        timeout: float | timedelta | None = None,
    ) -> builtins.list[Lease]:
        """Leases up to ``n`` items (1 to 1000) in one round trip, in the order ``lease`` would;
        returns a list (empty when none). Waits as ``lease`` does while none is there, and
        returns as soon as at least one is leased.
        """
    def complete(
        self,
        lease: Lease,
        result: bytes | bytearray | str | None = None,
        keep_result_for: float | timedelta | None = None,
    ) -> bool:
        """Completes the leased item. Returns ``True`` for exactly one caller per item: the first to
        complete it (even with an expired lease). With ``result`` (bytes or str) the result is
        kept for ``keep_result_for`` (seconds or timedelta; ``None``: the item's, else the
        queue's setting, else one day), for ``result`` and ``wait_result``.
        """
    def complete_and_lease(
        self,
        lease: Lease,
        ttl: float | timedelta | None = None,
        result: bytes | bytearray | str | None = None,
        keep_result_for: float | timedelta | None = None,
    ) -> tuple[bool, Lease | None]:
        """Completes ``lease`` and leases the next item (without waiting) in one round trip.
        Returns ``(completed, next_lease_or_None)``. ``result`` and ``keep_result_for`` keep a
        result as ``complete`` does.
        """
    def renew(self, lease: Lease, ttl: float | timedelta | None = None) -> bool:
        """Extends the lease to ``ttl`` from now while it is still this holder's. Returns ``False``
        when it expired, another worker took the item, or the item is complete, cancelled or
        added anew; ``renew_outcome`` says which.
        """
    def renew_outcome(
        self, lease: Lease, ttl: float | timedelta | None = None
    ) -> RenewOutcome:
        """Like ``renew``, returning a ``RenewOutcome``: ``renewed``, or why not (``expired``,
        ``taken``, ``completed``, ``cancelled``, ``older_incarnation``).
        """
    def fail(
        self,
        lease: Lease,
        error: str | BaseException,
        error_type: str | None = None,
        retry: bool | float | timedelta = True,
        trace: str | None = None,
    ) -> FailOutcome:
        """Records a failed attempt. ``error`` is a message, or an exception (its ``str()`` is the
        message and its class name the ``error_type``, unless given). ``retry=True`` (the
        default) runs the item again after its backoff while it has attempts left, else it is
        dead; ``retry=<seconds or timedelta>`` after that delay instead; ``retry=False`` makes it
        dead now. ``trace`` (a str, at most 16 KiB kept) is kept with the item and shown by
        ``get``; left out, an exception's traceback is, when it was raised. Returns a
        ``FailOutcome``; only the live holder can fail an item.
        """
    def release(self, lease: Lease, delay: float | timedelta | None = None) -> bool:
        """Hands the item back without counting a failure: it waits again at once, or after
        ``delay`` (seconds or timedelta). Only the live holder can; returns whether it did.
        """
    def progress(self, lease: Lease, value: bytes | bytearray | str) -> bool:
        """Stores a small value (bytes or str, at most 64 KiB) on the leased item, shown by
        ``get``. Only the live holder can; returns whether it did.
        """
    def lease_from_parts(
        self, id: str, token: str, incarnation: str, attempt: int
    ) -> Lease:
        """A lease rebuilt from parts kept elsewhere (e.g. across a process boundary): the id, the
        token, the incarnation and the attempt number. Nothing is sent.
        """
    def complete_batch(
        self, completions: Iterable[CompletionLike]
    ) -> builtins.list[bool]:
        """Completes many leases (at most 1000) in one round trip, each as ``complete`` would;
        returns, in order, whether each call completed its item. Each completion is a ``Lease``
        (no result kept), or a ``leaseq.Completion(lease, result, keep_result_for)`` (any tuple
        of those fields, the last ones optional) whose fields mean what ``complete``'s arguments
        do. Every completion is checked before anything is sent.
        """
    def complete_and_lease_batch(
        self,
        completions: Iterable[CompletionLike],
        n: int,
        ttl: float | timedelta | None = None,
    ) -> tuple[builtins.list[bool], builtins.list[Lease]]:
        """A busy worker's whole step in one round trip: completes ``completions`` (as
        ``complete_batch`` does) and leases up to ``n`` more items (0 to 1000) for ``ttl``,
        without waiting. Returns ``(completed, leases)``: whether each completion completed its
        item, in order, and the new leases (a list, empty when nothing was waiting).
        """
    def renew_batch(
        self, leases: Iterable[Lease], ttl: float | timedelta | None = None
    ) -> builtins.list[RenewOutcome]:
        """Extends many leases (at most 1000, each a ``Lease``) to ``ttl`` from now in one round
        trip; returns each one's ``RenewOutcome``, in order, as ``renew_outcome`` would.
        """
    def fail_batch(self, failures: Iterable[FailureLike]) -> builtins.list[FailOutcome]:
        """Records many failed attempts (at most 1000) in one round trip, each as ``fail`` would;
        returns their ``FailOutcome``s in order. Each failure is a ``leaseq.Failure(lease,
        error, error_type, retry, trace)`` (any tuple of those fields, the last three optional)
        whose fields mean what ``fail``'s arguments do. Every failure is checked
        before anything is sent.
        """
    def result(self, id: bytes | str) -> JobResult | None:
        """The result kept for item ``id`` (``bytes`` or ``str``; a ``JobResult``), or ``None``."""
    def wait_result(
        self, id: bytes | str, timeout: float | timedelta
    ) -> JobResult | None:
        """Waits server-side for item ``id``'s result (``id`` is ``bytes`` or ``str``): up to
        ``timeout`` (seconds or timedelta; ``0`` only reads it), or until it comes with
        ``timeout=leaseq.FOREVER``. Returns ``None`` when the timeout passes first. A job that
        dies raises ``JobDeadError`` (why it died and its last error), within a second: no
        result will come unless it is requeued. Other threads run meanwhile, Ctrl-C interrupts
        it, and so does ``Client.close()`` (``ClosedError``).
        """
    def get(self, id: bytes | str) -> Job | None:
        """Everything known about item ``id`` (``bytes`` or ``str``; a ``Job``), or ``None`` when
        there is no such item and no kept result.
        """
    def add_flow(self, parent: Item, children: Iterable[Item | Flow]) -> int:
        """Adds ``parent`` and its ``children`` (``Item``s, or ``Flow``s with children of their own;
        at most 1000 items in all) in one script call: the children first, then the parent,
        blocked until every child completed. Returns how many items were added.
        """
    def dependencies(self, id: bytes | str) -> Dependencies:
        """What item ``id`` waits for and what waits for it (a ``Dependencies``)."""
    def dependency_results(
        self, id: bytes | str
    ) -> builtins.list[tuple[str, bytes | None]]:
        """The kept results of the items ``id`` was added to wait for, in order: a list of
        ``(dependency id, result bytes or None)``. A flow's parent reads its children's so.
        """
    def list(
        self, state: State | str, start: int = 0, count: int = 100
    ) -> builtins.list[Entry]:
        """A page of the items in ``state`` (a ``State`` or its name): ``count`` (1 to 1000)
        ``Entry``s from position ``start``: waiting in lease order, delayed by due time, leased
        by lease expiry, dead oldest first, done (completed with their result kept) newest first
        (a done item whose result expired, and a cancelled waiting item's id, are skipped, their
        positions counted, so a page may be short and more may follow it; items waiting in
        groups are not listed).
        """
    def find(
        self,
        state: State | str,
        name: str | None = None,
        error_type: str | None = None,
        start: int = 0,
        count: int = 100,
    ) -> Found:
        """The items of ``state`` whose name is ``name`` and whose last error's type is
        ``error_type`` (``None``: any), looking at most at 1000 positions from ``start`` and
        returning at most ``count`` (1 to 1000) matches: a ``Found``, whose ``next`` is where
        the next call goes on (``None`` at the end). Bounded whatever the state's size.
        """
    def promote(self, id: bytes | str) -> bool:
        """Makes the delayed item ``id`` wait now, at its priority (or in its group), as if it were
        due. Returns whether it was delayed.
        """
    def upsert_schedule(self, name: str, schedule: Schedule) -> bool:
        """Stores the recurring job ``name`` (a ``Schedule``), new or replacing the one of that
        name: a change never fires a tick twice nor skips one. Returns whether it is new. The
        queue's runners fire it (in any language), or ``fire_due_schedules``. At most 10,000 a
        queue.
        """
    def remove_schedule(self, name: str) -> bool:
        """Removes the recurring job ``name`` (the items it added stay); returns whether there was
        one.
        """
    def get_schedule(self, name: str) -> ScheduleInfo | None:
        """The recurring job ``name`` with its next fire time (a ``ScheduleInfo``), or ``None``."""
    def schedules(self, start: int = 0, count: int = 100) -> SchedulePage:
        """``count`` (1 to 1000) recurring jobs from position ``start``, by next fire time: a
        ``SchedulePage`` (its ``schedules``, the queue's ``total``, the server's ``now``).
        """
    def fire_due_schedules(self) -> FireReport:
        """Fires the due recurring jobs once (a ``FireReport``), as a runner's housekeeping does:
        for a process without a runner (a cron job). Safe from any number of processes at once.
        """
    def count(self, state: State | str) -> int:
        """How many items are in ``state`` (done: the kept results, expired ones included until a
        later complete drops them).
        """
    def stats(self) -> Stats:
        """Counts per state, the age of the oldest waiting item, and per-minute counters for the
        last hour (a ``Stats``); the counters are ``None`` while the queue's are off (the
        default; ``set_config(stats=True)`` turns them on).
        """
    def counts_by_name(self) -> builtins.list[NameCounts] | None:
        """For each item name (``Item(..., name=...)``) met in the last 60 minutes, what its jobs
        did: a list of ``NameCounts`` (completed, failed attempts, dead), sorted by name. ``None``
        while the queue's counters are off (the default; ``set_config(stats=True)`` turns them
        on): nothing is counted then. One round trip.
        """
    def pause(self) -> bool:
        """Pauses the queue: nothing is leased from it (by any client, in any language) until
        ``resume``; adds, completes and renews go on. The pause is stored in Redis. Returns
        whether the queue was running.
        """
    def resume(self) -> bool:
        """Resumes a paused queue: waiting leases and runners wake at once. Returns whether the
        queue was paused.
        """
    def is_paused(self) -> bool:
        """Whether the queue is paused (also ``Stats.paused``)."""
    def exists(self) -> bool:
        """Whether the queue exists: whether any of its fixed keys does (items, configuration, pause,
        runners, ...), in one round trip. ``False`` for a mistyped name, where ``count`` and
        ``stats`` answer zeros as for an empty queue.
        """
    def pause_group(self, group: str) -> bool:
        """Pauses one group (``Item(..., group=...)``): its items are not leased, by any client,
        until ``resume_group``; the rest of the queue goes on. Returns whether it was running.
        """
    def resume_group(self, group: str) -> bool:
        """Resumes a paused group. Returns whether it was paused."""
    def set_group_limit(self, group: str, limit: int | None = None) -> None:
        """Sets how many items of ``group`` may be leased at once (1 to 1000), for every client;
        ``None`` removes the group's own limit, so that the queue's ``group_concurrency``
        applies (default 1).
        """
    def group(self, group: str) -> GroupInfo:
        """One group at a glance (a ``GroupInfo``): its waiting and leased items, its limit,
        whether it is paused, and how long it waits for its rate limit's window.
        """
    def rate_limit(self, duration: float | timedelta) -> timedelta:
        """Holds every client's leases of the queue off for ``duration`` (seconds or a timedelta):
        a handler was rate limited (an API answered 429). Leases get nothing until then; adds,
        completes and renews go on. A longer hold already in place is kept. Returns how long
        leases are held off (a timedelta); also ``Stats.rate_limited_for``.
        """
    def rate_limit_group(self, group: str, duration: float | timedelta) -> timedelta:
        """Holds one group's leases off for ``duration`` (seconds or a timedelta): a handler
        working for that group (a customer, a tenant) was rate limited by an API that limits per
        key. The queue's other groups and ungrouped items go on; the group's items wait, in
        their order, until the hold ends. A longer hold already in place is kept. Returns how
        long the group is held off (a timedelta); also ``GroupInfo.rate_limited_for``.
        """
    def cancel(self, id: bytes | str) -> State | None:
        """Cancels item ``id``: a waiting, delayed or dead item is removed; a leased one is marked,
        so that its holder's next call returns false and removes it. Returns the ``State`` it was
        in, or ``None`` when there was no item. ``id`` is ``bytes`` or ``str``.
        """
    def dead_requeue(self, ids: Iterable[bytes | str]) -> int:
        """Puts these dead items (at most 1000 ids, each ``bytes`` or ``str``) back to waiting,
        attempts reset; returns how many were requeued (ids that are not dead are skipped).
        """
    def dead_requeue_each(self, ids: Iterable[bytes | str]) -> builtins.list[bool]:
        """Like ``dead_requeue``, returning for each id, in order, whether it was requeued (``False``:
        not a dead letter: no such item, or one in another state; an id given twice is ``False``
        the second time).
        """
    def dead_requeue_oldest(self, n: int | None = None) -> int:
        """Requeues the ``n`` oldest dead items (``None``: all); returns how many."""
    def dead_purge(self, n: int | None = None) -> int:
        """Deletes the ``n`` oldest dead items (``None``: all); returns how many."""
    def config(self) -> QueueConfig:
        """The queue's stored configuration (a ``QueueConfig``; fields not stored are ``None``)."""
    def set_config(
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
        """Stores the given fields of the queue's configuration, which every client reads (the
        others keep their stored value); all are checked before anything is written.
        ``stats=True`` turns on the per-minute counters that ``stats()`` reports;
        ``capacity=<n>`` bounds the queue to ``n`` waiting and delayed items (refused when it
        holds more now); ``rate_limit=RateLimit(max, per)`` allows at most ``max`` leases per
        ``per`` (seconds or a timedelta), counted for every client; ``group_concurrency=<n>``
        lets ``n`` items of a group (``Item(..., group=...)``) be leased at once, for groups
        without a limit of their own (default 1); ``group_rate_limit=RateLimit(max, per)``
        allows at most ``max`` leases of each group per ``per``, every group in its own window.
        ``events=True`` records every transition of an item in the queue's event stream
        (``events()``), kept about ``events_max_len`` entries and ``events_max_age``.
        """
    def reset_config(self) -> None:
        """Removes the stored configuration: the protocol's defaults apply again."""
    def light_clean(self) -> CleanReport:
        """Moves due delayed items to waiting, recovers expired leases, trims dead letters, and
        re-queues items redis-work-queue clients left in processing. Leases do the first two
        themselves; run it where nobody leases, about once per lease TTL.
        """
    def deep_clean(self) -> CleanReport:
        """Everything ``light_clean`` does, and also finds items on no list at all (left by a crashed
        redis-work-queue client). Walks every key of the queue: run it rarely (start-up, hourly).
        """
    def queue_len(self) -> int:
        """How many items wait, at every priority: the same as ``count("waiting")``."""
    def processing_len(self) -> int:
        """How many items are being processed: leased by leaseq (``count("leased")``) plus those
        in redis-work-queue's processing list (leased by its clients, or left by crashed ones
        until a light clean).
        """
    def read_events(self, after: str | None = None, count: int = 100) -> EventsPage:
        """One page of the queue's event stream, without waiting: at most ``count`` (1 to 1000)
        entries after the entry id ``after`` (``None``: none, only where the stream ends now;
        ``"0-0"``: the oldest kept), oldest first, as an ``EventsPage``. A ``gap`` entry comes
        first when entries after ``after`` were trimmed away. A malformed ``after``, or one the
        stream never gave, raises ``InvalidArgumentError``.
        """
    def events(self, after: str | None = None) -> Events:
        """Follows the queue's event stream: ``for event in queue.events(after=...)`` yields
        each ``QueueEvent`` in order, waiting for the next (server-side, without the GIL; Ctrl-C
        interrupts it). From now, or after the entry id ``after`` (a process that restarts
        resumes after the last one it saw, missing nothing still in the stream). It rides
        through lost connections and restarts. Events are recorded only while they are on
        (``set_config(events=True)``).
        """

@final
class AsyncClient:
    """Native half of ``leaseq.aio.Client``."""

    def __new__(cls, url: str) -> AsyncClient: ...
    @staticmethod
    def cluster(urls: Sequence[str]) -> AsyncClient:
        """A client of a Redis Cluster; checks the URLs without connecting."""
    def connect(self) -> asyncio.Future[None]:
        """Connects now (an asyncio future of ``None``), unless connected already."""
    def queue(self, prefix: str) -> AsyncQueue:
        """The queue under ``prefix`` (validated; nothing is sent)."""
    def create_partitioned(
        self, base: str, partitions: int
    ) -> asyncio.Future[AsyncPartitionedQueue]:
        """See ``leaseq.Client.create_partitioned`` (an asyncio future of the queue)."""
    def partitioned(self, base: str) -> asyncio.Future[AsyncPartitionedQueue]:
        """See ``leaseq.Client.partitioned`` (an asyncio future of the queue)."""
    def close(self) -> None:
        """Closes the client: waiting leases raise ``ClosedError``, and so does every later call."""
    @property
    def is_cluster(self) -> bool:
        """Whether this client talks to a Redis Cluster."""
    @property
    def warnings(self) -> builtins.list[str]:
        """Risks found in the server's configuration when connecting (none before it connected)."""

@final
class AsyncQueue:
    """Native half of ``leaseq.aio.Queue``: each method returns an asyncio future."""

    @property
    def prefix(self) -> str:
        """The prefix of this queue's keys."""
    def add(
        self, item: Item, timeout: float | timedelta | None = None
    ) -> asyncio.Future[bool]:
        """See ``leaseq.Queue.add``; a wait for room is cancelled with the awaiting task."""
    def add_unique(self, item: Item) -> asyncio.Future[None]:
        """See ``leaseq.Queue.add_unique``."""
    def add_batch(
        self, items: Iterable[Item], timeout: float | timedelta | None = None
    ) -> asyncio.Future[int]:
        """See ``leaseq.Queue.add_batch``; a wait for room is cancelled with the awaiting task."""
    def lease(
        self,
        ttl: float | timedelta | None = None,
        timeout: float | timedelta | None = None,
        *,
        block: bool | None = None,
    ) -> asyncio.Future[Lease | None]:
        """See ``leaseq.Queue.lease``; a wait is cancelled with the awaiting task."""
    def lease_batch(
        self,
        n: int,
        ttl: float | timedelta | None = None,
        timeout: float | timedelta | None = None,
    ) -> asyncio.Future[builtins.list[Lease]]:
        """See ``leaseq.Queue.lease_batch``."""
    def complete(
        self,
        lease: Lease,
        result: bytes | bytearray | str | None = None,
        keep_result_for: float | timedelta | None = None,
    ) -> asyncio.Future[bool]:
        """See ``leaseq.Queue.complete``."""
    def complete_and_lease(
        self,
        lease: Lease,
        ttl: float | timedelta | None = None,
        result: bytes | bytearray | str | None = None,
        keep_result_for: float | timedelta | None = None,
    ) -> asyncio.Future[tuple[bool, Lease | None]]:
        """See ``leaseq.Queue.complete_and_lease``."""
    def renew(
        self, lease: Lease, ttl: float | timedelta | None = None
    ) -> asyncio.Future[bool]:
        """See ``leaseq.Queue.renew``."""
    def renew_outcome(
        self, lease: Lease, ttl: float | timedelta | None = None
    ) -> asyncio.Future[RenewOutcome]:
        """See ``leaseq.Queue.renew_outcome``."""
    def fail(
        self,
        lease: Lease,
        error: str | BaseException,
        error_type: str | None = None,
        retry: bool | float | timedelta = True,
        trace: str | None = None,
    ) -> asyncio.Future[FailOutcome]:
        """See ``leaseq.Queue.fail``."""
    def release(
        self, lease: Lease, delay: float | timedelta | None = None
    ) -> asyncio.Future[bool]:
        """See ``leaseq.Queue.release``."""
    def progress(
        self, lease: Lease, value: bytes | bytearray | str
    ) -> asyncio.Future[bool]:
        """See ``leaseq.Queue.progress``."""
    def lease_from_parts(
        self, id: str, token: str, incarnation: str, attempt: int
    ) -> Lease:
        """See ``leaseq.Queue.lease_from_parts`` (nothing is sent: it returns the lease itself)."""
    def complete_batch(
        self, completions: Iterable[CompletionLike]
    ) -> asyncio.Future[builtins.list[bool]]:
        """See ``leaseq.Queue.complete_batch``."""
    def complete_and_lease_batch(
        self,
        completions: Iterable[CompletionLike],
        n: int,
        ttl: float | timedelta | None = None,
    ) -> asyncio.Future[tuple[builtins.list[bool], builtins.list[Lease]]]:
        """See ``leaseq.Queue.complete_and_lease_batch``."""
    def renew_batch(
        self, leases: Iterable[Lease], ttl: float | timedelta | None = None
    ) -> asyncio.Future[builtins.list[RenewOutcome]]:
        """See ``leaseq.Queue.renew_batch``."""
    def fail_batch(
        self, failures: Iterable[FailureLike]
    ) -> asyncio.Future[builtins.list[FailOutcome]]:
        """See ``leaseq.Queue.fail_batch``."""
    def result(self, id: bytes | str) -> asyncio.Future[JobResult | None]:
        """See ``leaseq.Queue.result``."""
    def wait_result(
        self, id: bytes | str, timeout: float | timedelta
    ) -> asyncio.Future[JobResult | None]:
        """See ``leaseq.Queue.wait_result``; the wait is cancelled with the awaiting task."""
    def get(self, id: bytes | str) -> asyncio.Future[Job | None]:
        """See ``leaseq.Queue.get``."""
    def add_flow(
        self, parent: Item, children: Iterable[Item | Flow]
    ) -> asyncio.Future[int]:
        """See ``leaseq.Queue.add_flow``."""
    def dependencies(self, id: bytes | str) -> asyncio.Future[Dependencies]:
        """See ``leaseq.Queue.dependencies``."""
    def dependency_results(
        self, id: bytes | str
    ) -> asyncio.Future[builtins.list[tuple[str, bytes | None]]]:
        """See ``leaseq.Queue.dependency_results``; the results as ``bytes``."""
    def list(
        self, state: State | str, start: int = 0, count: int = 100
    ) -> asyncio.Future[builtins.list[Entry]]:
        """See ``leaseq.Queue.list``."""
    def find(
        self,
        state: State | str,
        name: str | None = None,
        error_type: str | None = None,
        start: int = 0,
        count: int = 100,
    ) -> asyncio.Future[Found]:
        """See ``leaseq.Queue.find``."""
    def promote(self, id: bytes | str) -> asyncio.Future[bool]:
        """See ``leaseq.Queue.promote``."""
    def upsert_schedule(self, name: str, schedule: Schedule) -> asyncio.Future[bool]:
        """See ``leaseq.Queue.upsert_schedule``."""
    def remove_schedule(self, name: str) -> asyncio.Future[bool]:
        """See ``leaseq.Queue.remove_schedule``."""
    def get_schedule(self, name: str) -> asyncio.Future[ScheduleInfo | None]:
        """See ``leaseq.Queue.get_schedule``."""
    def schedules(
        self, start: int = 0, count: int = 100
    ) -> asyncio.Future[SchedulePage]:
        """See ``leaseq.Queue.schedules``."""
    def fire_due_schedules(self) -> asyncio.Future[FireReport]:
        """See ``leaseq.Queue.fire_due_schedules``."""
    def count(self, state: State | str) -> asyncio.Future[int]:
        """See ``leaseq.Queue.count``."""
    def stats(self) -> asyncio.Future[Stats]:
        """See ``leaseq.Queue.stats``."""
    def counts_by_name(self) -> asyncio.Future[builtins.list[NameCounts] | None]:
        """See ``leaseq.Queue.counts_by_name``."""
    def pause(self) -> asyncio.Future[bool]:
        """See ``leaseq.Queue.pause``."""
    def resume(self) -> asyncio.Future[bool]:
        """See ``leaseq.Queue.resume``."""
    def is_paused(self) -> asyncio.Future[bool]:
        """See ``leaseq.Queue.is_paused``."""
    def exists(self) -> asyncio.Future[bool]:
        """See ``leaseq.Queue.exists``."""
    def pause_group(self, group: str) -> asyncio.Future[bool]:
        """See ``leaseq.Queue.pause_group``."""
    def resume_group(self, group: str) -> asyncio.Future[bool]:
        """See ``leaseq.Queue.resume_group``."""
    def set_group_limit(
        self, group: str, limit: int | None = None
    ) -> asyncio.Future[None]:
        """See ``leaseq.Queue.set_group_limit``."""
    def group(self, group: str) -> asyncio.Future[GroupInfo]:
        """See ``leaseq.Queue.group``."""
    def rate_limit(self, duration: float | timedelta) -> asyncio.Future[timedelta]:
        """See ``leaseq.Queue.rate_limit``."""
    def rate_limit_group(
        self, group: str, duration: float | timedelta
    ) -> asyncio.Future[timedelta]:
        """See ``leaseq.Queue.rate_limit_group``."""
    def cancel(self, id: bytes | str) -> asyncio.Future[State | None]:
        """See ``leaseq.Queue.cancel``."""
    def dead_requeue(self, ids: Iterable[bytes | str]) -> asyncio.Future[int]:
        """See ``leaseq.Queue.dead_requeue``."""
    def dead_requeue_each(
        self, ids: Iterable[bytes | str]
    ) -> asyncio.Future[builtins.list[bool]]:
        """See ``leaseq.Queue.dead_requeue_each``."""
    def dead_requeue_oldest(self, n: int | None = None) -> asyncio.Future[int]:
        """See ``leaseq.Queue.dead_requeue_oldest``."""
    def dead_purge(self, n: int | None = None) -> asyncio.Future[int]:
        """See ``leaseq.Queue.dead_purge``."""
    def config(self) -> asyncio.Future[QueueConfig]:
        """See ``leaseq.Queue.config``."""
    def set_config(
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
    ) -> asyncio.Future[None]:
        """See ``leaseq.Queue.set_config``."""
    def reset_config(self) -> asyncio.Future[None]:
        """See ``leaseq.Queue.reset_config``."""
    def light_clean(self) -> asyncio.Future[CleanReport]:
        """See ``leaseq.Queue.light_clean``."""
    def deep_clean(self) -> asyncio.Future[CleanReport]:
        """See ``leaseq.Queue.deep_clean``."""
    def queue_len(self) -> asyncio.Future[int]:
        """See ``leaseq.Queue.queue_len``."""
    def processing_len(self) -> asyncio.Future[int]:
        """See ``leaseq.Queue.processing_len``."""
    def read_events(
        self, after: str | None = None, count: int = 100
    ) -> asyncio.Future[EventsPage]:
        """See ``leaseq.Queue.read_events``."""
    def events(self, after: str | None = None) -> asyncio.Future[AsyncEvents]:
        """See ``leaseq.Queue.events``: a future of the follower, whose ``next()`` is a future of
        the next entry.
        """

def _error_class(code: str) -> type: ...

# The core's operation table (leaseq::operations), as `operations()` returns it.
class _OperationArg(TypedDict):
    name: str
    kind: str
    required: bool
    default: str | None
    only: str | None

class _Operation(TypedDict):
    name: str
    args: builtins.list[_OperationArg]
    reply: str
    round_trips: int
    summary: str

def operations() -> builtins.list[_Operation]:
    """Every operation of a queue, in the core's order: dicts ``{name, args, reply, round_trips,
    summary}``, each argument ``{name, kind, required, default, only}`` (``default`` is the
    table's words for what applies when it is left out, ``None`` for a required one; ``only`` is
    the one language that has it, or ``None``).
    """

# The core's table of a partitioned queue's operations, as `partitioned_operations()` returns it.
class _PartitionedOperation(TypedDict):
    name: str
    route: str
    rust: builtins.list[str]
    queue: bool

def partitioned_operations() -> builtins.list[_PartitionedOperation]:
    """Every operation of a partitioned queue, in the core's order: dicts ``{name, route, rust,
    queue}`` (``route`` says where it goes, ``rust`` lists the Rust methods that implement it,
    ``queue`` is whether a queue operation of that name exists, whose arguments it takes).
    """

def events() -> builtins.list[str]:
    """The runner's event names, in the core's order (``leaseq.Worker.on`` takes them)."""

def _shutdown() -> None: ...
def cli_main(argv: list[str]) -> int:
    """Runs the `leaseq` command with `argv` (the program name first) and returns its exit code.
    The GIL is released while it runs; it has its own tokio runtime.
    """

# The runner's native side (leaseq.worker wraps it).
@final
class NativeJob:
    """The job a handler receives, as the native layer holds it (``leaseq.Job`` wraps it)."""

    @property
    def id(self) -> str:
        """The item's id."""
    @property
    def id_bytes(self) -> bytes:
        """The id exactly as Redis holds it (differs from ``id`` only for an id that is not UTF-8)."""
    @property
    def data(self) -> bytes:
        """The item's data."""
    @property
    def attempt(self) -> int:
        """Which attempt this is (1 for the first)."""
    @property
    def name(self) -> str | None:
        """The item's name (``Item(..., name=...)``), or ``None``: a runner with a dict of handlers
        runs the job with the handler of that name, else its fallback.
        """
    @property
    def max_attempts(self) -> int:
        """The item's attempt limit (0: unlimited)."""
    @property
    def queue_prefix(self) -> str:
        """The prefix of the queue the job came from (the core's `Job::queue`): it is finished
        there.
        """
    @property
    def key(self) -> int:
        """This job's key in the runner: `WorkerRun.take()` names jobs told to stop by it."""
    @property
    def lease_lost(self) -> bool:
        """Whether the runner learned that this job's lease is gone (the core's `Job::is_lost`):
        the handler should stop.
        """
    @property
    def cancel_reason(self) -> str | None:
        """Why the handler was told to stop (the core's `CancelReason`: `timeout`, `lease_lost`
        or `shutdown`), or `None`.
        """
    def dependency_results(self) -> builtins.list[tuple[str, bytes | None]]:
        """The kept results of the items this job was added to wait for, in order: a list of
        ``(dependency id, result bytes or None)``. A flow's parent reads its children's so.
        """
    def progress(self, value: bytes | str) -> bool:
        """Stores a progress value (bytes or str, at most 64 KiB); false once the lease is lost."""

@final
class Done:
    """Carries one job's outcome back to the engine; called once by the Python layer, which then
    calls `WorkerRun.flush()`.
    """

    def __call__(self, kind: str, value: object) -> None: ...

@final
class WorkerRun:
    """A started runner: the thread that called ``Worker.run()`` waits on it in slices."""

    @property
    def concurrency(self) -> int:
        """How many jobs the runner runs at once (the option, or its default applied)."""
    @property
    def keep_results(self) -> bool:
        """Whether handlers' return values are kept (the default applied): the Python layer encodes
        them only then.
        """
    def wait(self, timeout: float) -> tuple[int, int, int, int, int, int] | None:
        """Waits up to ``timeout`` seconds (without the GIL); returns the report as a tuple
        ``(completed, retried, dead, lost, released, timed_out)`` once the runner ended, else
        ``None``.
        """
    @property
    def fd(self) -> int:
        """The file descriptor that turns readable when jobs, or keys of jobs told to stop, wait:
        read (and discard) what it holds, then call ``take()``.
        """
    def take(
        self,
    ) -> tuple[builtins.list[tuple[NativeJob, Done]], builtins.list[int]]:
        """Everything waiting, in one call: ``(jobs, told)``, the new jobs as ``(job, done)`` pairs
        and the keys of jobs told to stop since the last call (after their jobs): their
        ``cancel_reason`` says why.
        """
    def logs(self) -> builtins.list[tuple[int, str]]:
        """The runner's log lines since the last call (spec/PROTOCOL.md 13.4), as ``(levelno,
        line)``: ``levelno`` is ``logging``'s (10 debug, 20 info, 30 warning, 40 error), the line
        worded by the core; only those at or above the ``log_level`` the runner started with.
        """
    def events(
        self, completed: bool
    ) -> builtins.list[tuple[str, str | None, int, object]]:
        """The events since the last call, as tuples ``(name, id, attempt, detail)``, named,
        identified and worded by the core (``Event::name``, ``id``, ``attempt``, ``message``);
        `completed` events only when ``completed`` is true (nobody listening: they are not built
        at all). The detail: ``(message, retry_in_seconds)`` for ``retrying``,
        ``(step, code, message)`` for ``error``, else the event's message (``None`` when empty).
        """
    def flush(self) -> None:
        """Hands every outcome that `done(...)` stored since the last call to the engine, at once
        (from any thread). It never waits on Redis: it queues them for the runner's finishing
        task (a short lock of its table of running jobs), so it keeps the GIL, which a pool of
        handler threads would otherwise pass around at every job.
        """
    def interrupt(self) -> None:
        """Starts a graceful shutdown (the first Ctrl-C); a second call forces."""
    def stop(self) -> None:
        """Starts a graceful shutdown."""
    def force(self) -> None:
        """Forces the shutdown: running handlers are told (reason `shutdown`) and released."""

def start_worker(
    queue: Queue | list[Queue] | tuple[Queue, ...],
    options: Mapping[str, object],
    stopped: Callable[[], bool],
    on_wait: Callable[[tuple[str, str | None, int, object], int, str], None],
) -> WorkerRun | None:
    """Starts the core's runner over `queue` (one `Queue`, or a list of them, asked in strict
    order, or by weighted round robin with `options["weights"]`, one per queue); Python takes
    its jobs with `WorkerRun.take()`. With `options["handlers"]` (the names of a table of
    handlers) and `options["fallback"]` (whether it has a fallback), the core checks the table
    (argument `handlers`) and fails for good, without handing it to Python, a job that no name
    and no fallback takes. The settings are checked first. Then, while Redis cannot be reached,
    it waits without the GIL, trying again after 100 ms doubling to 5 s: every 100 ms at most,
    with the GIL, Python's signal handlers run (their exception, a KeyboardInterrupt say, ends
    the wait and is raised) and `stopped()` is called (true ends the wait: the call returns
    `None`); the outage and its end go to `on_wait(event, levelno, line)`, the event as
    `WorkerRun.events()` gives it (an `error` with step `connect`, then `recovered`) with its log
    line.
    """

def connect_waiting(
    urls: list[str],
    cluster: bool,
    stopped: Callable[[], bool],
    on_wait: Callable[[tuple[str, str | None, int, object], int, str], None],
) -> Client | None:
    """A client of the server at `urls[0]`, or with `cluster` of the Cluster whose nodes `urls`
    name, once Redis answers: while it cannot be reached, this waits as
    `start_worker` does (the same `stopped` and `on_wait`; `None` when stopped). A URL or a
    login that Redis refuses raises at once. For ``python -m leaseq worker``, which starts
    before Redis as Celery's and BullMQ's workers may.
    """

@final
class PartitionedStats:
    """A partitioned queue's figures (``PartitionedQueue.stats``): ``total``, the logical queue's
    (counts summed; paused when every partition is), and ``partitions``, each partition's own.
    """

    @property
    def total(self) -> Stats:
        """The logical queue's figures (a ``Stats``)."""
    @property
    def partitions(self) -> builtins.list[Stats]:
        """Each partition's figures, partition ``i`` at index ``i`` (a list of ``Stats``)."""
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class PartitionedQueue:
    """One logical queue stored as partitions, each a full queue on its own hash tag, so that a
    Redis Cluster spreads them over its primaries. Get it from
    ``Client.create_partitioned(base, partitions)`` or ``Client.partitioned(base)``; safe to
    use from many threads. Items go to a partition by their group, else where their dependencies are,
    else their id; leases rotate over the partitions; reads see the whole logical queue.
    """

    @property
    def base(self) -> str:
        """The base that names the logical queue."""
    @property
    def partitions(self) -> builtins.list[str]:
        """The partitions' prefixes, in order (``len(q.partitions)`` partitions)."""
    def partition(self, i: int) -> Queue:
        """Partition ``i`` as a ``Queue`` (``InvalidArgumentError`` naming ``partition`` when out
        of range).
        """
    def partition_of(self, item: Item) -> int:
        """The index of the partition ``item`` goes to (as ``add`` routes it: by its group, else
        its first dependency's id, else its id). Sends nothing, so for an item with
        dependencies it answers as if each were in its id's partition; ``add`` looks them up.
        """
    def queue_of(self, lease: Lease) -> Queue:
        """The partition that issued ``lease``, as a ``Queue``: to finish it in ways this class
        does not offer (``renew``, ``release``, ``progress``).
        """
    def add(self, item: Item, timeout: float | timedelta | None = None) -> bool:
        """Adds ``item`` to its partition unless an item with its id exists there; returns whether
        it was added. An item with dependencies goes where they are (looked up first, one more
        round trip); one whose dependencies are in two partitions, or in another than its
        group's, is refused (``depends_on``). One round trip. A full bounded partition raises
        ``QueueFullError``, or with ``timeout`` waits up to that long for room first, as
        ``Queue.add`` (without the GIL; Ctrl-C interrupts it).
        """
    def add_unique(self, item: Item) -> None:
        """Adds ``item`` to its partition (routed as ``add`` routes it) without checking whether its
        id exists there, as ``Queue.add_unique`` does: for fresh ids (the random UUID of
        ``Item(data)`` is). An existing id would be overwritten and queued twice. One round trip;
        one more (to every partition at once) for an item with dependencies.
        """
    def add_batch(
        self, items: Iterable[Item], timeout: float | timedelta | None = None
    ) -> int:
        """Adds every item whose id does not exist yet in its partition; returns how many were
        added. One script call per partition touched, sent at once; every item is checked first
        and nothing is sent when one is refused. ``timeout`` waits for room in each bounded
        partition as ``add`` does (a part refused for want of room leaves the others added).
        """
    def add_flow(self, parent: Item, children: Iterable[Item | Flow]) -> int:
        """Adds ``parent`` and its ``children`` as ``Queue.add_flow`` does, the whole flow to the
        partition its parent routes to. A dependency on an item outside the flow that is in
        another partition is refused (``depends_on``), as is an item whose group lives in
        another partition (``group``).
        """
    def lease(
        self,
        ttl: float | timedelta | None = None,
        timeout: float | timedelta | None = None,
        *,
        block: bool | None = None,
    ) -> Lease | None:
        """Leases one item from any partition, asked in a rotating order, or returns ``None``;
        ``ttl``, ``timeout`` and ``block`` as ``Queue.lease`` (a wait covers every partition at
        once and can be interrupted with Ctrl-C).
        """
    def lease_batch(
        self,
        n: int,
        ttl: float | timedelta | None = None,
        timeout: float | timedelta | None = None,
    ) -> builtins.list[Lease]:
        """Leases up to ``n`` items (1 to 1000) from as many partitions as it takes; waits as
        ``lease`` does while none is there.
        """
    def complete(
        self,
        lease: Lease,
        result: bytes | bytearray | str | None = None,
        keep_result_for: float | timedelta | None = None,
    ) -> bool:
        """Completes ``lease`` in its own partition, as ``Queue.complete`` does (``result`` and
        ``keep_result_for`` too).
        """
    def fail(
        self,
        lease: Lease,
        error: str | BaseException,
        error_type: str | None = None,
        retry: bool | float | timedelta = True,
        trace: str | None = None,
    ) -> FailOutcome:
        """Records a failed attempt of ``lease`` in its own partition, as ``Queue.fail`` does (the
        same ``error``, ``error_type``, ``retry`` and ``trace``): retried there, or dead there.
        Returns a ``FailOutcome``; a lease of another queue is refused (``lease``).
        """
    def complete_batch(
        self, completions: Iterable[CompletionLike]
    ) -> builtins.list[bool]:
        """Completes many leases (at most 1000), each in its own partition as ``complete`` does:
        one call per partition touched, sent at once. Takes what ``Queue.complete_batch`` takes;
        returns, in order, whether each completed its item. Every completion is checked first (a
        lease of another queue is refused, ``lease``), and nothing is sent when one is refused;
        not atomic across partitions (when one call fails, the others may have run).
        """
    def renew_batch(
        self, leases: Iterable[Lease], ttl: float | timedelta | None = None
    ) -> builtins.list[RenewOutcome]:
        """Extends many leases (at most 1000, each a ``Lease``) to ``ttl`` from now, each in its
        own partition, sent as ``complete_batch`` sends them; returns each one's
        ``RenewOutcome``, in order.
        """
    def fail_batch(self, failures: Iterable[FailureLike]) -> builtins.list[FailOutcome]:
        """Records many failed attempts (at most 1000), each in its own partition as ``fail`` does,
        sent as ``complete_batch`` sends them. Takes what ``Queue.fail_batch`` takes; returns
        their ``FailOutcome``s in order.
        """
    def get(self, id: bytes | str) -> Job | None:
        """Item ``id`` (a ``Job``) from whichever partition holds it, or ``None``."""
    def cancel(self, id: bytes | str) -> State | None:
        """Cancels item ``id`` in whichever partition holds it, as ``Queue.cancel`` does; returns
        the ``State`` it was in, or ``None``.
        """
    def result(self, id: bytes | str) -> JobResult | None:
        """The result kept for item ``id`` (a ``JobResult``), or ``None``."""
    def promote(self, id: bytes | str) -> bool:
        """Makes the delayed item ``id`` wait now in whichever partition holds it, as
        ``Queue.promote`` does. Returns whether it was delayed (``False`` when no partition has
        it delayed).
        """
    def dependencies(self, id: bytes | str) -> Dependencies:
        """What item ``id`` waits for and what waits for it (a ``Dependencies``), read in the
        partition that holds it (an item and its dependencies share one); empty when no
        partition knows of any.
        """
    def dependency_results(
        self, id: bytes | str
    ) -> builtins.list[tuple[str, bytes | None]]:
        """The kept results of the items ``id`` was added to wait for, in order, read in the
        partition that holds it, as ``Queue.dependency_results`` does: a list of ``(dependency
        id, result bytes or None)``; empty when no partition knows ``id``'s dependencies.
        """
    def wait_result(
        self, id: bytes | str, timeout: float | timedelta
    ) -> JobResult | None:
        """Waits for item ``id``'s result as ``Queue.wait_result`` does (the same ``timeout``),
        where the item is: looked up in every partition at once first, then waited for there
        (in every partition when it is in none yet). Returns ``None`` when the timeout passes
        first, and raises ``JobDeadError`` when the job dies. Other threads run meanwhile,
        Ctrl-C interrupts it, and so does ``Client.close()`` (``ClosedError``).
        """
    def pause_group(self, group: str) -> bool:
        """Pauses group ``group`` in its partition, where all its items live, as
        ``Queue.pause_group`` does; returns whether it was running.
        """
    def resume_group(self, group: str) -> bool:
        """Resumes group ``group`` in its partition; returns whether it was paused."""
    def set_group_limit(self, group: str, limit: int | None = None) -> None:
        """Sets group ``group``'s limit in its partition, as ``Queue.set_group_limit`` does (1 to
        1000; ``None``: the queue's ``group_concurrency``).
        """
    def rate_limit_group(self, group: str, duration: float | timedelta) -> timedelta:
        """Holds group ``group``'s leases off for ``duration`` (seconds or a timedelta) in its
        partition, as ``Queue.rate_limit_group`` does; returns how long (a timedelta).
        """
    def group(self, group: str) -> GroupInfo:
        """Group ``group`` (a ``GroupInfo``), read in its partition, which holds all of it."""
    def stats(self) -> PartitionedStats:
        """The logical queue's figures and each partition's (a ``PartitionedStats``), read from
        every partition at once.
        """
    def count(self, state: State | str) -> int:
        """How many items are in ``state``, summed over the partitions (as ``Queue.count``)."""
    def list(
        self, state: State | str, start: int = 0, count: int = 100
    ) -> builtins.list[Entry]:
        """A page of the logical queue's items in ``state``: partition 0's, then partition 1's,
        and so on (no order by time across partitions).
        """
    def find(
        self,
        state: State | str,
        name: str | None = None,
        error_type: str | None = None,
        start: int = 0,
        count: int = 100,
    ) -> Found:
        """The items of ``state`` whose name is ``name`` and whose last error's type is
        ``error_type`` (``None``: any), as ``Queue.find``, over the logical queue's positions as
        ``list`` numbers them (partition 0's, then partition 1's, and so on). One call looks in
        one partition, the one that holds position ``start``, at most at 1000 of its positions,
        returning at most ``count`` (1 to 1000) matches: a ``Found``, whose ``next`` goes on in
        that partition, or at the next partition's first position once this one's end is reached
        (``None`` after the last). Two round trips.
        """
    def pause(self) -> bool:
        """Pauses every partition; returns whether any was running."""
    def resume(self) -> bool:
        """Resumes every partition; returns whether any was paused."""
    def is_paused(self) -> bool:
        """Whether the logical queue is paused: every partition is (as ``PartitionedStats.total``
        says), read from every partition at once.
        """
    def exists(self) -> bool:
        """Whether any partition exists (as ``Queue.exists``: any of its fixed keys does).
        ``False`` for a partitioned queue created and never used, whose layout is all there is.
        Read from every partition at once.
        """
    def queue_len(self) -> int:
        """How many items wait, at every priority, summed over the partitions (as
        ``Queue.queue_len``: the same as ``count("waiting")``), read from every partition at
        once.
        """
    def processing_len(self) -> int:
        """How many items are being processed, summed over the partitions (as
        ``Queue.processing_len``: leased by leaseq plus those in redis-work-queue's processing
        list), read from every partition at once.
        """
    def counts_by_name(self) -> builtins.list[NameCounts] | None:
        """For each item name met in the last 60 minutes, what its jobs did (a list of
        ``NameCounts``, as ``Queue.counts_by_name``), summed over the partitions, sorted by
        name as a queue's are (at most 1000). ``None`` when no partition counts
        (``set_config(stats=True)`` turns the counters on). Read from every partition at once.
        """
    def rate_limit(self, duration: float | timedelta) -> timedelta:
        """Holds every partition's leases off for ``duration`` (seconds or a timedelta), as
        ``Queue.rate_limit`` does: a handler was rate limited, and the limit is the logical
        queue's. A longer hold already in place in a partition is kept there. Returns the
        longest hold now in place (a timedelta); also ``PartitionedStats.total.rate_limited_for``.
        """
    def dead_requeue(self, ids: Iterable[bytes | str]) -> int:
        """Puts these dead items (at most 1000 ids, each ``bytes`` or ``str``) back to waiting,
        each in the partition that holds it, as ``Queue.dead_requeue`` does; returns how many
        were requeued (ids that are not dead are skipped).
        """
    def dead_requeue_each(self, ids: Iterable[bytes | str]) -> builtins.list[bool]:
        """Like ``dead_requeue``, returning for each id, in order, whether it was requeued
        (``False``: not a dead letter in any partition; an id given twice is ``False`` the
        second time).
        """
    def dead_requeue_oldest(self, n: int | None = None) -> int:
        """Requeues the ``n`` oldest dead items of the logical queue, by time of death over every
        partition (``None``: all of every partition); returns how many.
        """
    def dead_purge(self, n: int | None = None) -> int:
        """Deletes the ``n`` oldest dead items of the logical queue, by time of death over every
        partition (``None``: all of every partition); returns how many.
        """
    def config(self) -> QueueConfig:
        """The logical queue's stored configuration (a ``QueueConfig``): partition 0's, which
        ``set_config`` writes to every partition alike (read a partition's own with
        ``partition(i).config()`` when one was set alone). One round trip.
        """
    def set_config(
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
        """Stores the given fields of the configuration in every partition, as ``Queue.set_config``
        does (the same keywords, all checked before anything is written); limits such as
        ``capacity`` and ``rate_limit`` then hold per partition.
        """
    def reset_config(self) -> None:
        """Removes every partition's stored configuration: the protocol's defaults apply again."""
    def light_clean(self) -> CleanReport:
        """A light clean of every partition, all at once, as ``Queue.light_clean`` does (due
        delayed items to waiting, expired leases recovered, dead letters trimmed, items
        redis-work-queue clients left in processing re-queued); returns the reports summed (a
        ``CleanReport``).
        """
    def deep_clean(self) -> CleanReport:
        """A deep clean of every partition, as ``Queue.deep_clean`` does (a light clean, and items
        on no list at all), one partition after another: each walks its node's keys, so run it
        rarely. Returns the reports summed (a ``CleanReport``).
        """
    def upsert_schedule(self, name: str, schedule: Schedule) -> bool:
        """``Queue.upsert_schedule`` in partition 0, where the queue's recurring jobs live (their
        items are added there): returns whether it is new.
        """
    def remove_schedule(self, name: str) -> bool:
        """``Queue.remove_schedule`` in partition 0: whether there was one."""
    def get_schedule(self, name: str) -> ScheduleInfo | None:
        """``Queue.get_schedule`` in partition 0: a ``ScheduleInfo``, or ``None``."""
    def schedules(self, start: int = 0, count: int = 100) -> SchedulePage:
        """``Queue.schedules`` in partition 0: ``count`` (1 to 1000) recurring jobs from position
        ``start``, by next fire time (a ``SchedulePage``).
        """
    def fire_due_schedules(self) -> FireReport:
        """``Queue.fire_due_schedules`` in partition 0, as a runner over the queue fires them: for
        a process without a runner. A ``FireReport``.
        """
    def events(self, after: str | None = None) -> Events:
        """Follows every partition's event stream at once: ``for event in queue.events(after=...)``
        yields each ``QueueEvent`` with its ``partition``, waiting (without the GIL) for the
        next. Each partition's entries come in their order; across partitions, the earliest of
        those read first, and no order beyond that. From now, or after ``after``: a follower's
        ``position`` (an id per partition, joined by ``,``), or one id for every partition
        (``"0-0"``: every entry still kept). It rides through lost connections and restarts.
        """

@final
class AsyncPartitionedQueue:
    """Native half of ``leaseq.aio.PartitionedQueue``: each method returns an asyncio future."""

    @property
    def base(self) -> str:
        """See ``leaseq.PartitionedQueue.base``."""
    @property
    def partitions(self) -> builtins.list[str]:
        """See ``leaseq.PartitionedQueue.partitions``."""
    def partition(self, i: int) -> AsyncQueue:
        """See ``leaseq.PartitionedQueue.partition``: partition ``i`` as an ``AsyncQueue``."""
    def partition_of(self, item: Item) -> int:
        """See ``leaseq.PartitionedQueue.partition_of`` (nothing is sent: it returns the index
        itself).
        """
    def queue_of(self, lease: Lease) -> AsyncQueue:
        """See ``leaseq.PartitionedQueue.queue_of``: the partition as an ``AsyncQueue`` (nothing is
        sent).
        """
    def add(
        self, item: Item, timeout: float | timedelta | None = None
    ) -> asyncio.Future[bool]:
        """See ``leaseq.PartitionedQueue.add``; a wait for room is cancelled with the awaiting
        task.
        """
    def add_unique(self, item: Item) -> asyncio.Future[None]:
        """See ``leaseq.PartitionedQueue.add_unique``."""
    def add_batch(
        self, items: Iterable[Item], timeout: float | timedelta | None = None
    ) -> asyncio.Future[int]:
        """See ``leaseq.PartitionedQueue.add_batch``; a wait for room is cancelled with the
        awaiting task.
        """
    def add_flow(
        self, parent: Item, children: Iterable[Item | Flow]
    ) -> asyncio.Future[int]:
        """See ``leaseq.PartitionedQueue.add_flow``."""
    def lease(
        self,
        ttl: float | timedelta | None = None,
        timeout: float | timedelta | None = None,
        *,
        block: bool | None = None,
    ) -> asyncio.Future[Lease | None]:
        """See ``leaseq.PartitionedQueue.lease``; a wait is cancelled with the awaiting task."""
    def lease_batch(
        self,
        n: int,
        ttl: float | timedelta | None = None,
        timeout: float | timedelta | None = None,
    ) -> asyncio.Future[builtins.list[Lease]]:
        """See ``leaseq.PartitionedQueue.lease_batch``."""
    def complete(
        self,
        lease: Lease,
        result: bytes | bytearray | str | None = None,
        keep_result_for: float | timedelta | None = None,
    ) -> asyncio.Future[bool]:
        """See ``leaseq.PartitionedQueue.complete``."""
    def fail(
        self,
        lease: Lease,
        error: str | BaseException,
        error_type: str | None = None,
        retry: bool | float | timedelta = True,
        trace: str | None = None,
    ) -> asyncio.Future[FailOutcome]:
        """See ``leaseq.PartitionedQueue.fail``."""
    def complete_batch(
        self, completions: Iterable[CompletionLike]
    ) -> asyncio.Future[builtins.list[bool]]:
        """See ``leaseq.PartitionedQueue.complete_batch``."""
    def renew_batch(
        self, leases: Iterable[Lease], ttl: float | timedelta | None = None
    ) -> asyncio.Future[builtins.list[RenewOutcome]]:
        """See ``leaseq.PartitionedQueue.renew_batch``."""
    def fail_batch(
        self, failures: Iterable[FailureLike]
    ) -> asyncio.Future[builtins.list[FailOutcome]]:
        """See ``leaseq.PartitionedQueue.fail_batch``."""
    def get(self, id: bytes | str) -> asyncio.Future[Job | None]:
        """See ``leaseq.PartitionedQueue.get``."""
    def cancel(self, id: bytes | str) -> asyncio.Future[State | None]:
        """See ``leaseq.PartitionedQueue.cancel``."""
    def result(self, id: bytes | str) -> asyncio.Future[JobResult | None]:
        """See ``leaseq.PartitionedQueue.result``."""
    def promote(self, id: bytes | str) -> asyncio.Future[bool]:
        """See ``leaseq.PartitionedQueue.promote``."""
    def dependencies(self, id: bytes | str) -> asyncio.Future[Dependencies]:
        """See ``leaseq.PartitionedQueue.dependencies``."""
    def dependency_results(
        self, id: bytes | str
    ) -> asyncio.Future[builtins.list[tuple[str, bytes | None]]]:
        """See ``leaseq.PartitionedQueue.dependency_results``; the results as ``bytes``."""
    def wait_result(
        self, id: bytes | str, timeout: float | timedelta
    ) -> asyncio.Future[JobResult | None]:
        """See ``leaseq.PartitionedQueue.wait_result``; the wait is cancelled with the awaiting
        task.
        """
    def pause_group(self, group: str) -> asyncio.Future[bool]:
        """See ``leaseq.PartitionedQueue.pause_group``."""
    def resume_group(self, group: str) -> asyncio.Future[bool]:
        """See ``leaseq.PartitionedQueue.resume_group``."""
    def set_group_limit(
        self, group: str, limit: int | None = None
    ) -> asyncio.Future[None]:
        """See ``leaseq.PartitionedQueue.set_group_limit``."""
    def rate_limit_group(
        self, group: str, duration: float | timedelta
    ) -> asyncio.Future[timedelta]:
        """See ``leaseq.PartitionedQueue.rate_limit_group``."""
    def group(self, group: str) -> asyncio.Future[GroupInfo]:
        """See ``leaseq.PartitionedQueue.group``."""
    def stats(self) -> asyncio.Future[PartitionedStats]:
        """See ``leaseq.PartitionedQueue.stats``."""
    def count(self, state: State | str) -> asyncio.Future[int]:
        """See ``leaseq.PartitionedQueue.count``."""
    def list(
        self, state: State | str, start: int = 0, count: int = 100
    ) -> asyncio.Future[builtins.list[Entry]]:
        """See ``leaseq.PartitionedQueue.list``."""
    def find(
        self,
        state: State | str,
        name: str | None = None,
        error_type: str | None = None,
        start: int = 0,
        count: int = 100,
    ) -> asyncio.Future[Found]:
        """See ``leaseq.PartitionedQueue.find``."""
    def pause(self) -> asyncio.Future[bool]:
        """See ``leaseq.PartitionedQueue.pause``."""
    def resume(self) -> asyncio.Future[bool]:
        """See ``leaseq.PartitionedQueue.resume``."""
    def is_paused(self) -> asyncio.Future[bool]:
        """See ``leaseq.PartitionedQueue.is_paused``."""
    def exists(self) -> asyncio.Future[bool]:
        """See ``leaseq.PartitionedQueue.exists``."""
    def queue_len(self) -> asyncio.Future[int]:
        """See ``leaseq.PartitionedQueue.queue_len``."""
    def processing_len(self) -> asyncio.Future[int]:
        """See ``leaseq.PartitionedQueue.processing_len``."""
    def counts_by_name(self) -> asyncio.Future[builtins.list[NameCounts] | None]:
        """See ``leaseq.PartitionedQueue.counts_by_name``."""
    def rate_limit(self, duration: float | timedelta) -> asyncio.Future[timedelta]:
        """See ``leaseq.PartitionedQueue.rate_limit``."""
    def dead_requeue(self, ids: Iterable[bytes | str]) -> asyncio.Future[int]:
        """See ``leaseq.PartitionedQueue.dead_requeue``."""
    def dead_requeue_each(
        self, ids: Iterable[bytes | str]
    ) -> asyncio.Future[builtins.list[bool]]:
        """See ``leaseq.PartitionedQueue.dead_requeue_each``."""
    def dead_requeue_oldest(self, n: int | None = None) -> asyncio.Future[int]:
        """See ``leaseq.PartitionedQueue.dead_requeue_oldest``."""
    def dead_purge(self, n: int | None = None) -> asyncio.Future[int]:
        """See ``leaseq.PartitionedQueue.dead_purge``."""
    def config(self) -> asyncio.Future[QueueConfig]:
        """See ``leaseq.PartitionedQueue.config``."""
    def set_config(
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
    ) -> asyncio.Future[None]:
        """See ``leaseq.PartitionedQueue.set_config``."""
    def reset_config(self) -> asyncio.Future[None]:
        """See ``leaseq.PartitionedQueue.reset_config``."""
    def light_clean(self) -> asyncio.Future[CleanReport]:
        """See ``leaseq.PartitionedQueue.light_clean``."""
    def deep_clean(self) -> asyncio.Future[CleanReport]:
        """See ``leaseq.PartitionedQueue.deep_clean``."""
    def upsert_schedule(self, name: str, schedule: Schedule) -> asyncio.Future[bool]:
        """See ``leaseq.PartitionedQueue.upsert_schedule``."""
    def remove_schedule(self, name: str) -> asyncio.Future[bool]:
        """See ``leaseq.PartitionedQueue.remove_schedule``."""
    def get_schedule(self, name: str) -> asyncio.Future[ScheduleInfo | None]:
        """See ``leaseq.PartitionedQueue.get_schedule``."""
    def schedules(
        self, start: int = 0, count: int = 100
    ) -> asyncio.Future[SchedulePage]:
        """See ``leaseq.PartitionedQueue.schedules``."""
    def fire_due_schedules(self) -> asyncio.Future[FireReport]:
        """See ``leaseq.PartitionedQueue.fire_due_schedules``."""
    def events(self, after: str | None = None) -> asyncio.Future[AsyncEvents]:
        """See ``leaseq.PartitionedQueue.events``: a future of the follower, whose ``next()`` is a
        future of the next entry.
        """
