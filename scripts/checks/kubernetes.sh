#!/usr/bin/env bash
# Checks deploy/kubernetes/ (docs/deploy.md §7) without a cluster:
#  1. every manifest validates, strictly (unknown fields are errors), with kubernetes-validate
#     (PyPI, pinned; its schemas ship inside the package, so only PyPI is needed, once) against
#     the oldest and newest Kubernetes versions we claim; a kind it has no schema for is an error;
#  2. kustomization.yaml names exactly the manifests of the folder;
#  3. the manifests agree with the Dockerfile: image name, user, ports, volume and config paths,
#     and the commands the image has (modeld entrypoint, modelctl), and the workers' flags exist
#     in `modelctl … --help`;
#  4. the ConfigMap's modeld.json starts the real modeld (the probes' /healthz answers 200, SIGTERM
#     exits 0), and the Secret's shipped empty token makes modeld refuse to start;
#  5. a self-test: deliberately broken manifests in a temp dir must fail step 1.
# Steps 3's --help and 4 need a built modeld/modelctl (`swift build`, as `make test` does); without
# one they are skipped with a message.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/built-binary.sh
source scripts/lib/modeld-port.sh

VALIDATOR_VERSION=1.37.0
K8S_VERSIONS=(1.29.0 1.37.0)
DIR=deploy/kubernetes
PYTHON=${PYTHON:-python3}

installed=$("$PYTHON" -c 'import importlib.metadata as m; print(m.version("kubernetes-validate"))' 2>/dev/null || true)
if [ "$installed" != "$VALIDATOR_VERSION" ]; then
  echo "kubernetes: installing kubernetes-validate==$VALIDATOR_VERSION (pip; found: ${installed:-none})"
  "$PYTHON" -m pip install --quiet --disable-pip-version-check "kubernetes-validate==$VALIDATOR_VERSION" >&2 \
    || "$PYTHON" -m pip install --quiet --disable-pip-version-check --user --break-system-packages \
         "kubernetes-validate==$VALIDATOR_VERSION" >&2
fi
# Run it as a module of the same Python, so a user-site install off PATH works too.
validate() { "$PYTHON" -m kubernetes_validate "$@"; }

TMP=$(mktemp -d "${TMPDIR:-/tmp}/modeld-k8s.XXXXXX")
SERVER_PID=
cleanup() {
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then kill -KILL "$SERVER_PID" 2>/dev/null || true; fi
  rm -rf "$TMP"
}
trap cleanup EXIT

# SIGTERM to the modeld at $SERVER_PID, which must exit 0 within 30 s (SPEC §8; every ConfigMap's
# drain_seconds is shorter); $1 names it in the failure, $2 is its log.
stop_modeld() {
  local rc=0
  kill -TERM "$SERVER_PID"
  for _ in $(seq 1 600); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.05; done
  if kill -0 "$SERVER_PID" 2>/dev/null; then echo "kubernetes: $1 still running 30 s after SIGTERM" >&2; cat "$2" >&2; exit 1; fi
  wait "$SERVER_PID" || rc=$?
  SERVER_PID=
  [ "$rc" -eq 0 ] || { echo "kubernetes: $1 exited $rc after SIGTERM" >&2; cat "$2" >&2; exit 1; }
}

# Step 1 as a function, so the self-test runs exactly the same thing. Fails on a non-zero exit
# and on any warning (kubernetes-validate only warns, exit 0, about a kind it has no schema for:
# a misspelt apiVersion would otherwise pass).
validate_all() {
  local out rc=0 v
  for v in "${K8S_VERSIONS[@]}"; do
    out=$(validate --strict --kubernetes-version "$v" "$@" 2>&1) || rc=1
    if [ "$rc" -ne 0 ] || grep -qv '^INFO ' <<<"$out"; then
      grep -v '^INFO ' <<<"$out" >&2
      return 1
    fi
  done
}

mapfile -t manifests < <(find "$DIR" -maxdepth 1 -name '*.yaml' ! -name kustomization.yaml | sort)
[ "${#manifests[@]}" -gt 0 ] || { echo "kubernetes: no manifests in $DIR" >&2; exit 1; }
validate_all "${manifests[@]}"
echo "kubernetes: ${#manifests[@]} manifests valid (strict) for Kubernetes ${K8S_VERSIONS[*]}"

