#!/usr/bin/env bash
#
# bench/conformance/h1spec.sh — h1spec (33 raw HTTP/1.1 requests, malformed and valid, each checked for the range
# of statuses RFC 9112 allows) against Usher, Caddy and nginx over plain HTTP, side by side. Not part of CI.
#
#   H1SPEC=/path/to/h1spec-checkout bench/conformance/h1spec.sh [--out DIR] [usher|caddy|nginx ...]
#
# Where h1spec comes from: a checkout of its source (github uNetworking/h1spec) that you provide; it is one Deno
# script (http_test.ts). Deno is not in Debian, so this runs it with Debian's Node.js: the TypeScript is compiled
# with the npm package "typescript" (installed into DIR by npm), and h1spec-node.mjs beside this script supplies
# the three Deno calls it makes (Deno.args, Deno.connect, Deno.exit) on Node's sockets.
#
# Writes DIR/h1spec-NAME.txt per server and prints one "h1spec NAME: N out of 33 tests passed." line each.
set -euo pipefail
here=$(cd -P -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/conformance/targets.sh
source "$here/targets.sh"
parse_suite_args h1spec "$@"
[[ -f ${H1SPEC:-}/http_test.ts ]] || { echo "h1spec.sh: set H1SPEC to a checkout of h1spec (see the header)" >&2; exit 1; }
if [[ ! -d $out/node_modules/typescript ]]; then
    npm install --prefix "$out" --no-audit --no-fund --silent typescript@5 >/dev/null
fi
trap stop_targets EXIT
start_targets "$out/work" "${names[@]}"
for name in "${names[@]}"; do
    NODE_PATH=$out/node_modules node "$here/h1spec-node.mjs" "$H1SPEC/http_test.ts" 127.0.0.1 "$(http_port "$name")" \
        >"$out/h1spec-$name.txt" 2>&1 || true
    echo "h1spec $name ($(version_of "$name")): $(grep -E 'tests passed' "$out/h1spec-$name.txt" | tail -n 1)"
done
echo "reports in $out"
