# Hand-written stubs for the extension module built from py/src (checked by mypy.stubtest).
import asyncio
import builtins
from collections.abc import Iterable, Mapping, Sequence
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
    "MAX_ID_LEN",
    "MAX_PAGE",
    "MAX_PREFIX_LEN",
    "MAX_PRIORITY",
    "MAX_TTL",
    "AsyncClient",
    "AsyncQueue",
    "Backoff",
    "CleanReport",
    "Client",
    "Done",
    "Entry",
    "FailOutcome",
    "Item",
    "Job",
    "JobResult",
    "Lease",
    "Minute",
    "NativeJob",
    "Queue",
    "QueueConfig",
    "Stats",
    "WorkerRun",
    "_error_class",
    "_shutdown",
    "cli_main",
    "events",
    "operations",
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
MAX_DATA_LEN: int
MAX_PREFIX_LEN: int

@final
class Backoff:
    """How long a failed item waits before it runs again."""

    @staticmethod
    def fixed(delay: float | timedelta) -> Backoff:
        """The same delay after every failed attempt."""
    @staticmethod
    def exponential(
        base: float | timedelta, cap: float | timedelta, jitter: bool = True
    ) -> Backoff:
        """``base * 2**(attempt - 1)``, at most ``cap``, randomised with ``jitter``."""
    @property
    def kind(self) -> str: ...
    @property
    def delay(self) -> timedelta | None: ...
    @property
    def base(self) -> timedelta | None: ...
    @property
    def cap(self) -> timedelta | None: ...
    @property
    def jitter(self) -> bool: ...
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class Item:
    """A piece of work: an id (random UUID unless given), its data (bytes), its options."""

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
    ) -> Item:
        """An item whose data is ``value`` encoded as compact JSON."""
    @property
    def id(self) -> str: ...
    @property
    def data(self) -> bytes: ...
    def json(self) -> Any:
        """The data parsed as JSON."""

@final
class Lease:
    """A leased item; pass it back to the queue it came from."""

    @property
    def id(self) -> str: ...
    @property
    def id_bytes(self) -> bytes: ...
    @property
    def data(self) -> bytes: ...
    @property
    def token(self) -> str: ...
    @property
    def count(self) -> int: ...
    @property
    def attempt(self) -> int: ...
    @property
    def incarnation(self) -> str: ...
    @property
    def max_attempts(self) -> int: ...
    @property
    def backoff(self) -> Backoff: ...
    @property
    def queue_prefix(self) -> str: ...
    def json(self) -> Any:
        """The item's data parsed as JSON."""

