#!/usr/bin/env bash
# Builds the runtime image of the Dockerfile with buildah (no Docker engine needed), runs it, and
# checks /healthz, /latest and a model download from the running container.
#
# Path taken: the official Swift image cannot be pulled here, so the binaries are built on the
# host with --static-swift-stdlib into dist/ and the Dockerfile's `prebuilt` stage (the runtime
# stage plus those binaries) is built instead of the Swift build stage. The runtime base image is
# made locally with debootstrap (Debian bookworm minbase) unless RUNTIME_IMAGE names one that
# exists. Everything runs with chroot isolation and the vfs driver, which work without a daemon.
#
#   scripts/docker-smoke.sh            # prints the image size and PASS/FAIL lines
#   KEEP_IMAGE=1 scripts/docker-smoke.sh
set -euo pipefail
cd "$(dirname "$0")/.."

PORT=${PORT:-18777}
IMAGE=${IMAGE:-localhost/modeld-smoke:latest}
BASE=${RUNTIME_IMAGE:-localhost/debian-bookworm-minbase:latest}
BUILDAH=(buildah --storage-driver vfs)
export PATH="/opt/swift/usr/bin:$PATH"

bash scripts/install-deps.sh buildah debootstrap curl
fail() { echo "FAIL: $*" >&2; exit 1; }

echo "== static binaries on the host"
for product in modeld modelctl; do
  swift build -c release --static-swift-stdlib --product "$product" >/tmp/modeld-static-build.log 2>&1 \
    || { tail -20 /tmp/modeld-static-build.log; fail "static build of $product"; }
done
bin=$(swift build -c release --static-swift-stdlib --show-bin-path)
mkdir -p dist
install -s -m 0755 "$bin/modeld" "$bin/modelctl" dist/

if ! "${BUILDAH[@]}" inspect --type image "$BASE" >/dev/null 2>&1; then
  echo "== base image $BASE from debootstrap"
  rootfs=$(mktemp -d /tmp/modeld-rootfs.XXXXXX)
  debootstrap --variant=minbase bookworm "$rootfs" http://deb.debian.org/debian >/tmp/modeld-debootstrap.log 2>&1 \
    || fail "debootstrap (see /tmp/modeld-debootstrap.log)"
  ctr=$("${BUILDAH[@]}" from scratch)
  mnt=$("${BUILDAH[@]}" mount "$ctr")
  cp -a "$rootfs"/. "$mnt"/
  "${BUILDAH[@]}" umount "$ctr" >/dev/null
  "${BUILDAH[@]}" commit --quiet "$ctr" "$BASE" >/dev/null
  "${BUILDAH[@]}" rm "$ctr" >/dev/null
  rm -rf "$rootfs"
fi

echo "== image build (target prebuilt)"
"${BUILDAH[@]}" bud --quiet --isolation chroot --pull-never --format docker --target prebuilt \
  --build-arg RUNTIME_IMAGE="$BASE" -t "$IMAGE" . >/tmp/modeld-bud.log 2>&1 || fail "buildah bud (see /tmp/modeld-bud.log)"
size=$("${BUILDAH[@]}" images --format '{{.Size}}' "$IMAGE" | head -1)
health=$("${BUILDAH[@]}" inspect --type image "$IMAGE" \
  | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)["Docker"]["config"].get("Healthcheck")))')
echo "image $IMAGE: $size; healthcheck: $health"
[[ $health == *modelctl* ]] || fail "HEALTHCHECK missing from the image"

echo "== run"
ctr=$("${BUILDAH[@]}" from "$IMAGE")
log=$(mktemp)
cleanup() {
  [[ -n "${pid:-}" ]] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
  "${BUILDAH[@]}" rm "$ctr" >/dev/null 2>&1 || true
  [[ "${KEEP_IMAGE:-0}" == 1 ]] || "${BUILDAH[@]}" rmi "$IMAGE" >/dev/null 2>&1 || true
  rm -f "$log"
}
trap cleanup EXIT
# chroot isolation shares the host's network namespace: the server listens on host loopback.
"${BUILDAH[@]}" run --isolation chroot --user 10001:10001 --workingdir /srv/modeld \
  --env MODELD_LISTEN=127.0.0.1:$PORT --env MODELD_PUBLIC_BASE_URL=http://127.0.0.1:$PORT \
  "$ctr" -- modeld --config /srv/modeld/config/modeld.json >"$log" 2>&1 &
pid=$!
for _ in $(seq 1 100); do
  curl -fsS "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && break
  kill -0 "$pid" 2>/dev/null || { cat "$log"; fail "container exited"; }
  sleep 0.1
done

pass=0
check() { if eval "$2"; then echo "PASS: $1"; pass=$((pass + 1)); else echo "FAIL: $1"; cat "$log"; exit 1; fi; }
check "/healthz is 200" '[[ $(curl -s -o /dev/null -w "%{http_code}" http://127.0.0.1:$PORT/healthz) == 200 ]]'
latest=$(curl -fsS "http://127.0.0.1:$PORT/latest?sdk=1.0")
check "/latest answers the demo model" '[[ $latest == *"\"label\":\"demo\""* ]]'
url=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["url"])' "$latest")
want=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["sha256"])' "$latest")
got=$(curl -fsS "$url" | sha256sum | cut -d' ' -f1)
check "model download matches its sha256" '[[ $got == "$want" ]]'
check "HEALTHCHECK command (modelctl health) passes inside the container" \
  '"${BUILDAH[@]}" run --isolation chroot --env MODELD_SERVER=http://127.0.0.1:$PORT "$ctr" -- modelctl health'
echo "docker smoke: $pass passed, 0 failed (image $size)"
