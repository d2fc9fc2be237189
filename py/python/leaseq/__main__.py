"""``python -m leaseq``: ``worker`` runs a handler (as ``rq worker`` and ``celery worker`` do);
every other command is the ``leaseq`` command (stats, ls, dead, workers, dashboard, ...).

    python -m leaseq worker package.module:function --queue NAME [--queue NAME ...]
        [--weights W,W,...] [--url URL [--url URL ...]] [--cluster] [--concurrency N]
        [--log-level LEVEL]

``package.module:HANDLERS`` names a dict of handlers by item name instead of a function
(``--fallback package.module:function`` for the jobs no name takes).

Connecting is as the ``leaseq`` command does it: ``--url``, else ``LEASEQ_URL``, else
``REDIS_URL``; several URLs (``--url`` repeated, or separated by commas) name nodes of a Redis
Cluster, and ``--cluster`` makes a single one a cluster node too. A ``--queue`` that is a
partitioned queue's base runs the worker over every partition, as
``Worker(client.partitioned(base), handler)`` does; it is then the only ``--queue``.

A Redis that cannot be reached at start is waited for, as Celery's and BullMQ's workers wait:
one warning line, then one when it answers (SIGINT or SIGTERM meanwhile exits 0); a running
worker rides through an outage the same way. A refused argument, a URL or login that Redis
refuses, or a handler that cannot be found ends the command with one line on standard error (no
traceback) and an exit code: 1 (a handler not found), 2 (bad usage or an argument refused), 3
(Redis lost while the queues were opened), 4 (Redis refused), as the ``leaseq`` command's.

The worker logs at INFO to standard error (``logging.basicConfig``): a line as it starts (its
queues, the URL without its password, its concurrency), one per failed attempt (id, attempt,
error) and one as it stops; ``--log-level DEBUG`` adds a line per completed job.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import signal
import sys
import threading
from collections.abc import Mapping
from typing import Any, Callable, NoReturn, Union

import leaseq
from leaseq import _cli, _native

#: A handler, or a dict of handlers by item name.
Handlers = Union[Callable[..., Any], Mapping[str, Callable[..., Any]]]

#: What the worker runs over: a queue, several, or a partitioned queue.
Target = Union[list[leaseq.Queue], leaseq.PartitionedQueue]

PROG = "python -m leaseq worker"

#: The exit codes of the ``leaseq`` command (cli/src/fail.rs), for what ends this one.
NOT_FOUND, USAGE, UNREACHABLE, REFUSED = 1, 2, 3, 4


class _Fail(Exception):
    """Ends the command with one line on standard error and ``code``."""

    def __init__(self, message: str, code: int = USAGE) -> None:
        super().__init__(message)
        self.code = code


def _failed(error: leaseq.LeaseqError) -> _Fail:
    """A leaseq error as the ``leaseq`` command reports it: its message, a hint, its code."""
    if isinstance(error, (leaseq.InvalidArgumentError, leaseq.JsonError)):
        return _Fail(str(error), USAGE)
    if isinstance(error, (leaseq.LeaseqConnectionError, leaseq.LeaseqTimeoutError)):
        return _Fail(
            f"{error}; check that Redis runs and that --url (or LEASEQ_URL, REDIS_URL) "
            "points at it",
            UNREACHABLE,
        )
    if isinstance(error, leaseq.UnavailableError):
        return _Fail(
            f"{error}; Redis is up but cannot serve now (loading, busy, failing over): try "
            "again",
            UNREACHABLE,
        )
    return _Fail(str(error), REFUSED)


def _imported(spec: str) -> tuple[str, str, Any]:
    """The module's name, the attribute's name and what ``spec`` (module:attribute) names."""
    module_name, _, name = spec.partition(":")
    if not module_name or not name:
        raise _Fail(f"{spec!r} is not module:function")
    sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as e:
        # The module named (or a package of its path) is not there; a module it imports that
        # is missing is the module's own error, with its traceback.
        if e.name is None or not (module_name + ".").startswith(e.name + "."):
            raise
        raise _Fail(
            f"no module named {e.name!r} (from {spec!r}; looked in the current directory "
            "and sys.path)",
            NOT_FOUND,
        ) from None
    return module_name, name, getattr(module, name, None)


def _handler(spec: str) -> Handlers:
    """The function, or the dict of handlers by item name, ``spec`` names."""
    module_name, name, handler = _imported(spec)
    if isinstance(handler, Mapping):
        return handler
    if not callable(handler):
        raise _Fail(
            f"{module_name} has no function or dict of handlers {name!r}", NOT_FOUND
        )
    return handler  # type: ignore[no-any-return]


def _function(spec: str) -> Callable[..., Any]:
    """The function ``spec`` names."""
    module_name, name, function = _imported(spec)
    if not callable(function):
        raise _Fail(f"{module_name} has no function {name!r}", NOT_FOUND)
    return function  # type: ignore[no-any-return]


def _weights(text: str) -> list[int]:
    try:
        return [int(w) for w in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not comma-separated integers"
        ) from None


def _split(values: list[str]) -> list[str]:
    """The URLs of ``values``, each of which may hold several separated by commas."""
    return [u.strip() for v in values for u in v.split(",") if u.strip()]


def _urls(given: list[str] | None) -> list[str]:
    """``--url`` as given, else ``LEASEQ_URL``, else ``REDIS_URL`` (as the ``leaseq`` command
    reads them): a list of URLs, empty when none is set."""
    for values in (
        given,
        [os.environ.get("LEASEQ_URL", "")],
        [os.environ.get("REDIS_URL", "")],
    ):
        urls = _split(values or [])
        if urls:
            return urls
    return []


def _connect(urls: list[str], cluster: bool) -> leaseq.Client | None:
    """A client of the server at ``urls[0]``, or of the Cluster whose nodes ``urls`` name
    (several URLs, or ``cluster``), once Redis answers: while it cannot be reached, the worker
    logs so once and waits, as a running worker rides through an outage. SIGINT or SIGTERM
    meanwhile ends the wait: ``None``."""
    log = logging.getLogger("leaseq.worker")
    signals: list[int] = []
    previous = {}
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGINT, signal.SIGTERM):
            previous[signum] = signal.signal(
                signum, lambda got, _frame: signals.append(got)
            )
    try:
        client = _native.connect_waiting(
            urls,
            len(urls) > 1 or cluster,
            lambda: bool(signals),
            lambda _event, levelno, line: log.log(levelno, "%s", line),
        )
    except leaseq.LeaseqError as e:
        fail = _failed(e)
        raise _Fail(f"--url: {fail}", fail.code) from None
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    if client is not None and signals:
        # The signal came during the attempt that connected: it still stops the worker.
        client.close()
        client = None
    if client is None:
        log.info("stopped (%s) before Redis answered", signal.Signals(signals[0]).name)
        return None
    for warning in client.warnings:
        log.warning("%s", warning)
    return client


def _target(client: leaseq.Client, names: list[str]) -> Target:
    """The queues ``--queue`` names, or the partitioned queue it names (one round trip each to
    read the stored layout). A partitioned queue runs alone."""
    opened = [client.partitioned(name) for name in names]
    partitioned = [p for p in opened if len(p.partitions) > 1]
    if not partitioned:
        return [client.queue(name) for name in names]
    if len(names) > 1:
        p = partitioned[0]
        raise _Fail(
            f"--queue {p.base} is a partitioned queue's base ({len(p.partitions)} "
            "partitions), which a worker serves alone: give it as the only --queue, and run "
            "another worker for the other queues"
        )
    return partitioned[0]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description=worker.__doc__,
        epilog="Exit codes: 0 after draining on SIGINT or SIGTERM; 1 a handler or fallback that "
        "is not found; 2 bad usage or an argument refused; 3 Redis unreachable; 4 Redis refused.",
    )
    parser.add_argument(
        "handler",
        help="the handler, as package.module:function, or a dict of handlers by item name, "
        "as package.module:HANDLERS",
    )
    parser.add_argument(
        "--fallback",
        default=None,
        help="with a dict of handlers: the handler of the jobs no name takes, as "
        "package.module:function (without one they fail for good, error type NoHandler)",
    )
    parser.add_argument(
        "--queue",
        "-q",
        required=True,
        action="append",
        help="a queue's prefix; repeat it to serve several queues, asked in the order given. "
        "A partitioned queue's base, given alone, serves all its partitions, in turns",
    )
    parser.add_argument(
        "--weights",
        type=_weights,
        default=None,
        help="weighted round robin over the queues instead of strict order: one weight per "
        "--queue, comma-separated (3,1: the first queue has 3 turns of 4); over a partitioned "
        "queue, one per partition",
    )
    parser.add_argument(
        "--url",
        "-u",
        action="append",
        default=None,
        metavar="URL",
        help="Redis URL (redis://, rediss://, redis+unix://); repeat it, or separate with "
        "commas, to name several nodes of a Redis Cluster (default: LEASEQ_URL, else "
        "REDIS_URL, either comma-separated)",
    )
    parser.add_argument(
        "--cluster",
        action="store_true",
        help="treat a single URL as a node of a Redis Cluster (several URLs always are)",
    )
    parser.add_argument(
        "--concurrency",
        "-c",
        type=int,
        default=None,
        help="handlers at once (default 1)",
    )
    parser.add_argument(
        "--lease-ttl",
        type=float,
        default=None,
        help="lease TTL in seconds (default 30)",
    )
    parser.add_argument(
        "--shutdown-timeout",
        type=float,
        default=None,
        help="seconds a shutdown waits for running handlers (default 30)",
    )
    parser.add_argument(
        "--job-timeout",
        type=float,
        default=None,
        help="seconds a handler may run before it is told to stop and its attempt fails "
        "with error type timeout (default: no limit)",
    )
    parser.add_argument(
        "--log-level",
        type=str.upper,
        choices=["DEBUG", "INFO", "WARNING", "ERROR"],
        default="INFO",
        help="the least level logged (default INFO: the start and stop, and every failure; "
        "DEBUG adds a line per completed job)",
    )
    return parser


def worker(argv: list[str] | None = None) -> int:
    """Runs ``module:function`` over one queue, or several (in the order given, or weighted),
    or a partitioned queue, until SIGINT or SIGTERM; exits 0 after draining."""
    parser = _parser()
    args = parser.parse_args(argv)
    urls = _urls(args.url)
    if not urls:
        parser.error(
            "no Redis to talk to: give --url redis://host:port (or set LEASEQ_URL or REDIS_URL)"
        )
    logging.basicConfig(
        level=args.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    try:
        handler = _handler(args.handler)
        fallback = None if args.fallback is None else _function(args.fallback)
        if fallback is not None and not isinstance(handler, Mapping):
            parser.error("--fallback goes with a dict of handlers by name")
        connected = _connect(urls, args.cluster)
        if connected is None:
            return 0
        with connected as client:
            # The runner logs its own start and stop (with its report) on `leaseq.worker`.
            leaseq.Worker(
                _target(client, args.queue),
                handler,
                fallback=fallback,
                weights=args.weights,
                concurrency=args.concurrency,
                lease_ttl=args.lease_ttl,
                shutdown_timeout=args.shutdown_timeout,
                job_timeout=args.job_timeout,
            ).run()
    except leaseq.LeaseqError as e:
        _exit(_failed(e))
    except _Fail as fail:
        _exit(fail)
    return 0


def _exit(fail: _Fail) -> NoReturn:
    """Ends the command with ``fail``'s line on standard error and its code."""
    print(f"leaseq worker: {fail}", file=sys.stderr)
    sys.exit(fail.code)


def main() -> None:
    if sys.argv[1:2] == ["worker"]:
        sys.exit(worker(sys.argv[2:]))
    _cli.main()


if __name__ == "__main__":
    main()
