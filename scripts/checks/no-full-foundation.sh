#!/usr/bin/env bash
# SPEC §1: the server needs only FoundationEssentials (no ICU). The debug build links Swift's
# libraries dynamically, so ldd shows at once whether full Foundation or ICU crept in.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=$(swift build --show-bin-path)/modeld
[ -x "$bin" ] || { echo "no-full-foundation: $bin missing (run swift build first)"; exit 1; }
bad=$(ldd "$bin" | grep -E 'libFoundation\.so|libFoundationInternationalization|lib_FoundationICU|libicu' || true)
if [ -n "$bad" ]; then
  echo "no-full-foundation: modeld links more than FoundationEssentials:"; echo "$bad"; exit 1
fi
echo "no-full-foundation: modeld links FoundationEssentials only"
