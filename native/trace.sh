#!/usr/bin/env bash
#
# native/trace.sh — regenerates the native executable's reachability metadata from the test suite:
#   src/main/resources/META-INF/native-image/dev.usher/usher/reachability-metadata.json
#
# Runs `mvn verify` (every JVM it starts, Surefire's and the `./usher` processes the tests start) with Usher's tracing
# agent (native/agent/usher_trace.c: reflection, method handles, JNI and resources as the code really uses them),
# then keeps what Usher and its dependencies asked for (native/trace-merge.py). Run it after a change that adds a
# dependency, a JNI library or reflection, and commit the file it writes; the diff shows what changed.
# Needs gcc and python3 besides what the tests need. Test failures do not stop it (a trace is still a trace), but
# they are reported: a test that did not run recorded nothing.
set -euo pipefail

here=$(cd -P -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
root=$(cd -P -- "$here/.." && pwd)
# shellcheck source=../scripts/jdk.sh
source "$root/scripts/jdk.sh"
usher_find_jdk --javac >/dev/null || exit 1
jdk=$USHER_JDK_HOME
for tool in gcc python3 mvn; do
    command -v "$tool" >/dev/null 2>&1 || { echo "native/trace.sh: $tool is missing (Debian: apt-get install ${tool/mvn/maven})" >&2; exit 1; }
done

# The browser tests need playwright-core (as in run-tests): without it they record nothing of the admin UI.
if [[ ! -f $root/ui-tests/node_modules/.package-lock.json ]]; then
    npm ci --prefix "$root/ui-tests" --no-audit --no-fund </dev/null >&2
fi

work=$root/target/usher-trace
rm -rf -- "$work"
mkdir -p -- "$work"
gcc -O2 -fPIC -shared -Wall -Wextra -Werror -Wno-unused-parameter -I"$jdk/include" -I"$jdk/include/linux" \
    -o "$work/libusher_trace.so" "$here/agent/usher_trace.c"

echo "native/trace.sh: mvn verify with the tracing agent (slower than usual: traced methods run interpreted)" >&2
rc=0
(cd -- "$root" && JAVA_HOME=$jdk JAVA_TOOL_OPTIONS="-agentpath:$work/libusher_trace.so=$work/trace" \
    mvn -B verify -Dmaven.test.failure.ignore=true </dev/null >"$work/mvn.log" 2>&1) || rc=$?
grep -E 'Tests run:|FAIL|ERROR' "$work/mvn.log" | tail -5 >&2 || true
((rc == 0)) || { echo "native/trace.sh: mvn failed (exit $rc); see $work/mvn.log" >&2; exit "$rc"; }

out=$root/src/main/resources/META-INF/native-image/dev.usher/usher/reachability-metadata.json
mkdir -p -- "$(dirname -- "$out")"
python3 "$here/trace-merge.py" "$root/target/usher.jar" "$out" "$work"/trace.*
