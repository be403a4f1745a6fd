#!/usr/bin/env bash
# A throw-away Ceph RGW (S3) on loopback for tests: one mon, one memstore OSD, one radosgw,
# all data under DIR, ports picked free, processes stopped by the PIDs in DIR/run.
#   scripts/rgw.sh start DIR [BUCKET[:public]...]  → writes DIR/env (RGW_ENDPOINT, AWS_ACCESS_KEY_ID,
#                                           AWS_SECRET_ACCESS_KEY) and prints the endpoint
#   scripts/rgw.sh stop DIR
# BUCKET:public also gets a bucket policy letting anyone GET its objects (not list them), as a
# bucket serving static update checks and downloads has (SPEC §9.1). RGW_MEMSTORE_BYTES sets the
# OSD's capacity (default 2 GiB; memstore keeps every object in RAM).
# With RGW_OWNER_PID set, a watchdog stops the cluster once that process has exited.
# Recipe and why each setting: docs/decisions/object-storage.md, reference/object-storage.md §3.
# Needs radosgw, ceph-mon, ceph-osd (make deps installs them). Exit 3: packages missing.
set -euo pipefail

usage() { echo "usage: $0 start DIR [BUCKET[:public]...] | stop DIR" >&2; exit 2; }
[ $# -ge 2 ] || usage
cmd=$1; B=$(realpath -m "$2"); shift 2

stop() {
  local pidfile pid
  for pidfile in "$B"/run/*.pid; do
    [ -e "$pidfile" ] || continue
    pid=$(cat "$pidfile" 2>/dev/null || true)
    [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  done
  # Bounded wait for each to exit; whatever is still there after 3 s gets SIGKILL (memstore data is scratch).
  for pidfile in "$B"/run/*.pid; do
    [ -e "$pidfile" ] || continue
    pid=$(cat "$pidfile" 2>/dev/null || true)
    [ -n "$pid" ] || continue
    for _ in $(seq 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$pidfile"
  done
}

# Polls "$@" every 0.1 s until it succeeds or $1 seconds pass.
wait_for() {
  local seconds=$1; shift
  local deadline=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || return 1
    sleep 0.1
  done
}

free_ports() {
  python3 -c 'import socket
socks=[socket.socket() for _ in range(3)]
for s in socks: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))'
}

start() {
  for bin in ceph-mon ceph-osd radosgw radosgw-admin ceph monmaptool ceph-authtool; do
    command -v "$bin" >/dev/null || { echo "rgw.sh: $bin not installed (run make deps)" >&2; exit 3; }
  done
  mkdir -p "$B"/run "$B"/log "$B"/mon "$B"/osd
  read -r mon2 mon1 rgw <<<"$(free_ports)"
  local fsid; fsid=$(python3 -c 'import uuid; print(uuid.uuid4())')
  local C="$B/ceph.conf" mons="[v2:127.0.0.1:$mon2,v1:127.0.0.1:$mon1]"
  cat >"$C" <<CONF
[global]
fsid = $fsid
mon host = $mons
public addr = 127.0.0.1
cluster addr = 127.0.0.1
# No cephx: a loopback-only scratch cluster. Without crc modes radosgw hangs 300 s (-13).
auth cluster required = none
auth service required = none
auth client required = none
ms client mode = crc
ms mon client mode = crc
ms service mode = crc
ms cluster mode = crc
ms mon service mode = crc
ms mon cluster mode = crc
osd objectstore = memstore
memstore device bytes = ${RGW_MEMSTORE_BYTES:-2147483648}
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
mon allow pool size one = true
mon max pg per osd = 1000
osd crush chooseleaf type = 0
mon warn on pool no redundancy = false
run dir = $B/run
pid file = $B/run/\$name.pid
admin socket = $B/run/\$name.asok
log file = $B/log/\$name.log
mon data = $B/mon/\$name
osd data = $B/osd/\$id
keyring = $B/keyring
[client.rgw.test]
rgw frontends = beast endpoint=127.0.0.1:$rgw
rgw dns name = localhost
CONF
  ceph-authtool --create-keyring "$B/keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
  monmaptool --create --fsid "$fsid" --addv a "$mons" "$B/monmap" >/dev/null
  ceph-mon -c "$C" --mkfs -i a --monmap "$B/monmap" --keyring "$B/keyring"
  ceph-mon -c "$C" -i a
  local uuid id
  uuid=$(python3 -c 'import uuid; print(uuid.uuid4())')
  id=$(timeout 30 ceph -c "$C" osd new "$uuid")
  mkdir -p "$B/osd/$id"
  ceph-osd -c "$C" -i "$id" --mkfs --osd-uuid "$uuid" 2>>"$B/log/osd-mkfs.log"
  ceph-osd -c "$C" -i "$id" 2>>"$B/log/osd-start.log"
  radosgw -c "$C" -n client.rgw.test
  # The gateway answers anonymous GET / once its pools exist.
  wait_for 60 curl -sf -o /dev/null "http://127.0.0.1:$rgw/" || { echo "rgw.sh: radosgw did not answer on :$rgw within 60 s (logs in $B/log)" >&2; exit 1; }
  local ak=RGWTESTKEY sk; sk=$(python3 -c 'import secrets; print(secrets.token_hex(20))')
  timeout 30 radosgw-admin -c "$C" user create --uid mirror --display-name mirror \
    --access-key "$ak" --secret "$sk" >/dev/null
  local spec bucket policy
  for spec in "$@"; do
    bucket=${spec%:public}
    curl -sf -o /dev/null -X PUT --aws-sigv4 aws:amz:us-east-1:s3 --user "$ak:$sk" \
      -H 'x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855' \
      "http://127.0.0.1:$rgw/$bucket" || { echo "rgw.sh: cannot create bucket $bucket" >&2; exit 1; }
    [ "$spec" != "$bucket" ] || continue
    # Anonymous s3:GetObject on every key; listing stays private. libcurl 7.88 signs the query
    # verbatim, so the valueless `policy` parameter is sent in canonical form, `policy=`.
    policy='{"Version":"2012-10-17","Statement":[{"Sid":"PublicRead","Effect":"Allow","Principal":"*","Action":["s3:GetObject"],"Resource":["arn:aws:s3:::'"$bucket"'/*"]}]}'
    curl -sf -o /dev/null -X PUT --aws-sigv4 aws:amz:us-east-1:s3 --user "$ak:$sk" \
      -H "x-amz-content-sha256: $(printf '%s' "$policy" | sha256sum | cut -d' ' -f1)" -H 'Content-Type: application/json' \
      --data-binary "$policy" "http://127.0.0.1:$rgw/$bucket?policy=" || { echo "rgw.sh: cannot set the public-read policy of $bucket" >&2; exit 1; }
  done
  umask 077
  printf 'RGW_ENDPOINT=http://127.0.0.1:%s\nAWS_ACCESS_KEY_ID=%s\nAWS_SECRET_ACCESS_KEY=%s\n' "$rgw" "$ak" "$sk" >"$B/env"
  # A test runner that dies without stopping the cluster must not leave it running.
  if [ -n "${RGW_OWNER_PID:-}" ]; then
    setsid bash -c 'while kill -0 "$1" 2>/dev/null && [ -e "$2/run/mon.a.pid" ]; do sleep 1; done; "$0" stop "$2"' \
      "$(realpath "$0")" "$RGW_OWNER_PID" "$B" </dev/null >/dev/null 2>&1 &
  fi
  echo "http://127.0.0.1:$rgw"
}

case $cmd in
  start) trap 'status=$?; [ $status -eq 0 ] || [ $status -eq 3 ] || stop; exit $status' EXIT; start "$@" ;;
  stop) stop ;;
  *) usage ;;
esac
