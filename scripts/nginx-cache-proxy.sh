#!/usr/bin/env bash
# Render deploy/nginx/modeld-cache.conf into a prefix directory and run nginx in the foreground
# (exec: the PID of this script becomes the nginx master's, so a test stops it with SIGTERM, or
# SIGQUIT for a graceful stop).
#
#   scripts/nginx-cache-proxy.sh --listen PORT|HOST:PORT --upstream HOST:PORT [--upstream ...]
#                                --prefix DIR [--cache-dir DIR] [--cache-max-size 10g]
#                                [--user NAME] [--template FILE] [--render-only | --check]
#
#   --prefix DIR       created if missing; gets nginx.conf, nginx.pid, logs/, tmp/
#   --cache-dir DIR    default DIR/cache (two zones below it: models/ and latest/)
#   --user NAME        worker user; only used when started as root (default then: root, so the
#                      workers can write a cache under a private 0700 test directory; in
#                      production pass the distribution's nginx user, e.g. www-data)
#   --template FILE    default deploy/nginx/modeld-cache.conf of this checkout
#   --render-only      write DIR/nginx.conf and exit 0 (print its path)
#   --check            render, then `nginx -t` and exit with its status
#
# Env: NGINX (default: nginx on PATH, else /usr/sbin/nginx).
# Exit: 2 on a usage error; otherwise nginx's own status.
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
template="$here/deploy/nginx/modeld-cache.conf"
listen="" prefix="" cache_dir="" cache_max_size="10g" user="" mode="run"
upstreams=()

usage() { sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//' >&2; exit "${1:-2}"; }
die() { echo "nginx-cache-proxy: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
  case "$1" in
    --listen) [ $# -ge 2 ] || usage; listen="$2"; shift 2 ;;
    --upstream) [ $# -ge 2 ] || usage; upstreams+=("$2"); shift 2 ;;
    --prefix) [ $# -ge 2 ] || usage; prefix="$2"; shift 2 ;;
    --cache-dir) [ $# -ge 2 ] || usage; cache_dir="$2"; shift 2 ;;
    --cache-max-size) [ $# -ge 2 ] || usage; cache_max_size="$2"; shift 2 ;;
    --user) [ $# -ge 2 ] || usage; user="$2"; shift 2 ;;
    --template) [ $# -ge 2 ] || usage; template="$2"; shift 2 ;;
    --render-only) mode="render"; shift ;;
    --check) mode="check"; shift ;;
    -h|--help) usage 0 ;;
    *) die "unknown argument: $1" ;;
  esac
done

[ -n "$listen" ] || die "--listen PORT is required"
[ -n "$prefix" ] || die "--prefix DIR is required"
[ "${#upstreams[@]}" -gt 0 ] || die "at least one --upstream HOST:PORT is required"
hostport_re='^([][0-9A-Za-z.:-]+:)?[0-9]{1,5}$'    # PORT, HOST:PORT or [v6]:PORT
[[ "$listen" =~ $hostport_re ]] || die "--listen: expected PORT or HOST:PORT, got '$listen'"
for u in "${upstreams[@]}"; do
  [[ "$u" =~ $hostport_re && "$u" == *:* ]] || die "--upstream: expected HOST:PORT, got '$u'"
done
[[ "$cache_max_size" =~ ^[0-9]+[kKmMgG]?$ ]] || die "--cache-max-size: expected e.g. 10g, got '$cache_max_size'"
[ -r "$template" ] || die "template not found: $template"

# The paths go unquoted into nginx directives: refuse what would break the syntax.
for d in "$prefix" "$cache_dir"; do
  case "$d" in *[[:space:]\;\{\}\"\'\$\\]*) die "path must not contain spaces, quotes, ';', '{', '}', '\$' or '\\': '$d'" ;; esac
done
mkdir -p "$prefix"
prefix="$(cd "$prefix" && pwd)"
cache_dir="${cache_dir:-$prefix/cache}"
mkdir -p "$cache_dir" "$prefix/logs" "$prefix/tmp"
cache_dir="$(cd "$cache_dir" && pwd)"

# nginx started as root switches its workers to `nobody` unless told otherwise; nobody cannot
# write a cache under a 0700 test directory. Started unprivileged, `user` is ignored (and warned
# about), so it is left out.
user_line=""
if [ "$(id -u)" -eq 0 ]; then
  user_line="user ${user:-root};"
elif [ -n "$user" ]; then
  echo "nginx-cache-proxy: --user ignored (not running as root)" >&2
fi

server_lines=""
for u in "${upstreams[@]}"; do
  server_lines+="server $u max_fails=1 fail_timeout=10s; "
done

conf="$prefix/nginx.conf"
# Plain string replacement (no regex metacharacters from the values reach sed).
LISTEN="$listen" UPSTREAMS="$server_lines" CACHE_DIR="$cache_dir" PREFIX="$prefix" \
CACHE_MAX_SIZE="$cache_max_size" USER_LINE="$user_line" \
  awk '{
    gsub(/\{\{LISTEN_PORT\}\}/, ENVIRON["LISTEN"]);
    gsub(/\{\{UPSTREAMS\}\}/, ENVIRON["UPSTREAMS"]);
    gsub(/\{\{CACHE_DIR\}\}/, ENVIRON["CACHE_DIR"]);
    gsub(/\{\{CACHE_MAX_SIZE\}\}/, ENVIRON["CACHE_MAX_SIZE"]);
    gsub(/\{\{PREFIX\}\}/, ENVIRON["PREFIX"]);
    gsub(/\{\{USER_LINE\}\}/, ENVIRON["USER_LINE"]);
    print
  }' "$template" > "$conf.tmp"
if grep -q '{{[A-Z_]*}}' "$conf.tmp"; then
  die "unreplaced placeholder in $template: $(grep -o '{{[A-Z_]*}}' "$conf.tmp" | sort -u | tr '\n' ' ')"
fi
mv "$conf.tmp" "$conf"

nginx_bin="${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}"
case "$mode" in
  render) echo "$conf" ;;
  check) exec "$nginx_bin" -t -q -p "$prefix/" -e "$prefix/logs/error.log" -c "$conf" ;;
  run) exec "$nginx_bin" -p "$prefix/" -e "$prefix/logs/error.log" -c "$conf" ;;
esac