# Steps 2 and 3: structure, read with PyYAML (a kubernetes-validate dependency).
MODELCTL=$(newest_built modelctl)
"$PYTHON" - "$DIR" "${MODELCTL:-}" <<'PY'
import json, os, re, subprocess, sys
sys.path.insert(0, "scripts/lib")
from manifests import Manifests

folder, modelctl = sys.argv[1], sys.argv[2]
manifests = Manifests(folder)
check, kustomization = manifests.check, manifests.kustomization

# What the Dockerfile builds.
dockerfile = open("Dockerfile").read()
def one(pattern):
    m = re.search(pattern, dockerfile, re.M)
    check(m is not None, f"Dockerfile: no match for {pattern}")
    return m.group(1) if m else ""
image_name = one(r"docker build -t (\S+) \.")
uid, gid = one(r"^USER (\d+):\d+").strip(), one(r"^USER \d+:(\d+)").strip()
port = int(one(r"^EXPOSE (\d+)") or 0)
workdir = one(r"^WORKDIR (/srv/\S+)")
volumes = json.loads(one(r"^VOLUME (\[.*\])") or "[]")
entrypoint = json.loads(one(r"^ENTRYPOINT (\[.*\])") or "[]")
cmd = json.loads(one(r"^CMD (\[.*\])") or "[]")
check("/usr/local/bin/" in one(r"^COPY --from=build (.*modelctl.*)$"), "Dockerfile does not install modelctl in /usr/local/bin")
config_path = cmd[cmd.index("--config") + 1] if "--config" in cmd else ""

by_kind = {}
for d in manifests.docs:
    by_kind.setdefault(d["kind"], []).append(d)

config = json.loads(by_kind["ConfigMap"][0]["data"][os.path.basename(config_path)])
check(config["listen"].endswith(f":{port}"), f"ConfigMap listen {config['listen']} is not the image's port {port}")
volume_of = {"modeld-models": config["models_dir"], "modeld-data": config["data_dir"]}
check(sorted(volume_of.values()) == sorted(volumes), f"models_dir/data_dir {sorted(volume_of.values())} != Dockerfile VOLUME {volumes}")
check(kustomization["images"][0]["name"] == image_name, "kustomization images[0].name is not the Dockerfile's image")

secrets = {s["metadata"]["name"] for s in by_kind["Secret"]}
claims = {c["metadata"]["name"] for c in by_kind["PersistentVolumeClaim"]}
for c in by_kind["PersistentVolumeClaim"]:
    check(c["spec"]["accessModes"] == ["ReadWriteMany"],
          f"PVC {c['metadata']['name']} must be ReadWriteMany (shared by replicas on several nodes)")
