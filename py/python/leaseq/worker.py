"""Runners: :class:`Worker` runs a handler over a queue (or several), driven by leaseq's Rust core.

The core leases in batches for free slots, renews every held lease in one round trip per tick,
tells a handler to stop when its timeout passes or its lease is lost, completes or fails in batches, rides through Redis
outages and restarts, registers the runner (``leaseq workers``) and does the queue's
housekeeping, so no cleaner process is needed. This module only runs the handler: plain
functions on a thread pool, ``async def`` functions on an asyncio event loop.

A runner logs through :mod:`logging`, on the logger ``leaseq.worker`` (no handler is
installed: configure logging as usual): a line at INFO as it starts (its queues, the server's
URL without credentials, its concurrency) and stops (its report), one at WARNING per failed
attempt to be retried, lost lease, timeout or Redis error (id, attempt, error), one at ERROR per
dead job, and one at DEBUG per completed job, so the default levels show no line per success.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import os
import queue
import select
import signal
import threading
import traceback
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Callable, Union

from leaseq import _native
from leaseq.errors import InvalidArgumentError, InvalidArgumentTypeError

log = logging.getLogger("leaseq.worker")

Seconds = Union[int, float, timedelta]

# Guards each Job's lazily made events against the handler being told at the same moment.
_TOLD_LOCK = threading.Lock()


class Unrecoverable(Exception):
    """Raise it from a handler to send the job straight to the dead letters (no retry)."""


class RetryLater(Exception):
    """Raise it from a handler to retry after ``delay`` seconds instead of the queue's backoff
    (while the job has attempts left)."""

    def __init__(self, message: str = "", delay: Seconds = 0) -> None:
        super().__init__(message)
        self.delay = delay


class Release(Exception):
    """Raise it from a handler to hand the job back untouched (no attempt counted), to run
    again now or after ``delay`` seconds."""

    def __init__(self, delay: Seconds | None = None) -> None:
        super().__init__("released")
        self.delay = delay


class RateLimited(Exception):
    """Raise it from a handler that was rate limited (an API answered 429): every client's
    leases of the queue are held off for ``hold`` seconds (``Queue.rate_limit``; of every
    partition for a ``Worker`` over a ``PartitionedQueue``, ``PartitionedQueue.rate_limit``) and
    the job is handed back, to run again after the hold without being charged an attempt.

    With ``group=True`` (an API that limits per customer or tenant) only the job's group is
    held off (``Queue.rate_limit_group``), released in the same call, while the queue's other
    groups go on; a job without a group holds the whole queue off, as without it (of a
    partitioned queue: every partition)."""

    def __init__(self, hold: Seconds, *, group: bool = False) -> None:
        super().__init__("rate limited")
        self.hold = hold
        self.group = group


class Job:
    """What a handler receives: one leased item.

    The runner tells a handler to stop, for one of three reasons (``cancel_reason``): its
    ``job_timeout`` passed (``"timeout"``: whatever it returns now, the attempt fails with error
    type ``timeout``), its lease is lost (``"lease_lost"``: it expired and another worker may run
    the item, or it was cancelled), or the runner is shutting down past its timeout
    (``"shutdown"``). An ``async def`` handler is then cancelled (``asyncio.CancelledError`` at
    its next ``await``); a plain function sees ``is_cancelled()`` turn true and the
    ``cancelled`` event set. ``lease_lost`` (and ``lost_event``) say the lease is gone.
    """

    def __init__(self, native: Any) -> None:
        self._native = native
        self._is_told = False
        self._is_lost = False
        self._cancelled: threading.Event | None = None
        self._event: threading.Event | None = None
        self._task: asyncio.Task[Any] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def cancelled(self) -> threading.Event:
        """Set when the handler is told to stop (``cancel_reason`` says why): a plain handler
        can check it, or wait on it in place of a sleep."""
        # Made on first use: most handlers never look, and an Event costs a lock and a condition.
        with _TOLD_LOCK:
            if self._cancelled is None:
                self._cancelled = threading.Event()
                if self._is_told:
                    self._cancelled.set()
            return self._cancelled

    def is_cancelled(self) -> bool:
        """Whether the handler is told to stop (see the class)."""
        return self._is_told or self._native.cancel_reason is not None

    @property
    def cancel_reason(self) -> str | None:
        """Why the handler was told to stop: ``"timeout"``, ``"lease_lost"`` or ``"shutdown"``
        (the first reason, kept), or ``None`` while it is not."""
        return self._native.cancel_reason  # type: ignore[no-any-return]

    @property
    def lost_event(self) -> threading.Event:
        """Set when the lease is lost; a plain handler can wait on it or check it."""
        with _TOLD_LOCK:
            if self._event is None:
                self._event = threading.Event()
                if self._is_lost:
                    self._event.set()
            return self._event

    def _told(self) -> None:
        """Told to stop, or (told of its timeout already) told its lease is lost too."""
        lost = self._native.lease_lost
        with _TOLD_LOCK:
            first = not self._is_told
            self._is_told = True
            self._is_lost = self._is_lost or lost
            events = [self._cancelled, self._event if lost else None]
        for event in events:
            if event is not None:
                event.set()
        if first and self._task is not None and self._loop is not None:
            self._loop.call_soon_threadsafe(self._task.cancel)

    @property
    def id(self) -> str:
        """The item's id."""
        return self._native.id  # type: ignore[no-any-return]

    @property
    def id_bytes(self) -> bytes:
        """The item's id as Redis holds it."""
        return self._native.id_bytes  # type: ignore[no-any-return]

    @property
    def data(self) -> bytes:
        """The item's data."""
        return self._native.data  # type: ignore[no-any-return]

    def json(self) -> Any:
        """The data parsed as JSON."""
        return json.loads(self.data)

    @property
    def attempt(self) -> int:
        """Which attempt this is (1 for the first)."""
        return self._native.attempt  # type: ignore[no-any-return]

    @property
    def name(self) -> str | None:
        """The item's name (``Item(..., name=...)``: what kind of job it is), or ``None``: a
        :class:`Worker` given a dict of handlers runs the job with the handler of that name."""
        return self._native.name  # type: ignore[no-any-return]

    @property
    def queue_prefix(self) -> str:
        """The prefix of the queue the job came from (for a runner over several queues): the
        job is completed, failed or released there."""
        return self._native.queue_prefix  # type: ignore[no-any-return]

    @property
    def max_attempts(self) -> int:
        """The item's attempt limit (0: unlimited)."""
        return self._native.max_attempts  # type: ignore[no-any-return]

    @property
    def lease_lost(self) -> bool:
        """Whether the lease is lost (see the class)."""
        return self._native.lease_lost  # type: ignore[no-any-return]

    def progress(self, value: bytes | str) -> bool:
        """Stores a small progress value (at most 64 KiB) on the item; false once the lease is
        lost."""
        return self._native.progress(value)  # type: ignore[no-any-return]

    def dependency_results(self) -> list[tuple[str, bytes | None]]:
        """The kept results of the items this job was added to wait for, in order: a list of
        ``(dependency id, result bytes or None)`` (``None``: completed without one, or its
        result expired). A flow's parent reads its children's results so, as BullMQ's
        ``getChildrenValues`` does. One round trip; other threads run meanwhile."""
        return self._native.dependency_results()  # type: ignore[no-any-return]

    def __repr__(self) -> str:
        return f"Job(id={self.id!r}, attempt={self.attempt})"


