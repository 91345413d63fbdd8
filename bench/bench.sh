#!/usr/bin/env bash
# bench/bench.sh [--quick] - one command for the side-by-side benchmark (run as root from the repo root).
#
# 1. builds Usher (./usher version -> target/usher.jar, target/usher.aot)
# 2. bench/run.sh with hey (the default load generator) for caddy, nginx (keepalive), direct and usher
# 3. the same targets again with --loadgen wrk (wrk -t1 is lighter than hey, so the proxies get closer
#    to their own limit before the load generator saturates its core)
# 4. bench/report.py -> bench/results/report-STAMP.md + bench/results/chart-STAMP.svg
#    (STAMP = YYYY-MM-DD-HHMM); the RESULT lines of both passes, with their bench.log header,
#    are kept as bench/results/STAMP-hey.txt and STAMP-wrk.txt.
#
# Full run: hey 30 s x 3, 30 s idle window / 6 samples, 3 restarts; wrk 30 s x 3, 10 s idle / 3 samples,
# 1 restart (idle memory and start time are taken from the hey pass; the wrk pass measures them again
# only briefly). About 14 min.
# --quick: 10 s x 3 runs; hey pass 10 s idle / 5 samples; wrk pass 5 s idle / 2 samples, 1 restart. About 6 min.
# Extra arguments after -- are passed to both run.sh invocations (e.g. -- --no-pin).
set -u -o pipefail

usage() { sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "bench.sh: error: $*" >&2; exit 2; }

QUICK=0 EXTRA=()
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) QUICK=1 ;;
    -h|--help) usage; exit 0 ;;
    --) shift; EXTRA=("$@"); break ;;
    *) usage >&2; die "unknown argument: $1" ;;
  esac
  shift
done

[ "$(id -u)" = 0 ] || die "must run as root (run.sh writes cgroup v1 files)"
[ -x ./usher ] && [ -x bench/run.sh ] || die "run from the repository root (./usher and bench/run.sh not found)"
command -v python3 >/dev/null || die "python3 missing"

STAMP=$(date +%Y-%m-%d-%H%M)
OUT=bench/results
mkdir -p "$OUT"

echo "# building Usher (./usher version)" >&2
USHER_VERSION=$(./usher version 2>&1 | tail -1) || die "./usher version failed: $USHER_VERSION"
[ -f target/usher.jar ] || die "target/usher.jar missing after ./usher version"
echo "# $USHER_VERSION" >&2
PREWARM=(--prewarm target/usher.jar)
[ -f target/usher.aot ] && PREWARM+=(--prewarm target/usher.aot)

if [ $QUICK = 1 ]; then
  HEY_OPTS=(--quick --quiet-seconds 10 --samples 5)
  WRK_OPTS=(--quick --quiet-seconds 5 --samples 2 --restarts 1)
else
  HEY_OPTS=(--duration 30s --runs 3 --quiet-seconds 30 --samples 6)
  WRK_OPTS=(--duration 30s --runs 3 --quiet-seconds 10 --samples 3 --restarts 1)
fi

FILES=() FAILED=()
for lg in hey wrk; do
  if [ $lg = hey ]; then opts=("${HEY_OPTS[@]}"); else opts=("${WRK_OPTS[@]}"); fi
  wd=/tmp/bench-$STAMP-$lg-$$
  echo "# ===== pass $lg: bench/run.sh ${opts[*]} --loadgen $lg (workdir $wd)" >&2
  bench/run.sh "${opts[@]}" --loadgen $lg --workdir "$wd" "${EXTRA[@]}" --name usher "${PREWARM[@]}" \
    caddy nginx direct custom -- bench/examples/usher.sh "$PWD"
  rc=$?
  [ $rc = 0 ] || { echo "bench.sh: WARNING: run.sh --loadgen $lg exited with $rc (see $wd/bench.log)" >&2; FAILED+=($lg); }
  if [ -s "$wd/results.txt" ]; then
    f=$OUT/$STAMP-$lg.txt
    { awk '/^# workdir /{exit} /^# /' "$wd/bench.log"; cat "$wd/results.txt"; } >"$f"
    FILES+=("$f")
  fi
done
[ ${#FILES[@]} -gt 0 ] || die "no results from either pass"

REPORT=$OUT/report-$STAMP.md SVG=$OUT/chart-$STAMP.svg
python3 bench/report.py --date "$STAMP" --svg "$SVG" \
  --version "usher=${USHER_VERSION#usher }" "${FILES[@]}" >"$REPORT" || die "report.py failed"
echo "# report: $REPORT   chart: $SVG   results: ${FILES[*]}" >&2
[ ${#FAILED[@]} = 0 ] || die "pass(es) failed: ${FAILED[*]} (report written from what finished)"
