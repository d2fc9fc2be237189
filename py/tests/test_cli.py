"""The `leaseq` command that the wheel installs: a console script into the native module."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import leaseq

# pip puts console scripts next to the interpreter of the environment it installs into.
LEASEQ = Path(sys.executable).parent / ("leaseq.exe" if os.name == "nt" else "leaseq")


def run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("LEASEQ_URL", None)
    env.pop("REDIS_URL", None)
    return subprocess.run(
        [str(LEASEQ), *args],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )


def test_the_console_script_is_installed_and_prints_help() -> None:
    assert LEASEQ.exists(), f"pip did not install the console script {LEASEQ}"
    done = run("--help")
    assert done.returncode == 0, done.stderr
    assert "Usage: leaseq" in done.stdout
    assert "stats" in done.stdout and "dashboard" in done.stdout


def test_bad_usage_exits_2() -> None:
    done = run("stats", "--no-such-option")
    assert done.returncode == 2
    assert "--no-such-option" in done.stderr


def test_stats_json_on_a_fresh_queue(
    client: leaseq.Client, url: str, prefix: str
) -> None:
    # No key of it yet: the figures, then exit 6 and a message (a typo is not an empty queue).
    done = run("stats", "--url", url, "-q", prefix, "--json")
    assert done.returncode == 6, done.stderr
    assert f"no queue `{prefix}`" in done.stderr
    stats = json.loads(done.stdout)
    assert stats["queue"] == prefix
    assert (stats["waiting"], stats["leased"], stats["dead"]) == (0, 0, 0)
    # A queue that exists but is empty: the same zeros, exit 0.
    client.queue(prefix).set_config(max_attempts=3)
    done = run("stats", "--url", url, "-q", prefix, "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["waiting"] == 0


def test_it_sees_what_the_library_added(
    client: leaseq.Client, url: str, prefix: str
) -> None:
    client.queue(prefix).add(leaseq.Item(b"x", id="one"))
    done = run("get", "--url", url, "-q", prefix, "one", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["state"] == "waiting"
    missing = run("get", "--url", url, "-q", prefix, "nope")
    assert missing.returncode == 1


def test_sigint_stops_clean_gracefully(url: str, prefix: str) -> None:
    env = {**os.environ, "NO_COLOR": "1"}
    daemon = subprocess.Popen(
        [str(LEASEQ), "clean", "--url", url, "-q", prefix, "--every", "100ms"],
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert daemon.stderr is not None
    seen = ""
    try:
        while "cleaned" not in seen:
            line = daemon.stderr.readline()
            assert line, seen
            seen += line
        daemon.send_signal(signal.SIGINT)
        rest = daemon.stderr.read()
        assert daemon.wait(timeout=30) == 0, rest
        assert "cleaner stopped" in rest and "SIGINT" in rest, rest
        assert "KeyboardInterrupt" not in rest, rest
    finally:
        if daemon.poll() is None:
            daemon.kill()
            daemon.wait()
        daemon.stderr.close()
