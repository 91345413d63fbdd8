#!/usr/bin/env bash
#
# bench/conformance/testssl.sh — testssl.sh (TLS protocols, cipher suites and their order, certificate and
# server defaults, HSTS, and the known TLS vulnerabilities: Heartbleed, ROBOT, CRIME, BREACH, POODLE, SWEET32,
# LOGJAM, ...) against Usher, Caddy and nginx, side by side. Not part of CI.
#
#   bench/conformance/testssl.sh [--out DIR] [usher|caddy|nginx ...]
#
# Where testssl.sh comes from: Debian's package testssl.sh (3.0.8: `apt-get install testssl.sh`). The 3.2 line adds
# an overall rating (A+ ... F): set TESTSSL to a 3.2 checkout's testssl.sh (github testssl/testssl.sh, branch 3.2)
# to get it. The certificate is the suite's self-signed one, so "chain of trust" findings are expected everywhere.
#
# Writes DIR/testssl-NAME.txt and .json per server and prints the counts of findings by severity.
set -euo pipefail
here=$(cd -P -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/conformance/targets.sh
source "$here/targets.sh"
parse_suite_args testssl "$@"
testssl=${TESTSSL:-$(command -v testssl || true)}
[[ -x $testssl ]] || { echo "testssl.sh: install Debian's testssl.sh (or set TESTSSL; see the header)" >&2; exit 1; }
trap stop_targets EXIT
start_targets "$out/work" "${names[@]}"
for name in "${names[@]}"; do
    rm -f "$out/testssl-$name.json"
    "$testssl" --quiet --color 0 --warnings off --jsonfile "$out/testssl-$name.json" --ip 127.0.0.1 \
        "localhost:$(https_port "$name")" >"$out/testssl-$name.txt" 2>&1 </dev/null || true
    counts=$(python3 - "$out/testssl-$name.json" <<'PY'
import collections, json, sys
items = json.load(open(sys.argv[1]))
items = items.get("scanResult", items) if isinstance(items, dict) else items
severities = collections.Counter(i.get("severity", "?") for i in items)
rating = [i.get("finding") for i in items if i.get("id") == "overall_grade"]
order = ["CRITICAL", "HIGH", "MEDIUM", "LOW", "WARN", "OK", "INFO"]
print(", ".join(f"{s} {severities[s]}" for s in order if severities[s]) + (f"; rating {rating[0]}" if rating else ""))
PY
)
    echo "testssl $name ($(version_of "$name")): $counts"
done
echo "reports in $out"
