#!/usr/bin/env bash
# SPEC §13.1: nothing here compiles for Apple platforms, so the client's Apple build is kept by
# construction: the code of ModeldClient, modeld-client and every module they link on Apple
# (from `swift package dump-package`) must not import Synchronization (iOS 18+) nor name a
# Linux-only symbol outside `#if os(Linux)` / `#if canImport(Glibc)`. The scanner first proves on
# bad and good samples that it finds what it must (scripts/client_portability.py --self-test).
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/opt/swift/usr/bin:$PATH"
python3 scripts/client_portability.py --self-test
swift package dump-package >"${TMPDIR:-/tmp}/modeld-package.$$.json"
trap 'rm -f "${TMPDIR:-/tmp}/modeld-package.$$.json"' EXIT
python3 scripts/client_portability.py --package "${TMPDIR:-/tmp}/modeld-package.$$.json" ModeldClient modeld-client
