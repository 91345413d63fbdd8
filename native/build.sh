#!/usr/bin/env bash
#
# native/build.sh — builds Usher's native executable: target/native-image/usher (`./usher build --native` runs this).
#
# 1. the toolchain (native/toolchain.sh: made once into a cache, then reused)
# 2. target/usher.jar (Maven, as ./usher builds it)
# 3. the GraalVM builder, its main class called directly on the JDK (no native-image driver: it is in no registry).
#    The builder reads the reachability metadata under META-INF/native-image/ in the jar itself (Netty's, and
#    Usher's own in src/main/resources/META-INF/native-image/dev.usher/usher/); the Args lines of the
#    native-image.properties files there are driver options, translated here (translate_args).
# The executable is rebuilt only when the jar or the toolchain changed (target/native-image/usher.stamp); the JNI
# libraries are copied beside it, into target/native-image/lib/.
#
# Environment: USHER_NATIVE_CACHE and USHER_NATIVE_MAVEN_FLAGS (see native/toolchain.sh), USHER_NATIVE_BUILDER_XMX
# (default 3g: the builder's heap), USHER_NATIVE_ARGS (extra builder options, e.g. -H:+PrintClassInitialization),
# USHER_NATIVE_PIE=1 (a position-independent executable, randomised at load: 4.7 MiB more idle memory).
set -euo pipefail

