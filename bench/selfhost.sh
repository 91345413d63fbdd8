#!/usr/bin/env bash
# bench/selfhost.sh [SECONDS] — issue 21's closing figures, in one run on this machine:
#   1. requests/s and latency of a plain proxied site against the same site behind forward_auth (the auth server
#      answering 200 at once: what is measured is Usher's extra call per request, not an SSO server's work);
#   2. a static file (64 KiB) served by Usher's root: against nginx serving the same file, each in turn in the same
#      1-CPU cgroup on CPU 1 (sendfile on for nginx; Usher's plain HTTP uses FileRegion, i.e. sendfile too).
# The backend and auth server are one nginx worker on CPU 0 (bench/one-site.sh's); wrk runs on CPU 0. Each window
# is preceded by a warm-up window of the same length. Needs root (cgroup v1), nginx, wrk, target/usher.jar and
# a JDK 21+ (JAVA_HOME, else Temurin 25's path).
set -euo pipefail
cd "$(dirname "$0")/.."
window=${1:-10}
port=18480 bport=18481 sport=18482
source bench/one-site.sh
work=$(mktemp -d /tmp/usher-selfhost.XXXXXX)
cg=usher-selfhost-$port
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    for c in cpu memory; do rmdir "/sys/fs/cgroup/$c/$cg" 2>/dev/null || true; done
    rm -rf -- "$work"
}
trap cleanup EXIT

one_site_backend "$work" "$bport"
mkdir -p "$work/www"
head -c 65536 /dev/urandom >"$work/www/file.bin"
chmod a+rx "$work" "$work/www" && chmod a+r "$work/www/file.bin" # nginx's worker runs as nobody
cat >"$work/usher.yaml" <<YAML
listen: {http: "127.0.0.1:$port"}
data: $work/data
admin: off
sites:
  http://plain.bench.test: "127.0.0.1:$bport"
  http://auth.bench.test:
    to: "127.0.0.1:$bport"
    forward_auth: {url: "http://127.0.0.1:$bport/auth", copy_headers: [Remote-User]}
  http://files.bench.test: {root: "$work/www"}
YAML
cat >"$work/static.conf" <<CONF
worker_processes 1; daemon off; pid $work/static.pid; error_log $work/static-error.log warn;
events { worker_connections 4096; }
http { access_log off; server_tokens off; sendfile on; keepalive_timeout 75s; keepalive_requests 1000000;
  client_body_temp_path $work/tmp/b2; proxy_temp_path $work/tmp/p2; fastcgi_temp_path $work/tmp/f2;
  uwsgi_temp_path $work/tmp/u2; scgi_temp_path $work/tmp/s2;
  server { listen 127.0.0.1:$sport; root $work/www; } }
CONF

for c in cpu memory; do mkdir -p "/sys/fs/cgroup/$c/$cg"; done
echo 100000 >"/sys/fs/cgroup/cpu/$cg/cpu.cfs_quota_us"
in_cgroup() { # COMMAND...: runs it on CPU 1 inside the cgroup
    taskset -c 1 sh -c 'echo $$ >"$1/cgroup.procs"; echo $$ >"$2/cgroup.procs"; shift 2; exec "$@"' sh \
        "/sys/fs/cgroup/cpu/$cg" "/sys/fs/cgroup/memory/$cg" "$@"
}
await() { # HOST PORT PATH PID
    until [[ $(curl -s -o /dev/null -w '%{http_code}' -H "Host: $1" "http://127.0.0.1:$2$3" 2>/dev/null) == 200 ]]; do
        kill -0 "$4" 2>/dev/null || { cat "$work"/*.out >&2 2>/dev/null; exit 1; }
        sleep 0.05
    done
}
measure() { # LABEL HOST PORT PATH
    taskset -c 0 wrk -t1 -c50 -d"${window}s" -H "Host: $2" "http://127.0.0.1:$3$4" >/dev/null 2>&1
    local out
    out=$(taskset -c 0 wrk -t1 -c50 -d"${window}s" --latency -H "Host: $2" "http://127.0.0.1:$3$4" 2>&1)
    printf '%-28s %10s req/s  p50 %8s  p99 %8s  %s\n' "$1" \
        "$(awk '/Requests\/sec/ {print $2}' <<<"$out")" "$(awk '$1 == "50%" {print $2}' <<<"$out")" \
        "$(awk '$1 == "99%" {print $2}' <<<"$out")" "$(grep -o 'Non-2xx or 3xx responses: [0-9]*' <<<"$out" || true)"
}

echo "# bench/selfhost.sh, $(date -u +%FT%TZ), $(nproc) CPUs, window ${window}s, wrk -t1 -c50"
java=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java
in_cgroup "$java" -XX:+UseSerialGC -jar target/usher.jar run --config "$work/usher.yaml" >"$work/usher.out" 2>&1 &
usher=$!
pids+=("$usher")
await plain.bench.test "$port" / "$usher"
measure "usher plain site" plain.bench.test "$port" /
measure "usher forward_auth site" auth.bench.test "$port" /
measure "usher root: 64 KiB file" files.bench.test "$port" /file.bin
pkill -P "$usher" 2>/dev/null || true # the JVM, started under taskset by the background subshell
kill "$usher" 2>/dev/null || true
wait "$usher" 2>/dev/null || true
sleep 1
mkdir -p "$work/tmp"
in_cgroup nginx -p "$work" -e "$work/static-error.log" -c "$work/static.conf" &
pids+=($!)
await files.bench.test "$sport" /file.bin $!
measure "nginx static 64 KiB file" files.bench.test "$sport" /file.bin
