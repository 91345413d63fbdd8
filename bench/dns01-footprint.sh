#!/usr/bin/env bash
# bench/dns01-footprint.sh dns01|http01 [LABEL] — Usher's idle memory after an ACME order, and after a restart that
# serves the stored certificate (no order), the cgroup v1 way footprint.sh measures (run as root from the repository
# root). dns01: one *.wild.usher.example site ordered over DNS-01 (RFC 2136 to a local BIND, so dnsjava and the dns
# package load); http01: one plain.usher.example site over HTTP-01. Both with 20 local-CA sites beside it. Pebble
# (its own throwaway HTTPS certificate) validates through the same BIND. The difference between the two modes' first
# figures is what having run DNS-01 costs; the restart figures show that nothing of it loads without an order.
# Ports 28753-28758. Needs named, tsig-keygen (bind9), pebble, openssl, curl, jcmd. Prints two RESULT lines.
set -euo pipefail
mode=${1:?dns01 or http01} label=${2:-$1}
[[ $mode == dns01 || $mode == http01 ]] || { echo "dns01-footprint.sh: mode is dns01 or http01" >&2; exit 2; }
[[ $(id -u) == 0 ]] || { echo "dns01-footprint.sh: must run as root (cgroup writes)" >&2; exit 2; }
[[ -x ./usher ]] || { echo "dns01-footprint.sh: run from the repository root" >&2; exit 2; }
PATH=$PATH:/usr/sbin
w=/tmp/usher-dns01-footprint
rm -rf "$w"
mkdir -p "$w/bind" "$w/data"
chmod 700 "$w/data"
P=28753 PEB=28754 PEBM=28755 H=28756 S=28757 A=28758
tsig-keygen -a hmac-sha256 usher >"$w/usher.key"
printf '$TTL 60\n@ IN SOA ns1.usher.example. h.usher.example. 1 3600 600 86400 60\n@ IN NS ns1.usher.example.\nns1 IN A 127.0.0.1\nplain IN A 127.0.0.1\n' >"$w/bind/usher.example.zone"
cat >"$w/bind/named.conf" <<CONF
options { directory "$w/bind"; pid-file "$w/bind/named.pid"; session-keyfile "$w/bind/s.key"; managed-keys-directory "$w/bind"; listen-on port $P { 127.0.0.1; }; listen-on-v6 { none; }; recursion no; dnssec-validation no; notify no; };
controls { };
include "$w/usher.key";
zone "usher.example" { type primary; file "$w/bind/usher.example.zone"; allow-update { key "usher"; }; };
CONF
named -g -n 1 -c "$w/bind/named.conf" >"$w/bind/log" 2>&1 &
named_pid=$!
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=localhost \
    -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" -keyout "$w/pebble.key" -out "$w/pebble.pem" 2>/dev/null
openssl pkcs8 -topk8 -nocrypt -in "$w/pebble.key" -out "$w/pebble.pk8"
cat >"$w/pebble.json" <<CONF
{"pebble": {"listenAddress": "127.0.0.1:$PEB", "managementListenAddress": "127.0.0.1:$PEBM", "certificate": "$w/pebble.pem", "privateKey": "$w/pebble.pk8", "httpPort": $H, "tlsPort": $S, "ocspResponderURL": "", "externalAccountBindingRequired": false}}
CONF
PEBBLE_VA_NOSLEEP=1 PEBBLE_WFE_NONCEREJECT=0 pebble -config "$w/pebble.json" -dnsserver 127.0.0.1:$P -strict=false \
    >"$w/pebble.log" 2>&1 &
pebble_pid=$!
trap 'kill $named_pid $pebble_pid 2>/dev/null || true' EXIT
sleep 2
{
    echo "listen: {http: \"127.0.0.1:$H\", https: \"127.0.0.1:$S\"}"
    echo "admin: \"127.0.0.1:$A\""
    echo "data: $w/data"
    if [[ $mode == dns01 ]]; then
        echo "acme: {ca: \"https://localhost:$PEB/dir\", trust: \"$w/pebble.pem\", dns: {provider: rfc2136, server: \"127.0.0.1:$P\", key_file: \"$w/usher.key\", resolvers: [\"127.0.0.1:$P\"], nameserver_port: $P}}"
        echo "sites:"
        echo "  \"*.wild.usher.example\": 127.0.0.1:18690"
    else
        echo "acme: {ca: \"https://localhost:$PEB/dir\", trust: \"$w/pebble.pem\", challenge: http-01}"
        echo "sites:"
        echo "  plain.usher.example: 127.0.0.1:18690"
    fi
    for i in $(seq -w 1 20); do echo "  site$i.localhost: 127.0.0.1:18690"; done
} >"$w/usher.yaml"

measure() { # STEP: Usher in a fresh memory cgroup, its ACME certificate valid, 20 s quiet, then total_rss
    cg=/sys/fs/cgroup/memory/usher-dns01-footprint-$1
    rmdir "$cg" 2>/dev/null || true
    mkdir "$cg"
    sh -c 'echo $$ > "$1"/cgroup.procs && shift && exec "$@"' sh "$cg" ./usher run --config "$w/usher.yaml" \
        >"$w/$1.log" 2>&1 &
    upid=$!
    for _ in $(seq 1 600); do
        curl -s --max-time 2 "http://127.0.0.1:$A/certificates" 2>/dev/null \
            | grep -q '"name":"[*a-z.]*usher.example"[^}]*"valid"' && break
        sleep 0.2
    done
    sleep 20
    echo "RESULT $label $mode $1 idle_anon_mib=$(awk '/^total_rss /{printf "%.1f", $2/1048576}' "$cg/memory.stat") dnsjava_classes=$(jcmd $upid VM.class_hierarchy 2>/dev/null | grep -c org.xbill || true) orders=$(grep -c 'Added order' "$w/pebble.log" || true)"
    kill $upid
    wait $upid 2>/dev/null || true
    rmdir "$cg" 2>/dev/null || true
}
measure after-order
measure after-restart
