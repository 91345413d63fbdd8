#!/usr/bin/env bash
#
# bench/jmh/run.sh — JMH micro-benchmarks of Usher's per-request hot path (route lookup, request header work, the
# HTTP/1.1 codec, a whole proxied request-response turn), with the GC profiler so every figure comes with its
# allocation per operation (gc.alloc.rate.norm, B/op). Not part of ./run-tests or `mvn verify`.
#
#   bench/jmh/run.sh                      # every benchmark, fork 1, 3 × 1 s warm-up, 5 × 1 s measurement, -prof gc
#   bench/jmh/run.sh RouteLookup          # only the benchmarks whose name matches the regex
#   bench/jmh/run.sh -f 2 -i 10 Codec     # any JMH option; one you give replaces the default of that option
#
# Builds target/usher.jar and the test classes (tests not run) and then this folder's benchmarks against it; needs Maven and a JDK 21+
# (found like ./usher does, scripts/jdk.sh). Results: the console, and bench/jmh/target/jmh-result.txt.
set -euo pipefail

here=$(cd -P -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
root=$(cd -P -- "$here/../.." && pwd)

# shellcheck source=../../scripts/jdk.sh
source "$root/scripts/jdk.sh"
usher_find_jdk --javac || exit 1
export JAVA_HOME=$USHER_JDK_HOME

# A macro benchmark (bench/run.sh) on this machine makes the nanoseconds noisy; B/op stays meaningful.
lock=/tmp/usher-bench.lock
if [[ -e $lock ]] && kill -0 "$(cat "$lock" 2>/dev/null)" 2>/dev/null; then
    echo "bench/jmh/run.sh: warning: bench/run.sh is running (PID $(cat "$lock")); ns/op will be noisy" >&2
fi

echo "bench/jmh/run.sh: building target/usher.jar and the test classes (JAVA_HOME=$JAVA_HOME)" >&2
(cd -- "$root" && mvn -q -B -DskipTests package </dev/null)
# The test classes bring the embedded channels of ProxyTurnBenchmark's harness (src/test/java/dev/usher/proxy).
"$JAVA_HOME/bin/jar" --create --file "$root/target/usher-test-classes.jar" -C "$root/target/test-classes" .
echo "bench/jmh/run.sh: building the benchmarks" >&2
(cd -- "$here" && mvn -q -B package </dev/null)

# Defaults, each left out when the command line sets the same option (JMH refuses an option given twice).
defaults=()
add_default() { # add_default OPTION VALUE
    local a
    for a in "${args[@]}"; do
        [[ $a == "$1" ]] && return 0
    done
    defaults+=("$1" "$2")
}
args=("$@")
add_default -f 1
add_default -wi 3
add_default -w 1s
add_default -i 5
add_default -r 1s
add_default -prof gc
add_default -jvmArgsAppend "--enable-native-access=ALL-UNNAMED"
add_default -rf text
add_default -rff "$here/target/jmh-result.txt"

cp="$here/target/classes:$(cat "$here/target/classpath.txt"):$root/target/usher.jar:$root/target/usher-test-classes.jar"
exec "$JAVA_HOME/bin/java" -cp "$cp" org.openjdk.jmh.Main "${defaults[@]}" "$@"