@dataclass(frozen=True)
class WorkerReport:
    """What a runner did: jobs completed, failures retried, jobs dead, leases lost, released,
    and handlers that ran past the job timeout (each also counted as retried or dead)."""

    completed: int
    retried: int
    dead: int
    lost: int
    released: int
    timed_out: int = 0


def _result_bytes(value: Any) -> bytes | None:
    if value is None:
        return None
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    if isinstance(value, str):
        return value.encode()
    return json.dumps(value).encode()


def _seconds(value: Seconds) -> float:
    return value.total_seconds() if isinstance(value, timedelta) else float(value)


def _report_outcome(
    done: Any, result: Any = None, error: BaseException | None = None, keep: bool = True
) -> None:
    """Tells the core what became of a job. Always calls ``done``: an outcome the core refuses
    (a negative delay, say) fails the attempt with the refusal, since a ``done`` never called
    would leave the job without its error (or, from asyncio, leased until shutdown)."""
    try:
        _send_outcome(done, result, error, keep)
    except Exception as refused:
        done(
            "fail",
            (
                str(refused) or repr(refused),
                type(refused).__name__,
                None,
                _trace(refused),
            ),
        )


def _trace(error: BaseException) -> str | None:
    """The exception's traceback as Python prints it (its causes included), kept with the
    failed attempt as its ``trace`` (at most 16 KiB; ``Queue.get`` shows it)."""
    if error.__traceback__ is None:
        return None
    return "".join(traceback.format_exception(type(error), error, error.__traceback__))


