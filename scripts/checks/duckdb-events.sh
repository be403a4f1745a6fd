#!/usr/bin/env bash
# SPEC §18 "events where data teams already query them": what ingest replicas ship is read by
# DuckDB (PyPI, pinned) over the shipped dt= folders with Hive partitioning, without conversion,
# and gives the counts `modelctl events stats` gives (docs/events-in-duckdb.md).
#  1. a throw-away Ceph RGW (scripts/rgw.sh) with a public-read bucket;
#  2. two real ingest-only modeld replicas (1 s rotation, events_ship to the bucket); a fleet
#     posts batches to both, some batches to both (a client's retry answered by the other one);
#  3. SIGTERM: each replica ships its last segment; the objects named in the ledgers are
#     fetched from the bucket into a local directory laid out like the bucket (DuckDB's S3
#     support is an extension it downloads at run time; a plain directory needs nothing);
#  4. `modelctl events stats --json` over both replicas' segments vs DuckDB's query over the
#     .jsonl.gz objects: the same events per model and the same counts per outcome.
# Needs a built modeld and modelctl and radosgw (make deps); skipped with a message otherwise.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/built-binary.sh
source scripts/lib/modeld-port.sh
DUCKDB_VERSION=2.0.1
PYTHON=${PYTHON:-python3}
MODELD=$(newest_built modeld)
MODELCTL=$(newest_built modelctl)
if [ -z "$MODELD" ] || [ -z "$MODELCTL" ]; then echo "duckdb-events: SKIPPED (modeld/modelctl not built)"; exit 0; fi
if ! command -v radosgw >/dev/null; then echo "duckdb-events: SKIPPED (radosgw not installed: make deps)"; exit 0; fi
installed=$("$PYTHON" -c 'import importlib.metadata as m; print(m.version("duckdb"))' 2>/dev/null || true)
if [ "$installed" != "$DUCKDB_VERSION" ]; then
  echo "duckdb-events: installing duckdb==$DUCKDB_VERSION (pip; found: ${installed:-none})"
  "$PYTHON" -m pip install --quiet --disable-pip-version-check "duckdb==$DUCKDB_VERSION" >&2 \
    || "$PYTHON" -m pip install --quiet --disable-pip-version-check --user --break-system-packages "duckdb==$DUCKDB_VERSION" >&2
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/modeld-duckdb.XXXXXX")
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  bash scripts/rgw.sh stop "$TMP/rgw" >/dev/null 2>&1 || true
  rm -rf "$TMP"
}
trap cleanup EXIT
RGW_OWNER_PID=$$ bash scripts/rgw.sh start "$TMP/rgw" "events:public" >/dev/null
source "$TMP/rgw/env"
export AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY
echo '{}' >"$TMP/modeld.json"
ports=()
for name in ing-a ing-b; do
  mkdir -p "$TMP/$name"
  MODELD_INGEST_ONLY=true MODELD_INSTANCE_ID=$name MODELD_EVENTS_SEGMENT_MAX_SECONDS=1 \
    MODELD_EVENTS_SHIP_TO=s3://events/lake MODELD_EVENTS_SHIP_ENDPOINT="$RGW_ENDPOINT" \
    "$MODELD" --config "$TMP/modeld.json" --listen 127.0.0.1:0 --data-dir "$TMP/$name/data" >"$TMP/$name.log" 2>&1 &
  PIDS+=($!)
  ports+=("$(modeld_port "$TMP/$name.log" "$!" duckdb-events)")
