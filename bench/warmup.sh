#!/usr/bin/env bash
# bench/warmup.sh — how fast a freshly started Usher reaches its steady plain-HTTP/1.1 throughput on one CPU.
#
#   bench/warmup.sh [--windows N] [--window S] [--port P] [--label L] [--h2 | --gzip]   (as root, from the repository root)
#   USHER_JAVA_OPTS="-XX:CICompilerCount=2" bench/warmup.sh ...            (JVM flags under test; see ./usher)
#   WARMUP_LAUNCHER=./usher-old bench/warmup.sh ...                        (another launcher, e.g. an older copy)
#
# Usher (./usher run, so the launcher's flags and AOT cache) in a cgroup of its own with a 1-CPU quota
# (cpu.cfs_quota_us=100000), pinned to CPU 1; one nginx backend (~300-byte answer, keep-alive) and wrk on CPU 0.
# From the first 200 on, N back-to-back windows of `wrk -t1 -c50 -d S`; per window: req/s, and the JVM's CPU per
# request split into the JIT compiler threads and the rest, their sum, and the JVM's CPU seconds since the first 200
# (utime+stime from /proc/PID/task/*/stat; on a busy machine the CPU figures hold better than req/s) and the requests
# served so far: requests against cpu_s is the warm-up a quiet 1-CPU box would see. At the end the
# cgroup's total_rss after 10 s of quiet. Ports P (Usher) and P+1 (backend). One line per window on stdout.
# --h2: HTTP/2 over TLS instead (a self-signed P-256 certificate, `h2load -D S -c10 -m10 -t1`, as bench.sh's h2 pass).
# --gzip: HTTPS + gzip instead (the same certificate, `wrk -t1 -c50` asking for /text, a 4096-byte text/plain page,
# with "Accept-Encoding: gzip", as bench.sh's gzip-wrk pass).
set -euo pipefail
windows=10 window=2 port=18500 label=run h2=0 gzip=0
while (($#)); do
    case $1 in
    --windows) windows=$2; shift 2 ;;
    --window) window=$2; shift 2 ;;
    --port) port=$2; shift 2 ;;
    --label) label=$2; shift 2 ;;
    --h2) h2=1; shift ;;
    --gzip) gzip=1; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
[[ -x ./usher ]] || { echo "run from the repository root" >&2; exit 2; }
bport=$((port + 1))
source bench/one-site.sh
work=$(mktemp -d /tmp/usher-warmup.XXXXXX)
cg=usher-warmup-$port
tick=$(getconf CLK_TCK)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    for c in cpu memory; do rmdir "/sys/fs/cgroup/$c/$cg" 2>/dev/null || true; done
    rm -rf -- "$work"
}
trap cleanup EXIT

one_site_backend "$work" "$bport"
if ((h2 || gzip)); then
    one_site_https "$work" "$port" "$bport"
    { cat /etc/hosts; echo "127.0.0.1 whoami01.bench.test"; } >"$work/hosts"
else
    one_site_http "$work" "$port" "$bport"
fi

launcher=${WARMUP_LAUNCHER:-./usher}
"$launcher" version >/dev/null # builds the jar and the AOT cache outside the measurement
for c in cpu memory; do mkdir -p "/sys/fs/cgroup/$c/$cg"; done
echo 100000 >"/sys/fs/cgroup/cpu/$cg/cpu.cfs_quota_us"
sync && echo 3 >/proc/sys/vm/drop_caches 2>/dev/null || true
cat target/usher.jar target/usher.aot >/dev/null 2>&1 || true # page cache warm, as bench/run.sh's prewarm
start=$(date +%s.%N)
taskset -c 1 sh -c 'echo $$ >"$1/cgroup.procs"; echo $$ >"$2/cgroup.procs"; shift 2; exec "$@"' sh \
    "/sys/fs/cgroup/cpu/$cg" "/sys/fs/cgroup/memory/$cg" "$launcher" run --config "$work/usher.yaml" \
    >"$work/usher.out" 2>&1 &
