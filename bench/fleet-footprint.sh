#!/usr/bin/env bash
# bench/fleet-footprint.sh [ROUNDS] — what storage: redis (a fleet, issue 24) costs one node: start-up (launch to the
# first 200, and CPU time to it) and idle memory (cgroup total_rss after 30 s quiet), measured by bench/footprint.sh
# in its https mode (20 local-CA sites) with the data directory only ("data") and with storage: redis ("redis"),
# interleaved data, redis, data, redis... in the same conditions. Starts its own redis-server on 127.0.0.1:28790
# (no persistence), stopped at the end. Also checks that a node without storage: loads no class of the Redis client
# (-Xlog:class+load). Run as root from the repository root. Prints the RESULT lines and the class check.
set -euo pipefail
rounds=${1:-2}
[[ $(id -u) == 0 ]] || { echo "fleet-footprint.sh: must run as root (cgroup writes)" >&2; exit 2; }
[[ -x ./usher ]] || { echo "fleet-footprint.sh: run from the repository root" >&2; exit 2; }
w=/tmp/usher-fleet-footprint
mkdir -p "$w/redis"
port=28790
redis-server --port $port --bind 127.0.0.1 --save '' --appendonly no --dir "$w/redis" >"$w/redis.log" 2>&1 &
redis_pid=$!
trap 'kill $redis_pid 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do [[ $(redis-cli -p $port ping 2>/dev/null) == PONG ]] && break; sleep 0.05; done
openssl rand -hex 32 >"$w/storage.key"
storage="storage: {redis: \"redis://127.0.0.1:$port/0\", encryption_key_file: \"$w/storage.key\", node: bench}"
for ((r = 1; r <= rounds; r++)); do
    bench/footprint.sh --ports 28800 "fleet-data-$r" https
    FOOTPRINT_EXTRA_YAML=$storage bench/footprint.sh --ports 28800 "fleet-redis-$r" https
done
# Which classes load, without storage: and with it: a node without it must not load the Redis client
grep -v '^storage:' /tmp/usher-footprint-28800/https.yaml >"$w/data.yaml"
{ cat "$w/data.yaml"; echo "$storage"; } >"$w/redis.yaml"
for mode in data redis; do
    USHER_JAVA_OPTS="-Xlog:class+load=info:file=$w/classes-$mode.log" ./usher run --config "$w/$mode.yaml" \
        >"$w/run-$mode.log" 2>&1 &
    run_pid=$!
    sleep 12
    kill $run_pid 2>/dev/null || true
    wait $run_pid 2>/dev/null || true
    echo "CLASSES $mode: redis.clients=$(grep -c ' redis\.clients\.' "$w/classes-$mode.log" || true)" \
        "org.apache.commons.pool2=$(grep -c ' org\.apache\.commons\.pool2\.' "$w/classes-$mode.log" || true)" \
        "dev.usher.fleet=$(grep -c ' dev\.usher\.fleet\.' "$w/classes-$mode.log" || true)" \
        "total=$(grep -c 'source:' "$w/classes-$mode.log" || true)"
done
