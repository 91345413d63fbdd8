#!/usr/bin/env bash
#
# bench/soak.sh — a long run of mixed traffic with the faults a real server sees, to show that nothing leaks and no
# error goes unexplained. Not part of CI (it takes half an hour). Everything runs on 127.0.0.1.
#
#   bench/soak.sh [--minutes 30] [--out bench/results/soak-DATE.md] [--work DIR]
#
# What runs, for --minutes (default 30):
#   - Usher (./usher run, the launcher's JVM flags) with two HTTPS sites whose certificates come from Pebble
#     (Debian package pebble; certificates valid 90 s, so each is renewed about every minute) and a plain HTTP
#     site; all three in front of two backends (./usher whoami) with an access log in the config's folder.
#   - traffic, all bounded by the duration: HTTP/1.1 over TLS (hey, 10 workers at 20 requests/s each), HTTP/2
#     (h2load, 4 connections x 4 streams at 25 requests/s per connection), HTTP/3 (2 QUIC connections at 20
#     requests/s) and 10 websocket connections echoing a message every 100 ms (the last two from
#     src/test/java/dev/usher/it/SoakClients.java, on the test classpath).
#   - a reload every 10 s (the config rewritten and renamed over, with a new response header value),
#   - backend b2 stopped and started again every 2 minutes (the deliberate source of errors),
#   - every 10 s a sample of Usher's RSS, heap (used/committed, from the admin endpoint's /metrics), open
#     descriptors and threads.
# Then writes a Markdown report with the requests by status per protocol, the errors, the reloads and renewals,
# descriptors at start and end, and an SVG plot of memory and descriptors over time (bench/soak-report.py).
#
# Needs: pebble, pebble-challtestsrv (package pebble), hey, h2load (nghttp2-client), curl, openssl, python3, and
# Maven for the test classpath.
set -euo pipefail

root=$(cd -P -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
cd -- "$root"
minutes=30
out=
work=
while (($#)); do
    case $1 in
    --minutes) minutes=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    -h | --help) sed -n '2,26p' "$0"; exit 0 ;;
    *) echo "soak.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
seconds=$((minutes * 60))
stamp=$(date -u +%Y-%m-%d-%H%M)
out=${out:-bench/results/soak-$stamp.md}
work=${work:-$(mktemp -d "${TMPDIR:-/tmp}/usher-soak.XXXXXX")}
mkdir -p "$work"
for tool in pebble pebble-challtestsrv hey h2load curl openssl python3 mvn; do
    command -v "$tool" >/dev/null || { echo "soak.sh: $tool is missing (see the header)" >&2; exit 1; }
done

# Ports (fixed, so Pebble can be pointed at Usher's challenge ports before Usher starts).
HTTP=18780 HTTPS=18743 ADMIN=18719 B1=18701 B2=18702 ACME=18714 ACME_MGMT=18715 DNS=18753 DNS_MGMT=18755

pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    [[ -n ${b2_pid:-} ]] && kill "$b2_pid" 2>/dev/null || true
    wait 2>/dev/null || true
}
trap cleanup EXIT
say() { printf '%s soak: %s\n' "$(date -u +%H:%M:%S)" "$*" | tee -a "$work/soak.log"; }

say "work folder $work, $minutes min"
source scripts/jdk.sh
usher_find_jdk --javac
export JAVA_HOME=$USHER_JDK_HOME
mvn -o -q -B test-compile dependency:build-classpath -Dmdep.outputFile="$work/classpath.txt" >"$work/build.log" 2>&1 ||
    { cat "$work/build.log"; exit 1; }
./usher version >/dev/null # builds target/usher.jar (and its AOT cache) when stale
test_cp=$root/target/test-classes:$root/target/classes:$(cat "$work/classpath.txt")

# Pebble's own TLS certificate: a small CA and a localhost leaf; Usher trusts the CA for the ACME API.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=soak-ca \
    -keyout "$work/ca.key" -out "$work/ca.pem" >/dev/null 2>&1
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=localhost \
    -keyout "$work/pebble.key" -out "$work/pebble.csr" >/dev/null 2>&1
openssl x509 -req -in "$work/pebble.csr" -CA "$work/ca.pem" -CAkey "$work/ca.key" -CAcreateserial -days 2 \
    -extfile <(printf 'subjectAltName=DNS:localhost,IP:127.0.0.1') -out "$work/pebble.pem" >/dev/null 2>&1
cat >"$work/pebble.json" <<JSON
{"pebble": {"listenAddress": "127.0.0.1:$ACME", "managementListenAddress": "127.0.0.1:$ACME_MGMT",
  "certificate": "$work/pebble.pem", "privateKey": "$work/pebble.key", "httpPort": $HTTP, "tlsPort": $HTTPS,
  "ocspResponderURL": "", "externalAccountBindingRequired": false, "certificateValidityPeriod": 90}}
JSON
pebble-challtestsrv -defaultIPv4 127.0.0.1 -defaultIPv6 "" -dns01 127.0.0.1:$DNS -http01 "" -https01 "" \
    -tlsalpn01 "" -management 127.0.0.1:$DNS_MGMT >"$work/challtestsrv.log" 2>&1 &
