# Sourced by benchmark scripts: the device's link. On loopback a download runs at disk speed, so
# it is no yardstick for an update's time; nginx (link-nginx.conf) in front of a modeld sends to
# the client at a set rate per connection instead.
#   link_start DIR PORT LINK_PORT MBIT: nginx (its files in DIR/nginx) proxies 127.0.0.1:LINK_PORT
#     to 127.0.0.1:PORT at MBIT Mbit/s per connection; MBIT=0 sends unthrottled (nginx's
#     limit_rate 0), so one URL serves both passes.
#   link_stop DIR: ends that nginx and waits for it.
link_start() {
  local dir=$1 port=$2 link_port=$3 mbit=$4
  mkdir -p "$dir/nginx"
  sed -e "s|@SCRATCH@|$dir|g" -e "s|@PORT@|$port|g" -e "s|@LINK_PORT@|$link_port|g" \
    -e "s|@RATE@|$((mbit * 125000))|g" "$(dirname "${BASH_SOURCE[0]}")/link-nginx.conf" >"$dir/nginx/nginx.conf"
  nginx -p "$dir/nginx" -c "$dir/nginx/nginx.conf"
}
link_stop() {
  local pid
  pid=$(cat "$1/nginx/nginx.pid" 2>/dev/null) || return 0
  kill -TERM "$pid" 2>/dev/null || return 0
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  echo "nginx $pid did not stop" >&2; return 1
}