here=$(cd -P -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
root=$(cd -P -- "$here/.." && pwd)
say() { printf 'native/build.sh: %s\n' "$*" >&2; }
die() {
    printf 'native/build.sh: %s\n' "$*" >&2
    exit 1
}

toolchain=$("$here/toolchain.sh")
# shellcheck source=../scripts/jdk.sh
source "$root/scripts/jdk.sh"
usher_find_jdk --javac >/dev/null || exit 1
jdk=$USHER_JDK_HOME

jar=$root/target/usher.jar
out=$root/target/native-image
exe=$out/usher

# ---- the jar ------------------------------------------------------------------------------------------------------
if [[ ! -f $jar ]] || [[ -n $(find "$root/pom.xml" "$root/src/main" -newer "$jar" -print -quit 2>/dev/null) ]]; then
    say "building target/usher.jar"
    maven_flags=()
    read -r -a maven_flags <<<"${USHER_NATIVE_MAVEN_FLAGS-}"
    (cd -- "$root" && JAVA_HOME=$jdk mvn -B -q "${maven_flags[@]}" package -Dmaven.test.skip=true </dev/null) ||
        die "mvn package failed"
fi

jar_hash=$(sha256sum <"$jar" | cut -c1-16)

# ---- the JNI libraries beside the executable ----------------------------------------------------------------------
# target/native-image/lib/: Netty's (epoll, BoringSSL, QUIC) and zstd-jni's libraries for Linux x86-64, as in the jar.
# The executable loads them from there (dev.usher.nativeimage.NativeDefaults), so a start extracts nothing into a
# temporary file; an executable copied without its lib/ still works, extracting them from itself as the JVM does.
copy_libraries() {
    local lib=$out/lib
    [[ -f $lib/stamp && $(<"$lib/stamp") == "$jar_hash" ]] && return 0
    mkdir -p -- "$out"
    local fresh
    fresh=$(mktemp -d "$out/.lib.XXXXXX")
    unzip -q -o -j "$jar" 'META-INF/native/*.so' 'linux/amd64/*.so' -d "$fresh" ||
        die "could not copy the JNI libraries out of $jar (unzip failed)"
    local want
    for want in libnetty_transport_native_epoll_x86_64.so libnetty_tcnative_linux_x86_64.so \
        libnetty_quiche42_linux_x86_64.so 'libzstd-jni-*.so'; do
        compgen -G "$fresh/$want" >/dev/null || die "$jar has no $want (META-INF/native/ or linux/amd64/)"
    done
    chmod 755 "$fresh" && chmod 644 "$fresh"/*.so
    printf '%s' "$jar_hash" >"$fresh/stamp"
    rm -rf -- "$lib"
    mv -T -- "$fresh" "$lib"
}

pie_args=(-H:NativeLinkerOption=-no-pie)
[[ ${USHER_NATIVE_PIE-} == 1 ]] && pie_args=()
stamp="$jar_hash $(basename -- "$toolchain") ${USHER_NATIVE_ARGS-} pie=${USHER_NATIVE_PIE-0}"
stamp+=" $(cat -- "$here/build.sh" "$here/builder/exports.txt" | sha256sum | cut -c1-16)"
if [[ -x $exe && -f $exe.stamp && $(<"$exe.stamp") == "$stamp" ]]; then
    copy_libraries
    say "$exe is up to date"
    exit 0
fi

# ---- driver options from the jar's native-image.properties ---------------------------------------------------------
# The few driver options those files use, as the builder's own options; anything else stops the build, so a new
# option in a dependency cannot be dropped silently.
translate_args() { # ARG...
    local arg value item
    for arg in "$@"; do
        case $arg in
            --initialize-at-run-time=* | --initialize-at-build-time=*)
                value=${arg#*=}
                local when=run_time
                [[ $arg == --initialize-at-build-time=* ]] && when=build_time
                local IFS=,
                for item in $value; do
                    # Netty asks for all of io.netty at build time; it then fixes at build time what it reads from
                    # the machine and the properties (processor count, allocator, logger: an SLF4J logger bound to
                    # JUL in the image heap). Usher's Netty initialises at run time, as on the JVM.
                    [[ $item == io.netty && $when == build_time ]] && continue
                    printf '%s\n' "-H:ClassInitialization=$item:$when"
                done
                ;;
            --enable-url-protocols=*) printf '%s\n' "-H:EnableURLProtocols=${arg#*=}" ;;
            --features=*) printf '%s\n' "-H:Features=${arg#*=}" ;;
            -H:* | -R:*) printf '%s\n' "$arg" ;;
            *) die "a native-image.properties in $jar has the option '$arg', which native/build.sh does not translate" ;;
        esac
    done
}
meta_args=()
while IFS= read -r props; do
    # Args = a b \<newline> c  (a Java properties value with line continuations)
    value=$(unzip -p "$jar" "$props" | sed -e ':a' -e '/\\$/N; s/\\\n//; ta' | sed -nE 's/^[[:space:]]*Args[[:space:]]*=[[:space:]]*//p')
    read -r -a words <<<"$value"
    while IFS= read -r a; do meta_args+=("$a"); done < <(translate_args "${words[@]}")
done < <(unzip -Z1 "$jar" | grep -E '^META-INF/native-image/.*/native-image\.properties$')

# The metadata files (reachability-metadata.json, reflect-config.json, jni-config.json, ...) are read from the
# directories named by -H:ConfigurationResourceRoots: the ones under META-INF/native-image/ that hold some (the
# driver does the same).
mapfile -t config_roots < <(unzip -Z1 "$jar" | grep -E '^META-INF/native-image/.+/[a-z-]+\.json$' |
    sed -E 's|/[^/]+$||' | sort -u)
((${#config_roots[@]})) || die "$jar has no reachability metadata under META-INF/native-image/"
config_roots_arg=$(IFS=,; echo "${config_roots[*]}")

# ---- the builder's command line --------------------------------------------------------------------------------------
jars=$toolchain/jars
modules=()
for j in "$jars"/*.jar; do
    case $(basename -- "$j") in compiler-*) ;; *) modules+=("$j") ;; esac
done
module_path=$(IFS=:; echo "${modules[*]}")
builder_modules=org.graalvm.nativeimage.builder,org.graalvm.nativeimage.base,org.graalvm.nativeimage.pointsto
builder_modules+=,org.graalvm.nativeimage.objectfile,org.graalvm.nativeimage.configure,org.graalvm.nativeimage
builder_modules+=,org.graalvm.nativeimage.libgraal,org.graalvm.truffle.compiler,org.graalvm.espresso.shared.svm
builder_modules+=,org.graalvm.nativeimage.shaded.capnproto,org.graalvm.word,org.graalvm.collections,jdk.graal.compiler
exports=()
while read -r module packages; do
    [[ -z $module || $module == \#* ]] && continue
    for p in $packages; do exports+=("--add-exports=$module/$p=$builder_modules"); done
done <"$here/builder/exports.txt"

java_args=(
    -XX:+UnlockExperimentalVMOptions -XX:+EnableJVMCI -XX:-UseJVMCICompiler
    -Xss10m "-Xmx${USHER_NATIVE_BUILDER_XMX:-3g}" -XX:+UseParallelGC -Xshare:off
    -Djava.awt.headless=true
    -Dtruffle.TrustAllTruffleRuntimeProviders=true
    -Dtruffle.TruffleRuntime=com.oracle.truffle.api.impl.DefaultTruffleRuntime
    -Dgraalvm.ForcePolyglotInvalid=true -Dgraalvm.locatorDisabled=true -Dsubstratevm.HostLibC=glibc
    -Dorg.graalvm.vendor=GraalVM\ Community -Dorg.graalvm.version=25.0.2 -Dcom.oracle.graalvm.isaot=true
    -Djava.system.class.loader=com.oracle.svm.hosted.NativeImageSystemClassLoader
    -Dorg.graalvm.nativeimage.imagecode=buildtime
    -Djdk.internal.lambda.disableEagerInitialization=true
    -Djava.lang.invoke.MethodHandle.DONT_INLINE_THRESHOLD=-1 -Djava.lang.invoke.MethodHandle.PROFILE_GWT=false
    # native access for the builder's modules and the class path (the image keeps what the builder's JVM had: without
    # it, the first System.loadLibrary in the executable takes the JDK's warning path, which needs libjava loaded)
    "--enable-native-access=ALL-UNNAMED,$builder_modules"
    # the JDK modules the image can use: what a class-path application gets on the JVM (java.net.http for acme4j,
    # java.sql, jdk.jfr...); the builder's own --module start would otherwise resolve only what it needs itself
    --add-modules=ALL-DEFAULT
    --upgrade-module-path "$(ls "$jars"/compiler-*.jar)"
    --module-path "$module_path"
    "${exports[@]}"
    --module org.graalvm.nativeimage.builder/com.oracle.svm.hosted.NativeImageGeneratorRunner
)
image_args=(
    -imagecp "$jar"
    "-H:CLibraryPath=$toolchain/svm,$toolchain/jdk"
    "-H:Path=$out" -H:Name=usher -H:Class=dev.usher.Main
    -H:+ReportExceptionStackTraces
    -H:-UseContainerSupport # its C library (libsvm_container) is not part of this toolchain; Usher needs none of it
    -H:EnableURLProtocols=http,https
    "-H:ConfigurationResourceRoots=$config_roots_arg"
    -H:EnableNativeAccess=ALL-UNNAMED # Netty's and zstd-jni's libraries (the jar's manifest says the same)
    # the JDK initialises sun.net.NetHooks' SDP provider from com.sun.sdp.conf: at run time, as on the JVM
    -H:ClassInitialization=sun.net.NetHooks:run_time,sun.net.sdp.SdpProvider:run_time
    -R:MaxHeapSize=128m # as the launcher's -Xmx128m (a 200 MiB body streams through 32 MiB); -Xmx… overrides it
    # give free heap chunks back after a collection beyond 1 MiB (the default keeps them): idle anonymous memory
    # 11.0 -> 8.1 MiB, measured (docs/native.md); -XX:MaxHeapFree=… overrides it
    -R:MaxHeapFree=1m
    # a young generation of at most 8 MiB (SubstrateVM's default let it grow to about 60 MiB under load, all of it
    # private memory): after an HTTPS + gzip load 43.9 / 40.8 -> 17.4 MiB, peak 84 / 74 -> 18 MiB, idle after one
    # HTTPS request 9.7 -> 7.8 MiB, req/s unchanged (bench/results/2026-12-02-native-young-gen.txt); -Xmn… overrides it
    -R:MaxNewSize=8m
    # a position-dependent executable (as Go links Caddy): the image heap then needs none of its ~122,000 load-time
    # relocations, which wrote 2.3 MiB of its pages private and had the runtime copy 2 MiB more; idle anonymous
    # memory 10.0 -> 5.3 MiB (docs/native.md). Costs the executable's own address randomisation (libraries, stacks
    # and the heap stay randomised); USHER_NATIVE_PIE=1 builds a PIE instead
    "${pie_args[@]}"
    # the build's identity (the driver passes a random one): derived from the inputs, so a rebuild is the same image
    "-H:ImageBuildID=$(printf '%s' "$stamp" | sha256sum | sed -E 's/^(.{8})(.{4})(.{4})(.{4})(.{12}).*/\1-\2-\3-\4-\5/')"
    "${meta_args[@]}"
)
extra=()
read -r -a extra <<<"${USHER_NATIVE_ARGS-}"
image_args+=("${extra[@]}")

mkdir -p -- "$out"
rm -f -- "$exe" "$exe.stamp"
say "building $exe (GraalVM builder; a few minutes, about 3 GB of memory)"
started=$SECONDS
args_file=$out/builder-args.txt
printf '%s\0' "${image_args[@]}" | head -c -1 >"$args_file" # NUL-separated, as the builder reads it
printf '%s\n' "${image_args[@]}" >"$args_file.txt"           # the same, to read
# The builder stops when the file named after -keepalive disappears; this shell's /proc entry lives as long as it.
(
    cd -- "$out"
    USE_NATIVE_IMAGE_JAVA_PLATFORM_MODULE_SYSTEM=true exec "$toolchain/builder-jdk/bin/java" "${java_args[@]}" \
        -keepalive "/proc/$$/comm" --image-args-file="$args_file"
) || die "the native-image builder failed (its output is above; its options are in $args_file.txt)"
[[ -x $exe ]] || die "the builder finished but made no $exe"
copy_libraries
printf '%s' "$stamp" >"$exe.stamp"
say "built $exe in $((SECONDS - started)) s ($(du -h "$exe" | cut -f1))"
