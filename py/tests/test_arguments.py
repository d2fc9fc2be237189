"""Bad input for each argument: the right exception class, naming the argument, nothing sent."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any, Callable

import leaseq
import pytest
import redis
from leaseq import _native

TYPE = leaseq.InvalidArgumentTypeError
VALUE = leaseq.InvalidArgumentError


def check(call: Callable[[], object], argument: str, cls: type[Exception]) -> None:
    with pytest.raises(cls) as info:
        call()
    err = info.value
    assert isinstance(err, leaseq.InvalidArgumentError) and isinstance(err, ValueError)
    if cls is TYPE:
        assert isinstance(err, TypeError)
    else:
        assert not isinstance(err, TypeError)
    assert err.code == "INVALID_ARGUMENT"
    assert err.argument == argument
    assert f"`{argument}`" in str(err)


@pytest.mark.parametrize(
    ("bad", "cls"),
    [
        (None, TYPE),
        (123, TYPE),
        (b"redis://127.0.0.1", TYPE),
        ("", VALUE),
        ("not a url", VALUE),
    ],
)
def test_client_url(bad: Any, cls: type[Exception]) -> None:
    check(lambda: leaseq.Client(bad), "url", cls)


@pytest.mark.parametrize(
    ("bad", "cls"),
    [
        (None, TYPE),
        ("redis://127.0.0.1:1", TYPE),  # a str, not a list of them
        ([1], TYPE),
        ([], VALUE),
        (["nonsense"], VALUE),
    ],
)
def test_cluster_urls(bad: Any, cls: type[Exception]) -> None:
    check(lambda: leaseq.Client.cluster(bad), "urls", cls)


@pytest.mark.parametrize(
    ("bad", "cls"),
    [
        (None, TYPE),
        (5, TYPE),
        (b"p", TYPE),
        ("", VALUE),
        ("a\nb", VALUE),
        ("x" * 1025, VALUE),
    ],
)
def test_queue_prefix(client: leaseq.Client, bad: Any, cls: type[Exception]) -> None:
    check(lambda: client.queue(bad), "prefix", cls)


def test_prefix_at_the_limit_is_accepted(client: leaseq.Client) -> None:
    assert (
        client.queue("x" * _native.MAX_PREFIX_LEN).prefix
        == "x" * _native.MAX_PREFIX_LEN
    )


@pytest.mark.parametrize("bad", [None, 5, ["x"], memoryview(b"x")])
def test_item_data(bad: Any) -> None:
    check(lambda: leaseq.Item(bad), "data", TYPE)


def test_item_data_str_must_be_utf8() -> None:
    check(lambda: leaseq.Item("\ud800"), "data", VALUE)


@pytest.mark.parametrize(
    ("bad", "cls"),
    [(5, TYPE), (b"id", TYPE), ("", VALUE), ("a\x00b", VALUE), ("x" * 513, VALUE)],
)
def test_item_id(bad: Any, cls: type[Exception]) -> None:
    check(lambda: leaseq.Item(b"x", id=bad), "id", cls)
    check(lambda: leaseq.Item.from_json({}, id=bad), "id", cls)


def test_item_id_at_the_limit_is_accepted() -> None:
    assert leaseq.Item(b"x", id="x" * _native.MAX_ID_LEN).id == "x" * 512


@pytest.mark.parametrize("method", ["add", "add_unique"])
@pytest.mark.parametrize("bad", [None, b"data", "data", 1])
def test_item_argument(queue: leaseq.Queue, method: str, bad: Any) -> None:
    check(lambda: getattr(queue, method)(bad), "item", TYPE)
    assert queue.queue_len() == 0


@pytest.mark.parametrize(
    "bad",
    [None, 5, "abc", b"abc", leaseq.Item(b"x"), [b"x"], [leaseq.Item(b"x"), None]],
)
def test_add_batch_items(queue: leaseq.Queue, bad: Any) -> None:
    check(lambda: queue.add_batch(bad), "items", TYPE)
    assert queue.queue_len() == 0


TTL_BAD = [
    ("30", TYPE),
    (True, TYPE),
    (-1, VALUE),
    (-0.5, VALUE),
    (0, VALUE),
    (0.0, VALUE),
    (float("nan"), VALUE),
    (float("inf"), VALUE),
    (10**400, VALUE),
    (_native.MAX_TTL + 1, VALUE),
    (timedelta(0), VALUE),
    (timedelta(seconds=-1), VALUE),
    (timedelta(seconds=_native.MAX_TTL + 1), VALUE),
]


@pytest.mark.parametrize(("bad", "cls"), TTL_BAD)
def test_lease_ttl(queue: leaseq.Queue, bad: Any, cls: type[Exception]) -> None:
    queue.add(leaseq.Item(b"x"))
    check(lambda: queue.lease(ttl=bad, block=False), "ttl", cls)
    check(lambda: queue.lease(bad), "ttl", cls)
    check(lambda: queue.lease_batch(1, bad), "ttl", cls)
    assert (queue.queue_len(), queue.processing_len()) == (1, 0)


@pytest.mark.parametrize("bad", [1, 0, "yes"])
def test_lease_block(queue: leaseq.Queue, bad: Any) -> None:
    check(lambda: queue.lease(block=bad), "block", TYPE)


TIMEOUT_BAD = [
    ("1", TYPE),
    (True, TYPE),
    (-1, VALUE),
    (timedelta(seconds=-1), VALUE),
    (float("nan"), VALUE),
    (float("-inf"), VALUE),
    (10**400, VALUE),
]


@pytest.mark.parametrize(("bad", "cls"), TIMEOUT_BAD)
def test_lease_timeout(queue: leaseq.Queue, bad: Any, cls: type[Exception]) -> None:
    check(lambda: queue.lease(timeout=bad), "timeout", cls)
    check(lambda: queue.lease_batch(2, timeout=bad), "timeout", cls)


@pytest.fixture()
def lease(queue: leaseq.Queue) -> leaseq.Lease:
    queue.add(leaseq.Item(b"x"))
    got = queue.lease(block=False)
    assert got is not None
    return got


LEASE_METHODS: list[tuple[str, tuple[Any, ...]]] = [
    ("complete", ()),
    ("complete_and_lease", ()),
    ("renew", ()),
    ("renew_outcome", ()),
    ("fail", ("error",)),
    ("release", ()),
    ("progress", (b"50%",)),
]


@pytest.mark.parametrize(("method", "args"), LEASE_METHODS)
@pytest.mark.parametrize("bad", [None, "id", leaseq.Item(b"x")])
def test_lease_argument(
    queue: leaseq.Queue,
    lease: leaseq.Lease,
    method: str,
    args: tuple[Any, ...],
    bad: Any,
) -> None:
    check(lambda: getattr(queue, method)(bad, *args), "lease", TYPE)
    assert queue.count("leased") == 1 and queue.get(lease.id) is not None


@pytest.mark.parametrize("method", ["complete_and_lease", "renew", "renew_outcome"])
@pytest.mark.parametrize(("bad", "cls"), TTL_BAD)
def test_renew_ttl(
    queue: leaseq.Queue,
    lease: leaseq.Lease,
    method: str,
    bad: Any,
    cls: type[Exception],
) -> None:
    check(lambda: getattr(queue, method)(lease, ttl=bad), "ttl", cls)
    assert queue.count("leased") == 1


def test_wrong_types_are_type_errors_too() -> None:
    with pytest.raises(TypeError):
        leaseq.Item(None)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        leaseq.Item(b"x", id="")


def test_missing_arguments_are_python_type_errors(queue: leaseq.Queue) -> None:
    with pytest.raises(TypeError):
        queue.add()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        queue.lease(1.0, None, True)  # type: ignore[call-arg]


# ---- the lifecycle's arguments ----------------------------------------------------------


DURATION_BAD = [
    ("5", TYPE),
    (True, TYPE),
    (-1, VALUE),
    (float("nan"), VALUE),
    (float("inf"), VALUE),
    (timedelta(seconds=-1), VALUE),
]


@pytest.mark.parametrize("option", ["delay", "expires_after", "keep_result_for"])
@pytest.mark.parametrize(("bad", "cls"), DURATION_BAD)
def test_item_duration_options(option: str, bad: Any, cls: type[Exception]) -> None:
    check(lambda: leaseq.Item(b"x", **{option: bad}), option, cls)
    check(lambda: leaseq.Item.from_json(1, **{option: bad}), option, cls)


@pytest.mark.parametrize(
    ("bad", "cls"),
    [
        (1.5, TYPE),
        ("1", TYPE),
        (True, TYPE),
        (2**31, VALUE),
        (-(2**31) - 1, VALUE),
    ],
)
def test_item_priority_type(bad: Any, cls: type[Exception]) -> None:
    check(lambda: leaseq.Item(b"x", priority=bad), "priority", cls)


@pytest.mark.parametrize(
    ("bad", "cls"), [(1.0, TYPE), ("3", TYPE), (-1, VALUE), (2**32, VALUE)]
)
def test_item_max_attempts(bad: Any, cls: type[Exception]) -> None:
    check(lambda: leaseq.Item(b"x", max_attempts=bad), "max_attempts", cls)


@pytest.mark.parametrize("bad", [5, "fixed", {"fixed_ms": 5}])
def test_item_backoff_type(bad: Any) -> None:
    check(lambda: leaseq.Item(b"x", backoff=bad), "backoff", TYPE)


@pytest.mark.parametrize(
    ("bad", "cls"),
    [
        (1_700_000_000, TYPE),
        ("2030-01-01", TYPE),
        (datetime(2030, 1, 1).date(), TYPE),
        (datetime(2030, 1, 1), VALUE),  # naive: ambiguous
    ],
)
def test_item_run_at(bad: Any, cls: type[Exception]) -> None:
    check(lambda: leaseq.Item(b"x", run_at=bad), "run_at", cls)


@pytest.mark.parametrize(
    ("options", "argument"),
    [
        ({"priority": leaseq.MAX_PRIORITY + 1}, "priority"),
        ({"priority": -leaseq.MAX_PRIORITY - 1}, "priority"),
        (
            {"delay": 1, "run_at": datetime(2030, 1, 1, tzinfo=timezone.utc)},
            "run_at",
        ),
        ({"run_at": datetime(1969, 1, 1, tzinfo=timezone.utc)}, "run_at"),
        ({"keep_result_for": 0}, "keep_result_for"),
        ({"delay": leaseq.MAX_DURATION * 2}, "delay"),
        ({"delay": -1}, "delay"),
        ({"expires_after": leaseq.MAX_DURATION * 2}, "expires_after"),
        ({"expires_after": -0.5}, "expires_after"),
        ({"max_attempts": -1}, "max_attempts"),
    ],
)
def test_item_options_the_core_refuses_where_the_item_is_built(
    queue: leaseq.Queue, r: redis.Redis, options: dict[str, Any], argument: str
) -> None:
    # The core's bounds, checked by Item() itself: the error names the option, before any add.
    check(lambda: leaseq.Item(b"x", **options), argument, VALUE)
    check(lambda: leaseq.Item.from_json({"a": 1}, **options), argument, VALUE)
    assert list(r.scan_iter(f"{queue.prefix}*")) == []


@pytest.mark.parametrize(
    ("make", "argument", "cls"),
    [
        (lambda: leaseq.Backoff.fixed(-1), "delay", VALUE),
        (lambda: leaseq.Backoff.fixed("1"), "delay", TYPE),  # type: ignore[arg-type]
        (lambda: leaseq.Backoff.fixed(leaseq.MAX_DURATION * 2), "backoff", VALUE),
        (lambda: leaseq.Backoff.exponential(0, 10), "backoff", VALUE),
        (lambda: leaseq.Backoff.exponential(10, 1), "backoff", VALUE),
        (lambda: leaseq.Backoff.exponential(None, 1), "base", TYPE),  # type: ignore[arg-type]
        (lambda: leaseq.Backoff.exponential(1, None), "cap", TYPE),  # type: ignore[arg-type]
        (lambda: leaseq.Backoff.exponential(1, 2, jitter=1), "jitter", TYPE),  # type: ignore[arg-type]
    ],
)
def test_backoff(
    make: Callable[[], object], argument: str, cls: type[Exception]
) -> None:
    check(make, argument, cls)


@pytest.mark.parametrize(
    ("bad", "cls"),
    [(0, VALUE), (leaseq.MAX_PAGE + 1, VALUE), (-1, VALUE), ("2", TYPE), (None, TYPE)],
)
def test_lease_batch_n(queue: leaseq.Queue, bad: Any, cls: type[Exception]) -> None:
    queue.add(leaseq.Item(b"x"))
    check(lambda: queue.lease_batch(bad), "n", cls)
    assert queue.count("waiting") == 1


@pytest.mark.parametrize(
    ("kwargs", "argument", "cls"),
    [
        ({"result": 5}, "result", TYPE),
        ({"result": b"r", "keep_result_for": 0}, "keep_result_for", VALUE),
        ({"result": b"r", "keep_result_for": -1}, "keep_result_for", VALUE),
        ({"result": b"r", "keep_result_for": "1"}, "keep_result_for", TYPE),
        ({"keep_result_for": 10}, "keep_result_for", VALUE),  # needs a result
    ],
)
def test_complete_result(
    queue: leaseq.Queue,
    lease: leaseq.Lease,
    kwargs: dict[str, Any],
    argument: str,
    cls: type[Exception],
) -> None:
    check(lambda: queue.complete(lease, **kwargs), argument, cls)
    assert queue.count("leased") == 1 and queue.result(lease.id) is None


FailCall = Callable[[leaseq.Queue, leaseq.Lease], object]


@pytest.mark.parametrize(
    ("call", "argument", "cls"),
    [
        (lambda q, lease: q.fail(lease, None), "error", TYPE),
        (lambda q, lease: q.fail(lease, b"bytes"), "error", TYPE),
        (lambda q, lease: q.fail(lease, "e", 5), "error_type", TYPE),
        (lambda q, lease: q.fail(lease, "e", retry="never"), "retry", TYPE),
        (lambda q, lease: q.fail(lease, "e", retry=-1), "retry", VALUE),
        (
            lambda q, lease: q.fail(lease, "e", retry=timedelta(seconds=-1)),
            "retry",
            VALUE,
        ),
        (
            lambda q, lease: q.fail(lease, "e", retry=leaseq.MAX_DURATION * 2),
            "retry",
            VALUE,
        ),
    ],
)
def test_fail_arguments(
    queue: leaseq.Queue,
    lease: leaseq.Lease,
    call: FailCall,
    argument: str,
    cls: type[Exception],
) -> None:
    check(lambda: call(queue, lease), argument, cls)
    job = queue.get(lease.id)
    assert job is not None and job.state == "leased" and job.error is None


def test_fail_retry_none_is_the_default(
    queue: leaseq.Queue, lease: leaseq.Lease
) -> None:
    assert queue.fail(lease, "e", retry=None).retrying  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("bad", "cls"), [("1", TYPE), (-1, VALUE), (leaseq.MAX_DURATION * 2, VALUE)]
)
def test_release_delay(
    queue: leaseq.Queue, lease: leaseq.Lease, bad: Any, cls: type[Exception]
) -> None:
    check(lambda: queue.release(lease, delay=bad), "delay", cls)
    assert queue.count("leased") == 1


@pytest.mark.parametrize(
    ("bad", "cls"), [(None, TYPE), (5, TYPE), (b"x" * 70_000, VALUE)]
)
def test_progress_value(
    queue: leaseq.Queue, lease: leaseq.Lease, bad: Any, cls: type[Exception]
) -> None:
    check(lambda: queue.progress(lease, bad), "value", cls)
    job = queue.get(lease.id)
    assert job is not None and job.progress is None


@pytest.mark.parametrize("method", ["get", "result", "cancel"])
@pytest.mark.parametrize(
    ("bad", "cls"),
    [(None, TYPE), (5, TYPE), (bytearray(b"x"), TYPE), ("", VALUE), (b"", VALUE)],
)
def test_id_arguments(
    queue: leaseq.Queue, method: str, bad: Any, cls: type[Exception]
) -> None:
    check(lambda: getattr(queue, method)(bad), "id", cls)
    check(lambda: getattr(queue, method)(b"x" * (leaseq.MAX_ID_LEN + 1)), "id", VALUE)


@pytest.mark.parametrize("method", ["get", "result", "cancel"])
def test_ids_naming_items_may_be_any_bytes(queue: leaseq.Queue, method: str) -> None:
    # Another kind of client may have added such an id; asking about it is no error.
    for odd in ("a\nb", b"a\x00\xff"):
        assert getattr(queue, method)(odd) is None


def test_wait_result_arguments(queue: leaseq.Queue) -> None:
    check(lambda: queue.wait_result(None, 1), "id", TYPE)  # type: ignore[arg-type]
    check(lambda: queue.wait_result("", 1), "id", VALUE)
    check(lambda: queue.wait_result("x", None), "timeout", TYPE)  # type: ignore[arg-type]
    check(lambda: queue.wait_result("x", -1), "timeout", VALUE)
    check(lambda: queue.wait_result("x", 10**400), "timeout", VALUE)


@pytest.mark.parametrize("method", ["list", "count"])
@pytest.mark.parametrize(
    ("bad", "cls"), [(None, TYPE), (1, TYPE), ("nope", VALUE), ("finished", VALUE)]
)
def test_state_arguments(
    queue: leaseq.Queue, method: str, bad: Any, cls: type[Exception]
) -> None:
    check(lambda: getattr(queue, method)(bad), "state", cls)


@pytest.mark.parametrize(
    ("kwargs", "argument", "cls"),
    [
        ({"start": -1}, "start", VALUE),
        ({"start": "0"}, "start", TYPE),
        ({"count": 0}, "count", VALUE),
        ({"count": leaseq.MAX_PAGE + 1}, "count", VALUE),
        ({"count": 1.5}, "count", TYPE),
    ],
)
def test_list_page(
    queue: leaseq.Queue, kwargs: dict[str, Any], argument: str, cls: type[Exception]
) -> None:
    check(lambda: queue.list("waiting", **kwargs), argument, cls)


def test_dead_requeue_ids(queue: leaseq.Queue) -> None:
    check(lambda: queue.dead_requeue("abc"), "ids", TYPE)
    check(lambda: queue.dead_requeue([1]), "ids", TYPE)  # type: ignore[list-item]
    check(lambda: queue.dead_requeue([""]), "id", VALUE)
    check(lambda: queue.dead_requeue(["x"] * (leaseq.MAX_PAGE + 1)), "ids", VALUE)


@pytest.mark.parametrize("method", ["dead_requeue_oldest", "dead_purge"])
@pytest.mark.parametrize(("bad", "cls"), [(-1, VALUE), ("1", TYPE), (1.0, TYPE)])
def test_dead_n(
    queue: leaseq.Queue, method: str, bad: Any, cls: type[Exception]
) -> None:
    check(lambda: getattr(queue, method)(bad), "n", cls)


@pytest.mark.parametrize(
    ("kwargs", "argument", "cls"),
    [
        ({"max_attempts": -1}, "max_attempts", VALUE),
        ({"max_attempts": "3"}, "max_attempts", TYPE),
        ({"priority": leaseq.MAX_PRIORITY + 1}, "priority", VALUE),
        ({"backoff": 5}, "backoff", TYPE),
        ({"expires_after": -1}, "expires_after", VALUE),
        ({"keep_result_for": 0}, "keep_result_for", VALUE),
        ({"dead_max_count": -5}, "dead_max_count", VALUE),
        ({"dead_max_age": "1d"}, "dead_max_age", TYPE),
        ({"dead_max_age": leaseq.MAX_DURATION * 2}, "dead_max_age", VALUE),
        ({"stats": 1}, "stats", TYPE),
        ({"stats": "on"}, "stats", TYPE),
        # One refused field: nothing is written, not even the valid one.
        ({"max_attempts": 3, "priority": 5000}, "priority", VALUE),
    ],
)
def test_set_config(
    queue: leaseq.Queue, kwargs: dict[str, Any], argument: str, cls: type[Exception]
) -> None:
    check(lambda: queue.set_config(**kwargs), argument, cls)
    assert queue.config().max_attempts is None


def test_lease_from_parts(queue: leaseq.Queue) -> None:
    check(lambda: queue.lease_from_parts("", "t", "i", 1), "id", VALUE)
    check(lambda: queue.lease_from_parts("a", "", "i", 1), "token", VALUE)
    check(lambda: queue.lease_from_parts("a", "t", "", 1), "incarnation", VALUE)
    check(lambda: queue.lease_from_parts("a", "t", "i", -1), "attempt", VALUE)
    check(lambda: queue.lease_from_parts("a", "t", 5, 1), "incarnation", TYPE)  # type: ignore[arg-type]


def test_a_negative_count_says_so_not_the_types_range(queue: leaseq.Queue) -> None:
    # The range of an unsigned argument is the core's to state; -1 is refused as negative,
    # not as outside 0 to 2^64-1.
    with pytest.raises(leaseq.InvalidArgumentError) as info:
        queue.lease_batch(-1, timedelta(seconds=5))
    assert info.value.argument == "n"
    assert "must not be negative, got -1" in str(info.value)
    assert "18446744073709551615" not in str(info.value)
    # One too large for its type names the range.
    with pytest.raises(leaseq.InvalidArgumentError) as info:
        queue.lease_from_parts("a", "t", "i", 2**70)
    assert info.value.argument == "attempt"
    assert "must be from" in str(info.value)
