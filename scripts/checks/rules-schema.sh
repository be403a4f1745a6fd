#!/usr/bin/env bash
# Validates the rules snapshots of the shared selection vectors (Tests/Fixtures/selection-cases.json,
# which ModelCatalogTests proves equal to what modeld writes) against docs/rules.schema.json, and
# checks that the fixture is what scripts/selection-vectors.py generates (no hand edits).
set -euo pipefail
cd "$(dirname "$0")/../.."
PYTHON=${PYTHON:-python3}
if ! "$PYTHON" -c 'import jsonschema' >/dev/null 2>&1; then
  echo "rules-schema: installing jsonschema (pip)"
  "$PYTHON" -m pip install --quiet --disable-pip-version-check jsonschema >&2
fi
"$PYTHON" - <<'PY'
import json, sys
import jsonschema
schema = json.load(open("docs/rules.schema.json"))
jsonschema.Draft202012Validator.check_schema(schema)
fixture = json.load(open("Tests/Fixtures/selection-cases.json"))
validator = jsonschema.Draft202012Validator(schema)
for channel, doc in fixture["rules"].items():
    errors = sorted(validator.iter_errors(doc), key=str)
    if errors:
        print(f"rules-schema: {channel}: {errors[0].message}", file=sys.stderr)
        sys.exit(1)
# A snapshot with a field the schema does not know is refused (the schema is closed).
bad = dict(fixture["rules"]["stable"], releases=[dict(fixture["rules"]["stable"]["releases"][0], state="paused")])
if validator.is_valid(bad):
    print("rules-schema: the schema accepted an operator field", file=sys.stderr)
    sys.exit(1)
print(f"rules-schema: {len(fixture['rules'])} snapshots valid")
PY
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r scripts "$tmp/" && mkdir -p "$tmp/Tests/Fixtures"
"$PYTHON" "$tmp/scripts/selection-vectors.py" >/dev/null
cmp -s "$tmp/Tests/Fixtures/selection-cases.json" Tests/Fixtures/selection-cases.json \
  || { echo "rules-schema: Tests/Fixtures/selection-cases.json differs from scripts/selection-vectors.py's output" >&2; exit 1; }
echo "rules-schema: selection vectors are the generator's"
