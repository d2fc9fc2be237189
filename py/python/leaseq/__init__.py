"""leaseq: a job queue on Redis with fenced, expiring leases.

A runner is :class:`leaseq.Worker` (``python -m leaseq worker module:function --queue NAME``).
The synchronous API is here (``leaseq.Client``); the asyncio one is :mod:`leaseq.aio`. Both
call the Rust core of leaseq and release the GIL for every round trip to Redis.

Durations are seconds (``int`` or ``float``) or :class:`datetime.timedelta`; points in time are
timezone-aware :class:`datetime.datetime`. What leaseq returns uses timedeltas and UTC datetimes.
The constants (``DEFAULT_TTL``, ``MAX_PRIORITY``, ...) are the core's, for reference:
``timeout=FOREVER`` makes a lease wait until an item comes.
"""

from __future__ import annotations

from importlib.metadata import version as _distribution_version

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
    Client,
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
    Queue,
    QueueConfig,
    QueueEvent,
    RateLimit,
    Schedule,
    ScheduleInfo,
    SchedulePage,
    Stats,
)
from leaseq.batch import Completion, Failure
from leaseq.enums import RenewOutcome, State
from leaseq.errors import (
    ClosedError,
    InvalidArgumentError,
    InvalidArgumentTypeError,
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

#: The version of this distribution: the one version of every leaseq package (Cargo.toml).
__version__: str = _distribution_version("leaseq")

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
    "JobResult",
    "JsonError",
    "Lease",
    "LeaseqConnectionError",
    "LeaseqError",
    "LeaseqTimeoutError",
    "Minute",
    "NameCounts",
    "OutOfMemoryError",
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
