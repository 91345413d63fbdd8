#!/usr/bin/env bash
#
# launcher-smoke.sh — end-to-end checks of ./usher: the JDK search, the (re)build, the JVM flags, and the basic
# commands of the built jar. Run by ./run-tests after `mvn verify`, so target/usher.jar is fresh; can also be
# run on its own (./usher builds the jar if it has to).
#
# Commands run against this checkout: version, --help, no arguments, check (valid and invalid config), and the
# "no JDK" error. Anything that changes files (touching sources, breaking the build) happens in a throwaway copy
# of the checkout under $TMPDIR, and so do the fake-JDK checks: fake `java` scripts that print the flags they
# were given.
#
# The last line of output is "launcher smoke test: N of M checks passed"; exit code 1 when any check failed.
# (./run-tests adds these checks to Surefire's count in the closing "N passed, N failed" line that CI reads.)
#
# The conditions below are single-quoted strings for eval, expanded when checked; some variables are read
# only there.
# shellcheck disable=SC2016,SC2034
set -uo pipefail

self=${BASH_SOURCE[0]}
while [[ -L $self ]]; do
    link=$(readlink -- "$self")
    if [[ $link == /* || $self != */* ]]; then self=$link; else self=${self%/*}/$link; fi
done
if [[ $self == */* ]]; then dir=${self%/*}; else dir=.; fi
root=$(cd -P -- "$dir/.." && pwd) || exit 1
usher=$root/usher

# shellcheck source=scripts/jdk.sh
source "$root/scripts/jdk.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/usher-smoke.XXXXXX") || exit 1
trap 'rm -rf -- "$tmp"' EXIT

passed=0
failed=0
ok() {
    passed=$((passed + 1))
    printf 'ok   %s\n' "$1"
}
not_ok() { # NAME [DETAIL...]: the details are the last command's output, indented
    failed=$((failed + 1))
    printf 'FAIL %s\n' "$1"
    shift
    local d
    for d in "$@"; do printf '%s\n' "$d" | sed 's/^/       | /'; done
}
check() { # NAME CONDITION-COMMAND...: passes when the command succeeds; on failure shows the last run's output
    local name=$1
    shift
    if "$@"; then
        ok "$name"
    else
        not_ok "$name" "exit code: $rc" "stdout:" "$out" "stderr:" "$err"
    fi
}

# run [-u NAME...] [NAME=value...] COMMAND...: runs it through env(1), with no stdin and a time limit
# (RUN_LIMIT seconds, default 120); sets rc, out and err.
has_timeout=0
command -v timeout >/dev/null 2>&1 && has_timeout=1
run() {
    if ((has_timeout)); then
        timeout -k 5 "${RUN_LIMIT:-120}" env "$@" </dev/null >"$tmp/out" 2>"$tmp/err"
    else
        env "$@" </dev/null >"$tmp/out" 2>"$tmp/err"
    fi
    rc=$?
    out=$(<"$tmp/out")
    err=$(<"$tmp/err")
}

contains() { [[ $1 == *"$2"* ]]; }
rc_is() { [[ $rc == "$1" ]]; }

# ---- 1. the commands, against this checkout ------------------------------------------------------------------
# (If a source changed since `mvn verify`, the first of these rebuilds the jar: that's the launcher's job.)

RUN_LIMIT=600 run "$usher" version
check "usher version: exits 0 and prints the version" eval 'rc_is 0 && contains "$out" usher'

run "$usher" --help
check "usher --help: exits 0" rc_is 0
help_out=$out

run "$usher"
check "usher (no arguments): exits 0 and prints the same as --help" eval 'rc_is 0 && [[ $out == "$help_out" ]]'

printf 'sites:\n  app.example.com: 127.0.0.1:8080\n' >"$tmp/valid.yaml"
printf 'sites:\n  app.example.com: app:99999\n' >"$tmp/invalid.yaml"
run "$usher" check --config "$tmp/valid.yaml"
check "usher check --config <valid>: exits 0" rc_is 0
run "$usher" check --config "$tmp/invalid.yaml"
check "usher check --config <invalid (port 99999)>: exits 1" rc_is 1

# From another directory, through a symlink to the launcher.
mkdir -p "$tmp/elsewhere/bin"
ln -s "$usher" "$tmp/elsewhere/bin/usher"
run bash -c 'cd "$1" && exec ./bin/usher --help' _ "$tmp/elsewhere"
check "usher via a symlink, from another directory: exits 0" rc_is 0

# ---- 2. the JDK search -----------------------------------------------------------------------------------------

# The version parser, on what `java -version` prints.
parse_fail=()
for pair in 17.0.15=17 21=21 25.0.1=25 1.8.0_392=8 21-ea=21 22+36=22 11.0.2=11 9=9 '"21.0.5"=21'; do
    got=$(usher_java_major_from_version "${pair%=*}") || got='(error)'
    [[ $got == "${pair##*=}" ]] || parse_fail+=("${pair%=*}: got $got, want ${pair##*=}")
done
got=$(printf '%s\n' 'Picked up JAVA_TOOL_OPTIONS: -Dx=1' 'openjdk version "25.0.1" 2025-10-21 LTS' \
    'OpenJDK Runtime Environment Temurin-25.0.1+8 (build 25.0.1+8-LTS)' | usher_java_major_from_output)
[[ $got == 25 ]] || parse_fail+=("java -version output after a 'Picked up' line: got $got, want 25")
got=$(printf '%s\n' 'java version "1.8.0_392"' 'Java(TM) SE Runtime Environment (build 1.8.0_392-b08)' |
    usher_java_major_from_output)
[[ $got == 8 ]] || parse_fail+=("java 8 output: got $got, want 8")
if ((${#parse_fail[@]} == 0)); then
    ok "java version parsing (17.0.15, 21, 25.0.1, 1.8.0_392, 21-ea, 22+36, ...)"
else
    not_ok "java version parsing" "${parse_fail[@]}"
fi

# A PATH with only the basic tools the launcher needs: no java, no javac, no mvn.
minpath=$tmp/minpath
mkdir -p "$minpath"
for tool in bash sh env readlink dirname find mkdir flock cat sed grep rm mktemp; do
    p=$(command -v "$tool" 2>/dev/null) && [[ $p == /* ]] && ln -s "$p" "$minpath/$tool"
done
mkdir -p "$tmp/nojvm"

run -u JAVA_HOME PATH="$minpath" USHER_JDK_SEARCH_PATH="$tmp/nojvm" "$usher" version
check "no JDK at all (JAVA_HOME unset, no java on PATH, empty search path): exits 1 with a clear message" \
    eval 'rc_is 1 && [[ -z $out ]] && contains "$err" "JDK 21 or newer" && contains "$err" JAVA_HOME'

# Fake JDKs: bin/java scripts answering -version, and otherwise printing "FAKEJAVA <major> [arg] [arg]...".
bash_path=$(command -v bash)
fake_jdk() { # DIR VERSION [release|no-release] [javac]
    mkdir -p "$1/bin"
    cat >"$1/bin/java" <<EOF
#!$bash_path
if [[ \${1-} == -version ]]; then
    echo 'openjdk version "$2" 2025-01-01' >&2
    echo 'OpenJDK Runtime Environment (fake)' >&2
    exit 0
fi
printf 'FAKEJAVA %s' '$2'
printf ' [%s]' "\$@"
echo
EOF
    chmod +x "$1/bin/java"
    if [[ ${3-release} == release ]]; then
        printf 'IMPLEMENTOR="fake"\nJAVA_VERSION="%s"\n' "$2" >"$1/release"
    fi
    if [[ ${4-} == javac ]]; then
        printf '#!%s\nexit 0\n' "$bash_path" >"$1/bin/javac"
        chmod +x "$1/bin/javac"
    fi
}
jvms=$tmp/jvms
fake_jdk "$jvms/java-8-fake" 1.8.0_392 release javac
fake_jdk "$jvms/java-17-fake" 17.0.15 no-release javac
fake_jdk "$jvms/java-21-fake" 21 no-release        # a runtime only
fake_jdk "$jvms/java-25-fake" 25.0.1 release     # a runtime only
ln -s java-25-fake "$jvms/java-1.25-fake" # a Debian-style alias: must count once
fake_jdk "$tmp/path-jdk" 17.0.15 no-release    # the `java` on PATH: too old
fake_jdk "$tmp/home-21" 21.0.5 release javac   # JAVA_HOME
fake_jdk "$tmp/home-25" 25.0.3 no-release javac
mkdir -p "$tmp/jvms-old"
ln -s "$jvms/java-8-fake" "$jvms/java-17-fake" "$tmp/jvms-old/"

# A throwaway copy of the checkout with a fresh jar: nothing here touches the real one.
copy=$tmp/copy
mkdir -p "$copy/target"
cp -R "$root/usher" "$root/scripts" "$copy/"
[[ -e $root/pom.xml ]] && cp "$root/pom.xml" "$copy/"
[[ -d $root/src ]] && cp -R "$root/src" "$copy/"
if [[ -f $root/target/usher.jar ]]; then cp "$root/target/usher.jar" "$copy/target/"; fi
find "$copy" -exec touch -d '2020-01-01 00:00:00' {} +
[[ -f $copy/target/usher.jar ]] && touch -d '2021-01-01 00:00:00' "$copy/target/usher.jar"
cusher=$copy/usher

fake_env=(PATH="$tmp/path-jdk/bin:$minpath" USHER_JDK_SEARCH_PATH="$jvms")

run "${fake_env[@]}" JAVA_HOME="$tmp/home-21" USHER_JAVA_OPTS='-Xmx64m  -Dsmoke=1' "$cusher" version 'two words'
expected_args="[--enable-native-access=ALL-UNNAMED] [-XX:+UseSerialGC] [-Xss256k] [-XX:+ExitOnOutOfMemoryError]"
expected_args+=" [-Xms8m] [-Xmx128m] [-XX:MaxMetaspaceSize=96m] [-XX:ReservedCodeCacheSize=32m]"
expected_args+=" [-XX:MaxDirectMemorySize=128m] [-Dio.netty.allocator.type=unpooled] [-XX:-UsePerfData]"
expected_args+=" [-XX:MinHeapFreeRatio=10] [-XX:MaxHeapFreeRatio=30] [-XX:-ShrinkHeapInSteps]"
expected_args+=" [-XX:CompileThresholdScaling=4] [-XX:+UnlockDiagnosticVMOptions]"
expected_args+=" [-XX:ArchiveRelocationMode=0] [-XX:TrimNativeHeapInterval=5000] [--sun-misc-unsafe-memory-access=allow]"
expected_args+=" [-XX:-AOTRecordTraining] [-XX:-AOTReplayTraining] [-Xmx64m] [-Dsmoke=1] [-jar] [$copy/target/usher.jar] [version] [two words]"
check "picks the newest major (25 in the search path over JAVA_HOME's 21 and PATH's 17); JVM flags; USHER_JAVA_OPTS last" \
    eval 'rc_is 0 && [[ $out == "FAKEJAVA 25.0.1 $expected_args" ]]'

run "${fake_env[@]}" JAVA_HOME="$tmp/home-21" USHER_JDK_SEARCH_PATH="$tmp/jvms-old" "$cusher" version
check "JDK 21 only: runs it, without -XX:TrimNativeHeapInterval, --sun-misc-unsafe-memory-access or the JDK 25 AOT profile flags" \
    eval 'rc_is 0 && contains "$out" "FAKEJAVA 21.0.5 " && ! contains "$out" TrimNativeHeapInterval &&
        ! contains "$out" sun-misc-unsafe-memory-access && ! contains "$out" AOTReplayTraining'

run "${fake_env[@]}" JAVA_HOME="$tmp/home-25" "$cusher" version
check "a tie on the major goes to JAVA_HOME" eval 'rc_is 0 && contains "$out" "FAKEJAVA 25.0.3 "'

run -u JAVA_HOME "${fake_env[@]}" USHER_JDK_SEARCH_PATH="$tmp/jvms-old" "$cusher" version
check "only Java 8 and 17 around: exits 1, listing what it found" \
    eval 'rc_is 1 && [[ -z $out ]] && contains "$err" "JDK 21 or newer" && contains "$err" "Java 17, too old" && contains "$err" "Java 8, too old"'

# ---- 3. building ---------------------------------------------------------------------------------------------

run "${fake_env[@]}" JAVA_HOME="$tmp/home-21" "$cusher" version
check "a fresh jar is not rebuilt" eval 'rc_is 0 && ! contains "$err" "building usher.jar…"'

if [[ -f $copy/src/main/java/dev/usher/Main.java ]]; then
    touch "$copy/src/main/java/dev/usher/Main.java"
    # Stale jar; the Java 21 and 25 around are runtimes only, the JDKs with javac are too old.
    run -u JAVA_HOME PATH="$minpath" USHER_JDK_SEARCH_PATH="$jvms" "$cusher" version
    check "stale jar and no JDK with javac: exits 1 saying it needs javac" \
        eval 'rc_is 1 && contains "$err" "javac" && ! contains "$err" "building usher.jar…"'

    if usher_find_jdk --javac 2>"$tmp/find.err"; then
        real_jdk=$USHER_JDK_HOME
        run -u USHER_JAVA_OPTS PATH="$minpath" JAVA_HOME="$real_jdk" "$cusher" version
        check "stale jar and no mvn on PATH: exits 1 saying so" \
            eval 'rc_is 1 && contains "$err" "mvn" && ! contains "$err" "building usher.jar…"'

        RUN_LIMIT=600 run -u USHER_JAVA_OPTS "$cusher" version
        rebuilt=$(find "$copy/src/main" "$copy/pom.xml" -newer "$copy/target/usher.jar" -print -quit)
        check "a source newer than the jar: usher version rebuilds (\"building usher.jar…\" on stderr), then runs" \
            eval 'rc_is 0 && contains "$err" "building usher.jar…" && [[ -z $rebuilt ]]'

        run -u USHER_JAVA_OPTS "$cusher" version
        check "... and the next run does not build again" eval 'rc_is 0 && ! contains "$err" "building usher.jar…"'

        if command -v unzip >/dev/null 2>&1; then
            run USHER_JAVA_OPTS=-XshowSettings:properties "$cusher" version
            check "with unzip: the native libraries are extracted once per jar into target/native, and looked up there" \
                eval 'rc_is 0 && [[ -f $copy/target/native/stamp ]] &&
                    compgen -G "$copy/target/native/libnetty_transport_native_epoll_*.so" >/dev/null &&
                    contains "$err" "java.library.path = $copy/target/native"'
        fi

        if ((USHER_JDK_MAJOR >= 25)); then
            check "on JDK 25+, the first run after a build records an AOT cache from a training run" \
                eval '[[ -s $copy/target/usher.aot && -s $copy/target/usher.aot.stamp ]]'
            # AOTMode=on makes the JVM refuse to start unless it can use the cache.
            run USHER_JAVA_OPTS=-XX:AOTMode=on "$cusher" version
            check "... which the JVM then uses (starts with -XX:AOTMode=on)" eval 'rc_is 0 && contains "$out" "usher "'
            https_aot_size=$(stat -c %s "$copy/target/usher.aot")
            RUN_LIMIT=600 run USHER_AOT_TRAINING=plain USHER_JAVA_OPTS=-XX:AOTMode=on "$cusher" version
            check "USHER_AOT_TRAINING=plain records a new cache without the HTTPS classes (smaller), and it is used" \
                eval 'rc_is 0 && [[ $(<"$copy/target/usher.aot.stamp") == *" plain" ]] &&
                    (($(stat -c %s "$copy/target/usher.aot") < https_aot_size))'
            RUN_LIMIT=600 run USHER_AOT_LINK=0 USHER_JAVA_OPTS='-XX:AOTMode=on -Xlog:aot=info' "$cusher" version
            check "USHER_AOT_LINK=0 records a new cache without AOT-linked classes, and it is used" \
                eval 'rc_is 0 && contains "$out" "Using AOT-linked classes: false" && contains "$out" "usher "'
        fi

        printf '\nthis is not Java\n' >>"$copy/src/main/java/dev/usher/Main.java"
        RUN_LIMIT=600 run -u USHER_JAVA_OPTS "$cusher" version
        check "a broken build: exits non-zero and shows Maven's error" \
            eval '! rc_is 0 && contains "$err" "building usher.jar…" && contains "$err" "ERROR" && contains "$err" "Main.java"'
    else
        not_ok "building checks: no JDK 21+ with javac on this machine" "$(cat "$tmp/find.err")"
    fi
else
    not_ok "building checks: no src/main/java/dev/usher/Main.java to touch"
fi

echo
echo "launcher smoke test: $passed of $((passed + failed)) checks passed"
((failed == 0))
