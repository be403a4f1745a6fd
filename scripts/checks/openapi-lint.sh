#!/usr/bin/env bash
# Validates docs/openapi.yaml: OpenAPI 3.1 structure (openapi-spec-validator), then every
# example in it against the schema it illustrates (jsonschema, draft 2020-12 as OpenAPI 3.1).
# Installs openapi-spec-validator with pip (quietly) only when it is missing.
set -euo pipefail
cd "$(dirname "$0")/../.."
SPEC_FILE=docs/openapi.yaml
PYTHON=${PYTHON:-python3}

if ! command -v "$PYTHON" >/dev/null 2>&1; then
  echo "openapi-lint: $PYTHON not found" >&2
  exit 1
fi
if ! "$PYTHON" -c 'import openapi_spec_validator, yaml, jsonschema' >/dev/null 2>&1; then
  echo "openapi-lint: installing openapi-spec-validator (pip)"
  "$PYTHON" -m pip install --quiet --disable-pip-version-check openapi-spec-validator pyyaml >&2
fi

"$PYTHON" - "$SPEC_FILE" <<'PY'
import sys
import yaml
from openapi_spec_validator import validate
from openapi_spec_validator.readers import read_from_filename
import jsonschema

path = sys.argv[1]
spec, _ = read_from_filename(path)

# 1. Structure and $refs (raises with a precise location on error).
try:
    validate(spec)
except Exception as e:  # OpenAPIValidationError and friends
    msg = getattr(e, "message", None) or str(e)
    where = getattr(e, "json_path", None) or "/".join(map(str, getattr(e, "path", []) or []))
    print(f"openapi-lint: {path}: INVALID at {where or '?'}: {msg[:500]}", file=sys.stderr)
    sys.exit(1)
print(f"openapi-lint: {path}: valid OpenAPI {spec.get('openapi')}")

# 2. Examples validate against their schemas (media types and parameters).

def deref(node):
    while isinstance(node, dict) and "$ref" in node:
        ref = node["$ref"]
        assert ref.startswith("#/"), ref
        node = spec
        for part in ref[2:].split("/"):
            node = node[part.replace("~1", "/").replace("~0", "~")]
    return node

errors = []
checked = 0

def check(schema, value, where):
    global checked
    checked += 1
    # "#/components/..." refs resolve against the document root: carry the components along.
    rooted = dict(schema) if isinstance(schema, dict) else {"allOf": [schema]}
    rooted["components"] = spec.get("components", {})
    validator = jsonschema.Draft202012Validator(
        rooted, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    for err in validator.iter_errors(value):
        errors.append(f"{where}: {err.message} at {list(err.absolute_path)}")

def check_media(media, where):
    schema = media.get("schema")
    if schema is None:
        return
    if "example" in media:
        check(schema, media["example"], where + "/example")
    for name, ex in (media.get("examples") or {}).items():
        ex = deref(ex)
        if "value" in ex:
            check(schema, ex["value"], f"{where}/examples/{name}")

def check_param(param, where):
    param = deref(param)
    if "schema" in param and "example" in param:
        check(param["schema"], param["example"], f"{where}/{param['name']}")

def walk_responses(responses, where):
    for status, resp in (responses or {}).items():
        resp = deref(resp)
        for mt, media in (resp.get("content") or {}).items():
            check_media(media, f"{where}/{status}/{mt}")
        for hname, h in (resp.get("headers") or {}).items():
            h = deref(h)
            if "schema" in h and "example" in h:
                check(h["schema"], h["example"], f"{where}/{status}/headers/{hname}")

for p, item in spec.get("paths", {}).items():
    for param in item.get("parameters", []):
        check_param(param, p)
    for method, op in item.items():
        if method not in ("get", "put", "post", "delete", "patch", "head", "options", "trace"):
            continue
        where = f"{method.upper()} {p}"
        for param in op.get("parameters", []):
            check_param(param, where)
        body = deref(op.get("requestBody", {}))
        for mt, media in (body.get("content") or {}).items():
            check_media(media, f"{where}/requestBody/{mt}")
        walk_responses(op.get("responses"), where)
walk_responses(spec.get("components", {}).get("responses"), "components/responses")

if errors:
    print("openapi-lint: examples that do not match their schema:", file=sys.stderr)
    for e in errors:
        print("  " + e, file=sys.stderr)
    sys.exit(1)
print(f"openapi-lint: {checked} examples match their schemas")
PY
