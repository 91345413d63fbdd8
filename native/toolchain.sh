#!/usr/bin/env bash
#
# native/toolchain.sh — makes the toolchain for Usher's native executable once and prints its directory.
#
# Everything comes from the package registries or from this repository:
#   jars/      the GraalVM native-image builder, GraalVM_VERSION below, from Maven Central (native/builder/pom.xml)
#   jdk/       the JDK's static libraries (libjava.a, libnio.a, libnet.a, libzip.a, libextnet.a, libmanagement_ext.a),
#              compiled by native/jdk/static-libs.sh from the C sources of Debian's openjdk-26 source package
#              (JDK_SOURCE_* below, from Debian sid through a private apt sources list that touches nothing of the
#              system's apt set-up); Debian has no openjdk-25 source to download
#   svm/       SubstrateVM's small C libraries, written here (native/c): libjvm.a, liblibchelper.a, their headers
#   builder-jdk/  the JDK as the builder sees it: links to the JDK's files plus the builder's helper library
# Cached in $USHER_NATIVE_CACHE (default: ${XDG_CACHE_HOME:-~/.cache}/usher-native), in a directory named after
# a hash of every input (this script, the builder's pom, native/c, native/jdk, the JDK's path and release file), so it is
# made again only when one of them changes; the downloaded Debian source is kept between versions of the rest.
#
# Environment: USHER_NATIVE_CACHE (above), USHER_NATIVE_MAVEN_FLAGS (more Maven flags, e.g. -o with a filled ~/.m2).
# Needs: a JDK 25 with javac and lib/src.zip (JAVA_HOME, or found by scripts/jdk.sh), mvn, gcc, ar, tar, xz,
# apt-get, and zlib's headers. Whatever is missing is named with the Debian package that has it.
set -euo pipefail

GRAALVM_VERSION=25.0.2 # also in native/builder/pom.xml; its JVMCI check accepts Temurin 25.0.2+10 and later 25s
JDK_SOURCE_PACKAGE=openjdk-26
JDK_SOURCE_VERSION=26.0.2.1+1-1
JDK_SOURCE_TARBALL=openjdk-26_26.0.2.1+1.orig.tar.xz
JDK_SOURCE_SHA256=b9a893567232edf475e1511ce2de897a00bc3d775f2e46269f492164150f0d76
JDK_SOURCE_SUITE=sid

