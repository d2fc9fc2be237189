"""The error registry (spec/errors.md), walked row by row, and real errors of each kind."""

from __future__ import annotations

import builtins
import re
import threading

import leaseq
import leaseq.aio
import leaseq.errors
import pytest
import redis
from conftest import REPO, Server, blocked_clients, new_prefix, wait_until_blocked
from leaseq import _native


def registry() -> list[dict[str, str]]:
    """The rows of the registry table, keyed by column header."""
    lines = (REPO / "spec" / "errors.md").read_text().splitlines()
    table = [line for line in lines if line.startswith("|")]
    header = [cell.strip() for cell in table[0].strip("|").split("|")]
    rows = []
    for line in table[2:]:
        cells = [cell.strip().strip("`") for cell in line.strip("|").split("|")]
        rows.append(dict(zip(header, cells)))
    return rows


PYTHON_ROWS = [row for row in registry() if row["Python class"] != "-"]


def test_registry_is_read() -> None:
    codes = {row["code"] for row in PYTHON_ROWS}
    assert {"CONNECTION", "INVALID_ARGUMENT", "CLOSED"} <= codes


@pytest.mark.parametrize("row", PYTHON_ROWS, ids=lambda row: row["code"])
def test_registry_row(row: dict[str, str]) -> None:
    match = re.fullmatch(r"(\w+)\((.*)\)", row["Python class"])
    assert match, row["Python class"]
    name, bases = match.group(1), [b.strip() for b in match.group(2).split(",")]
    cls = getattr(leaseq, name)
    assert cls is getattr(leaseq.aio, name) is getattr(leaseq.errors, name)
    for base in bases:
        expected = (
            leaseq.LeaseqError if base == "LeaseqError" else getattr(builtins, base)
        )
        assert issubclass(cls, expected), (name, base)
    assert issubclass(cls, leaseq.LeaseqError)
    assert cls.code == row["code"]
    assert cls.retryable == (row["retryable"] == "yes")
    assert cls.__doc__
    # The Rust side maps the core's code to this very class.
    assert _native._error_class(row["code"]) is cls


def test_every_exported_error_is_in_the_registry() -> None:
    registered = {re.match(r"\w+", row["Python class"]).group(0) for row in PYTHON_ROWS}  # type: ignore[union-attr]
    exported = {name for name in leaseq.errors.__all__} - {
        "LeaseqError",
        "InvalidArgumentTypeError",
    }
    assert exported == registered
    assert issubclass(leaseq.InvalidArgumentTypeError, leaseq.InvalidArgumentError)
    assert issubclass(leaseq.InvalidArgumentTypeError, TypeError)


def test_unknown_code_is_refused() -> None:
    with pytest.raises(LookupError):
        _native._error_class("NO_SUCH_CODE")


# Real errors, one per code that a test can provoke.


def test_connection_error(fresh_server: Server) -> None:
    url = fresh_server.url
    fresh_server.stop()
    with pytest.raises(leaseq.LeaseqConnectionError) as info:
        leaseq.Client(url)
    assert isinstance(info.value, ConnectionError)
    assert info.value.code == "CONNECTION" and info.value.retryable


def test_connection_lost_after_connect(fresh_server: Server) -> None:
    client = leaseq.Client(fresh_server.url)
    q = client.queue(new_prefix())
    assert q.queue_len() == 0
    fresh_server.stop()
    with pytest.raises(leaseq.LeaseqConnectionError):
        q.queue_len()


def test_out_of_memory_error(fresh_server: Server) -> None:
    with redis.Redis.from_url(fresh_server.url) as r:
        r.config_set("maxmemory", "1")
    q = leaseq.Client(fresh_server.url).queue(new_prefix())
    with pytest.raises(leaseq.OutOfMemoryError) as info:
        q.add(leaseq.Item(b"x"))
    assert info.value.code == "OUT_OF_MEMORY" and not info.value.retryable
    assert "OOM" in str(info.value)


def test_wrong_type_error(queue: leaseq.Queue, r: redis.Redis) -> None:
    r.set(f"{queue.prefix}:queue", "not a list")
    with pytest.raises(leaseq.WrongTypeError) as info:
        queue.add(leaseq.Item(b"x"))
    assert info.value.code == "WRONG_TYPE"
    assert queue.prefix in str(info.value)
    with pytest.raises(leaseq.WrongTypeError):
        queue.queue_len()


def test_closed_error(url: str) -> None:
    client = leaseq.Client(url)
    q = client.queue(new_prefix())
    client.close()
    for call in (
        lambda: q.add(leaseq.Item(b"x")),
        q.queue_len,
        lambda: q.lease(timeout=5),
    ):
        with pytest.raises(leaseq.ClosedError) as info:
            call()
        assert info.value.code == "CLOSED"


def test_close_wakes_a_waiting_lease(url: str, r: redis.Redis) -> None:
    client = leaseq.Client(url)
    q = client.queue(new_prefix())
    errors: list[BaseException] = []
    baseline = blocked_clients(r)

    def wait() -> None:
        try:
            q.lease(timeout=leaseq.FOREVER)
        except BaseException as e:
            errors.append(e)

    t = threading.Thread(target=wait)
    t.start()
    wait_until_blocked(r, baseline)
    client.close()
    t.join(timeout=30)
    assert not t.is_alive()
    assert len(errors) == 1 and isinstance(errors[0], leaseq.ClosedError)


def test_json_errors(queue: leaseq.Queue) -> None:
    for call in (
        lambda: leaseq.Item(b"\xff not json").json(),
        lambda: leaseq.Item.from_json(object()),
        lambda: leaseq.Item.from_json(float("nan")),
    ):
        with pytest.raises(leaseq.JsonError) as info:
            call()
        assert isinstance(info.value, ValueError) and info.value.code == "JSON"
        assert info.value.__cause__ is not None
    queue.add(leaseq.Item(b"{broken"))
    lease = queue.lease(block=False)
    assert lease is not None
    with pytest.raises(leaseq.JsonError):
        lease.json()