@final
class CleanReport:
    """What a clean did."""

    @property
    def requeued(self) -> int: ...
    @property
    def removed(self) -> int: ...
    @property
    def promoted(self) -> int: ...
    @property
    def dead(self) -> int: ...
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class JobResult:
    """A kept result."""

    @property
    def data(self) -> bytes: ...
    @property
    def attempts(self) -> int: ...
    @property
    def finished_at(self) -> datetime: ...
    def json(self) -> Any:
        """The data parsed as JSON."""
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class Job:
    """Everything the queue knows about one item."""

    @property
    def id(self) -> str: ...
    @property
    def id_bytes(self) -> bytes: ...
    @property
    def state(self) -> State: ...
    @property
    def data(self) -> bytes: ...
    def json(self) -> Any:
        """The data parsed as JSON."""
    @property
    def attempts(self) -> int: ...
    @property
    def max_attempts(self) -> int | None: ...
    @property
    def priority(self) -> int: ...
    @property
    def error(self) -> str | None: ...
    @property
    def error_type(self) -> str | None: ...
    @property
    def dead_reason(self) -> str | None: ...
    @property
    def progress(self) -> bytes | None: ...
    @property
    def result(self) -> JobResult | None: ...
    @property
    def added_at(self) -> datetime | None: ...
    @property
    def due_at(self) -> datetime | None: ...
    @property
    def leased_at(self) -> datetime | None: ...
    @property
    def lease_expires_at(self) -> datetime | None: ...
    @property
    def finished_at(self) -> datetime | None: ...
    @property
    def lease_ttl(self) -> timedelta | None: ...
    @property
    def cancelled(self) -> bool: ...
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class Entry:
    """One line of ``Queue.list``."""

    @property
    def id(self) -> str: ...
    @property
    def id_bytes(self) -> bytes: ...
    @property
    def at(self) -> datetime | None: ...
    @property
    def attempts(self) -> int: ...
    @property
    def error(self) -> str | None: ...
    @property
    def error_type(self) -> str | None: ...
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class Minute:
    """Counters for one minute."""

    @property
    def completed(self) -> int: ...
    @property
    def failed(self) -> int: ...
    @property
    def dead(self) -> int: ...
    @property
    def expired(self) -> int: ...
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class Stats:
    """A queue's figures."""

    @property
    def waiting(self) -> int: ...
    @property
    def delayed(self) -> int: ...
    @property
    def leased(self) -> int: ...
    @property
    def dead(self) -> int: ...
    @property
    def processing(self) -> int: ...
    @property
    def oldest_waiting(self) -> timedelta | None: ...
    @property
    def now(self) -> datetime: ...
    @property
    def minutes(self) -> builtins.list[Minute] | None: ...
    @property
    def last_hour(self) -> Minute | None: ...
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class QueueConfig:
    """The queue's stored configuration; ``None``: not stored, the default applies."""

    @property
    def max_attempts(self) -> int | None: ...
    @property
    def backoff(self) -> Backoff | None: ...
    @property
    def priority(self) -> int | None: ...
    @property
    def expires_after(self) -> timedelta | None: ...
    @property
    def keep_result_for(self) -> timedelta | None: ...
    @property
    def dead_max_count(self) -> int | None: ...
    @property
    def dead_max_age(self) -> timedelta | None: ...
    @property
    def stats(self) -> bool | None: ...
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class FailOutcome:
    """What ``fail`` did."""

    @property
    def name(self) -> str: ...
    @property
    def retrying(self) -> bool: ...
    @property
    def dead(self) -> bool: ...
    @property
    def retry_in(self) -> timedelta | None: ...
    @property
    def not_held(self) -> RenewOutcome | None: ...
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class Client:
    """A connection to one Redis server or a Redis Cluster."""

    def __new__(cls, url: str) -> Client: ...
    @staticmethod
    def cluster(urls: Sequence[str]) -> Client: ...
    def queue(self, prefix: str) -> Queue: ...
    def close(self) -> None: ...
    @property
    def is_cluster(self) -> bool: ...
    @property
    def warnings(self) -> builtins.list[str]: ...
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
    """One queue: the keys under one prefix."""

    @property
    def prefix(self) -> str: ...
    def add(self, item: Item) -> bool: ...
    def add_unique(self, item: Item) -> None: ...
    def add_batch(self, items: Iterable[Item]) -> int: ...
    def lease(
        self,
        ttl: float | timedelta | None = None,
        timeout: float | timedelta | None = None,
        *,
        block: bool | None = None,
    ) -> Lease | None: ...
    def lease_batch(
        self,
        n: int,
        ttl: float | timedelta | None = None,
        timeout: float | timedelta | None = None,
    ) -> builtins.list[Lease]: ...
    def complete(
        self,
        lease: Lease,
        result: bytes | bytearray | str | None = None,
        keep_result_for: float | timedelta | None = None,
    ) -> bool: ...
    def complete_and_lease(
        self,
        lease: Lease,
        ttl: float | timedelta | None = None,
        result: bytes | bytearray | str | None = None,
        keep_result_for: float | timedelta | None = None,
    ) -> tuple[bool, Lease | None]: ...
    def renew(self, lease: Lease, ttl: float | timedelta | None = None) -> bool: ...
    def renew_outcome(
        self, lease: Lease, ttl: float | timedelta | None = None
    ) -> RenewOutcome: ...
    def fail(
        self,
        lease: Lease,
        error: str | BaseException,
        error_type: str | None = None,
        retry: bool | float | timedelta = True,
    ) -> FailOutcome: ...
    def release(self, lease: Lease, delay: float | timedelta | None = None) -> bool: ...
    def progress(self, lease: Lease, value: bytes | bytearray | str) -> bool: ...
    def lease_from_parts(
        self, id: str, token: str, incarnation: str, attempt: int
    ) -> Lease: ...
    def complete_batch(
        self, completions: Iterable[CompletionLike]
    ) -> builtins.list[bool]: ...
    def complete_and_lease_batch(
        self,
        completions: Iterable[CompletionLike],
        n: int,
        ttl: float | timedelta | None = None,
    ) -> tuple[builtins.list[bool], builtins.list[Lease]]: ...
    def renew_batch(
        self, leases: Iterable[Lease], ttl: float | timedelta | None = None
    ) -> builtins.list[RenewOutcome]: ...
    def fail_batch(
        self, failures: Iterable[FailureLike]
    ) -> builtins.list[FailOutcome]: ...
    def result(self, id: bytes | str) -> JobResult | None: ...
    def wait_result(
        self, id: bytes | str, timeout: float | timedelta
    ) -> JobResult | None: ...
    def get(self, id: bytes | str) -> Job | None: ...
    def list(
        self, state: State | str, start: int = 0, count: int = 100
    ) -> builtins.list[Entry]: ...
    def count(self, state: State | str) -> int: ...
    def stats(self) -> Stats: ...
    def cancel(self, id: bytes | str) -> State | None: ...
    def dead_requeue(self, ids: Iterable[bytes | str]) -> int: ...
    def dead_requeue_oldest(self, n: int | None = None) -> int: ...
    def dead_purge(self, n: int | None = None) -> int: ...
    def config(self) -> QueueConfig: ...
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
    ) -> None: ...
    def reset_config(self) -> None: ...
    def light_clean(self) -> CleanReport: ...
    def deep_clean(self) -> CleanReport: ...
    def queue_len(self) -> int: ...
    def processing_len(self) -> int: ...

