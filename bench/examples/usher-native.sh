#!/bin/sh
# "custom" proxy for run.sh: Usher's native executable (target/native-image/usher, from ./usher build --native) with
# the same usher.yaml as bench/examples/usher.sh writes for the JVM build.
#   bench/run.sh --name usher-native --prewarm target/native-image/usher custom -- bench/examples/usher-native.sh "$PWD"
set -eu
repo=${1:-.}
exe=$repo/target/native-image/usher
[ -x "$exe" ] || { echo "usher-native.sh: $exe is missing: run ./usher build --native" >&2; exit 1; }
BENCH_USHER_CONFIG_ONLY=1 "$(dirname "$0")/usher.sh" "$repo"
exec "$exe" run --config "$BENCH_WORKDIR/usher.yaml"
