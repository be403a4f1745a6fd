#!/usr/bin/env bash
# The operator console (SPEC §15) in a real browser: Tests/Browser/test_console.py drives Debian's
# Chromium (`chromium`, installed by `make deps`) with Playwright for Python (pinned below,
# installed with pip when missing; its own browser download is never used: the test launches
# /usr/bin/chromium through executable_path) against the real modeld on 127.0.0.1:<ephemeral>.
#
# Expects a built modeld and modeld-client (the newer of .build/debug and .build/release); skips
# (exit 0, with a message) when they are not built. CONSOLE_SCREENSHOTS=DIR keeps the views'
# screenshots there (docs/ to refresh docs/console-*.png); otherwise they go to a temp dir.
# CONSOLE_ONLY=REGEX runs only the checks whose function name matches (e.g. 'guard_panel').
set -euo pipefail
cd "$(dirname "$0")/../.."

PLAYWRIGHT_VERSION=1.65.2
PYTHON=${PYTHON:-python3}
TIMEOUT_SECONDS=${CONSOLE_TIMEOUT_SECONDS:-420}

BIN=
for dir in .build/debug .build/release; do
  [ -x "$dir/modeld" ] && [ -x "$dir/modeld-client" ] || continue
  if [ -z "$BIN" ] || [ "$dir/modeld" -nt "$BIN/modeld" ]; then BIN=$dir; fi
done
if [ -z "$BIN" ]; then
  echo "console: SKIPPED — modeld/modeld-client not built (run 'swift build' first)"
  exit 0
fi
if ! command -v chromium >/dev/null; then
  echo "console: chromium is missing (make deps installs it)" >&2
  exit 1
fi

installed=$("$PYTHON" -c 'import importlib.metadata as m; print(m.version("playwright"))' 2>/dev/null || true)
if [ "$installed" != "$PLAYWRIGHT_VERSION" ]; then
  echo "console: installing playwright==$PLAYWRIGHT_VERSION (pip; found: ${installed:-none})"
  "$PYTHON" -m pip install --quiet --disable-pip-version-check "playwright==$PLAYWRIGHT_VERSION" >&2
fi

SHOTS=
[ -n "${CONSOLE_SCREENSHOTS:-}" ] && SHOTS=$(realpath -m "$CONSOLE_SCREENSHOTS")
cd Tests/Browser
exec timeout --kill-after=10 "$TIMEOUT_SECONDS" "$PYTHON" test_console.py "../../$BIN/modeld" "../../$BIN/modeld-client" ${SHOTS:+"$SHOTS"}
