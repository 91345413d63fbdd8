#!/usr/bin/env bash
# bench/footprint.sh [--load] [--quiet S] LABEL plain|https — Usher's memory footprint, the way BENCHMARKS.md's
# "Footprint, 2026-11-30 (second pass)" measured it (run as root from the repository root; cgroup v1 memory).
#
# Starts ./usher run with 20 sites in front of one local nginx (started here on 127.0.0.1:18690 when that port is
# free) in a fresh memory cgroup, times the launch to the first 200, sends one request, waits --quiet seconds
# (default 30) and reads the cgroup's total_rss ("anon"). With --load: wrk -t1 -c50 -d10s, 25 s of quiet, anon again,
# plus requests/s and the process's CPU time per request. "https" = 20 siteNN.localhost sites with local-CA
# certificates (kept in /tmp/usher-footprint/data-https, so only the first run issues them; wrk gets SNI through a
# private /etc/hosts in its own mount namespace). Ports: 18680 (HTTP), 18643 (HTTPS), 18681 (admin).
# USHER_JAVA_OPTS, USHER_AOT and USHER_AOT_TRAINING pass through to the launcher. Prints one RESULT line.
set -euo pipefail
load='' quiet=30
while [[ ${1-} == --* ]]; do
    case $1 in
        --load) load=1 ;;
        --quiet) quiet=$2; shift ;;
        *) echo "footprint.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
(($# == 2)) || { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
label=$1 mode=$2
[[ $mode == plain || $mode == https ]] || { echo "footprint.sh: mode is plain or https" >&2; exit 2; }
[[ $(id -u) == 0 ]] || { echo "footprint.sh: must run as root (cgroup writes)" >&2; exit 2; }
[[ -x ./usher ]] || { echo "footprint.sh: run from the repository root" >&2; exit 2; }
work=/tmp/usher-footprint
mkdir -p "$work/data-$mode"
chmod 700 "$work/data-$mode"

if ! ss -Htln 'sport = :18690' | grep -q .; then
    cat >"$work/nginx.conf" <<CONF
worker_processes 1;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 1024; }
http {
  access_log off;
  keepalive_requests 1000000;
  server {
    listen 127.0.0.1:18690;
    location / { default_type text/plain; return 200 "Hostname: backend\nGET / HTTP/1.1\n$(printf '%0300d' 0)\n"; }
  }
}
CONF
    nginx -c "$work/nginx.conf"
fi

cfg=$work/$mode.yaml
{
    if [[ $mode == https ]]; then
        echo 'listen: {http: "127.0.0.1:18680", https: "127.0.0.1:18643"}'
    else
        echo 'listen: {http: "127.0.0.1:18680"}'
    fi
    echo 'admin: "127.0.0.1:18681"'
    echo "data: $work/data-$mode"
    echo "sites:"
    for i in $(seq -w 1 20); do
        if [[ $mode == https ]]; then echo "  site$i.localhost: 127.0.0.1:18690"; else echo "  http://site$i.bench.test: 127.0.0.1:18690"; fi
    done
} >"$cfg"
if [[ $mode == https ]]; then
    url=https://site01.localhost:18643/ curl_args=(-k --resolve site01.localhost:18643:127.0.0.1)
    { cat /etc/hosts; echo "127.0.0.1 site01.localhost"; } >"$work/hosts"
    wrk_cmd=(unshare -m sh -c "mount --bind $work/hosts /etc/hosts && exec wrk -t1 -c50 -d10s $url")
else
    url=http://127.0.0.1:18680/ curl_args=(-H "Host: site01.bench.test")
    wrk_cmd=(wrk -t1 -c50 -d10s -H "Host: site01.bench.test" "$url")
fi

cg=/sys/fs/cgroup/memory/usher-footprint-$label
rmdir "$cg" 2>/dev/null || true
mkdir "$cg"
t0=$(date +%s%N)
sh -c 'echo $$ > "$1"/cgroup.procs && shift && exec "$@"' sh "$cg" ./usher run --config "$cfg" >"$work/$label.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rmdir "$cg" 2>/dev/null' EXIT
code=
for _ in $(seq 1 1500); do
    code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "${curl_args[@]}" "$url" 2>/dev/null) || true
    [[ $code == 200 ]] && break
    kill -0 $pid 2>/dev/null || { cat "$work/$label.log" >&2; exit 1; }
    sleep 0.01
done
start=$(awk -v d=$(($(date +%s%N) - t0)) 'BEGIN{printf "%.2f", d/1e9}')
anon() { awk '/^total_rss /{printf "%.1f", $2/1048576}' "$cg/memory.stat"; }
cpu_ticks() { awk '{print $14+$15}' /proc/$pid/stat; }
sleep "$quiet"
idle=$(anon)
after=- rps=- cpu=-
if [[ -n $load ]]; then
    c0=$(cpu_ticks)
    "${wrk_cmd[@]}" >"$work/$label.wrk" 2>&1
    c1=$(cpu_ticks)
    rps=$(awk '/Requests\/sec/{printf "%.0f", $2}' "$work/$label.wrk")
    cpu=$(awk -v a="$c0" -v b="$c1" '/requests in/{ if ($1 > 0) printf "%.1f", (b-a)*1e6/100/$1 }' "$work/$label.wrk")
    sleep 25
    after=$(anon)
fi
echo "RESULT $label $mode first_200=${start}s idle_anon_mib=$idle after_load_anon_mib=$after rps=$rps cpu_us_per_req=$cpu threads=$(find /proc/$pid/task -mindepth 1 -maxdepth 1 | wc -l)"
