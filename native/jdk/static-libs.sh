#!/usr/bin/env bash
#
# native/jdk/static-libs.sh SRC JDK OUT — compiles the JDK's static libraries that SubstrateVM links into a native
# image (libjava.a, libnio.a, libnet.a, libzip.a, libextnet.a, libmanagement_ext.a) from the C sources of a JDK
# source tree SRC (Debian's openjdk-26 source package, unpacked by native/toolchain.sh), for the JDK at JDK
# (Temurin 25): the JNI headers are made with `javac -h` from JDK's own lib/src.zip, so the C code is compiled
# against the Java declarations of the JDK that builds the image. Where the two versions differ in a native that
# the image can reach, native/jdk/jdk25-compat.c supplies the JDK 25 behaviour (see RENAMED below).
# Flags follow the JDK's own release build of these libraries on Linux (make/autoconf/flags-cflags.m4,
# make/modules/*/Lib.gmk), with -DSTATIC_BUILD=1 as for a statically linked JDK.
set -euo pipefail

src=$1 jdk=$2 out=$3
here=$(cd -P -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
work=$out/.work
rm -rf -- "$work"
mkdir -p -- "$work/hdr" "$work/obj" "$work/javasrc" "$work/classes"

# library name, then its source directories (relative to SRC/src); every .c file directly in them is compiled
libraries=(
    "java      java.base/share/native/libjava java.base/unix/native/libjava java.base/linux/native/libjava"
    "nio       java.base/share/native/libnio java.base/share/native/libnio/ch java.base/unix/native/libnio
               java.base/unix/native/libnio/ch java.base/unix/native/libnio/fs java.base/linux/native/libnio
               java.base/linux/native/libnio/ch java.base/linux/native/libnio/fs"
    "net       java.base/share/native/libnet java.base/unix/native/libnet"
    "zip       java.base/share/native/libzip"
    "extnet    jdk.net/linux/native/libextnet"
    "management_ext jdk.management/share/native/libmanagement_ext jdk.management/unix/native/libmanagement_ext
               jdk.management/linux/native/libmanagement_ext"
)

# Files left out: SubstrateVM replaces the Java classes whose natives they hold, and the JDK 26 natives there no
# longer match JDK 25's declarations (java.lang.Class is SubstrateVM's DynamicHub; ConstantPool has its own
# substitution). A JDK 26 native that no longer matches anywhere else stops the build with gcc's "conflicting types".
EXCLUDED=(
    java.base/share/native/libjava/Class.c
    java.base/share/native/libjava/ConstantPool.c
)

# JDK 26 natives whose JDK 25 contract differs: compiled under another name, wrapped by jdk25-compat.c.
RENAMED=(
    # 25: void fstatat0(...) throws UnixException; 26: int fstatat0(...) returns errno
    Java_sun_nio_fs_UnixNativeDispatcher_fstatat0=usher_jdk26_UnixNativeDispatcher_fstatat0
)

# ---- JNI headers, from the building JDK's own sources -------------------------------------------------------------
# The headers the C files include that look like a class's (pkg_Class.h or pkg_Class_Nested.h), mapped to the source
# file in src.zip that declares them (the longest prefix that is a .java file there).
zip_list=$work/src.zip.list
unzip -Z1 "$jdk/lib/src.zip" >"$zip_list"
mapfile -t wanted < <(
    for entry in "${libraries[@]}"; do
        read -r -d "" -a parts <<<"$entry" || true
        for d in "${parts[@]:1}"; do cat "$src/src/$d"/*.c "$src/src/$d"/*.h 2>/dev/null || true; done
    done | sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"([a-z][a-z0-9]*_[A-Za-z0-9_]+)\.h".*/\1/p' | sort -u
)
java_files=()
for header in "${wanted[@]}"; do
    parts=${header//_/\/}
    candidate=$parts
    while [[ $candidate == */* ]]; do
        match=$(grep -m1 -E "^[a-z.]+/${candidate}\.java$" "$zip_list" || true)
        if [[ -n $match ]]; then
            java_files+=("$match")
            break
        fi
        candidate=${candidate%/*}
    done
done
mapfile -t java_files < <(printf '%s\n' "${java_files[@]}" | sort -u)
(cd -- "$work/javasrc" && unzip -q -o "$jdk/lib/src.zip" "${java_files[@]}")
for module_dir in "$work/javasrc"/*/; do # one javac per module: it patches only one module at a time
    module=$(basename -- "$module_dir")
    mapfile -t sources < <(find "$module_dir" -name '*.java' | sort)
    "$jdk/bin/javac" -h "$work/hdr" -d "$work/classes/$module" -implicit:none -proc:none -nowarn -XDsuppressNotes \
        --patch-module "$module=$module_dir" "${sources[@]}" 2>"$work/javac.log" || {
        cat "$work/javac.log" >&2
        echo "native/jdk/static-libs.sh: javac -h failed on $module's sources in $jdk/lib/src.zip" >&2
        exit 1
    }
done

# A renamed native keeps its JDK 26 signature, so the JDK 25 prototype is taken out of the generated header.
for r in "${RENAMED[@]}"; do
    name=${r%%=*}
    sed -i -e "/^JNIEXPORT .* ${name}\$/,+1d" "$work/hdr"/*.h
done

# ---- compile -------------------------------------------------------------------------------------------------------
# ProcessImpl_md.c checks that jspawnhelper (the building JDK's, in lib/) has its version.
version_string=$(sed -nE 's/^JAVA_RUNTIME_VERSION="(.*)"$/\1/p' "$jdk/release")
cflags=(
    -O2 -fPIC -pipe -fno-strict-aliasing -fstack-protector -fno-omit-frame-pointer -fvisibility=hidden
    -w -std=gnu11
    -DLINUX -D_GNU_SOURCE -D_REENTRANT -D_LARGEFILE64_SOURCE -D_FILE_OFFSET_BITS=64 -DNDEBUG
    -DARCH='"amd64"' -Damd64 -D_LP64=1 -DSTATIC_BUILD=1 -DARCHPROPNAME='"amd64"'
    -DVERSION_STRING="\"$version_string\""
    -I"$work/hdr" -I"$jdk/include" -I"$jdk/include/linux"
    -I"$src/src/hotspot/share/include" -I"$src/src/hotspot/os/posix/include"
    -I"$src/src/java.base/share/native/include" -I"$src/src/java.base/unix/native/include"
    -I"$src/src/java.base/share/native/libjava" -I"$src/src/java.base/unix/native/libjava"
    -I"$src/src/java.base/share/native/libnet" -I"$src/src/java.base/unix/native/libnet"
    -I"$src/src/java.base/share/native/libnio" -I"$src/src/java.base/unix/native/libnio"
    -I"$src/src/java.base/share/native/libnio/ch" -I"$src/src/java.base/unix/native/libnio/ch"
    -I"$src/src/java.base/unix/native/libnio/fs" -I"$src/src/java.base/linux/native/libnio/ch"
    -I"$src/src/java.base/linux/native/libnio/fs"
    -I"$src/src/java.base/share/native/libzip"
    -I"$src/src/jdk.management/share/native/libmanagement_ext"
)
renames=()
for r in "${RENAMED[@]}"; do renames+=("-D$r"); done

for entry in "${libraries[@]}"; do
    read -r -d "" -a parts <<<"$entry" || true
    lib=${parts[0]}
    objs=()
    mkdir -p -- "$work/obj/$lib"
    for d in "${parts[@]:1}"; do
        for c in "$src/src/$d"/*.c; do
            [[ -f $c ]] || continue
            [[ " ${EXCLUDED[*]} " == *" $d/$(basename -- "$c") "* ]] && continue
            o=$work/obj/$lib/$(basename -- "${d//\//_}")_$(basename -- "${c%.c}").o
            gcc "${cflags[@]}" "${renames[@]}" -DLIBRARY_NAME="$lib" -c "$c" -o "$o" 2>>"$work/gcc.log" || {
                cat "$work/gcc.log" >&2
                echo "native/jdk/static-libs.sh: gcc failed on $c" >&2
                exit 1
            }
            objs+=("$o")
        done
    done
    if [[ $lib == nio ]]; then # the JDK 25 forms of the natives renamed above, and the ones 26 no longer has
        gcc "${cflags[@]}" -DLIBRARY_NAME=nio -c "$here/jdk25-compat.c" -o "$work/obj/nio/jdk25-compat.o"
        objs+=("$work/obj/nio/jdk25-compat.o")
    fi
    rm -f -- "$out/lib$lib.a"
    ar rcs "$out/lib$lib.a" "${objs[@]}"
done
rm -rf -- "$work/classes" "$work/javasrc"
