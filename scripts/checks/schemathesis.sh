#!/usr/bin/env bash
# Property-based conformance of the live server against docs/openapi.yaml (public routes only).
#
# Expects the debug binaries of `swift build` (.build/debug/modeld and .build/debug/modelctl);
# builds nothing. When they are missing the check is skipped (exit 0) with a message.
# Starts modeld on 127.0.0.1:0 with a throwaway copy of models/ and an empty data dir, waits for
# /healthz, runs schemathesis with the checks not_a_server_error and
# response_schema_conformance, stops the server and exits with schemathesis's exit code.
#
# Tunables (environment): ST_MAX_EXAMPLES (50), ST_MAX_SECONDS (hard cap on the run, 300),
# ST_WORKERS (1), ST_SEED (random), PYTHON (python3).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD

MODELD=.build/debug/modeld
MODELCTL=.build/debug/modelctl
SCHEMA=docs/openapi.yaml
PYTHON=${PYTHON:-python3}
MAX_EXAMPLES=${ST_MAX_EXAMPLES:-50}
MAX_SECONDS=${ST_MAX_SECONDS:-300}
WORKERS=${ST_WORKERS:-1}
STARTUP_SECONDS=15   # bound on "process started" → "/healthz is 200"
STOP_SECONDS=15      # bound on SIGTERM → exit (drain_seconds defaults to 10)

# ---------------------------------------------------------------------------------------------
# The start-up line modeld logs (SPEC §8: address, release count, config source). The port is
# capture group 1. ADJUST HERE when the log format is settled. The default accepts any line that
# names 127.0.0.1 with a non-zero port, e.g. "listening on http://127.0.0.1:41234 (3 releases,
# config config/modeld.json)"; ":0" (the requested port) never matches.
PORT_REGEX='127\.0\.0\.1:([1-9][0-9]{0,4})'
# ---------------------------------------------------------------------------------------------

if [ ! -x "$MODELD" ] || [ ! -x "$MODELCTL" ]; then
  echo "schemathesis: SKIPPED — $MODELD and $MODELCTL not built (run 'swift build' first)"
  exit 0
fi

if ! "$PYTHON" -c 'import schemathesis' >/dev/null 2>&1; then
  echo "schemathesis: installing schemathesis (pip)"
  "$PYTHON" -m pip install --quiet --disable-pip-version-check schemathesis >&2
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

config_args=()
[ -f config/modeld.json ] && config_args=(--config config/modeld.json)
LOG=$TMP/modeld.log
: >"$LOG"   # exists before the child opens it (the redirection below happens after the fork)
"$MODELD" "${config_args[@]}" --listen 127.0.0.1:0 \
  --models-dir "$TMP/models" --data-dir "$TMP/data" \
  --public-base-url http://127.0.0.1 >"$LOG" 2>&1 &
SERVER_PID=$!

fail_start() {
  echo "schemathesis: $1; modeld output:" >&2
  sed 's/^/  | /' "$LOG" >&2
  exit 1
}

# Port: the start-up line first; failing that, the listening socket of our process (ss).
PORT=
deadline=$((SECONDS + STARTUP_SECONDS))
while [ -z "$PORT" ]; do
  kill -0 "$SERVER_PID" 2>/dev/null || fail_start "modeld exited during start-up"
  while IFS= read -r line; do
    if [[ $line =~ $PORT_REGEX ]]; then PORT=${BASH_REMATCH[1]}; break; fi
  done <"$LOG"
  if [ -z "$PORT" ] && command -v ss >/dev/null 2>&1; then
    PORT=$(ss -Hltnp 2>/dev/null | awk -v pid="pid=$SERVER_PID," '
      index($0, pid) { n = split($4, a, ":"); print a[n]; exit }') || true
  fi
  [ -n "$PORT" ] && break
  [ "$SECONDS" -lt "$deadline" ] || fail_start "no listening port within ${STARTUP_SECONDS}s (adjust PORT_REGEX in $0)"
  sleep 0.2
done
BASE=http://127.0.0.1:$PORT
echo "schemathesis: modeld (pid $SERVER_PID) on $BASE"

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
cmd=("$PYTHON" -m schemathesis.cli run "$SCHEMA"
  --url "$BASE"
  --exclude-path-regex '^/admin'
  --checks not_a_server_error,response_schema_conformance
  --phases examples,coverage,fuzzing
  --max-examples "$MAX_EXAMPLES"
  --workers "$WORKERS"
  --request-timeout 10
  --generation-database none
  --suppress-health-check all
  --no-color
  "${seed_args[@]}")
echo "schemathesis: ${cmd[*]}"
rc=0
timeout --kill-after=10 "$MAX_SECONDS" "${cmd[@]}" || rc=$?
[ "$rc" -eq 124 ] && echo "schemathesis: run exceeded ${MAX_SECONDS}s and was stopped" >&2

if ! kill -0 "$SERVER_PID" 2>/dev/null; then
  echo "schemathesis: modeld died during the run" >&2
  sed 's/^/  | /' "$LOG" >&2
  [ "$rc" -ne 0 ] || rc=1
fi
stop_server
echo "schemathesis: exit $rc"
exit "$rc"