pids+=($!)
PEBBLE_VA_NOSLEEP=1 PEBBLE_WFE_NONCEREJECT=0 pebble -config "$work/pebble.json" -dnsserver 127.0.0.1:$DNS \
    >"$work/pebble.log" 2>&1 &
pids+=($!)

start_b2() {
    ./usher whoami --listen 127.0.0.1:$B2 --name b2 >>"$work/b2.log" 2>&1 &
    b2_pid=$!
}
./usher whoami --listen 127.0.0.1:$B1 --name b1 >"$work/b1.log" 2>&1 &
pids+=($!)
start_b2

conf=$work/etc/usher.yaml
mkdir -p "$work/etc"
write_config() { # GENERATION
    cat >"$conf.tmp" <<YAML
listen: {http: "127.0.0.1:$HTTP", https: "127.0.0.1:$HTTPS"}
admin: "127.0.0.1:$ADMIN"
data: $work/data
acme: {ca: "https://localhost:$ACME/dir", trust: "$work/ca.pem"}
access_log: $work/etc/access.log
sites:
  soak1.test: {to: ["127.0.0.1:$B1", "127.0.0.1:$B2"], tls: acme, headers: {X-Soak-Generation: "$1"}}
  soak2.test: {to: ["127.0.0.1:$B1", "127.0.0.1:$B2"], tls: acme}
  http://127.0.0.1: ["127.0.0.1:$B1", "127.0.0.1:$B2"]
YAML
    mv "$conf.tmp" "$conf"
}
write_config 0
./usher run --config "$conf" >"$work/usher.log" 2>&1 &
usher_pid=$!
pids+=("$usher_pid")
say "usher pid $usher_pid"

for _ in $(seq 120); do
    ok=0
    for name in soak1.test soak2.test; do
        code=$(curl -sk -o /dev/null -w '%{http_code}' --max-time 2 --resolve "$name:$HTTPS:127.0.0.1" \
            "https://$name:$HTTPS/" || true)
        [[ $code == 200 ]] && ok=$((ok + 1))
    done
    ((ok == 2)) && break
    sleep 1
done
((ok == 2)) || { say "the sites did not come up with certificates; see $work/usher.log"; exit 1; }
say "both certificates issued"

sample() { # T -> one line: t rss_kib heap_used heap_committed fds threads
    local rss fds threads heap
    rss=$(awk '/^VmRSS:/{print $2}' "/proc/$usher_pid/status")
    threads=$(awk '/^Threads:/{print $2}' "/proc/$usher_pid/status")
    fds=$(find "/proc/$usher_pid/fd" -mindepth 1 -maxdepth 1 | wc -l)
    heap=$(curl -s --max-time 5 "http://127.0.0.1:$ADMIN/metrics" |
        awk '/^jvm_memory_used_bytes\{area="heap"\}/{u=$2} /^jvm_memory_committed_bytes\{area="heap"\}/{c=$2} END{printf "%d %d", u, c}')
    echo "$1 $rss $heap $fds $threads"
}
sample 0 >"$work/samples.txt"
fds_start=$(awk '{print $5}' "$work/samples.txt")

# hey sends its -host as both Host and SNI.
hey -z "${seconds}s" -c 10 -q 20 -t 30 -host soak1.test "https://127.0.0.1:$HTTPS/" >"$work/hey.txt" 2>&1 &
pids+=($!)
h2load -D "$seconds" -c 4 -m 4 -t 1 --rps 25 --connect-to="127.0.0.1:$HTTPS" \
    "https://soak2.test:$HTTPS/" >"$work/h2load.txt" 2>&1 &
pids+=($!)
"$JAVA_HOME/bin/java" -Xmx256m -cp "$test_cp" dev.usher.it.SoakClients "$HTTPS" soak1.test "$HTTP" "$seconds" \
    >"$work/clients.txt" 2>&1 &
pids+=($!)
say "traffic started: hey (HTTP/1.1), h2load (HTTP/2), SoakClients (HTTP/3, websocket)"

t0=$(date +%s)
generation=0
b2_restarts=0
while :; do
    sleep 10
    t=$(($(date +%s) - t0))
    ((t >= seconds)) && break
    generation=$((generation + 1))
    write_config "$generation"
    if ((t / 120 > b2_restarts)); then
        b2_restarts=$((b2_restarts + 1))
        kill "$b2_pid" && wait "$b2_pid" 2>/dev/null || true
        sleep 1
        start_b2
        say "backend b2 restarted ($b2_restarts)"
    fi
    sample "$t" >>"$work/samples.txt"
done
say "traffic time over; waiting for the load tools to finish"
wait "${pids[@]:4}" 2>/dev/null || true
sleep 12 # idle connections close, buffers drain
sample "$(($(date +%s) - t0))" >>"$work/samples.txt"
fds_end=$(tail -n 1 "$work/samples.txt" | awk '{print $5}')
say "descriptors: $fds_start at start, $fds_end at the end"

mkdir -p "$(dirname "$out")"
python3 bench/soak-report.py --work "$work" --minutes "$minutes" --reloads "$generation" \
    --b2-restarts "$b2_restarts" --svg "${out%.md}.svg" >"$out"
say "report: $out"