@final
class AsyncClient:
    def __new__(cls, url: str) -> AsyncClient: ...
    @staticmethod
    def cluster(urls: Sequence[str]) -> AsyncClient: ...
    def connect(self) -> asyncio.Future[None]: ...
    def queue(self, prefix: str) -> AsyncQueue: ...
    def close(self) -> None: ...
    @property
    def is_cluster(self) -> bool: ...
    @property
    def warnings(self) -> builtins.list[str]: ...

@final
class AsyncQueue:
    @property
    def prefix(self) -> str: ...
    def add(self, item: Item) -> asyncio.Future[bool]: ...
    def add_unique(self, item: Item) -> asyncio.Future[None]: ...
    def add_batch(self, items: Iterable[Item]) -> asyncio.Future[int]: ...
    def lease(
        self,
        ttl: float | timedelta | None = None,
        timeout: float | timedelta | None = None,
        *,
        block: bool | None = None,
    ) -> asyncio.Future[Lease | None]: ...
    def lease_batch(
        self,
        n: int,
        ttl: float | timedelta | None = None,
        timeout: float | timedelta | None = None,
    ) -> asyncio.Future[builtins.list[Lease]]: ...
    def complete(
        self,
        lease: Lease,
        result: bytes | bytearray | str | None = None,
        keep_result_for: float | timedelta | None = None,
    ) -> asyncio.Future[bool]: ...
    def complete_and_lease(
        self,
        lease: Lease,
        ttl: float | timedelta | None = None,
        result: bytes | bytearray | str | None = None,
        keep_result_for: float | timedelta | None = None,
    ) -> asyncio.Future[tuple[bool, Lease | None]]: ...
    def renew(
        self, lease: Lease, ttl: float | timedelta | None = None
    ) -> asyncio.Future[bool]: ...
    def renew_outcome(
        self, lease: Lease, ttl: float | timedelta | None = None
    ) -> asyncio.Future[RenewOutcome]: ...
    def fail(
        self,
        lease: Lease,
        error: str | BaseException,
        error_type: str | None = None,
        retry: bool | float | timedelta = True,
    ) -> asyncio.Future[FailOutcome]: ...
    def release(
        self, lease: Lease, delay: float | timedelta | None = None
    ) -> asyncio.Future[bool]: ...
    def progress(
        self, lease: Lease, value: bytes | bytearray | str
    ) -> asyncio.Future[bool]: ...
    def lease_from_parts(
        self, id: str, token: str, incarnation: str, attempt: int
    ) -> Lease: ...
    def complete_batch(
        self, completions: Iterable[CompletionLike]
    ) -> asyncio.Future[builtins.list[bool]]: ...
    def complete_and_lease_batch(
        self,
        completions: Iterable[CompletionLike],
        n: int,
        ttl: float | timedelta | None = None,
    ) -> asyncio.Future[tuple[builtins.list[bool], builtins.list[Lease]]]: ...
    def renew_batch(
        self, leases: Iterable[Lease], ttl: float | timedelta | None = None
    ) -> asyncio.Future[builtins.list[RenewOutcome]]: ...
    def fail_batch(
        self, failures: Iterable[FailureLike]
    ) -> asyncio.Future[builtins.list[FailOutcome]]: ...
    def result(self, id: bytes | str) -> asyncio.Future[JobResult | None]: ...
    def wait_result(
        self, id: bytes | str, timeout: float | timedelta
    ) -> asyncio.Future[JobResult | None]: ...
    def get(self, id: bytes | str) -> asyncio.Future[Job | None]: ...
    def list(
        self, state: State | str, start: int = 0, count: int = 100
    ) -> asyncio.Future[builtins.list[Entry]]: ...
    def count(self, state: State | str) -> asyncio.Future[int]: ...
    def stats(self) -> asyncio.Future[Stats]: ...
    def cancel(self, id: bytes | str) -> asyncio.Future[State | None]: ...
    def dead_requeue(self, ids: Iterable[bytes | str]) -> asyncio.Future[int]: ...
    def dead_requeue_oldest(self, n: int | None = None) -> asyncio.Future[int]: ...
    def dead_purge(self, n: int | None = None) -> asyncio.Future[int]: ...
    def config(self) -> asyncio.Future[QueueConfig]: ...
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
    ) -> asyncio.Future[None]: ...
    def reset_config(self) -> asyncio.Future[None]: ...
    def light_clean(self) -> asyncio.Future[CleanReport]: ...
    def deep_clean(self) -> asyncio.Future[CleanReport]: ...
    def queue_len(self) -> asyncio.Future[int]: ...
    def processing_len(self) -> asyncio.Future[int]: ...

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
    """Every operation of a queue, in the core's order."""

