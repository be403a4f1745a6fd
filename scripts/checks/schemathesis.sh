#!/usr/bin/env bash
# Property-based conformance of the live server against docs/openapi.yaml: every route, the admin
# API included (with a bearer token), every schemathesis check (like `--checks all`, but set in
# the .toml: on the command line it would override the per-operation settings) and every phase
# (examples, coverage, fuzzing, stateful). Where a check is switched off or widened for one
# operation, scripts/checks/schemathesis.toml says why next to it; scripts/checks/
# schemathesis_hooks.py drops the rejections of schema-valid requests that follow rules OpenAPI
# cannot state — between two values, or the grammar of a variant's `requires` (re-checking each
# such request).
#
# Expects a built modeld (`swift build`, or `swift build -c release`): the newer of
# .build/debug/modeld and .build/release/modeld; builds nothing. When neither exists the check is
# skipped (exit 0) with a message. Starts modeld on 127.0.0.1:0 with a throwaway copy of models/,
# an empty data dir, a random admin token and (when modelctl is built next to modeld) a fresh
# signing key, waits for /healthz, runs schemathesis (pinned
# version, installed with pip when missing), stops the server and exits non-zero when
# schemathesis found any failure, did not finish in time, or the server died.
#
# schemathesis also prints two warnings, both expected: "schema validation mismatch" for
# POST /admin/models (most generated publishes break one of the two rules between values above,
# so they are rightly refused) and "missing deserializer" for multipart/byteranges 206 bodies
# (their schema constrains nothing).
#
# Tunables (environment): ST_MAX_EXAMPLES (examples per operation and phase; 100 in `make test`:
# about 3,900 cases in 110 s on 2 busy cores, where 200 gave 5,600 in 160 s — every operation,
# phase and check either way; deeper runs by hand, docs/decisions/testing.md), ST_MAX_SECONDS (hard cap on the run, 480), ST_WORKERS
# (1: with 2, CPython 3.11 raised "AST constructor recursion depth mismatch" inside hypothesis when two workers parsed source at once), ST_SEED (random; the run prints it), PYTHON (python3).
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/built-binary.sh

SCHEMATHESIS_VERSION=4.32.5
SCHEMA=docs/openapi.yaml
SETTINGS=scripts/checks/schemathesis.toml
HOOKS=scripts/checks/schemathesis_hooks.py
PYTHON=${PYTHON:-python3}
MAX_EXAMPLES=${ST_MAX_EXAMPLES:-100}
MAX_SECONDS=${ST_MAX_SECONDS:-480}
WORKERS=${ST_WORKERS:-1}
STARTUP_SECONDS=15   # bound on "process started" → "/healthz is 200"
STOP_SECONDS=15      # bound on SIGTERM → exit (drain_seconds defaults to 10)

# The start-up line (SPEC §8) names the address; ":0" (the requested port) never matches.
PORT_REGEX='127\.0\.0\.1:([1-9][0-9]{0,4})'

MODELD=$(newest_built modeld)
if [ -z "$MODELD" ]; then
  echo "schemathesis: SKIPPED — modeld not built (run 'swift build' first)"
  exit 0
fi