for workload in by_kind.get("StatefulSet", []) + by_kind.get("Deployment", []):
    name = workload["metadata"]["name"]
    pod = workload["spec"]["template"]["spec"]
    check(str(pod["securityContext"].get("runAsUser")) == uid and str(pod["securityContext"].get("runAsGroup")) == gid,
          f"{name}: runAsUser/runAsGroup must be the image's USER {uid}:{gid}")
    vols = {v["name"]: v for v in pod["volumes"]}
    for v in vols.values():
        if "persistentVolumeClaim" in v:
            check(v["persistentVolumeClaim"]["claimName"] in claims, f"{name}: unknown claim {v['persistentVolumeClaim']}")
        if "secret" in v:
            check(v["secret"]["secretName"] in secrets, f"{name}: unknown secret {v['secret']['secretName']}")
    for c in pod["containers"]:
        check(c["image"].split(":")[0] == image_name, f"{name}: image {c['image']} is not {image_name} (Dockerfile)")
        for env in c.get("envFrom", []):
            check(env["secretRef"]["name"] in secrets, f"{name}: unknown secret {env['secretRef']['name']}")
        for m in c["volumeMounts"]:
            v = vols[m["name"]]
            claim = v.get("persistentVolumeClaim", {}).get("claimName")
            if claim:
                check(m["mountPath"] == volume_of[claim], f"{name}: {claim} mounted at {m['mountPath']}, config says {volume_of[claim]}")
            if "configMap" in v:
                check(m["mountPath"] == os.path.dirname(config_path), f"{name}: config mounted at {m['mountPath']}, image reads {config_path}")
            if "secret" in v:
                check(config["admin_token_file"].startswith(m["mountPath"] + "/"), f"{name}: admin token mount {m['mountPath']} vs {config['admin_token_file']}")
        if "command" not in c:
            # modeld through the image's ENTRYPOINT and CMD: probes on its port, /healthz.
            check(entrypoint == ["modeld"] and "args" not in c, f"{name}: modeld must run from the image's ENTRYPOINT/CMD")
            check([p["containerPort"] for p in c["ports"]] == [port], f"{name}: containerPort must be {port}")
            for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
                check(c.get(probe, {}).get("httpGet", {}).get("path") == "/healthz", f"{name}: {probe} must GET /healthz")
            check(any(e["name"] == "MODELD_INSTANCE_ID" and e["valueFrom"]["fieldRef"]["fieldPath"] == "metadata.name" for e in c["env"]),
                  f"{name}: MODELD_INSTANCE_ID must be the pod name")
            check(workload["kind"] == "StatefulSet", f"{name}: modeld replicas need stable instance ids (StatefulSet)")
            grace = pod.get("terminationGracePeriodSeconds", 30)
            check(grace > config.get("drain_seconds", 10), f"{name}: terminationGracePeriodSeconds {grace} must exceed drain_seconds")
        else:
            check(c["command"] == ["modelctl"], f"{name}: workers run modelctl, not {c['command']}")
            check(workload["spec"]["replicas"] == 1 and workload["spec"]["strategy"]["type"] == "Recreate",
                  f"{name}: a worker is a singleton (replicas 1, Recreate)")
            words = [a for a in c["args"] if not a.startswith("-")]
            flags = [a.split("=")[0] for a in c["args"] if a.startswith("--")]
            if modelctl:
                help_text = subprocess.run([modelctl, *words, "--help"], capture_output=True, text=True).stdout
                for f in flags:
                    check(re.search(re.escape(f) + r"\b", help_text) is not None, f"{name}: modelctl {' '.join(words)} has no {f}")
pdb_selectors = [p["spec"]["selector"]["matchLabels"] for p in by_kind["PodDisruptionBudget"]]
for s in by_kind["StatefulSet"]:
    check(s["spec"]["selector"]["matchLabels"] in pdb_selectors, f"{s['metadata']['name']}: no PodDisruptionBudget")
for ing in by_kind.get("Ingress", []):
    services = {s["metadata"]["name"] for s in by_kind["Service"]}
    for rule in ing["spec"]["rules"]:
        for p in rule["http"]["paths"]:
            check(p["backend"]["service"]["name"] in services, f"Ingress: unknown service {p['backend']['service']['name']}")
            check(not p["path"].startswith(("/admin", "/metrics")), f"Ingress exposes {p['path']}")

manifests.finish("manifests disagree with the image or with each other")
print(f"kubernetes: manifests agree with the Dockerfile (image {image_name}, uid {uid}, port {port}, volumes {volumes})"
      + ("" if modelctl else "; worker flags not checked (modelctl not built)"))
PY

# Step 4: the ConfigMap's config with the real modeld.
MODELD=$(newest_built modeld)
if [ -z "$MODELD" ]; then
  echo "kubernetes: SKIPPED the modeld start with the ConfigMap (modeld not built)"
else
  "$PYTHON" - "$DIR" "$TMP" <<'PY'
import os, sys, yaml
folder, tmp = sys.argv[1], sys.argv[2]
for f in ("configmap.yaml", "secret-admin-token.yaml"):
    for d in yaml.safe_load_all(open(os.path.join(folder, f))):
        if d["kind"] == "ConfigMap":
            open(os.path.join(tmp, "modeld.json"), "w").write(d["data"]["modeld.json"])
        elif d["metadata"]["name"] == "modeld-admin-token":
            open(os.path.join(tmp, "shipped-token"), "w").write(d["stringData"]["token"])
