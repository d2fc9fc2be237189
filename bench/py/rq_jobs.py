"""Job functions for the RQ workloads of `make bench` (importable by RQ workers)."""

import time

# Set in a latency worker's process before it starts: a multiprocessing queue for latencies.
REPORT = None
# How many no-op jobs this process ran (SimpleWorker runs jobs in its own process).
DONE = 0


def noop(payload):
    """The no-op processor."""
    global DONE
    DONE += 1


def sleep(payload, ms):
    """The sleeping processor: waits `ms` milliseconds."""
    global DONE
    time.sleep(ms / 1000.0)
    DONE += 1


def stamp(payload):
    """Reports how long after its enqueue (monotonic ns in the payload) the job started."""
    now = time.monotonic_ns()
    REPORT.put((now - int(payload[:20])) / 1000.0)
