# shellcheck shell=bash
# The USHER_JDK_* results are read by the scripts that source this file:
# shellcheck disable=SC2034
#
# Finding a Java 21+ runtime or JDK: shared by ./usher, ./run-tests and .ci/run.
#
# Source this file (it only defines functions and variables; it sets no shell options) and call
#
#   usher_find_jdk [--javac]
#
# Candidates, in this order:
#   1. $JAVA_HOME
#   2. the `java` on PATH (symlinks followed, e.g. /usr/bin/java -> /usr/lib/jvm/java-17-openjdk-amd64)
#   3. every directory inside each entry of USHER_JDK_SEARCH_PATH, a colon-separated list that defaults to
#      /usr/lib/jvm. Meant for tests: set it to an empty directory (or to "") to search nothing there.
# The NEWEST major version >= 21 wins; on a tie the candidate listed first above wins (so $JAVA_HOME beats
# /usr/lib/jvm for the same major). With --javac only full JDKs (bin/javac present) count: building needs one.
#
# The major version comes from the JDK's `release` file (JAVA_VERSION="25.0.1"), which is instant; when a
# candidate has none it comes from `java -version`. Either way it goes through the same parser, which
# understands 17.0.15, 21, 25.0.1, 21-ea, 22+36 and the old 1.8.0_392 form.
#
# On success sets USHER_JDK_HOME, USHER_JDK_JAVA (its bin/java) and USHER_JDK_MAJOR, and returns 0.
# On failure prints what it looked at and how to fix it on stderr, and returns 1.
#
# External commands used: readlink (only to follow symlinks). Everything else is bash itself.

USHER_MIN_JAVA_MAJOR=21

# usher_java_major_from_version VERSION: prints the major version: 17.0.15 -> 17, 1.8.0_392 -> 8.
usher_java_major_from_version() {
    local v=${1#\"} re_old='^1\.([0-9]+)' re_new='^([0-9]+)'
    if [[ $v =~ $re_old ]]; then
        v=${BASH_REMATCH[1]}
    elif [[ $v =~ $re_new ]]; then
        v=${BASH_REMATCH[1]}
    else
        return 1
    fi
    printf '%d\n' "$((10#$v))"
}

# usher_java_major_from_output: reads `java -version` output on stdin, prints the major version.
# Skips lines such as "Picked up JAVA_TOOL_OPTIONS: ..." and takes the first `version "..."`; falls back to an
# unquoted "openjdk 21.0.1" / "java version 21" form.
usher_java_major_from_output() {
    local line out='' re_quoted='version[[:space:]]+"([^"]+)"'
    local re_bare='^(openjdk|java)[[:space:]]+(version[[:space:]]+)?([0-9][^[:space:]]*)'
    while IFS= read -r line || [[ -n $line ]]; do
        out+=$line$'\n'
        if [[ $line =~ $re_quoted ]]; then
            usher_java_major_from_version "${BASH_REMATCH[1]}"
            return
        fi
    done
    while IFS= read -r line; do
        if [[ $line =~ $re_bare ]]; then
            usher_java_major_from_version "${BASH_REMATCH[3]}"
            return
        fi
    done <<<"$out"
    return 1
}

# usher_java_major_of_binary JAVA: runs `JAVA -version` (ignoring the *_OPTIONS variables, which could make
# it fail or print extra lines) and prints the major version.
usher_java_major_of_binary() {
    local out
    out=$(unset JAVA_TOOL_OPTIONS _JAVA_OPTIONS JDK_JAVA_OPTIONS; "$1" -version 2>&1 </dev/null) || return 1
    usher_java_major_from_output <<<"$out"
}

# usher_java_major_of_home HOME: prints the major version of the JDK/JRE at HOME.
usher_java_major_of_home() {
    local line re='^JAVA_VERSION="([^"]+)"'
    if [[ -r $1/release ]]; then
        while IFS= read -r line || [[ -n $line ]]; do
            if [[ $line =~ $re ]]; then
                usher_java_major_from_version "${BASH_REMATCH[1]}" && return 0
                break
            fi
        done <"$1/release"
    fi
    usher_java_major_of_binary "$1/bin/java"
}

# usher_realpath PATH: PATH with every symlink resolved (like `readlink -f`, for an existing path).
usher_realpath() {
    local p=$1 target dir
    while [[ -L $p ]]; do
        target=$(readlink -- "$p") || return 1
        if [[ $target == /* ]]; then
            p=$target
        elif [[ $p == */* ]]; then
            p=${p%/*}/$target
        else
            p=$target
        fi
    done
    if [[ -d $p ]]; then
        (cd -P -- "$p" 2>/dev/null && pwd)
        return
    fi
    if [[ $p == */* ]]; then
        dir=${p%/*}
        dir=$(cd -P -- "${dir:-/}" 2>/dev/null && pwd) || return 1
        printf '%s/%s\n' "${dir%/}" "${p##*/}"
    else
        printf '%s/%s\n' "$(pwd -P)" "$p"
    fi
}