here=$(cd -P -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
root=$(cd -P -- "$here/.." && pwd)
say() { printf 'native/toolchain.sh: %s\n' "$*" >&2; }
die() {
    printf 'native/toolchain.sh: %s\n' "$*" >&2
    exit 1
}

# ---- what is needed, and which Debian package has it -----------------------------------------------------------------
# shellcheck source=../scripts/jdk.sh
source "$root/scripts/jdk.sh"
usher_find_jdk --javac >/dev/null || exit 1
jdk=$USHER_JDK_HOME
((USHER_JDK_MAJOR == 25)) ||
    die "the GraalVM $GRAALVM_VERSION builder runs on JDK 25, but the JDK found is $USHER_JDK_MAJOR ($jdk); set JAVA_HOME to a JDK 25 (Temurin 25)"
[[ -f $jdk/lib/src.zip ]] || die "$jdk has no lib/src.zip (the JDK's sources, for the JNI headers); install the JDK's full package (Temurin: temurin-25-jdk)"
[[ -f $jdk/include/jni.h ]] || die "$jdk has no include/jni.h; install the full JDK (Temurin: temurin-25-jdk)"
missing=()
for need in gcc:gcc ar:binutils tar:tar xz:xz-utils apt-get:apt mvn:maven sha256sum:coreutils unzip:unzip; do
    command -v "${need%%:*}" >/dev/null 2>&1 || missing+=("${need#*:}")
done
[[ -f /usr/include/zlib.h ]] || missing+=(zlib1g-dev)
[[ -f /usr/include/stdio.h ]] || missing+=(libc6-dev)
((${#missing[@]} == 0)) || die "missing: install the Debian packages ${missing[*]} (apt-get install ${missing[*]})"

# ---- the cache key: every input ---------------------------------------------------------------------------------------
cache=${USHER_NATIVE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/usher-native}
mkdir -p -- "$cache"
key=$(
    {
        echo "$GRAALVM_VERSION $JDK_SOURCE_PACKAGE $JDK_SOURCE_VERSION $JDK_SOURCE_SHA256"
        echo "$jdk" # builder-jdk/ links to the JDK's files by their path (a cache shared with a container differs)
        cat -- "$jdk/release"
        cd -- "$here" && find toolchain.sh builder/pom.xml c jdk -type f | LC_ALL=C sort | xargs sha256sum
    } | sha256sum | cut -c1-16
)
dir=$cache/toolchain-$key
if [[ -f $dir/complete ]]; then
    echo "$dir"
    exit 0
fi

exec 8>"$cache/.lock"
command -v flock >/dev/null 2>&1 && flock 8 # one maker at a time; the others find it made
if [[ -f $dir/complete ]]; then
    echo "$dir"
    exit 0
fi
started=$SECONDS
say "making the native toolchain in $dir (once per change of its inputs)"
tmp=$(mktemp -d "$cache/.toolchain-$key.XXXXXX")
trap 'rm -rf -- "$tmp"' EXIT

# ---- 1. the builder jars from Maven Central -------------------------------------------------------------------------
say "GraalVM $GRAALVM_VERSION builder jars (Maven Central)"
maven_flags=()
read -r -a maven_flags <<<"${USHER_NATIVE_MAVEN_FLAGS-}"
if ! out=$(JAVA_HOME=$jdk mvn -B -q "${maven_flags[@]}" -f "$here/builder/pom.xml" dependency:copy-dependencies \
    -DoutputDirectory="$tmp/jars" </dev/null 2>&1); then
    printf '%s\n' "$out" >&2
    die "Maven could not get the GraalVM $GRAALVM_VERSION builder jars (org.graalvm.nativeimage:svm and the others in native/builder/pom.xml) from Maven Central"
fi

# ---- 2. the JDK's C sources from Debian ---------------------------------------------------------------------------
sources=$cache/sources/$JDK_SOURCE_PACKAGE-$JDK_SOURCE_VERSION
tarball=$sources/$JDK_SOURCE_TARBALL
if [[ ! -f $tarball ]] || ! echo "$JDK_SOURCE_SHA256  $tarball" | sha256sum -c --status; then
    say "Debian source package $JDK_SOURCE_PACKAGE $JDK_SOURCE_VERSION ($JDK_SOURCE_SUITE)"
    apt_dir=$cache/apt
    mkdir -p -- "$apt_dir/lists/partial" "$apt_dir/archives/partial" "$sources"
    keyring=/usr/share/keyrings/debian-archive-keyring.gpg
    [[ -f $keyring ]] || die "no $keyring to check Debian's signatures with (apt-get install debian-archive-keyring)"
    echo "deb-src [signed-by=$keyring] http://deb.debian.org/debian $JDK_SOURCE_SUITE main" >"$apt_dir/sources.list"
    apt_opts=(-q -o "Dir::Etc::SourceList=$apt_dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
        -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir" -o "Dir::Cache::Archives=$apt_dir/archives"
        -o APT::Sandbox::User=root)
    apt-get "${apt_opts[@]}" update >"$tmp/apt.log" 2>&1 ||
        { cat "$tmp/apt.log" >&2; die "apt-get update of Debian $JDK_SOURCE_SUITE's source index failed"; }
    (cd -- "$sources" && apt-get "${apt_opts[@]}" source --download-only \
        "$JDK_SOURCE_PACKAGE=$JDK_SOURCE_VERSION") >"$tmp/apt.log" 2>&1 ||
        { cat "$tmp/apt.log" >&2; die "Debian's source package $JDK_SOURCE_PACKAGE $JDK_SOURCE_VERSION could not be downloaded from $JDK_SOURCE_SUITE (it may have been replaced there: update JDK_SOURCE_* in native/toolchain.sh to the version 'apt-cache showsrc $JDK_SOURCE_PACKAGE' names, and check the JDK 25 differences in native/jdk/static-libs.sh)"; }
    echo "$JDK_SOURCE_SHA256  $tarball" | sha256sum -c --status ||
        die "$tarball does not have the pinned SHA-256 $JDK_SOURCE_SHA256"
fi
say "unpacking the JDK's native sources"
top=${JDK_SOURCE_TARBALL%.orig.tar.xz}
top=${top/_/-}
tar -xJf "$tarball" -C "$tmp" --wildcards \
    "$top/src/java.base/*/native/libjava/*" "$top/src/java.base/*/native/libnio/*" \
    "$top/src/java.base/*/native/libnet/*" "$top/src/java.base/*/native/libzip/*" \
    "$top/src/java.base/*/native/include/*" "$top/src/jdk.net/*/native/*" "$top/src/jdk.management/*/native/*" \
    "$top/src/hotspot/share/include/*" "$top/src/hotspot/os/posix/include/*" ||
    die "unpacking $tarball failed"

# ---- 3. the JDK's static libraries ------------------------------------------------------------------------------------
say "compiling the JDK's static libraries"
mkdir -p -- "$tmp/out/jdk"
bash "$here/jdk/static-libs.sh" "$tmp/$top" "$jdk" "$tmp/out/jdk"
rm -rf -- "$tmp/out/jdk/.work"

# ---- 4. SubstrateVM's C libraries, from this repository ---------------------------------------------------------------
say "compiling SubstrateVM's C libraries (native/c)"
svm=$tmp/out/svm
mkdir -p -- "$svm/obj" "$svm/include"
c_flags=(-O2 -fPIC -fno-strict-aliasing -Wall -Wextra -Werror -Wno-unused-parameter -std=gnu11
    -I"$jdk/include" -I"$jdk/include/linux" -I"$here/c/chelper/include")
for c in "$here"/c/jvm/*.c; do gcc "${c_flags[@]}" -c "$c" -o "$svm/obj/jvm-$(basename -- "${c%.c}").o"; done
for c in "$here"/c/chelper/*.c; do gcc "${c_flags[@]}" -c "$c" -o "$svm/obj/chelper-$(basename -- "${c%.c}").o"; done
ar rcs "$svm/libjvm.a" "$svm"/obj/jvm-*.o
ar rcs "$svm/liblibchelper.a" "$svm"/obj/chelper-*.o
cp -- "$here"/c/chelper/include/*.h "$svm/include/"
rm -rf -- "$svm/obj"

# ---- 5. the JDK the builder runs on ------------------------------------------------------------------------------------
# The builder loads a helper library of its own from java.home/lib/svm/builder/lib. Rather than write into the
# JDK, it runs on a view of it: every file is a symbolic link to the JDK's except bin/java and lib/server/libjvm.so,
# which are hard links (copies across file systems), because the JVM takes java.home from their real location.
say "the builder's view of $jdk"
view=$tmp/out/builder-jdk
mkdir -p -- "$view"
link_or_copy() { ln -- "$1" "$2" 2>/dev/null || cp -- "$1" "$2"; }
(cd -- "$jdk" && find . -mindepth 1 -type d) | while IFS= read -r d; do mkdir -p -- "$view/$d"; done
(cd -- "$jdk" && find . -mindepth 1 ! -type d) | while IFS= read -r f; do
    case $f in
        ./bin/java | ./lib/server/libjvm.so) link_or_copy "$jdk/$f" "$view/$f" ;;
        *) ln -s -- "$jdk/${f#./}" "$view/$f" ;;
    esac
done
mkdir -p -- "$view/lib/svm/builder/lib"
gcc "${c_flags[@]}" -shared -o "$view/lib/svm/builder/lib/libreporterchelper.so" "$here/c/reporter/reporter_chelper.c"

# ---- done -------------------------------------------------------------------------------------------------------------
mv -- "$tmp/jars" "$tmp/out/jars"
{
    echo "graalvm=$GRAALVM_VERSION"
    echo "jdk_source=$JDK_SOURCE_PACKAGE $JDK_SOURCE_VERSION"
    echo "jdk=$jdk"
} >"$tmp/out/versions"
rm -rf -- "$dir"
mv -T -- "$tmp/out" "$dir"
touch -- "$dir/complete"
say "toolchain ready in $((SECONDS - started)) s"
echo "$dir"
