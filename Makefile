# The entry points a user needs. `make test` is what CI runs.
SHELL := /bin/bash
CARGO ?= cargo
export LEASEQ_TEST_REDIS := $(CURDIR)/target/debug/leaseq-test-redis

.PHONY: deps demo test test-rust test-c test-py test-node fmt lint harness bench

deps:
	./scripts/ensure-deps.sh

harness: deps
	$(CARGO) build -p leaseq-harness --bin leaseq-test-redis

demo: deps
	$(CARGO) run -q -p leaseq --example demo

test: test-rust test-c test-py test-node

test-rust: harness
	$(CARGO) test --workspace

test-c: harness
	@if [ -x ffi-c/test.sh ]; then ffi-c/test.sh; else echo "ffi-c: not present yet"; fi

test-py: harness
	@if [ -x py/test.sh ]; then py/test.sh; else echo "py: not present yet"; fi

test-node: harness
	@if [ -x node/test.sh ]; then node/test.sh; else echo "node: not present yet"; fi

fmt:
	$(CARGO) fmt --all

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings

# Speed against the peers on a throwaway redis-server (about 10 minutes); not part of `make test`.
bench:
	bench/run.sh
