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
import json, os, re, subprocess, sys, yaml

folder, modelctl = sys.argv[1], sys.argv[2]
errors = []
def check(ok, message):
    if not ok:
        errors.append(message)

# kustomization.yaml lists every manifest, and nothing else.
kustomization = yaml.safe_load(open(os.path.join(folder, "kustomization.yaml")))
files = sorted(f for f in os.listdir(folder) if f.endswith(".yaml") and f != "kustomization.yaml")
check(sorted(kustomization.get("resources", [])) == files,
      f"kustomization.yaml resources {sorted(kustomization.get('resources', []))} != files {files}")

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

docs = [d for f in files for d in yaml.safe_load_all(open(os.path.join(folder, f))) if d]
by_kind = {}
for d in docs:
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

if errors:
    print("kubernetes: manifests disagree with the image or with each other:", file=sys.stderr)
    for e in errors:
        print("  " + e, file=sys.stderr)
    sys.exit(1)
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
  kill -TERM "$SERVER_PID"
  rc=0
  for _ in $(seq 1 300); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.05; done
  wait "$SERVER_PID" || rc=$?
  SERVER_PID=
  [ "$rc" -eq 0 ] || { echo "kubernetes: modeld exited $rc after SIGTERM" >&2; cat "$TMP/modeld.log" >&2; exit 1; }
  echo "kubernetes: the ConfigMap's modeld.json starts $MODELD (/healthz 200, SIGTERM → exit 0)"
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
