#!/usr/bin/env bash
# bench/h2-alloc.sh — heap allocated and thread CPU per proxied HTTP/2-over-TLS request, measured inside the JVM.
#
#   bench/h2-alloc.sh [--port P] [--warm N] [--requests N] [--rounds R] [--label L] [--profile FILE.jfr] [--syscalls]
#   H2ALLOC_LAUNCHER=/tmp/old/usher bench/h2-alloc.sh ...    (another launcher + jar, e.g. a copy of an older build)
#
# Usher (./usher run: the launcher's flags) pinned to CPU 1, one nginx backend (~300-byte answer, keep-alive) and
# h2load -c10 -m10 -t1 (as bench.sh's h2 pass) on CPU 0. After N warm-up requests, R rounds of N requests; around
# each round JFR (jdk.ThreadAllocationStatistics) and `jcmd PID Thread.print -e` read every Java thread's allocated
# bytes and CPU time, so the figures are the JVM's own counters: allocation per request does not depend on how busy
# the machine is (only on how requests batch per read), CPU per request does somewhat. CPU counts every JVM thread
# (GC included) but the JIT compiler threads, the attach listener and JFR's own. --profile FILE.jfr: one more round recorded with JFR's "profile" settings
# (allocation samples with stacks: `jfr view allocation-by-site FILE.jfr`). --syscalls: one more round under
# `strace -c -f`, printing the JVM's system calls per request (strace slows it down; the counts hold).
# Ports P (HTTPS), P+1 (backend), P+2 (plain HTTP). One line per round on stdout.
set -euo pipefail
port=17500 warm=200000 requests=100000 rounds=3 label=run profile= syscalls=0
while (($#)); do
    case $1 in
    --port) port=$2; shift 2 ;;
    --warm) warm=$2; shift 2 ;;
    --requests) requests=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --label) label=$2; shift 2 ;;
    --profile) profile=$(realpath -m -- "$2"); shift 2 ;;
    --syscalls) syscalls=1; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
[[ -x ./usher ]] || { echo "run from the repository root" >&2; exit 2; }
# jcmd and jfr of the JDK the launcher picks (scripts/jdk.sh), not whatever java is on PATH
source scripts/jdk.sh
usher_find_jdk || exit 1
PATH=$USHER_JDK_HOME/bin:$PATH
bport=$((port + 1))
source bench/one-site.sh
work=$(mktemp -d /tmp/usher-h2alloc.XXXXXX)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf -- "$work"
}
trap cleanup EXIT

for p in "$port" "$bport" "$((port + 2))"; do
    ! ss -Htln "sport = :$p" | grep -q . || { echo "port $p is in use" >&2; exit 1; }
done
one_site_backend "$work" "$bport"
one_site_https "$work" "$port" "$bport"

launcher=${H2ALLOC_LAUNCHER:-./usher}
"$launcher" version >/dev/null # builds the jar (and the AOT cache) outside the measurement
taskset -c 1 "$launcher" run --config "$work/usher.yaml" >"$work/usher.out" 2>&1 &
jvm=$!
pids+=("$jvm")
until [[ $(curl -sk -o /dev/null -w '%{http_code}' --resolve "whoami01.bench.test:$port:127.0.0.1" "$url" 2>/dev/null) == 200 ]]; do
    kill -0 "$jvm" 2>/dev/null || { cat "$work/usher.out" >&2; exit 1; }
    sleep 0.05
done

# cpu_ms -> CPU milliseconds summed over the JVM's threads (the JIT compiler, attach and JFR threads left out)
cpu_ms() {
    jcmd "$jvm" Thread.print -e 2>/dev/null | awk '
        /^"/ && !/^"(Attach Listener|JFR |C[12] CompilerThread)/ && match($0, /cpu=[0-9.]+ms/) { c += substr($0, RSTART + 4, RLENGTH - 6) }
        END { printf "%.2f\n", c }'
}
# allocated FILE.jfr -> bytes the Java threads allocated between the recording's start and end (exact counts from
# jdk.ThreadAllocationStatistics, emitted at both ends; the attach and JFR threads left out)
allocated() {
    jfr print --json --events jdk.ThreadAllocationStatistics "$1" | python3 -c '
import json, sys
seen = {}
for e in json.load(sys.stdin)["recording"]["events"]:
    v = e["values"]; t = v.get("thread") or {}
    name = t.get("javaName") or ""
    if name.startswith("JFR ") or name == "Attach Listener":
        continue
    seen.setdefault(t.get("javaThreadId"), []).append(v["allocated"])
print(sum(max(a) - min(a) for a in seen.values()))'
}
cat >"$work/alloc.jfc" <<'EOF'
<?xml version="1.0" encoding="UTF-8"?>
<configuration version="2.0" label="alloc">
  <event name="jdk.ThreadAllocationStatistics"><setting name="enabled">true</setting><setting name="period">everyChunk</setting></event>
</configuration>
EOF
load() {
    taskset -c 0 h2load -n "$1" -c10 -m10 -t1 --connect-to "127.0.0.1:$port" "$url" 2>&1
}
out=$(load "$warm")
printf '%-10s %5s %8s %10s %10s %9s\n' label round req_s bytes_req cpu_us_req requests
for ((r = 1; r <= rounds; r++)); do
    sleep 1
    c0=$(cpu_ms)
    jcmd "$jvm" JFR.start name=alloc settings="$work/alloc.jfc" >/dev/null
    out=$(load "$requests")
    jcmd "$jvm" JFR.stop name=alloc filename="$work/round.jfr" >/dev/null
    c1=$(cpu_ms)
    a=$(allocated "$work/round.jfr")
    ok=$(awk '/^status codes:/ {print $3}' <<<"$out")
    rps=$(awk '/^finished in/ {print $4}' <<<"$out")
    ((ok == requests)) || echo "# round $r: only $ok of $requests answered 2xx" >&2
    awk -v l="$label" -v r="$r" -v s="$rps" -v a="$a" -v c0="$c0" -v c1="$c1" -v n="$requests" \
        'BEGIN { printf "%-10s %5d %8.0f %10.0f %10.1f %9d\n", l, r, s, a / n, (c1 - c0) * 1000 / n, n }'
done
if [[ -n $profile ]]; then
    jcmd "$jvm" JFR.start name=profile settings=profile >/dev/null
    load "$requests" >/dev/null
    jcmd "$jvm" JFR.stop name=profile filename="$profile" >/dev/null
fi
if ((syscalls)); then
    strace -c -f -p "$jvm" -o "$work/strace.txt" 2>/dev/null &
    tracer=$!
    sleep 1
    load "$requests" >/dev/null
    kill -INT "$tracer"
    wait "$tracer" 2>/dev/null || true
    awk -v n="$requests" -v l="$label" '$NF ~ /^[a-z_0-9]+$/ && $4 ~ /^[0-9]+$/ && $NF != "total" {
        printf "%s syscalls/req %-14s %.3f\n", l, $NF, $4 / n }' "$work/strace.txt" | sort -k4 -n -r | head -8
fi
