#!/usr/bin/env bash
#
# bench/https-backend.sh — requests per second through Usher to one nginx backend, plain HTTP against HTTPS (TLS
# 1.3, a kept-alive pool, the certificate verified against a CA file), in interleaved rounds of the same run:
#
#   bench/https-backend.sh [SECONDS_PER_ROUND=10] [ROUNDS=2]     # from the repository root
#
# Usher (./usher run) is pinned to CPU 1, nginx (one worker) and hey (-c 50) to CPU 0; Usher serves plain HTTP to
# the client, so the only difference between the two sites is the backend hop. Prints one line per round and site.
set -euo pipefail
[[ -x ./usher ]] || { echo "run from the repository root" >&2; exit 2; }
seconds=${1:-10}
rounds=${2:-2}
port=$((20000 + RANDOM % 20000))
plain=$((port + 1))
tls=$((port + 2))
work=$(mktemp -d /tmp/usher-https-backend.XXXXXX)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf -- "$work"
}
trap cleanup EXIT

# A CA and a backend certificate for 127.0.0.1 signed by it, so that verification is on (as by default).
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$work/ca.key" -out "$work/ca.pem" \
    -days 2 -subj /CN=bench-ca >/dev/null 2>&1
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$work/key.pem" -out "$work/req.csr" \
    -subj /CN=127.0.0.1 >/dev/null 2>&1
printf 'subjectAltName=IP:127.0.0.1\n' >"$work/ext.cnf"
openssl x509 -req -in "$work/req.csr" -CA "$work/ca.pem" -CAkey "$work/ca.key" -CAcreateserial -days 2 \
    -extfile "$work/ext.cnf" -out "$work/cert.pem" >/dev/null 2>&1

source bench/one-site.sh
one_site_backend "$work" "$plain" "$tls" "$work/cert.pem" "$work/key.pem"

cat >"$work/usher.yaml" <<YAML
listen: {http: "127.0.0.1:$port"}
data: $work/data
admin: off
sites:
  http://plain.bench.test: 127.0.0.1:$plain
  http://tls.bench.test: {to: "https://127.0.0.1:$tls", upstream_tls: {ca: "$work/ca.pem"}}
YAML
./usher version >/dev/null # builds the jar outside the measurement
taskset -c 1 ./usher run --config "$work/usher.yaml" >"$work/usher.out" 2>&1 &
jvm=$!
pids+=("$jvm")
for host in plain.bench.test tls.bench.test; do
    until [[ $(curl -s -o /dev/null -w '%{http_code}' -H "Host: $host" "http://127.0.0.1:$port/" 2>/dev/null) == 200 ]]; do
        kill -0 "$jvm" 2>/dev/null || { cat "$work/usher.out" >&2; exit 1; }
        sleep 0.05
    done
done
# warm-up: both paths JIT-compiled before the first measured round
for host in plain.bench.test tls.bench.test; do
    taskset -c 0 hey -z 5s -c 50 -host "$host" "http://127.0.0.1:$port/" >/dev/null
done
for ((r = 1; r <= rounds; r++)); do
    for host in plain.bench.test tls.bench.test; do
        out=$(taskset -c 0 hey -z "${seconds}s" -c 50 -host "$host" "http://127.0.0.1:$port/")
        rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
        codes=$(awk '/Status code distribution/ {f=1; next} f && /\[/ {printf "%s%s", sep, $0; sep=" "} f && !/\[/ && NF==0 {f=0}' <<<"$out" | tr -s ' ')
        p50=$(awk '/ 50% in/ {print $3}' <<<"$out")
        echo "round $r  ${host%%.*}  req/s $rps  p50 ${p50}s  codes:$codes"
    done
done
