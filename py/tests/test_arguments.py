"""Bad input for each argument: the right exception class, naming the argument, nothing sent."""

from __future__ import annotations

from typing import Any, Callable

import leaseq
import pytest
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
    (None, TYPE),
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
]


@pytest.mark.parametrize(("bad", "cls"), TTL_BAD)
def test_lease_ttl(queue: leaseq.Queue, bad: Any, cls: type[Exception]) -> None:
    queue.add(leaseq.Item(b"x"))
    check(lambda: queue.lease(ttl=bad, block=False), "ttl", cls)
    check(lambda: queue.lease(bad), "ttl", cls)
    assert (queue.queue_len(), queue.processing_len()) == (1, 0)


@pytest.mark.parametrize("bad", [None, 1, 0, "yes"])
def test_lease_block(queue: leaseq.Queue, bad: Any) -> None:
    check(lambda: queue.lease(block=bad), "block", TYPE)


@pytest.mark.parametrize(
    ("bad", "cls"),
    [
        ("1", TYPE),
        (True, TYPE),
        (-1, VALUE),
        (float("nan"), VALUE),
        (float("inf"), VALUE),
    ],
)
def test_lease_timeout(queue: leaseq.Queue, bad: Any, cls: type[Exception]) -> None:
    check(lambda: queue.lease(timeout=bad), "timeout", cls)


@pytest.fixture()
def lease(queue: leaseq.Queue) -> leaseq.Lease:
    queue.add(leaseq.Item(b"x"))
    got = queue.lease(block=False)
    assert got is not None
    return got


@pytest.mark.parametrize("method", ["complete", "complete_and_lease", "renew"])
@pytest.mark.parametrize("bad", [None, "id", leaseq.Item(b"x")])
def test_lease_argument(
    queue: leaseq.Queue, lease: leaseq.Lease, method: str, bad: Any
) -> None:
    check(lambda: getattr(queue, method)(bad), "lease", TYPE)
    assert queue.processing_len() == 1


@pytest.mark.parametrize("method", ["complete_and_lease", "renew"])
@pytest.mark.parametrize(("bad", "cls"), TTL_BAD)
def test_renew_ttl(
    queue: leaseq.Queue,
    lease: leaseq.Lease,
    method: str,
    bad: Any,
    cls: type[Exception],
) -> None:
    check(lambda: getattr(queue, method)(lease, ttl=bad), "ttl", cls)
    assert queue.processing_len() == 1


def test_wrong_types_are_type_errors_too() -> None:
    with pytest.raises(TypeError):
        leaseq.Item(None)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        leaseq.Item(b"x", id="")


def test_missing_arguments_are_python_type_errors(queue: leaseq.Queue) -> None:
    with pytest.raises(TypeError):
        queue.add()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        queue.lease(1.0, True, None, 5)  # type: ignore[call-arg]