installed=$("$PYTHON" -c 'import schemathesis; print(schemathesis.__version__)' 2>/dev/null || true)
if [ "$installed" != "$SCHEMATHESIS_VERSION" ]; then
  echo "schemathesis: installing schemathesis==$SCHEMATHESIS_VERSION (pip; found: ${installed:-none})"
  "$PYTHON" -m pip install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION" >&2
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/modeld-schemathesis.XXXXXX")
SERVER_PID=
stop_server() {
  [ -n "$SERVER_PID" ] || return 0
  if kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    for _ in $(seq 1 $((STOP_SECONDS * 10))); do
      kill -0 "$SERVER_PID" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$SERVER_PID" 2>/dev/null; then
      echo "schemathesis: modeld did not exit ${STOP_SECONDS}s after SIGTERM; killing it" >&2
      kill -KILL "$SERVER_PID" 2>/dev/null || true
    fi
  fi
  wait "$SERVER_PID" 2>/dev/null || true
  SERVER_PID=
}
cleanup() { stop_server; rm -rf "$TMP"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir -p "$TMP/models" "$TMP/data"
if [ -d models ]; then
  cp -R models/. "$TMP/models/"
  rm -rf "$TMP/models/.tmp" "$TMP/models/.lock"
fi

# A throwaway token: the admin API is tested like any other, through its real authentication.
TOKEN=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
# A throwaway signing key when modelctl is built, so the signed metadata (SPEC §12) is served
# and checked too; without one those routes only answer 404.
signing_env=()
MODELCTL=$(dirname "$MODELD")/modelctl
if [ -x "$MODELCTL" ] && "$MODELCTL" keys generate --name st --out "$TMP/keys" >/dev/null; then
  signing_env=(MODELD_SIGNING_KEYS="$TMP/keys/st.key")
fi
config_args=()
[ -f config/modeld.json ] && config_args=(--config config/modeld.json)
LOG=$TMP/modeld.log
: >"$LOG"   # exists before the child opens it (the redirection below happens after the fork)
env MODELD_ADMIN_TOKEN="$TOKEN" "${signing_env[@]}" "$MODELD" "${config_args[@]}" --listen 127.0.0.1:0 \
  --models-dir "$TMP/models" --data-dir "$TMP/data" \
  --public-base-url http://127.0.0.1 >"$LOG" 2>&1 &
SERVER_PID=$!

fail_start() {
  echo "schemathesis: $1; modeld output:" >&2
  sed 's/^/  | /' "$LOG" >&2
  exit 1
}

PORT=
deadline=$((SECONDS + STARTUP_SECONDS))
while [ -z "$PORT" ]; do
  kill -0 "$SERVER_PID" 2>/dev/null || fail_start "modeld exited during start-up"
  while IFS= read -r line; do
    if [[ $line =~ $PORT_REGEX ]]; then PORT=${BASH_REMATCH[1]}; break; fi
  done <"$LOG"
  [ -n "$PORT" ] && break
  [ "$SECONDS" -lt "$deadline" ] || fail_start "no listening port logged within ${STARTUP_SECONDS}s"
  sleep 0.2
done
BASE=http://127.0.0.1:$PORT
echo "schemathesis: $MODELD (pid $SERVER_PID) on $BASE"

healthy=0
while [ "$SECONDS" -lt "$deadline" ]; do
  kill -0 "$SERVER_PID" 2>/dev/null || fail_start "modeld exited during start-up"
  code=$(curl -s -o /dev/null -m 2 -w '%{http_code}' "$BASE/healthz" 2>/dev/null || true)
  if [ "$code" = 200 ]; then healthy=1; break; fi
  sleep 0.2
done
[ "$healthy" = 1 ] || fail_start "GET /healthz was not 200 within ${STARTUP_SECONDS}s (last: ${code:-none})"

seed_args=()
[ -n "${ST_SEED:-}" ] && seed_args=(--seed "$ST_SEED")
# SCHEMATHESIS_PHASES narrows the phases when reproducing one by hand; make test runs them all.
cmd=("$PYTHON" -m schemathesis.cli --config-file "$SETTINGS" run "$SCHEMA"
  --url "$BASE"
  --header "Authorization: Bearer $TOKEN"
  --phases "${SCHEMATHESIS_PHASES:-examples,coverage,fuzzing,stateful}"
  --max-examples "$MAX_EXAMPLES"
  --workers "$WORKERS"
  --request-timeout 10
  --generation-database none
  --suppress-health-check all
  --no-color
  "${seed_args[@]}")
echo "schemathesis: ${cmd[*]}" | sed "s/$TOKEN/<token>/"
rc=0
SCHEMATHESIS_HOOKS=$HOOKS timeout --kill-after=10 "$MAX_SECONDS" "${cmd[@]}" || rc=$?
[ "$rc" -eq 124 ] && echo "schemathesis: run exceeded ${MAX_SECONDS}s and was stopped" >&2

if ! kill -0 "$SERVER_PID" 2>/dev/null; then
  echo "schemathesis: modeld died during the run" >&2
  sed 's/^/  | /' "$LOG" >&2
  [ "$rc" -ne 0 ] || rc=1
fi
stop_server
echo "schemathesis: exit $rc"
exit "$rc"
