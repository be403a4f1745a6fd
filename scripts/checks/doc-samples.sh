#!/usr/bin/env bash
# SPEC §13.2: the docs' Swift samples compile. scripts/doc_samples.py extracts every ```swift
# block of docs/*.md and README.md; those whose APIs exist on Linux (all but the ones marked
# `<!-- sample: apple -->`: SwiftUI, UIKit, BackgroundDownloads) are type-checked here against
# the ModeldClient the main build made (`swiftc -typecheck` with .build's modules: seconds, no
# second build). Every sample, Apple ones included, is compiled by .github/workflows/apple.yml.
set -euo pipefail  # pipefail: swiftc's status survives the tee
cd "$(dirname "$0")/../.."
export PATH="/opt/swift/usr/bin:$PATH"
build=.build/debug
if [ ! -f "$build/Modules/ModeldClient.swiftmodule" ]; then
  nice -n 19 swift build --target ModeldClient
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
python3 scripts/doc_samples.py --linux "$out"
count=$(find "$out" -name 'sample_*.swift' | wc -l)
[ "$count" -ge 3 ] || { echo "doc-samples: only $count samples found"; exit 1; }
# The C modules ModeldClient's interface pulls in: ours, and those SwiftPM generated for packages.
maps=()
for map in Sources/*/module.modulemap Sources/*/include/module.modulemap "$build"/*.build/module.modulemap; do
  [ -f "$map" ] && maps+=(-Xcc "-fmodule-map-file=$map")
done
# Errors fail; so does any warning but an unused local (samples show a result without using it).
swiftc -typecheck -swift-version 6 -I "$build/Modules" "${maps[@]}" "$out"/*.swift 2>&1 | tee "$out/diagnostics"
if grep "warning:" "$out/diagnostics" | grep -v "was never used"; then
  echo "doc-samples: warnings above"
  exit 1
fi
echo "doc-samples: $count samples type-check on Linux against ModeldClient"