def events() -> builtins.list[str]:
    """The runner's event names, in the core's order."""

def _shutdown() -> None: ...
def cli_main(argv: list[str]) -> int: ...

# The runner's native side (leaseq.worker wraps it).
@final
class NativeJob:
    @property
    def id(self) -> str: ...
    @property
    def id_bytes(self) -> bytes: ...
    @property
    def data(self) -> bytes: ...
    @property
    def attempt(self) -> int: ...
    @property
    def max_attempts(self) -> int: ...
    @property
    def key(self) -> int: ...
    @property
    def lease_lost(self) -> bool: ...
    @property
    def cancel_reason(self) -> str | None: ...
    def progress(self, value: bytes | str) -> bool: ...

@final
class Done:
    def __call__(self, kind: str, value: object) -> None: ...

@final
class WorkerRun:
    @property
    def concurrency(self) -> int: ...
    @property
    def keep_results(self) -> bool: ...
    def wait(self, timeout: float) -> tuple[int, int, int, int, int, int] | None: ...
    @property
    def fd(self) -> int: ...
    def take(
        self,
    ) -> tuple[builtins.list[tuple[NativeJob, Done]], builtins.list[int]]: ...
    def events(
        self, completed: bool
    ) -> builtins.list[tuple[str, str | None, int, object]]: ...
    def interrupt(self) -> None: ...
    def stop(self) -> None: ...
    def force(self) -> None: ...

def start_worker(
    queue: Queue,
    options: Mapping[str, object],
) -> WorkerRun: ...