def _send_outcome(
    done: Any, result: Any, error: BaseException | None, keep: bool
) -> None:
    if error is None:
        # Encoded only when kept. A value that cannot be (a set, a circular list, a str with a
        # lone surrogate) fails the attempt with the encoding's error: the core words it.
        try:
            value = _result_bytes(result) if keep else None
        except Exception as failure:
            done("unencodable", (str(failure), type(failure).__name__))
            return
        done("complete", value)
    elif isinstance(error, Release):
        done("release", None if error.delay is None else _seconds(error.delay))
    elif isinstance(error, RateLimited):
        kind = "rate_limited_group" if error.group else "rate_limited"
        done(kind, _seconds(error.hold))
    elif isinstance(error, Unrecoverable):
        done("fail", (str(error), type(error).__name__, "never", _trace(error)))
    elif isinstance(error, RetryLater):
        delay = _seconds(error.delay)
        done("fail", (str(error), type(error).__name__, delay, _trace(error)))
    else:
        kind = type(error).__name__
        done("fail", (str(error) or repr(error), kind, None, _trace(error)))


class _Pool:
    """Up to ``size`` daemon threads named ``leaseq-handler_N`` that run the calls put in one
    queue, started as work arrives and none is idle (as ``ThreadPoolExecutor``, without a
    ``Future`` per call: the runner needs none)."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._calls: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._idle = threading.Semaphore(0)
        self._threads: list[threading.Thread] = []

    def put(self, fn: Callable[..., None], *args: Any) -> None:
        self._calls.put((fn, args))
        if not self._idle.acquire(blocking=False) and len(self._threads) < self._size:
            t = threading.Thread(
                target=self._loop,
                name=f"leaseq-handler_{len(self._threads)}",
                daemon=True,
            )
            self._threads.append(t)
            t.start()

    def _loop(self) -> None:
        calls = self._calls
        while True:
            call = calls.get()
            if call is None:
                return
            fn, args = call
            try:
                fn(*args)
            except Exception:
                # A bug of the runner's own, never a handler's (`_run_sync` reports those).
                log.exception("leaseq runner: a handler thread's call failed")
            del call, fn, args
            self._idle.release()

    def shutdown(self) -> None:
        """Drops the calls not started and lets each thread end after its current one."""
        try:
            while True:
                self._calls.get_nowait()
        except queue.Empty:
            pass
        for _ in self._threads:
            self._calls.put(None)


class Worker:
    """Runs ``handler(job)`` for each item of ``queue``: a :class:`leaseq.Queue`, or a list of
    1 to 64 queues of one client.

    Over several queues, one runner asks them in the order given (strict: a later queue gets
    slots only while every earlier one has no work for them), or, with ``weights`` (one per
    queue, each 1 to 1000), by weighted round robin in turns (one queue at a time, for at
    most 256 leases per slot or 250 ms): ``weights=[3, 1]`` gives the first queue three turns
    of four. One wait on the server covers every queue; each job is
    finished in its own queue (``job.queue_prefix``), and the runner registers and does the
    housekeeping in each. A queue named twice, from another client, or weights not one per
    queue raise ``InvalidArgumentError`` naming ``queue`` or ``weights``.

    A :class:`leaseq.PartitionedQueue` runs over every partition by weighted round robin with
    equal weights (each partition with work has a turn once in P), unless ``weights`` gives
    one per partition.

    Plain functions run on a thread pool of ``concurrency`` threads; ``async def`` functions on
    an asyncio event loop. A return value is kept as the job's result (bytes as they are, str as
    UTF-8, anything else as JSON; ``None`` keeps nothing). One that cannot be encoded (a set, say)
    fails the attempt with the encoding's error, a ``TypeError`` naming the type; with
    ``keep_results=False`` it is not encoded at all. An exception fails the attempt (retried
    with the queue's backoff); :class:`Unrecoverable` sends it to the dead letters, :class:`RetryLater`
    retries after a delay, :class:`Release` hands it back, :class:`RateLimited` holds the queue
    (or, with ``group=True``, the job's group) off for a while and hands it back (no attempt
    counted). A failed attempt keeps the exception's traceback as the job's ``trace``
    (``Queue.get``; at most 16 KiB). The runner logs on the ``leaseq.worker`` logger (see the
    module).

    **Handlers by name.** ``handler`` may be a dict of handlers by item name
    (``Item(..., name=...)``), ``{"send_email": send, "resize": resize}``, with a ``fallback``
    for the jobs no name takes (those without a name too): one queue then carries several kinds
    of job, each run with the handler of its name. Without a fallback, a job whose name is not in
    the dict fails for good (dead at once, no handler called) with error type ``NoHandler``. A
    value that is not callable, or a dict mixing ``async def`` and plain functions (the fallback
    included), raises ``InvalidArgumentError`` naming ``handlers`` here; an empty dict without a
    fallback, or a bad name (empty, longer than ``MAX_NAME_LEN`` bytes, a control character),
    as ``run()`` starts, before any job is leased.

    Settings not given take the core's
    defaults (concurrency 1, lease TTL 30 s, renewal every TTL/3, shutdown timeout 30 s, ...).
    ``job_timeout`` (seconds; default none) limits how long a handler runs: past it the handler
    is told (see :class:`Job`) and the attempt fails with error type ``timeout`` once the
    handler ends, or after ``timeout_grace`` (default 5 s) while it still runs; then its later
    outcome is ignored and its thread stays taken until it returns. ``stats=True`` (or
    ``False``) is stored in the queue's configuration as the runner starts,
    turning its per-minute counters on (off) for every client, as ``queue.set_config(stats=...)``
    does; left out, the configuration is left alone.

    ``run()`` blocks until SIGINT or SIGTERM (a graceful shutdown: no more leases, running
    handlers get ``shutdown_timeout``; a second signal forces) or ``stop()`` from another thread.
    """

    def __init__(  # noqa: PLR0913 - one keyword per setting of the core's WorkerOptions
        self,
        queue: Any,
        handler: Callable[[Job], Any] | Mapping[str, Callable[[Job], Any]],
        *,
        fallback: Callable[[Job], Any] | None = None,
        weights: Sequence[int] | None = None,
        concurrency: int | None = None,
        lease_ttl: Seconds | None = None,
        renew_every: Seconds | None = None,
        keep_results: bool | None = None,
        keep_result_for: Seconds | None = None,
        shutdown_timeout: Seconds | None = None,
        on_shutdown: str | None = None,
        poll_interval: Seconds | None = None,
        heartbeat: Seconds | None = None,
        housekeeping: bool | None = None,
        housekeeping_every: Seconds | None = None,
        deep_clean_every: Seconds | None = None,
        stats: bool | None = None,
        job_timeout: Seconds | None = None,
        timeout_grace: Seconds | None = None,
        on_event: Callable[[str, str | None, Any], None] | None = None,
    ) -> None:
        _refuse_asyncio_queues(queue)
        self._queue = queue
        # A table of handlers by name (None: `handler` takes every job), and its fallback.
        self._table: dict[str, Callable[[Job], Any]] | None = None
        self._fallback = fallback
        if isinstance(handler, Mapping):
            self._table = dict(handler)
            handlers = list(self._table.values())
            if not all(callable(h) for h in handlers):
                raise _native_invalid("handlers", "every handler must be callable")
            if fallback is not None:
                if not callable(fallback):
                    raise _native_invalid("fallback", "must be callable")
                handlers.append(fallback)
            kinds = {inspect.iscoroutinefunction(h) for h in handlers}
            if len(kinds) > 1:
                raise _native_invalid(
                    "handlers",
                    "mixes async def and plain functions: give one kind or the other",
                )
            self._is_async = kinds == {True}
        elif not callable(handler):
            raise _native_invalid("handler", "must be callable, or a dict of handlers")
        elif fallback is not None:
            raise _native_invalid("fallback", "needs a dict of handlers by name")
        else:
            self._is_async = inspect.iscoroutinefunction(handler)
        self._handler = handler
        self._options = {
            "concurrency": concurrency,
            "lease_ttl": lease_ttl,
            "renew_every": renew_every,
            "keep_results": keep_results,
            "keep_result_for": keep_result_for,
            "shutdown_timeout": shutdown_timeout,
            "on_shutdown": on_shutdown,
            "poll_interval": poll_interval,
            "heartbeat": heartbeat,
            "housekeeping": housekeeping,
            "housekeeping_every": housekeeping_every,
            "deep_clean_every": deep_clean_every,
            "stats": stats,
            "job_timeout": job_timeout,
            "timeout_grace": timeout_grace,
            "weights": weights,
            # The table's names and whether it has a fallback: the core checks the table and
            # fails the jobs none of them takes, so each job handed here has its handler.
            "handlers": None if self._table is None else list(self._table),
            "fallback": fallback is not None,
        }
        self._listeners: dict[str, list[Callable[..., None]]] = {}
        if on_event is not None:
            self._listeners.setdefault("*", []).append(on_event)
        self._run: Any = None
        self._pool: _Pool | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop_requested = 0
        # Guards _run and _stop_requested: a stop() from another thread as the runner starts
        # reaches either the wait for Redis or the started runner, never neither. Reentrant: a
        # signal handler (SIGTERM: _interrupt) may run on the main thread while it holds it.
        self._lock = threading.RLock()
        # A run() under way (another one at once is refused).
        self._active = False
        self._keep_results = True
        # Jobs handed to a handler and not finished yet, by their native key (jobs told to stop
        # are reported by key).
        self._running: dict[int, Job] = {}
        self._closing = threading.Event()
        # An asyncio flush of the outcomes stored (``done``) is scheduled.
        self._flush_pending = False

    def on(self, event: str, listener: Callable[..., None]) -> None:
        """Calls ``listener(id, detail)`` on ``event``: ``completed``, ``retrying``, ``dead``,
        ``released``, ``lease_lost``, ``timed_out``, ``error`` or ``recovered`` (``id`` is None
        for the last two), or ``listener(name, id, detail)`` on every event for ``"*"``; another
        name raises ``InvalidArgumentError``. The detail: the error message (``dead``),
        ``(message, retry_in_seconds)`` (``retrying``), why the lease was lost, a
        ``RenewOutcome`` value (``lease_lost``), the timeout error's message (``timed_out``: the
        handler was told; a ``retrying`` or ``dead`` follows), ``(step, code, message)``
        (``error``), the step that works again
        (``recovered``), else ``None``. Listeners run on the thread that called ``run()``."""
        if event != "*" and event not in _native.events():
            error = InvalidArgumentError(
                f"invalid argument `event`: unknown event {event!r}; the events are "
                + ", ".join(_native.events())
                + ', or "*" for all'
            )
            error.argument = "event"
            raise error
        self._listeners.setdefault(event, []).append(listener)

    def stop(self, force: bool = False) -> None:
        """Starts a graceful shutdown from any thread; ``force=True`` cuts the wait short.
        Before ``run()`` started the runner (or while it waits for Redis), ``run()`` returns
        at once, having run nothing."""
        with self._lock:
            run = self._run
            if run is None:
                self._stop_requested = 2 if force else max(self._stop_requested, 1)
                return
        if force:
            run.force()
        else:
            run.stop()

    def _interrupt(self) -> None:
        """A signal (SIGTERM, or Ctrl-C's KeyboardInterrupt): a graceful shutdown, forced by
        the second; before the runner started, a stop."""
        with self._lock:
            run = self._run
        if run is None:
            self.stop()
        else:
            run.interrupt()

    # -- dispatch: on the asyncio loop (async handlers) or a dispatcher thread ------------

    def _pump(self) -> None:
        """Takes every job, and every key of a job told to stop, waiting in the native inbox and
        dispatches them."""
        try:
            os.read(self._run.fd, 65536)  # the wake-up bytes; emptied before taking
        except BlockingIOError:
            pass
        jobs, told = self._run.take()
        for native, done in jobs:
            job = Job(native)
            self._running[native.key] = job
            if self._is_async:
                assert self._loop is not None
                job._loop = self._loop
                job._task = self._loop.create_task(self._run_async(job, done))
            else:
                if native.cancel_reason is not None:
                    job._told()
                assert self._pool is not None
                self._pool.put(self._run_sync, job, done)
        for key in told:
            told_job = self._running.get(key)
            if told_job is not None:
                told_job._told()

    def _dispatcher(self) -> None:
        """The thread that feeds the thread pool: waits on the inbox's wake-ups (without the
        GIL, in select) until the runner has ended."""
        fd = self._run.fd
        while not self._closing.is_set():
            ready, _, _ = select.select([fd], [], [], 0.2)
            if ready:
                self._pump()

    def _handler_for(self, job: Job) -> Callable[[Job], Any]:
        """The handler of the job's name in the table, else the fallback (the core hands over
        only the jobs one of them takes), or the one handler."""
        if self._table is None:
            return self._handler  # type: ignore[return-value]
        name = job.name
        named = None if name is None else self._table.get(name)
        handler = named if named is not None else self._fallback
        assert handler is not None, "the core hands over only the jobs a handler takes"
        return handler

    def _run_sync(self, job: Job, done: Any) -> None:
        try:
            result = self._handler_for(job)(job)
        except BaseException as error:
            _report_outcome(done, error=error)
        else:
            _report_outcome(done, result, keep=self._keep_results)
        finally:
            self._running.pop(job._native.key, None)
            self._flush()

    async def _run_async(self, job: Job, done: Any) -> None:
        if job._native.cancel_reason is not None:
            job._told()  # cancels this task at its first await, inside the try below
        try:
            result = await self._handler_for(job)(job)
        except asyncio.CancelledError as cancelled:
            # Told of a timeout, the core fails the attempt with the timeout error whatever is
            # reported here; a lost lease hands the item back (which changes nothing).
            _report_outcome(done, error=Release(None) if job.lease_lost else cancelled)
        except BaseException as error:
            _report_outcome(done, error=error)
        else:
            _report_outcome(done, result, keep=self._keep_results)
        finally:
            self._running.pop(job._native.key, None)
            self._flush_soon()

    def _flush_soon(self) -> None:
        """Sends the outcomes stored in this turn of the loop together, once it ends: one
        native call, one wake-up of the core's finisher for many jobs."""
        if not self._flush_pending:
            self._flush_pending = True
            assert self._loop is not None
            self._loop.call_soon(self._flush)

    def _flush(self) -> None:
        self._flush_pending = False
        run = self._run
        if (
            run is not None
        ):  # None: the run ended (a handler that outlived it); ignored then
            run.flush()

    # -- running ---------------------------------------------------------------------------

    def _emit(self, name: str, job_id: str | None, detail: Any) -> None:
        for listener in self._listeners.get(name, []):
            listener(job_id, detail)
        for listener in self._listeners.get("*", []):
            listener(name, job_id, detail)

    def _log(self) -> None:
        """Hands the runner's log lines (worded by the core) to the ``leaseq.worker`` logger."""
        for levelno, line in self._run.logs():
            log.log(levelno, "%s", line)

    def _waiting(
        self, event: tuple[str, str | None, int, Any], levelno: int, line: str
    ) -> None:
        """An outage as the runner starts (it waits for Redis), or its end: logged and
        emitted as a running runner's are."""
        if not log.disabled and log.isEnabledFor(levelno):
            log.log(levelno, "%s", line)
        name, job_id, _attempt, detail = event
        self._emit(name, job_id, detail)

    def _start(self) -> threading.Thread | None:
        """Starts the runner, once Redis answers (``None``: stopped before it did)."""
        self._closing.clear()
        # The lines are made only from the logger's effective level up; none when it is off.
        level = log.getEffectiveLevel() if not log.disabled else None
        try:
            run = _native.start_worker(
                self._queue,
                {**self._options, "log_level": level},
                lambda: self._stop_requested != 0,
                self._waiting,
            )
        except KeyboardInterrupt:
            run = None  # Ctrl-C while it waited for Redis: stopped, nothing run
        if run is None:
            return None
        try:
            return self._started(run)
        except BaseException:
            run.force()  # nothing would hand its jobs to a handler: it ends, releasing them
            raise

    def _started(self, run: Any) -> threading.Thread:
        """Takes the runner just started: a stop asked meanwhile reaches it, and the thread
        that hands its jobs to the handlers starts."""
        with self._lock:
            self._run = run
            stop = self._stop_requested
        self._keep_results = run.keep_results
        if stop:
            self.stop(force=stop == 2)
        if not self._is_async:
            self._pool = _Pool(self._run.concurrency)
            thread = threading.Thread(
                target=self._dispatcher, name="leaseq-dispatch", daemon=True
            )
            thread.start()
            return thread
        self._loop = asyncio.new_event_loop()
        self._loop.add_reader(self._run.fd, self._pump)
        thread = threading.Thread(
            target=self._loop.run_forever, name="leaseq-asyncio", daemon=True
        )
        thread.start()
        return thread

    def _finish(self, thread: threading.Thread) -> None:
        self._closing.set()
        if self._pool is not None:
            thread.join(timeout=5)
            self._pump()  # jobs told to stop after the dispatcher's last look
            self._pool.shutdown()
            self._pool = None
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
            thread.join(timeout=5)
            if not self._loop.is_running():
                self._loop.remove_reader(self._run.fd)
                self._loop.close()
            self._loop = None
        # What a handler stored after the loop's last flush (the engine ignores an outcome
        # it no longer waits for).
        self._flush_pending = False
        self._run.flush()
        self._running.clear()

    def run(self) -> WorkerReport:
        """Runs until a signal or ``stop()``; returns what the runner did. Redis outages never
        raise out of it: the core rides through them and reports ``error`` events. One under
        way as it starts neither: it waits for Redis (an ``error`` event with step ``connect``,
        then ``recovered``), trying again after 100 ms doubling to 5 s, until Redis answers or
        a signal or ``stop()`` ends the wait (an empty report). Bad settings raise
        ``InvalidArgumentError`` before any wait. One run at a time: a second ``run()`` while
        one is under way raises ``RuntimeError`` (make a second ``Worker`` for a second runner)."""
        with self._lock:
            if self._active:
                raise RuntimeError(
                    "this Worker is running already: its run() has not returned (make another "
                    "Worker for a second runner)"
                )
            self._active = True
        previous = None
        try:
            if threading.current_thread() is threading.main_thread():
                previous = signal.signal(signal.SIGTERM, lambda *_: self._interrupt())
            thread = self._start()
            if thread is None:
                return WorkerReport(0, 0, 0, 0, 0, 0)
            return self._serve(thread)
        finally:
            # Spent: a stop asked before or during this run does not reach the next one. First,
            # so that nothing below can leave the Worker marked as running.
            with self._lock:
                self._run = None
                self._stop_requested = 0
                self._active = False
            if previous is not None:
                signal.signal(signal.SIGTERM, previous)

    def _serve(self, thread: threading.Thread) -> WorkerReport:
        """Hands the started runner's events and logs to Python until it has ended."""
        try:
            while True:
                try:
                    report = self._run.wait(0.2)
                    completed = bool(
                        self._listeners.get("completed") or self._listeners.get("*")
                    )
                    for name, job_id, _attempt, detail in self._run.events(completed):
                        self._emit(name, job_id, detail)
                    self._log()
                    if report is not None:
                        return WorkerReport(*report)
                except KeyboardInterrupt:
                    self._run.interrupt()
        finally:
            self._finish(thread)


def _refuse_asyncio_queues(queue: Any) -> None:
    """Refuses, as the runner is made, a queue of ``leaseq.aio`` (alone or in a list): the runner
    runs on threads of its own and takes the queues of ``leaseq.Client``."""
    given = list(queue) if isinstance(queue, (list, tuple)) else [queue]
    if any(type(q).__module__ == "leaseq.aio" for q in given):
        raise _native_invalid(
            "queue",
            "is a leaseq.aio queue: a Worker runs on threads of its own (run() blocks) and "
            "takes leaseq.Client's queues (client.queue(prefix), client.partitioned(base)); "
            "its async def handlers run on an event loop of its own",
        )


def _native_invalid(argument: str, reason: str) -> Exception:
    error = InvalidArgumentTypeError(f"invalid argument `{argument}`: {reason}")
    error.argument = argument
    return error