PY
  mkdir -p "$TMP/models" "$TMP/data"
  # The shipped (empty) Secret: modeld must refuse to start rather than run an admin API.
  rc=0
  MODELD_ADMIN_TOKEN_FILE="$TMP/shipped-token" MODELD_INSTANCE_ID=modeld-0 timeout 20 "$MODELD" --config "$TMP/modeld.json" \
    --listen 127.0.0.1:0 --models-dir "$TMP/models" --data-dir "$TMP/data" >"$TMP/empty.log" 2>&1 || rc=$?
  if [ "$rc" -eq 0 ] || [ "$rc" -eq 124 ] || ! grep -q 'token' "$TMP/empty.log"; then
    echo "kubernetes: modeld started (rc $rc) with the shipped empty admin token:" >&2; cat "$TMP/empty.log" >&2; exit 1
  fi
  echo "kubernetes: the shipped empty admin-token Secret makes modeld refuse to start (exit $rc)"
  head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$TMP/token"
  MODELD_ADMIN_TOKEN_FILE="$TMP/token" MODELD_INSTANCE_ID=modeld-0 "$MODELD" --config "$TMP/modeld.json" \
    --listen 127.0.0.1:0 --models-dir "$TMP/models" --data-dir "$TMP/data" >"$TMP/modeld.log" 2>&1 &
  SERVER_PID=$!
  port=$(modeld_port "$TMP/modeld.log" "$SERVER_PID" kubernetes)
  code=$(curl -s -o /dev/null -m 5 -w '%{http_code}' "http://127.0.0.1:$port/healthz" || true)
  [ "$code" = 200 ] || { echo "kubernetes: /healthz answered ${code:-nothing} with the ConfigMap's config" >&2; cat "$TMP/modeld.log" >&2; exit 1; }
  stop_modeld modeld "$TMP/modeld.log"
  echo "kubernetes: the ConfigMap's modeld.json starts $MODELD (/healthz 200, SIGTERM → exit 0)"
fi

# Step 6: deploy/kubernetes-bucket/ (SPEC §18: no shared volume) — strict validation, the
# kustomization list, the topology's own rules, and its ingest ConfigMap with the real modeld.
BUCKET_DIR=deploy/kubernetes-bucket
mapfile -t bucket_manifests < <(find "$BUCKET_DIR" -maxdepth 1 -name '*.yaml' ! -name kustomization.yaml | sort)
validate_all "${bucket_manifests[@]}"
echo "kubernetes: ${#bucket_manifests[@]} manifests of $BUCKET_DIR valid (strict) for Kubernetes ${K8S_VERSIONS[*]}"
"$PYTHON" - "$BUCKET_DIR" "$TMP" <<'PY'
import json, os, sys
sys.path.insert(0, "scripts/lib")
from manifests import Manifests
folder, tmp = sys.argv[1], sys.argv[2]
manifests = Manifests(folder)
check = manifests.check
kinds = {}
for d in manifests.docs:
    kinds.setdefault(d["kind"], {})[d["metadata"]["name"]] = d
configs = {n: json.loads(c["data"]["modeld.json"]) for n, c in kinds["ConfigMap"].items()}
ingest, origin = configs["modeld-ingest-config"], configs["modeld-origin-config"]
check(ingest.get("ingest_only") is True and "models_dir" not in ingest, "ingest config: ingest_only true and no models_dir")
check(ingest.get("events_ship", {}).get("to", "").startswith("s3://"), "ingest config: events_ship.to s3://…")
check(origin.get("guard_events_from") == ingest["events_ship"]["to"], "origin reads the bucket the replicas ship to")
check(not kinds.get("PersistentVolumeClaim"), "no shared PersistentVolumeClaim in this topology")
dep = kinds["Deployment"]["modeld-ingest"]
pod = dep["spec"]["template"]["spec"]
vols = {v["name"]: v for v in pod["volumes"]}
check("emptyDir" in vols["data"] and not any("persistentVolumeClaim" in v for v in vols.values()), "ingest data/ must be an emptyDir, no claim")
check(pod["terminationGracePeriodSeconds"] > ingest["drain_seconds"], "ingest grace must exceed drain_seconds (the last segment ships within it)")
c = pod["containers"][0]
check(any(e["name"] == "MODELD_INSTANCE_ID" and e["valueFrom"]["fieldRef"]["fieldPath"] == "metadata.name" for e in c["env"]), "ingest: MODELD_INSTANCE_ID = pod name")
check(c["envFrom"][0]["secretRef"]["name"] in kinds["Secret"], "ingest: bucket credentials from the Secret")
hpa = kinds["HorizontalPodAutoscaler"]["modeld-ingest"]["spec"]
check(hpa["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment", "name": "modeld-ingest"}, "HPA scales the ingest Deployment")
check(hpa["metrics"][0]["resource"]["name"] == "cpu", "HPA on CPU")
check("cpu" in c["resources"]["requests"], "ingest: a CPU request (the HPA's utilisation is relative to it)")
sts = kinds["StatefulSet"]["modeld-origin"]
check(sts["spec"]["replicas"] == 1, "one origin")
check(sts["spec"]["volumeClaimTemplates"][0]["spec"]["accessModes"] == ["ReadWriteOnce"], "the origin's own volume is ReadWriteOnce")
names = [x["name"] for x in sts["spec"]["template"]["spec"]["containers"]]
check(names == ["modeld", "mirror"], f"origin containers modeld + mirror, not {names}")
mirror = sts["spec"]["template"]["spec"]["containers"][1]
check(mirror["command"] == ["modelctl"] and mirror["args"][0] == "mirror" and "--watch" in mirror["args"], "mirror sidecar runs modelctl mirror --watch")
for ing in kinds["Ingress"].values():
    for rule in ing["spec"]["rules"]:
        for p in rule["http"]["paths"]:
            check(p["backend"]["service"]["name"] in kinds["Service"], f"Ingress: unknown service {p['backend']['service']['name']}")
            check(p["path"] == "/events", f"Ingress exposes {p['path']} (only /events is public here)")
