#!/bin/sh
# "custom" proxy for run.sh: writes a usher.yaml from the BENCH_* environment and runs Usher in the foreground.
#   bench/run.sh --name usher --prewarm target/usher.jar custom -- bench/examples/usher.sh "$PWD"
# The launcher execs java (so the harness's PID is the JVM's); build the jar first (./usher version does).
set -eu
repo=${1:-.}
d=$BENCH_WORKDIR
{
  if [ "$BENCH_TLS" = 1 ]; then
    echo "listen: {http: \"$BENCH_LISTEN_ADDR:$BENCH_HTTP_PORT\", https: \"$BENCH_LISTEN_ADDR:$BENCH_HTTPS_PORT\"}"
  else
    echo "listen: {http: \"$BENCH_LISTEN_ADDR:$BENCH_HTTP_PORT\"}"
  fi
  echo "data: $d/data"
  echo "sites:"
  while read -r host upstream; do
    if [ "$BENCH_TLS" = 1 ]; then
      echo "  $host: {to: \"$upstream\", tls: {cert: \"$BENCH_TLS_CERT\", key: \"$BENCH_TLS_KEY\"}}"
    else
      echo "  http://$host: \"$upstream\""
    fi
  done <"$BENCH_ROUTES_FILE"
} >"$d/usher.yaml"
[ "${BENCH_USHER_CONFIG_ONLY:-0}" = 1 ] && exit 0 # usher-native.sh: only the config
cd "$repo"
exec ./usher run --config "$d/usher.yaml"
