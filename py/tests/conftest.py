"""Fixtures: throwaway redis-servers from the shared launcher (never a server on 6379)."""

from __future__ import annotations

import json
import os
import subprocess
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import leaseq
import pytest
import redis

REPO = Path(__file__).resolve().parents[2]


def harness_binary(env_var: str, name: str) -> str:
    """A binary of the harness crate: ``$env_var`` if set, else ``target/debug/<name>``."""
    path = os.environ.get(env_var) or str(REPO / "target" / "debug" / name)
    if not os.access(path, os.X_OK):
        pytest.fail(
            f"{name} ({path}) is missing: build it with "
            f"`cargo build -p leaseq-harness --bin {name}` (py/test.sh does)"
        )
    return path


def launcher() -> str:
    return harness_binary("LEASEQ_TEST_REDIS", "leaseq-test-redis")


@dataclass
class Server:
    url: str
    urls: list[str]
    process: subprocess.Popen[str]

    def stop(self) -> None:
        """Stops the server(s): the launcher does so when its stdin closes."""
        if self.process.stdin is not None and not self.process.stdin.closed:
            self.process.stdin.close()
        self.process.wait(timeout=60)
        if self.process.stdout is not None:
            self.process.stdout.close()


def start_server(*args: str) -> Server:
    process = subprocess.Popen(
        [launcher(), *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    if not line:
        process.wait(timeout=60)
        process.stdout.close()
        pytest.fail(
            f"redis launcher exited with {process.returncode} before printing its URL"
        )
    info = json.loads(line)
    return Server(url=info["url"], urls=info["urls"], process=process)


def server_says(server: Server, command: str) -> None:
    """Tells the launcher `command` (``down``: kill Redis and leave it down; ``up``: start an
    empty one on its port) and waits for its answer."""
    assert server.process.stdin is not None and server.process.stdout is not None
    server.process.stdin.write(command + "\n")
    server.process.stdin.flush()
    assert server.process.stdout.readline().strip() == command


@pytest.fixture(scope="session")
def server() -> Iterator[Server]:
    s = start_server()
    yield s
    s.stop()


@pytest.fixture()
def fresh_server() -> Iterator[Server]:
    """A server of its own, for tests that change its configuration or stop it."""
    s = start_server()
    yield s
    s.stop()


@pytest.fixture(scope="session")
def cluster() -> Iterator[Server]:
    s = start_server("--cluster")
    yield s
    s.stop()


@pytest.fixture()
def url(server: Server) -> str:
    return server.url


@pytest.fixture()
def client(url: str) -> Iterator[leaseq.Client]:
    with leaseq.Client(url) as c:
        yield c


def blocked_clients(r: redis.Redis) -> int:
    """How many connections wait in a blocking command (leaseq's waits are BLMOVE)."""
    return sum(1 for c in r.client_list() if "b" in c.get("flags", ""))


def wait_until_blocked(r: redis.Redis, more_than: int) -> None:
    """Returns once more than `more_than` connections are blocked: a lease is waiting."""
    while blocked_clients(r) <= more_than:
        time.sleep(0.01)


def new_prefix() -> str:
    """A prefix no other test uses, with a hash tag (valid on Cluster too)."""
    return "{test-" + uuid.uuid4().hex[:12] + "}"


@pytest.fixture()
def prefix() -> str:
    return new_prefix()


@pytest.fixture()
def queue(client: leaseq.Client, prefix: str) -> leaseq.Queue:
    return client.queue(prefix)


@pytest.fixture()
def r(url: str) -> Iterator[redis.Redis]:
    """redis-py, to look at and play the other side of the protocol."""
    conn = redis.Redis.from_url(url)
    yield conn
    conn.close()
