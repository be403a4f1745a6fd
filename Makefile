# Two commands do everything on a fresh Debian machine: `make run` and `make test`.
# Both install missing system packages first (idempotent; apt-get only when something is absent).
SWIFT ?= swift
SYSTEM_PACKAGES := libcurl4-openssl-dev libssl-dev zlib1g-dev curl python3 nginx radosgw ceph-mon ceph-osd chromium
CONFIG ?= config/modeld.json

.PHONY: deps build release run test clean

deps:
	@bash scripts/install-deps.sh $(SYSTEM_PACKAGES)

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

run: release
	.build/release/modeld --config $(CONFIG)

test: deps
	$(SWIFT) build --build-tests
	bash scripts/check-all.sh --beside bash scripts/test-swift.sh

clean:
	rm -rf .build