jvm=$!
pids+=("$jvm")
until [[ $(curl -sk -o /dev/null -w '%{http_code}' --resolve "whoami01.bench.test:$port:127.0.0.1" "$url" 2>/dev/null) == 200 ]]; do
    kill -0 "$jvm" 2>/dev/null || { cat "$work/usher.out" >&2; exit 1; }
    sleep 0.02
done
first=$(date +%s.%N)

# cpu_ticks PID -> "jit other": utime+stime ticks of the compiler threads, and of every other thread
cpu_ticks() {
    local jit=0 other=0 t comm rest
    for t in /proc/"$1"/task/*; do
        comm=$(<"$t/comm") 2>/dev/null || continue
        rest=$(<"$t/stat") 2>/dev/null || continue
        rest=${rest##*) }
        read -r -a f <<<"$rest"
        if [[ $comm == C[12]\ CompilerThre* ]]; then jit=$((jit + f[11] + f[12])); else other=$((other + f[11] + f[12])); fi
    done
    echo "$jit $other"
}
load=(wrk -t1 -c50); ((h2)) && load=(h2load -c10 -m10 -t1); ((gzip)) && load=(wrk -t1 -c50 /text gzip)
printf '# %s: start to first 200 %.2f s; %d windows of %s -d%ss\n' "$label" "$(echo "$first - $start" | bc)" "$windows" "${load[*]}" "$window"
printf '%-8s %6s %9s %9s %9s %9s %8s %9s\n' label window req_s us_req us_req_jit us_total cpu_s requests
cum=0 cumreqs=0
read -r j0 o0 < <(cpu_ticks "$jvm")
for ((w = 1; w <= windows; w++)); do
    if ((h2)); then
        out=$(timeout $((window + 20)) taskset -c 0 h2load -D "$window" -c10 -m10 -t1 --connect-to "127.0.0.1:$port" "$url" 2>&1)
        reqs=$(awk '/^requests:/ {print $8}' <<<"$out")
        rps=$(awk '/^finished in/ {print $4}' <<<"$out")
        non2xx=$(awk '/^status codes:/ {n = $5 + $7 + $9; if (n) print n}' <<<"$out")
    elif ((gzip)); then
        # wrk sends the URL's host as SNI: the site's name, resolved by a private /etc/hosts (as bench/run.sh does)
        out=$(taskset -c 0 unshare -m sh -c 'mount --bind "$1" /etc/hosts && shift && exec "$@"' sh "$work/hosts" \
            wrk -t1 -c50 -d"${window}s" -H 'Accept-Encoding: gzip' "https://whoami01.bench.test:$port/text" 2>&1)
        reqs=$(awk '/requests in/ {print $1}' <<<"$out")
        rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
        non2xx=$(awk '/Non-2xx/ {print $NF}' <<<"$out")
    else
        out=$(taskset -c 0 wrk -t1 -c50 -d"${window}s" -H 'Host: whoami01.bench.test' "http://127.0.0.1:$port/" 2>&1)
        reqs=$(awk '/requests in/ {print $1}' <<<"$out")
        rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
        non2xx=$(awk '/Non-2xx/ {print $NF}' <<<"$out")
    fi
    read -r j1 o1 < <(cpu_ticks "$jvm")
    [[ -z $non2xx ]] || echo "# window $w: non-2xx $non2xx" >&2
    cum=$((cum + o1 - o0 + j1 - j0)) cumreqs=$((cumreqs + reqs))
    awk -v l="$label" -v w="$w" -v r="$rps" -v n="$reqs" -v o=$((o1 - o0)) -v j=$((j1 - j0)) -v c="$cum" -v cr="$cumreqs" -v hz="$tick" \
        'BEGIN { printf "%-8s %6d %9.0f %9.1f %9.1f %9.1f %8.2f %9d\n", l, w, r, o * 1e6 / hz / n, j * 1e6 / hz / n, (o + j) * 1e6 / hz / n, c / hz, cr }'
    j0=$j1 o0=$o1
done
sleep 10
rss=$(awk '$1 == "total_rss" {print $2}' "/sys/fs/cgroup/memory/$cg/memory.stat")
printf '# %s: total_rss 10 s after the load %.1f MiB\n' "$label" "$(echo "$rss / 1048576" | bc -l)"
