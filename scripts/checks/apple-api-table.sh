#!/usr/bin/env bash
# SPEC §13.2: nothing here compiles for Apple platforms, so the client's Apple build is kept by
# a table: docs/apple-apis.json lists each Apple API the client uses with its minimum OS per
# platform (and the Linux-only symbols no Apple build may name). scripts/apple_api_table.py
# checks the code of ModeldClient, modeld-client and every module they link on Apple (from
# `swift package dump-package`) against it and Package.swift's platforms, per platform's `#if`
# branches, and fails on an Apple-only API the table lacks. It first proves itself on bad and
# good samples (--self-test). The real compile is .github/workflows/apple.yml's.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/opt/swift/usr/bin:$PATH"
python3 scripts/apple_api_table.py --self-test
dump=$(mktemp -d)
trap 'rm -rf "$dump"' EXIT
# Its own scratch path: reading the manifest must not wait for a build holding .build's lock.
swift package --scratch-path "$dump/scratch" dump-package >"$dump/package.json"
python3 scripts/apple_api_table.py --package "$dump/package.json" ModeldClient modeld-client