done
# 300 clients, one batch each to one replica (alternating); every 10th also to the other one.
for i in $(seq 0 299); do
  model=$([ $((i % 3)) -eq 0 ] && echo challenger || echo baseline)
  outcome=$([ $((i % 4)) -eq 0 ] && echo purchased || echo dismissed)
  body="{\"batch_id\":\"b1\",\"client_id\":\"c$i\",\"events\":[{\"name\":\"upsell\",\"ts\":\"2026-12-01T10:00:00Z\",\"model_id\":\"$model\",\"outcome\":\"$outcome\"},{\"name\":\"upsell\",\"ts\":\"2026-12-01T10:00:01Z\",\"model_id\":\"$model\",\"outcome\":\"dismissed\"}]}"
  targets=("${ports[$((i % 2))]}")
  [ $((i % 10)) -eq 0 ] && targets+=("${ports[$(((i + 1) % 2))]}")
  for port in "${targets[@]}"; do
    curl -sf -o /dev/null -XPOST -H 'Content-Type: application/json' --data-binary "$body" "http://127.0.0.1:$port/events?sdk=1.0"
  done
done
for pid in "${PIDS[@]}"; do kill -TERM "$pid"; done
for pid in "${PIDS[@]}"; do wait "$pid" || { echo "duckdb-events: a replica exited $? after SIGTERM" >&2; exit 1; }; done
PIDS=()

# The bucket's objects (every key in the ledgers, i.e. every local segment) into a local copy.
segments=0
for name in ing-a ing-b; do
  local_segments=$(find "$TMP/$name/data/events" -name '*.jsonl' | wc -l)
  [ "$(wc -l <"$TMP/$name/data/shipped.jsonl")" -eq "$local_segments" ] || { echo "duckdb-events: $name did not ship every segment" >&2; exit 1; }
  segments=$((segments + local_segments))
  while read -r key; do
    mkdir -p "$TMP/bucket/$(dirname "$key")"
    curl -sf -o "$TMP/bucket/$key" "$RGW_ENDPOINT/events/$key"
  done < <("$PYTHON" -c 'import json,sys; [print(json.loads(l)["key"]) for l in open(sys.argv[1])]' "$TMP/$name/data/shipped.jsonl")
  mkdir -p "$TMP/all/events"
  cp -r "$TMP/$name/data/events/"*/ "$TMP/all/events/"
done
"$MODELCTL" events stats --data-dir "$TMP/all" --json >"$TMP/stats.json"

"$PYTHON" - "$TMP/bucket/lake/events" "$TMP/stats.json" "$segments" <<'PY'
import json, sys, duckdb
events, stats_path, segments = sys.argv[1], sys.argv[2], int(sys.argv[3])
# The query of docs/events-in-duckdb.md: shipped objects as they are, dt= as a column, commit
# records (no batch_id) left out, each (client_id, batch_id, seq) once — SPEC §5's read-side dedup.
query = f"""
    SELECT model_id, outcome, count(*) AS n
    FROM (
        SELECT *, row_number() OVER (PARTITION BY client_id, batch_id, seq ORDER BY received_at, instance) AS copy
        FROM read_json('{events}/dt=*/*.jsonl.gz', format = 'newline_delimited', hive_partitioning = true,
                       union_by_name = true, sample_size = -1)
        WHERE batch_id IS NOT NULL AND dt >= '2000-01-01'
    )
    WHERE copy = 1
    GROUP BY model_id, outcome ORDER BY model_id, outcome
"""
rows = duckdb.sql(query).fetchall()
files = duckdb.sql(f"SELECT count(DISTINCT filename) FROM read_json('{events}/dt=*/*.jsonl.gz', format = 'newline_delimited', filename = true, union_by_name = true)").fetchall()[0][0]
ours = {}
for group in json.load(open(stats_path))["groups"]:
    for o in group["outcomes"]:
        ours[(group["key"], o["value"])] = o["count"]
theirs = {(m, o): n for m, o, n in rows}
if ours != theirs or files > segments:
    print(f"duckdb-events: DuckDB {theirs} != modelctl events stats {ours} ({files} objects, {segments} segments)", file=sys.stderr)
    sys.exit(1)
total = sum(theirs.values())
if total != 2 * 300:
    print(f"duckdb-events: {total} events after dedup, expected 600 (300 batches of 2)", file=sys.stderr)
    sys.exit(1)
print(f"duckdb-events: DuckDB {duckdb.__version__} over {files} shipped objects (Hive dt=) = modelctl events stats: {total} events, {len(theirs)} (model, outcome) counts")
PY