# _usher_java_home_of_binary JAVA: the home directory of a `java` found on PATH.
_usher_java_home_of_binary() {
    local real line re='^[[:space:]]*java\.home[[:space:]]*=[[:space:]]*(.*)$'
    real=$(usher_realpath "$1") || return 1
    if [[ $real == */bin/java ]]; then
        printf '%s\n' "${real%/bin/java}"
        return 0
    fi
    # A wrapper or shim (jenv, asdf, ...): ask the JVM itself.
    while IFS= read -r line; do
        if [[ $line =~ $re ]]; then
            printf '%s\n' "${BASH_REMATCH[1]}"
            return 0
        fi
    done < <(unset JAVA_TOOL_OPTIONS _JAVA_OPTIONS JDK_JAVA_OPTIONS; "$1" -XshowSettings:properties -version 2>&1 </dev/null)
    return 1
}

# _usher_consider_jdk PREFIX HOME: looks at one candidate (PREFIX, e.g. "JAVA_HOME=", says where it came from); updates
# usher_find_jdk's locals through bash's dynamic scoping: best_home, best_major, seen, report.
_usher_consider_jdk() {
    local what=$1$2 real major
    if [[ ! -x $2/bin/java || -d $2/bin/java ]]; then
        report+="    $what: no bin/java there"$'\n'
        return
    fi
    real=$(usher_realpath "$2") || real=$2
    case $seen in *$'\n'"$real"$'\n'*) return ;; esac
    seen+=$real$'\n'
    if ! major=$(usher_java_major_of_home "$real"); then
        report+="    $what: could not tell its version"$'\n'
        return
    fi
    if ((major < USHER_MIN_JAVA_MAJOR)); then
        report+="    $what: Java $major, too old"$'\n'
        return
    fi
    if ((need_javac)) && [[ ! -x $real/bin/javac ]]; then
        report+="    $what: Java $major, but a runtime only (no bin/javac)"$'\n'
        return
    fi
    report+="    $what: Java $major"$'\n'
    if ((major > best_major)); then
        best_major=$major
        best_home=$real
    fi
}

usher_find_jdk() {
    local need_javac=0
    [[ ${1-} == --javac ]] && need_javac=1
    local best_home='' best_major=0 seen=$'\n' report='' java home dir found
    local -a dirs=()

    if [[ -n ${JAVA_HOME-} ]]; then
        _usher_consider_jdk "JAVA_HOME=" "$JAVA_HOME"
    else
        report+="    JAVA_HOME: not set"$'\n'
    fi

    if java=$(command -v java 2>/dev/null) && [[ $java == /* ]]; then
        if home=$(_usher_java_home_of_binary "$java"); then
            _usher_consider_jdk "java on PATH ($java) -> " "$home"
        else
            report+="    java on PATH: $java — could not tell where its JDK is"$'\n'
        fi
    else
        report+="    java on PATH: none"$'\n'
    fi

    IFS=: read -r -a dirs <<<"${USHER_JDK_SEARCH_PATH-/usr/lib/jvm}"
    for dir in "${dirs[@]}"; do
        [[ -n $dir ]] || continue
        if [[ ! -d $dir ]]; then
            report+="    $dir/*: no such directory"$'\n'
            continue
        fi
        found=0
        for home in "$dir"/*/; do
            home=${home%/}
            [[ -x $home/bin/java ]] || continue
            found=1
            _usher_consider_jdk "" "$home"
        done
        ((found)) || report+="    $dir/*: nothing with a bin/java"$'\n'
    done

    if [[ -z $best_home ]]; then
        {
            if ((need_javac)); then
                echo "usher: no JDK $USHER_MIN_JAVA_MAJOR or newer found (building usher.jar needs a full JDK, with javac)."
            else
                echo "usher: no JDK $USHER_MIN_JAVA_MAJOR or newer found (to run usher.jar, a Java $USHER_MIN_JAVA_MAJOR+ runtime would do)."
            fi
            echo "  Looked at (newest major >= $USHER_MIN_JAVA_MAJOR wins):"
            printf '%s' "$report"
            echo "  Install a JDK $USHER_MIN_JAVA_MAJOR or newer and set JAVA_HOME to it, e.g. Eclipse Temurin"
            echo "  (https://adoptium.net/installation/linux/) or your distribution's openjdk-21-jdk-headless /"
            echo "  openjdk-25-jdk-headless package where it has one."
        } >&2
        return 1
    fi
    USHER_JDK_HOME=$best_home
    USHER_JDK_JAVA=$best_home/bin/java
    USHER_JDK_MAJOR=$best_major
    return 0
}
