#!/usr/bin/env bash
# bench/footprint.sh [--load] [--warmup S] [--quiet S] [--timeline] [--cpu1] [--ports BASE] LABEL plain|https|https-files — Usher's memory
# footprint, the way BENCHMARKS.md's "Footprint, 2026-11-30" passes measured it (run as root from the repository
# root; cgroup v1 memory).
#
# Starts ./usher run with 20 sites in front of one local nginx (started here on 127.0.0.1:18690 when that port is
# free) in a fresh memory cgroup, times the launch to the first 200, sends one request, waits --quiet seconds
# (default 30) and reads the cgroup's total_rss ("anon"). With --load: wrk -t1 -c50 -d10s, 25 s of quiet, anon again,
# plus requests/s and the process's CPU time per request. "https" = 20 siteNN.localhost sites with local-CA
# certificates (kept in /tmp/usher-footprint/data-https, so only the first run issues them; wrk gets SNI through a
# private /etc/hosts in its own mount namespace). "https-files" = bench/run.sh --tls's setting: 20 sites with
# `tls: {cert, key}` files, one shared self-signed P-256 certificate. To reproduce bench/bench.sh --quick's figures:
# --cpu1 (pinned to CPU 1 with a 1-CPU quota, as bench/run.sh runs the proxy) and its sampling time, --quiet 6
# (hey pass: median of 5 samples over 10 s), --quiet 3 (wrk pass) or --quiet 2 (TLS passes). --timeline prints
# anon once a second through the quiet window; --warmup S runs wrk for S s before the measured 10 s.
# Ports: 18680 (HTTP), 18643 (HTTPS), 18681 (admin), nginx 18690; --ports BASE uses BASE+0/+1/+2/+10 instead.
# USHER_JAVA_OPTS, USHER_AOT, USHER_AOT_TRAINING and USHER_AOT_LINK pass through to the launcher; FOOTPRINT_EXTRA_YAML
# (top-level YAML lines) is added to the config. Prints one RESULT line.
set -euo pipefail
load='' quiet=30 cpu1='' base='' timeline='' warmup=0
while [[ ${1-} == --* ]]; do
    case $1 in
        --load) load=1 ;;
        --quiet) quiet=$2; shift ;;
        --cpu1) cpu1=1 ;;
        --timeline) timeline=1 ;;
        --warmup) warmup=$2; shift ;;
        --ports) base=$2; shift ;;
        *) echo "footprint.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
(($# == 2)) || { sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
label=$1 mode=$2
[[ $mode == plain || $mode == https || $mode == https-files ]] || { echo "footprint.sh: mode is plain, https or https-files" >&2; exit 2; }
[[ $(id -u) == 0 ]] || { echo "footprint.sh: must run as root (cgroup writes)" >&2; exit 2; }
[[ -x ./usher ]] || { echo "footprint.sh: run from the repository root" >&2; exit 2; }
p_http=18680 p_https=18643 p_admin=18681 p_nginx=18690 work=/tmp/usher-footprint
if [[ -n $base ]]; then
    p_http=$base p_https=$((base + 1)) p_admin=$((base + 2)) p_nginx=$((base + 10)) work=/tmp/usher-footprint-$base
fi
mkdir -p "$work/data-$mode"
chmod 700 "$work/data-$mode"

if ! ss -Htln "sport = :$p_nginx" | grep -q .; then
    cat >"$work/nginx.conf" <<CONF
worker_processes 1;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 1024; }
http {
  access_log off;
  keepalive_requests 1000000;
  server {
    listen 127.0.0.1:$p_nginx;
    location / { default_type text/plain; return 200 "Hostname: backend\nGET / HTTP/1.1\n$(printf '%0300d' 0)\n"; }
  }
}
CONF
    nginx -c "$work/nginx.conf"
fi

for port in $p_http $p_https $p_admin; do # an Usher left over from an interrupted run would answer instead
    ! ss -Htln "sport = :$port" | grep -q . || { echo "footprint.sh: port $port is in use" >&2; exit 1; }
done
cfg=$work/$mode.yaml
{
    if [[ $mode == plain ]]; then
        echo "listen: {http: \"127.0.0.1:$p_http\"}"
    else
        echo "listen: {http: \"127.0.0.1:$p_http\", https: \"127.0.0.1:$p_https\"}"
    fi
    echo "admin: \"127.0.0.1:$p_admin\""
    echo "data: $work/data-$mode"
    [[ -z ${FOOTPRINT_EXTRA_YAML-} ]] || echo "$FOOTPRINT_EXTRA_YAML" # top-level settings of a caller (fleet-footprint.sh)
    echo "sites:"
    for i in $(seq -w 1 20); do
        case $mode in
            https) echo "  site$i.localhost: 127.0.0.1:$p_nginx" ;;
            https-files) echo "  site$i.localhost: {to: \"127.0.0.1:$p_nginx\", tls: {cert: \"$work/bench.crt\", key: \"$work/bench.key\"}}" ;;
            *) echo "  http://site$i.bench.test: 127.0.0.1:$p_nginx" ;;
        esac
    done
} >"$cfg"
if [[ $mode == https-files && ! -f $work/bench.crt ]]; then
    # like bench/run.sh --tls: one self-signed P-256 certificate for all the names
    san=$(for i in $(seq -w 1 20); do printf 'DNS:site%s.localhost,' "$i"; done)IP:127.0.0.1
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 30 -subj /CN=footprint \
        -addext "subjectAltName=$san" -keyout "$work/bench.key" -out "$work/bench.crt" 2>/dev/null
