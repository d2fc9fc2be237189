"""The entries of the batch operations: :class:`Completion` for ``complete_batch`` and
``complete_and_lease_batch``, :class:`Failure` for ``fail_batch``.

Each is a ``NamedTuple`` whose fields are the arguments of the single operation (``complete``,
``fail``), with the same defaults; a plain tuple of those fields (the optional ones may be left
off) works as well, and a bare :class:`leaseq.Lease` is a completion that keeps no result::

    queue.complete_batch([lease_a, Completion(lease_b, b"result", keep_result_for=3600)])
    queue.fail_batch([Failure(lease_c, "timed out"), (lease_d, error, None, False)])
"""

from __future__ import annotations

from datetime import timedelta
from typing import NamedTuple, Optional, Union

from leaseq._native import Lease

__all__ = ["Completion", "CompletionLike", "Failure", "FailureLike"]


class Completion(NamedTuple):
    """One completion of a batch: ``complete(lease, result, keep_result_for)``'s arguments.

    ``result`` (bytes or str) is kept for ``keep_result_for`` (seconds or a timedelta; ``None``:
    the item's, else the queue's setting, else one day); ``keep_result_for`` without a result is
    refused, as ``complete`` refuses it."""

    lease: Lease
    result: bytes | bytearray | str | None = None
    keep_result_for: float | timedelta | None = None


class Failure(NamedTuple):
    """One failure of a batch: ``fail(lease, error, error_type, retry, trace)``'s arguments.

    ``error`` is a message or an exception (its ``str()``, and its class name as the
    ``error_type`` unless given); ``retry`` is ``True`` (the item's backoff while attempts
    remain), a delay (seconds or a timedelta), or ``False`` (dead now); ``trace`` is kept with
    the item (default: a raised exception's traceback)."""

    lease: Lease
    error: str | BaseException
    error_type: str | None = None
    retry: bool | float | timedelta = True
    trace: str | None = None


_Data = Union[bytes, bytearray, str]
_Seconds = Union[float, timedelta]

#: What ``complete_batch`` and ``complete_and_lease_batch`` take for each completion: a lease,
#: or a :class:`Completion` (or a plain tuple of its fields, the optional ones left off).
CompletionLike = Union[
    Lease,
    tuple[Lease],
    tuple[Lease, Optional[_Data]],
    tuple[Lease, Optional[_Data], Optional[_Seconds]],
]

#: What ``fail_batch`` takes for each failure: a :class:`Failure` (or a plain tuple of its
#: fields, the optional ones left off).
FailureLike = Union[
    tuple[Lease, Union[str, BaseException]],
    tuple[Lease, Union[str, BaseException], Optional[str]],
    tuple[Lease, Union[str, BaseException], Optional[str], Union[bool, _Seconds]],
    tuple[
        Lease,
        Union[str, BaseException],
        Optional[str],
        Union[bool, _Seconds],
        Optional[str],
    ],
]
