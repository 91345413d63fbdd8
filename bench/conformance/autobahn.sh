#!/usr/bin/env bash
#
# bench/conformance/autobahn.sh — the Autobahn websocket suite (RFC 6455: framing, fragmentation, ping/pong,
# UTF-8 handling, close codes and limits; cases 1-7, 9 and 10 by default) through Usher, and against the
# websocket echo behind it alone, case for case. Not part of CI.
#
#   bench/conformance/autobahn.sh [--out DIR] [--cases "1.*,2.*,..."]
#
# Where the suite comes from: Maven Central's Jython packaging of it, the Maven plugin
# me.normanmaurer.maven.autobahntestsuite:autobahntestsuite-maven-plugin:0.1.5 (Maven fetches it on first use). The
# plugin calls main(port) of src/test/java/dev/usher/it/AutobahnTarget.java, which starts Usher (or, with
# -Dautobahn.target=direct, the echo alone) on that port, then runs the fuzzing client against it.
#
# Writes DIR/autobahn-{usher,direct}/ (the suite's JSON per case) and DIR/autobahn-compare.txt (each case's
# behaviour through Usher next to the echo alone) and prints the counts by outcome.
set -euo pipefail
root=$(cd -P -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)
cd -- "$root"
out=
cases="1.*,2.*,3.*,4.*,5.*,6.*,7.*,9.*,10.*"
while [[ ${1:-} == --* ]]; do
    case $1 in
    --out) out=$2; shift 2 ;;
    --cases) cases=$2; shift 2 ;;
    *) echo "autobahn.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
out=${out:-$(mktemp -d "${TMPDIR:-/tmp}/usher-autobahn.XXXXXX")}
mkdir -p "$out"
source scripts/jdk.sh
usher_find_jdk --javac
export JAVA_HOME=$USHER_JDK_HOME
mvn -q -B -o test-compile >"$out/build.log" 2>&1 || { cat "$out/build.log"; exit 1; }
for target in usher direct; do
    rm -rf target/autobahntestsuite-reports
    mvn -B me.normanmaurer.maven.autobahntestsuite:autobahntestsuite-maven-plugin:0.1.5:fuzzingclient \
        -DmainClass=dev.usher.it.AutobahnTarget -Dautobahn.target="$target" -Dport=19901 -Dcases="$cases" \
        -DfailOnNonStrict=false -DwaitTime=30000 >"$out/autobahn-$target.log" 2>&1 || true
    rm -rf "$out/autobahn-$target"
    cp -r target/autobahntestsuite-reports "$out/autobahn-$target"
done
python3 - "$out" <<'PY' | tee "$out/autobahn-compare.txt"
import collections, glob, json, os, sys
out = sys.argv[1]

def results(target):
    found = {}
    for path in glob.glob(os.path.join(out, "autobahn-" + target, "**", "*.json"), recursive=True):
        try:
            data = json.load(open(path))
        except ValueError:
            continue
        if isinstance(data, dict) and "id" in data and "behavior" in data:
            found[data["id"]] = (data["behavior"], data.get("behaviorClose", ""))
    return found

usher, direct = results("usher"), results("direct")
def key(case):
    return [int(p) for p in case.split(".")]
for name, r in (("usher", usher), ("direct", direct)):
    print(f"autobahn {name}: {len(r)} cases: " + ", ".join(f"{k} {v}" for k, v in
          sorted(collections.Counter(b for b, _ in r.values()).items())))
differ = [c for c in sorted(set(usher) | set(direct), key=key) if usher.get(c) != direct.get(c)]
print(f"cases where Usher differs from the echo alone: {len(differ)}")
for c in differ:
    print(f"  {c}: usher {usher.get(c)}, direct {direct.get(c)}")
PY
echo "reports in $out"
