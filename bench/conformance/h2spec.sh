#!/usr/bin/env bash
#
# bench/conformance/h2spec.sh — h2spec (HTTP/2, RFC 7540/9113, and HPACK, RFC 7541) against Usher, Caddy and nginx
# over TLS, side by side. Not part of CI.
#
#   H2SPEC=/path/to/h2spec bench/conformance/h2spec.sh [--out DIR] [usher|caddy|nginx ...]
#
# Where h2spec comes from: it is not packaged by Debian, Maven Central or npm; it is built from a checkout of its
# source (github summerwind/h2spec) with Debian's Go (package golang-go), by you, outside this repository. Point
# H2SPEC at the binary.
#
# Writes DIR/h2spec-NAME.txt (h2spec's report) and DIR/h2spec-NAME.xml (JUnit) per server, and prints one
# "h2spec NAME: N tests, N passed, ..." line each. DIR defaults to a new folder under /tmp.
set -euo pipefail
here=$(cd -P -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/conformance/targets.sh
source "$here/targets.sh"
parse_suite_args h2spec "$@"
[[ -x ${H2SPEC:-} ]] || { echo "h2spec.sh: set H2SPEC to an h2spec binary (see the header)" >&2; exit 1; }
trap stop_targets EXIT
start_targets "$out/work" "${names[@]}"
for name in "${names[@]}"; do
    # -o 3: a case waits at most 3 s for the server's reaction (h2spec's default of 2 s flakes on a loaded box)
    "$H2SPEC" -t -k -h localhost -p "$(https_port "$name")" -o 3 -j "$out/h2spec-$name.xml" \
        >"$out/h2spec-$name.txt" 2>&1 || true
    echo "h2spec $name ($(version_of "$name")): $(grep -E '^[0-9]+ tests' "$out/h2spec-$name.txt" | tail -n 1)"
done
echo "reports in $out"
