#!/usr/bin/env bash
# bench/bench.sh [--quick] [--only PASS,...] - one command for the side-by-side benchmark (run as root from the repo root).
#
# 1. builds Usher (./usher version -> target/usher.jar, target/usher.aot) and its native executable
#    (./usher build --native -> target/native-image/usher; skipped with --no-native)
# 2. runs bench/run.sh once per pass, each pass starting Caddy, nginx (upstream keepalive), HAProxy and Usher (JVM)
#    afresh in the same 1-CPU / 2 GiB cgroups in front of the same 20 backends, then bench/run.sh again for the
#    native executable alone (usher-native) with the same options; both go into the pass's results file:
#    hey       plain HTTP, hey -c 50 (the published method): caddy nginx direct usher
#    wrk       plain HTTP, wrk -t1 -c 50 (lighter than hey, so the proxies rather than the load generator are the limit)
#    gzip-wrk  HTTPS + gzip, wrk -c 50 with "Accept-Encoding: gzip" asking for /text, a 4096-byte text/plain body
#              (gzip -5: ~910 bytes) from the same backends; all three proxies use the same self-signed P-256
#              certificate (openssl, SAN the 20 names and 127.0.0.1) on 127.0.0.1:18443 and compress at gzip
#              level 5 (Caddy "encode { gzip 5 }", nginx "gzip on" text/plain >= 1024 level 5, Usher's default);
#              direct = wrk straight at the backend's /text over plain HTTP (the issue's "backend served directly")
#    gzip-hey  the same with hey (full run only, or with --only)
#    h2        HTTP/2 over TLS (ALPN h2): h2load -c 10 -m 10 -t 1 for a duration, GET / (325-byte body, no gzip)
# 3. bench/report.py -> bench/results/report-STAMP.md + bench/results/chart-STAMP.svg (STAMP = YYYY-MM-DD-HHMM);
#    each pass's RESULT lines, with their bench.log header, are kept as bench/results/STAMP-PASS.txt.
#
# Full run: hey/wrk 30 s x 3 (hey: 30 s idle window / 6 samples, 3 restarts; wrk: 10 s / 3 samples, 1 restart);
# gzip-wrk, gzip-hey and h2 20 s x 3, 5 s idle / 2 samples, no restarts. About 22 min.
# --quick: hey/wrk 10 s x 3 (hey: 10 s idle / 5 samples, 3 restarts; wrk: 5 s / 2 samples, 1 restart);
# gzip-wrk and h2 8 s x 3 (1 s gaps), 2 s idle / 1 sample, no restarts. About 10 min.
# --only PASS,...  run only these passes (names above), e.g. --only gzip-wrk,h2
# --no-native      leave the native executable out (no native build)
# Before it starts it refuses to run when ports 18080, 18443 or 19000-19020 are taken, when another
# bench/run.sh runs, or when /tmp/usher-bench.lock names a live process that is not one of its callers;
# it writes its own PID there while it runs (and removes it at the end).
# Extra arguments after -- are passed to every run.sh invocation (e.g. -- --no-pin).
set -u -o pipefail

usage() { sed -n '2,36p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "bench.sh: error: $*" >&2; exit 2; }

QUICK=0 EXTRA=() ONLY= NATIVE=1
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) QUICK=1 ;;
    --only) ONLY=$2; shift ;;
    --no-native) NATIVE=0 ;;
    -h|--help) usage; exit 0 ;;
    --) shift; EXTRA=("$@"); break ;;
    *) usage >&2; die "unknown argument: $1" ;;
  esac
  shift
done

[ "$(id -u)" = 0 ] || die "must run as root (run.sh writes cgroup v1 files)"
[ -x ./usher ] && [ -x bench/run.sh ] || die "run from the repository root (./usher and bench/run.sh not found)"
command -v python3 >/dev/null || die "python3 missing"

if [ $QUICK = 1 ]; then PASSES=(hey wrk gzip-wrk h2); else PASSES=(hey wrk gzip-wrk gzip-hey h2); fi
if [ -n "$ONLY" ]; then
  PASSES=()
  for p in ${ONLY//,/ }; do
    case $p in hey|wrk|gzip-wrk|gzip-hey|h2) PASSES+=("$p") ;; *) die "--only: unknown pass '$p' (hey wrk gzip-wrk gzip-hey h2)" ;; esac
  done
fi

# ---- is the machine ours?
pgrep -f 'bench/run\.sh' >/dev/null && die "another bench/run.sh is running: $(pgrep -af 'bench/run\.sh' | head -3 | tr '\n' ';')"
for port in 18080 18443 $(seq 19000 19020); do
  ss -Htln "sport = :$port" | grep -q . && die "port $port is in use (ss -tlnp 'sport = :$port')"
done
LOCK=/tmp/usher-bench.lock OWN_LOCK=0
is_caller() {  # is PID $1 this shell or one of its ancestors?
  local p=$$
  while [ -n "$p" ] && [ "$p" -gt 1 ]; do
    [ "$p" = "$1" ] && return 0
    p=$(awk '{print $4}' /proc/"$p"/stat 2>/dev/null)
  done
  return 1
}
if [ -s "$LOCK" ]; then
  lp=$(tr -dc 0-9 <"$LOCK")
  if [ -n "$lp" ] && kill -0 "$lp" 2>/dev/null && ! is_caller "$lp"; then
    die "$LOCK names pid $lp, which is alive: another benchmark runs (remove the file if that is wrong)"
  fi
