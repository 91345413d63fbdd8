#!/usr/bin/env bash
# bench/streams.sh [--gib N] [--conns N] — a TCP stream's throughput and per-connection memory, Usher beside HAProxy
# doing the same relay (mode tcp) in the same kind of cgroup (run as root from the repository root; cgroup v1).
#
# Each proxy in turn runs pinned to CPU 1 with a 1-CPU quota in a fresh memory cgroup (as bench/footprint.sh --cpu1),
# relaying 127.0.0.1:18750 to a backend on 127.0.0.1:18760; the peers run on CPU 0:
#   throughput: N GiB (default 2) from /dev/zero through the proxy into a sink (socat -u, 256 KiB buffers), timed;
#               the best of 3 runs, in MiB/s, plus the proxy's CPU seconds per GiB
#   memory:     anon (total_rss) of the proxy's cgroup idle, then with --conns (default 1000) connections open
#               through it to an ncat sink, each having sent 16 bytes; (loaded - idle) / conns = KiB per connection
# Needs socat, ncat and haproxy (Debian). Prints one RESULT line per proxy.
set -euo pipefail
gib=2 conns=1000
while [[ ${1-} == --* ]]; do
    case $1 in
        --gib) gib=$2; shift ;;
        --conns) conns=$2; shift ;;
        *) echo "streams.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
[[ $(id -u) == 0 ]] || { echo "streams.sh: must run as root (cgroup writes)" >&2; exit 2; }
[[ -x ./usher ]] || { echo "streams.sh: run from the repository root" >&2; exit 2; }
front=18750 back=18760 work=/tmp/usher-bench-streams
mkdir -p "$work"
cpucg_root=/sys/fs/cgroup/cpu,cpuacct
[[ -d $cpucg_root ]] || cpucg_root=/sys/fs/cgroup/cpu

cat >"$work/usher.yaml" <<YAML
listen: {http: "127.0.0.1:18751", https: off}
admin: off
streams:
  "127.0.0.1:$front": {to: "127.0.0.1:$back", max_connections: 20000}
YAML
cat >"$work/haproxy.cfg" <<CFG
global
    nbthread 1
    maxconn 5000
defaults
    mode tcp
    timeout connect 5s
    timeout client 10m
    timeout server 10m
frontend relay
    bind 127.0.0.1:$front
    default_backend sink
backend sink
    server sink 127.0.0.1:$back
CFG

# Usher's own figures first would leave the JIT cold for the first run: every measurement is the best of 3.
start_proxy() { # NAME
    cg=/sys/fs/cgroup/memory/usher-streams-$1 cpucg=$cpucg_root/usher-streams-$1
    rmdir "$cg" "$cpucg" 2>/dev/null || true
    mkdir "$cg" "$cpucg"
    echo 100000 >"$cpucg/cpu.cfs_period_us" && echo 100000 >"$cpucg/cpu.cfs_quota_us"
    local run=(taskset -c 1 sh -c 'echo $$ > "$1"/cgroup.procs && echo $$ > "$2"/cgroup.procs && shift 2 && exec "$@"' sh "$cg" "$cpucg")
    case $1 in
        usher) "${run[@]}" ./usher run --config "$work/usher.yaml" >"$work/usher.log" 2>&1 & ;;
        haproxy) "${run[@]}" haproxy -db -f "$work/haproxy.cfg" >"$work/haproxy.log" 2>&1 & ;;
    esac
    pid=$!
    for _ in $(seq 1 600); do
        ss -Htln "sport = :$front" | grep -q . && return 0
        sleep 0.05
    done
    echo "streams.sh: $1 does not listen on $front" >&2; cat "$work/$1.log" >&2; exit 1
}
stop_proxy() {
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    rmdir "$cg" "$cpucg" 2>/dev/null || true
}
anon() { awk '/^total_rss /{printf "%.1f", $2/1048576}' "$cg/memory.stat"; }
cpu_s() { awk -v hz="$(getconf CLK_TCK)" '{printf "%.2f", ($14+$15)/hz}' /proc/$pid/stat; }

measure() { # NAME
    local name=$1 best=0 cpu0 cpu1 t0 t1 rate sink
    start_proxy "$name"
    sleep 3
    idle_anon=$(anon)
    # Throughput: the sink discards; the sender stops after N GiB.
    taskset -c 0 socat -b 262144 -u TCP4-LISTEN:$back,bind=127.0.0.1,reuseaddr,fork OPEN:/dev/null &
    sink=$!
    sleep 0.3
    cpu0=$(cpu_s)
    for _ in 1 2 3; do
        t0=$(date +%s%N)
        taskset -c 0 sh -c "head -c $((gib << 30)) /dev/zero | socat -b 262144 -u - TCP4:127.0.0.1:$front"
        t1=$(date +%s%N)
        rate=$(awk -v b=$((gib << 30)) -v ns=$((t1 - t0)) 'BEGIN{printf "%.0f", b / 1048576 / (ns / 1e9)}')
        ((rate > best)) && best=$rate
    done
    cpu1=$(cpu_s)
    kill $sink 2>/dev/null; wait $sink 2>/dev/null || true
    cpu_per_gib=$(awk -v a="$cpu0" -v b="$cpu1" -v n=$((3 * gib)) 'BEGIN{printf "%.2f", (b - a) / n}')
    # Memory: conns connections held open through the proxy to one ncat sink.
    taskset -c 0 ncat -l 127.0.0.1 $back -k --max-conns $((conns + 100)) >/dev/null 2>&1 &
    sink=$!
    sleep 0.3
    before=$(anon)
    taskset -c 0 python3 - "$front" "$conns" <<'PY' &
import socket, sys, time
port, n = int(sys.argv[1]), int(sys.argv[2])
held = []
for _ in range(n):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"0123456789abcdef")
    held.append(s)
print("open", flush=True)
time.sleep(20)
PY
    holder=$!
    sleep 12
    loaded=$(anon)
    kill $holder $sink 2>/dev/null; wait $holder $sink 2>/dev/null || true
    per_conn=$(awk -v a="$before" -v b="$loaded" -v n="$conns" 'BEGIN{printf "%.1f", (b - a) * 1024 / n}')
    stop_proxy
    echo "RESULT $name throughput_mib_s=$best cpu_s_per_gib=$cpu_per_gib idle_anon_mib=$idle_anon anon_before_mib=$before anon_${conns}_conns_mib=$loaded kib_per_conn=$per_conn"
}

measure haproxy
measure usher
