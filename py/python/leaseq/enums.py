"""The named values of leaseq, as ``str`` enums: each member equals its lower-case name (the
name every binding and the wire use), so ``job.state == "dead"`` works, and methods that take one
also take the plain string.
"""

from __future__ import annotations

from enum import Enum

__all__ = ["RenewOutcome", "State"]


class State(str, Enum):
    """Where an item is (``Job.state``; the argument of ``list``, ``count``; what ``cancel``
    found)."""

    #: In a waiting list: the next lease may take it.
    WAITING = "waiting"
    #: Waiting for its due time (added with ``delay``/``run_at``, or retrying after a backoff).
    DELAYED = "delayed"
    #: Held by a worker.
    LEASED = "leased"
    #: Failed for good, expired, or out of attempts; kept for inspection or requeue.
    DEAD = "dead"
    #: Completed, with its result kept.
    DONE = "done"
    #: Waiting for its dependencies to complete (``Item(..., depends_on=...)``).
    BLOCKED = "blocked"

    def __str__(self) -> str:
        return self.value


class RenewOutcome(str, Enum):
    """What ``renew_outcome`` found: whether the lease is still this holder's, and if not, why."""

    #: The lease was this holder's and now lasts the new TTL.
    RENEWED = "renewed"
    #: The lease expired and nobody holds the item now; it will be queued again.
    EXPIRED = "expired"
    #: Another holder leased the item after this lease expired.
    TAKEN = "taken"
    #: The item is complete (or gone).
    COMPLETED = "completed"
    #: The item was cancelled while leased.
    CANCELLED = "cancelled"
    #: The id was completed and added again: this lease belongs to an older incarnation.
    OLDER_INCARNATION = "older_incarnation"

    def __str__(self) -> str:
        return self.value
