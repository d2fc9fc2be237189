"""leaseq: a Redis work queue with fenced, expiring leases.

The synchronous API is here (``leaseq.Client``); the asyncio one is :mod:`leaseq.aio`. Both
call the Rust core of leaseq and release the GIL for every round trip to Redis.
"""

from __future__ import annotations

from importlib.metadata import version as _distribution_version

from leaseq._native import CleanReport, Client, Item, Lease, Queue
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

#: The version of this distribution: the one version of every leaseq package (Cargo.toml).
__version__: str = _distribution_version("leaseq")

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
