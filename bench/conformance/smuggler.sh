#!/usr/bin/env bash
#
# bench/conformance/smuggler.sh — defparam's smuggler (HTTP/1.1 request smuggling: CL.TE and TE.CL desyncs through
# hundreds of Transfer-Encoding mutations) against Usher, Caddy and nginx over TLS, side by side. Not part of CI.
#
#   SMUGGLER=/path/to/smuggler-checkout bench/conformance/smuggler.sh [--out DIR] [--configs "default doubles
#       exhaustive"] [usher|caddy|nginx ...]
#
# Where smuggler comes from: a checkout of its source (github defparam/smuggler) that you provide; it is a Python 3
# script with no dependencies outside its checkout. --configs picks its payload sets (configs/NAME.py; default:
# "default"; "exhaustive" takes a while even against a server that refuses fast).
#
# Writes DIR/smuggler-NAME-CONFIG.log per server and payload set and prints the count of findings ("Potential
# ... Issue Found" lines in its output; 0 is the goal) and of mutations tried.
set -euo pipefail
here=$(cd -P -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/conformance/targets.sh
source "$here/targets.sh"
configs="default"
parse_suite_args smuggler "$@"
[[ -f ${SMUGGLER:-}/smuggler.py ]] || { echo "smuggler.sh: set SMUGGLER to a checkout of smuggler (see the header)" >&2; exit 1; }
trap stop_targets EXIT
start_targets "$out/work" "${names[@]}"
for name in "${names[@]}"; do
    for config in $configs; do
        log=$out/smuggler-$name-$config.log
        (cd "$SMUGGLER" && python3 smuggler.py -u "https://localhost:$(https_port "$name")/" -m POST --no-color \
            -t 5 -c "$config.py" -l "$log") >"$out/smuggler-$name-$config.txt" 2>&1 </dev/null || true
        findings=$(grep -cE 'Issue Found' "$out/smuggler-$name-$config.txt" || true)
        tried=$(grep -o 'Checking TECL' "$out/smuggler-$name-$config.txt" | wc -l)
        echo "smuggler $name ($(version_of "$name")), $config: $findings finding(s), $tried mutation checks"
    done
done
echo "reports in $out"