fi
if ! { [ -n "${lp:-}" ] && is_caller "$lp"; }; then
  echo $$ >"$LOCK" && OWN_LOCK=1
fi
trap '[ $OWN_LOCK = 1 ] && [ "$(cat "$LOCK" 2>/dev/null)" = $$ ] && rm -f "$LOCK"' EXIT
trap 'exit 130' INT TERM

STAMP=$(date +%Y-%m-%d-%H%M)
OUT=bench/results
mkdir -p "$OUT"

echo "# building Usher (./usher version)" >&2
USHER_VERSION=$(./usher version 2>&1 | tail -1) || die "./usher version failed: $USHER_VERSION"
[ -f target/usher.jar ] || die "target/usher.jar missing after ./usher version"
echo "# $USHER_VERSION" >&2
PREWARM=(--prewarm target/usher.jar)
[ -f target/usher.aot ] && PREWARM+=(--prewarm target/usher.aot)
if [ $NATIVE = 1 ]; then
  echo "# building the native executable (./usher build --native)" >&2
  ./usher build --native >&2 || die "./usher build --native failed (--no-native leaves it out)"
fi
command -v haproxy >/dev/null || die "haproxy missing (apt-get install haproxy)"

if [ $QUICK = 1 ]; then
  HEY_OPTS=(--quick --quiet-seconds 10 --samples 5)
  WRK_OPTS=(--quick --quiet-seconds 5 --samples 2 --restarts 1)
  TLS_OPTS=(--duration 8s --runs 3 --gap 1 --quiet-seconds 2 --samples 1 --restarts 0)
else
  HEY_OPTS=(--duration 30s --runs 3 --quiet-seconds 30 --samples 6)
  WRK_OPTS=(--duration 30s --runs 3 --quiet-seconds 10 --samples 3 --restarts 1)
  TLS_OPTS=(--duration 20s --runs 3 --quiet-seconds 5 --samples 2 --restarts 0)
fi

FILES=() FAILED=()
for pass in "${PASSES[@]}"; do
  targets=(caddy nginx haproxy direct custom)
  case $pass in
    hey) opts=("${HEY_OPTS[@]}" --loadgen hey) ;;
    wrk) opts=("${WRK_OPTS[@]}" --loadgen wrk) ;;
    gzip-wrk) opts=("${TLS_OPTS[@]}" --tls --gzip --loadgen wrk) ;;
    gzip-hey) opts=("${TLS_OPTS[@]}" --tls --gzip --loadgen hey) ;;
    h2) opts=("${TLS_OPTS[@]}" --tls --loadgen h2load); targets=(caddy nginx haproxy custom) ;;
  esac
  wd=/tmp/bench-$STAMP-$pass-$$
  echo "# ===== pass $pass: bench/run.sh ${opts[*]} (workdir $wd)" >&2
  bench/run.sh "${opts[@]}" --workdir "$wd" "${EXTRA[@]}" --name usher "${PREWARM[@]}" \
    "${targets[@]}" -- bench/examples/usher.sh "$PWD"
  rc=$?
  [ $rc = 0 ] || { echo "bench.sh: WARNING: pass $pass (run.sh) exited with $rc (see $wd/bench.log)" >&2; FAILED+=("$pass"); }
  [ $rc = 130 ] && break
  if [ $NATIVE = 1 ] && [ $rc != 130 ]; then
    echo "# ===== pass $pass, native executable: bench/run.sh ${opts[*]} (workdir $wd-native)" >&2
    bench/run.sh "${opts[@]}" --workdir "$wd-native" "${EXTRA[@]}" --name usher-native \
      --prewarm target/native-image/usher custom -- bench/examples/usher-native.sh "$PWD"
    nrc=$?
    [ $nrc = 0 ] || { echo "bench.sh: WARNING: pass $pass (native) exited with $nrc (see $wd-native/bench.log)" >&2; FAILED+=("$pass-native"); }
    [ $nrc = 130 ] && rc=130
  fi
  if [ -s "$wd/results.txt" ]; then
    f=$OUT/$STAMP-$pass.txt
    { awk '/^# workdir /{exit} /^# /' "$wd/bench.log"; cat "$wd/results.txt"
      [ -s "$wd-native/results.txt" ] && cat "$wd-native/results.txt"; } >"$f"
    FILES+=("$f")
  fi
done
[ ${#FILES[@]} -gt 0 ] || die "no results from any pass"

REPORT=$OUT/report-$STAMP.md SVG=$OUT/chart-$STAMP.svg
python3 bench/report.py --date "$STAMP" --svg "$SVG" --svg-link "$(basename "$SVG")" \
  --version "usher=${USHER_VERSION#usher }" "${FILES[@]}" >"$REPORT" || die "report.py failed"
echo "# report: $REPORT   chart: $SVG   results: ${FILES[*]}" >&2
[ ${#FAILED[@]} = 0 ] || die "pass(es) failed: ${FAILED[*]} (report written from what finished)"
