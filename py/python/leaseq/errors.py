"""The exceptions of leaseq, one class per code of the registry (spec/errors.md).

Every exception is a :class:`LeaseqError` and carries the registry code in ``.code``. Where a
builtin fits, the class is also that builtin, so ``except ValueError`` or ``except
ConnectionError`` keep working.
"""

from __future__ import annotations

from typing import ClassVar

__all__ = [
    "ClosedError",
    "InvalidArgumentError",
    "InvalidArgumentTypeError",
    "JobDeadError",
    "JsonError",
    "LeaseqConnectionError",
    "LeaseqError",
    "LeaseqTimeoutError",
    "OutOfMemoryError",
    "QueueFullError",
    "RedisError",
    "UnavailableError",
    "WrongTypeError",
]


class LeaseqError(Exception):
    """Base class of every leaseq error; ``.code`` is the registry code (e.g. ``"REDIS"``)."""

    code: ClassVar[str] = "LEASEQ"
    #: Whether the same call may succeed when tried again unchanged.
    retryable: ClassVar[bool] = False


class LeaseqConnectionError(LeaseqError, ConnectionError):
    """Redis could not be reached, or the connection broke during the call. Retryable."""

    code: ClassVar[str] = "CONNECTION"
    retryable: ClassVar[bool] = True


class RedisError(LeaseqError):
    """Redis answered with an error leaseq has no better name for (NOPERM, ...)."""

    code: ClassVar[str] = "REDIS"


class InvalidArgumentError(LeaseqError, ValueError):
    """An argument was refused and nothing was written; ``.argument`` names it."""

    code: ClassVar[str] = "INVALID_ARGUMENT"
    #: The name of the refused argument, as the API documents it.
    argument: str | None = None


class InvalidArgumentTypeError(InvalidArgumentError, TypeError):
    """An argument of the wrong Python type (also a ``TypeError``); ``.argument`` names it."""


class WrongTypeError(LeaseqError):
    """A key under the queue prefix holds another Redis type than the protocol expects."""

    code: ClassVar[str] = "WRONG_TYPE"


class LeaseqTimeoutError(LeaseqError, TimeoutError):
    """Redis did not answer in time. Retryable."""

    code: ClassVar[str] = "TIMEOUT"
    retryable: ClassVar[bool] = True


class ClosedError(LeaseqError):
    """The client was closed: waiting leases end with this, and so does every later call."""

    code: ClassVar[str] = "CLOSED"


class JsonError(LeaseqError, ValueError):
    """Item data could not be encoded or decoded as JSON."""

    code: ClassVar[str] = "JSON"


class UnavailableError(LeaseqError):
    """Redis is temporarily unable to serve (loading its dataset, busy with another client's
    script, failing over) and did not run the call. Retryable: retry after a pause. Waiting
    leases ride through this by themselves until their deadline."""

    code: ClassVar[str] = "UNAVAILABLE"
    retryable: ClassVar[bool] = True


class OutOfMemoryError(LeaseqError):
    """Redis is over ``maxmemory`` (with ``noeviction``) and refused a call that adds memory,
    such as ``add``, before it wrote anything. Drain or clean the queue, or raise
    ``maxmemory``."""

    code: ClassVar[str] = "OUT_OF_MEMORY"


class QueueFullError(LeaseqError):
    """The queue is bounded (``set_config(capacity=...)``) and the items did not fit: nothing
    was added. Wait for room (``add(item, timeout=...)``) or add later."""

    code: ClassVar[str] = "FULL"


class JobDeadError(LeaseqError):
    """The job whose result ``wait_result`` waited for is dead (a dead letter): no result
    will come unless it is requeued. The message names the job, why it died and its last
    error."""

    code: ClassVar[str] = "DEAD"
