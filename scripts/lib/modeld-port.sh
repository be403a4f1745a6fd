# Sourced by script checks: `port=$(modeld_port LOG PID NAME)` waits (at most 10 s) for modeld's
# start-up line in LOG and prints the bound port; exits 1 with the log if PID dies or never says.
modeld_port() {
  local log=$1 pid=$2 name=$3 port=
  for _ in $(seq 1 200); do
    port=$(grep -oE 'listening on http://127\.0\.0\.1:[0-9]+' "$log" | grep -oE '[0-9]+$' || true)
    [[ -n $port ]] && { echo "$port"; return 0; }
    kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; exit 1; }
    sleep 0.05
  done
  echo "$name: no start-up line" >&2; cat "$log" >&2; exit 1
}
