# Two commands do everything on a fresh Debian machine: `make run` and `make test`.
# Both install missing system packages first (idempotent; apt-get only when something is absent):
# `make run` only what building and serving need, `make test` also what the tests and checks
# use (the peers nginx and Ceph RGW, Chromium for the console, python3 for the scripts).
SWIFT ?= swift
RUN_PACKAGES := libcurl4-openssl-dev libssl-dev zlib1g-dev curl
TEST_PACKAGES := python3 nginx radosgw ceph-mon ceph-osd chromium
CONFIG ?= config/modeld.json

.PHONY: deps run-deps build release run test clean

# Everything: what running needs and what the tests need.
deps:
	@bash scripts/install-deps.sh $(RUN_PACKAGES) $(TEST_PACKAGES)

run-deps:
	@bash scripts/install-deps.sh $(RUN_PACKAGES)

build: run-deps
	$(SWIFT) build

release: run-deps
	$(SWIFT) build -c release

run: release
	.build/release/modeld --config $(CONFIG)

test: deps
	bash scripts/check-all.sh --beside bash -c '$(SWIFT) build --build-tests && bash scripts/test-swift.sh'

clean:
	rm -rf .build
