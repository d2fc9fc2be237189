"""``python -m leaseq``: ``worker`` runs a handler (as ``rq worker`` and ``celery worker`` do);
every other command is the ``leaseq`` command (stats, ls, dead, workers, dashboard, ...).

    python -m leaseq worker package.module:function --queue NAME [--queue NAME ...]
        [--weights W,W,...] [--url URL] [--concurrency N] [--log-level LEVEL]

``package.module:HANDLERS`` names a dict of handlers by item name instead of a function
(``--fallback package.module:function`` for the jobs no name takes).

The worker logs at INFO to standard error (``logging.basicConfig``): a line as it starts (its
queues, the URL without its password, its concurrency), one per failed attempt (id, attempt,
error) and one as it stops; ``--log-level DEBUG`` adds a line per completed job.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys
from collections.abc import Mapping
from typing import Any, Callable, Union

import leaseq
from leaseq import _cli

#: A handler, or a dict of handlers by item name.
Handlers = Union[Callable[..., Any], Mapping[str, Callable[..., Any]]]


def _imported(spec: str) -> tuple[str, str, Any]:
    """The module's name, the attribute's name and what ``spec`` (module:attribute) names."""
    module_name, _, name = spec.partition(":")
    if not module_name or not name:
        raise SystemExit(f"leaseq worker: {spec!r} is not module:function")
    sys.path.insert(0, os.getcwd())
    module = importlib.import_module(module_name)
    return module_name, name, getattr(module, name, None)


def _handler(spec: str) -> Handlers:
    """The function, or the dict of handlers by item name, ``spec`` names."""
    module_name, name, handler = _imported(spec)
    if isinstance(handler, Mapping):
        return handler
    if not callable(handler):
        raise SystemExit(
            f"leaseq worker: {module_name} has no function or dict of handlers {name!r}"
        )
    return handler  # type: ignore[no-any-return]


def _function(spec: str) -> Callable[..., Any]:
    """The function ``spec`` names."""
    module_name, name, function = _imported(spec)
    if not callable(function):
        raise SystemExit(f"leaseq worker: {module_name} has no function {name!r}")
    return function  # type: ignore[no-any-return]


def _weights(text: str) -> list[int]:
    try:
        return [int(w) for w in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not comma-separated integers"
        ) from None


def worker(argv: list[str] | None = None) -> int:
    """Runs ``module:function`` over one queue, or several (in the order given, or weighted),
    until SIGINT or SIGTERM; exits 0 after draining."""
    parser = argparse.ArgumentParser(
        prog="python -m leaseq worker", description=worker.__doc__
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
        help="a queue's prefix; repeat it to serve several queues, asked in the order given",
    )
    parser.add_argument(
        "--weights",
        type=_weights,
        default=None,
        help="weighted round robin over the queues instead of strict order: one weight per "
        "--queue, comma-separated (3,1: the first queue has 3 turns of 4)",
    )
    parser.add_argument(
        "--url",
        default=os.environ.get("LEASEQ_URL") or os.environ.get("REDIS_URL"),
        help="Redis URL (default: LEASEQ_URL or REDIS_URL)",
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
    args = parser.parse_args(argv)
    if not args.url:
        parser.error("give --url, or set LEASEQ_URL or REDIS_URL")
    logging.basicConfig(
        level=args.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    handler = _handler(args.handler)
    fallback = None if args.fallback is None else _function(args.fallback)
    if fallback is not None and not isinstance(handler, Mapping):
        parser.error("--fallback goes with a dict of handlers by name")
    with leaseq.Client(args.url) as client:
        # The runner logs its own start and stop (with its report) on `leaseq.worker`.
        leaseq.Worker(
            [client.queue(q) for q in args.queue],
            handler,
            fallback=fallback,
            weights=args.weights,
            concurrency=args.concurrency,
            lease_ttl=args.lease_ttl,
            shutdown_timeout=args.shutdown_timeout,
            job_timeout=args.job_timeout,
        ).run()
    return 0


def main() -> None:
    if sys.argv[1:2] == ["worker"]:
        sys.exit(worker(sys.argv[2:]))
    _cli.main()


if __name__ == "__main__":
    main()