fi
if [[ $mode != plain ]]; then
    url=https://site01.localhost:$p_https/ curl_args=(-k --resolve site01.localhost:$p_https:127.0.0.1)
    { cat /etc/hosts; echo "127.0.0.1 site01.localhost"; } >"$work/hosts"
    wrk_cmd=(unshare -m sh -c "mount --bind $work/hosts /etc/hosts && exec wrk -t1 -c50 -d10s $url")
else
    url=http://127.0.0.1:$p_http/ curl_args=(-H "Host: site01.bench.test")
    wrk_cmd=(wrk -t1 -c50 -d10s -H "Host: site01.bench.test" "$url")
fi

cg=/sys/fs/cgroup/memory/usher-footprint-$label
cpucg=/sys/fs/cgroup/cpu,cpuacct/usher-footprint-$label
[[ -d /sys/fs/cgroup/cpu,cpuacct ]] || cpucg=/sys/fs/cgroup/cpu/usher-footprint-$label
rmdir "$cg" 2>/dev/null || true
mkdir "$cg"
run=(sh -c 'echo $$ > "$1"/cgroup.procs && shift && exec "$@"' sh "$cg")
if [[ -n $cpu1 ]]; then
    rmdir "$cpucg" 2>/dev/null || true
    mkdir "$cpucg"
    echo 100000 >"$cpucg/cpu.cfs_period_us" && echo 100000 >"$cpucg/cpu.cfs_quota_us"
    run=(taskset -c 1 sh -c 'echo $$ > "$1"/cgroup.procs && echo $$ > "$2"/cgroup.procs && shift 2 && exec "$@"' sh "$cg" "$cpucg")
fi
t0=$(date +%s%N)
"${run[@]}" ./usher run --config "$cfg" >"$work/$label.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rmdir "$cg" 2>/dev/null; [[ -z $cpu1 ]] || rmdir "$cpucg" 2>/dev/null' EXIT
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
# CPU time (user+system, all threads) the JVM spent up to its first 200: steadier than start's wall clock on a busy machine
start_cpu=$(awk -v t="$(cpu_ticks)" -v hz="$(getconf CLK_TCK)" 'BEGIN{printf "%.2f", t/hz}')
if [[ -n $timeline ]]; then # anon once a second through the quiet window, on one line
    line=
    for ((s = 1; s <= quiet; s++)); do sleep 1; line+=" $s:$(anon)"; done
    echo "TIMELINE $label$line"
else
    sleep "$quiet"
fi
idle=$(anon)
after=- rps=- cpu=-
if [[ -n $load ]]; then
    if ((warmup > 0)); then # JIT warm-up outside the measured run
        "${wrk_cmd[@]/-d10s/-d${warmup}s}" >"$work/$label.warmup" 2>&1
    fi
    c0=$(cpu_ticks)
    "${wrk_cmd[@]}" >"$work/$label.wrk" 2>&1
    c1=$(cpu_ticks)
    rps=$(awk '/Requests\/sec/{printf "%.0f", $2}' "$work/$label.wrk")
    cpu=$(awk -v a="$c0" -v b="$c1" '/requests in/{ if ($1 > 0) printf "%.1f", (b-a)*1e6/100/$1 }' "$work/$label.wrk")
    sleep 25
    after=$(anon)
fi
echo "RESULT $label $mode first_200=${start}s start_cpu=${start_cpu}s idle_anon_mib=$idle after_load_anon_mib=$after rps=$rps cpu_us_per_req=$cpu threads=$(find /proc/$pid/task -mindepth 1 -maxdepth 1 | wc -l)"