manifests.finish(folder + " breaks its topology")
open(os.path.join(tmp, "ingest.json"), "w").write(kinds["ConfigMap"]["modeld-ingest-config"]["data"]["modeld.json"])
print(f"kubernetes: {folder} is the §18 topology (one origin on its own volume, ingest Deployment on emptyDir with a CPU HPA)")
PY
if [ -n "$MODELD" ]; then
  mkdir -p "$TMP/ingest"
  # A bucket client is made at start-up, no request is sent before a segment is sealed.
  AWS_ACCESS_KEY_ID=k AWS_SECRET_ACCESS_KEY=s MODELD_INSTANCE_ID=modeld-ingest-0 "$MODELD" --config "$TMP/ingest.json" \
    --listen 127.0.0.1:0 --data-dir "$TMP/ingest/data" >"$TMP/ingest.log" 2>&1 &
  SERVER_PID=$!
  port=$(modeld_port "$TMP/ingest.log" "$SERVER_PID" kubernetes)
  health=$(curl -s -o /dev/null -m 5 -w '%{http_code}' "http://127.0.0.1:$port/healthz" || true)
  latest=$(curl -s -o /dev/null -m 5 -w '%{http_code}' "http://127.0.0.1:$port/latest?sdk=1.0" || true)
  [ "$health" = 200 ] && [ "$latest" = 404 ] && [ ! -e "$TMP/ingest/models" ] \
    || { echo "kubernetes: the ingest ConfigMap: /healthz $health, /latest $latest (want 200, 404)" >&2; cat "$TMP/ingest.log" >&2; exit 1; }
  stop_modeld "ingest modeld" "$TMP/ingest.log"
  echo "kubernetes: the ingest ConfigMap starts an ingest-only modeld (/healthz 200, /latest 404, SIGTERM → exit 0)"
fi

# Step 5: broken manifests must fail step 1.
mkdir -p "$TMP/broken"
cat >"$TMP/broken/bad-field.yaml" <<'EOF'
apiVersion: apps/v1
kind: Deployment
metadata:
  name: broken
spec:
  replicas: "three"
  selector:
    matchLabels: {app: broken}
  template:
    metadata:
      labels: {app: broken}
    spec:
      contianers:
        - name: x
          image: modeld:latest
EOF
cat >"$TMP/broken/bad-api.yaml" <<'EOF'
apiVersion: apps/v2
kind: StatefulSet
metadata:
  name: broken
spec: {}
EOF
for f in "$TMP"/broken/*.yaml; do
  if validate_all "$f" 2>/dev/null; then
    echo "kubernetes: self-test failed: the broken manifest $(basename "$f") passed validation" >&2
    exit 1
  fi
done
echo "kubernetes: self-test ok (a misspelt field, a wrong type and an unknown apiVersion each fail)"
