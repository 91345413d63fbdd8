#!/usr/bin/env bash
# bench/container.sh [--quiet S] [--runs N] [--no-native] — builds Usher's images from the Containerfile with podman,
# offline, and measures them (run as root from the repository root; cgroup v1). Not part of CI (see
# docs/containers.md: the offline build needs mmdebstrap's downloads from the Debian registry, this machine's
# Temurin 25 and ~/.m2).
#
#   1. base images without any registry but Debian's: mmdebstrap --variant=minbase bookworm root filesystems
#      (cached in $USHER_IMAGE_CACHE, default /tmp/usher-image-cache), imported with podman import: the runtime base
#      (plus unzip), a build base (plus maven, with this machine's Temurin 25 copied in), the native build's base
#      (plus gcc, binutils, xz-utils, zlib1g-dev, maven: what native/toolchain.sh needs) and Debian's caddy package
#      on the same base, for the comparison;
#   2. podman build of ./Containerfile with those bases (BUILD_IMAGE, BASE_IMAGE, NATIVE_BUILD_IMAGE, MAVEN_FLAGS=-o
#      and ~/.m2 mounted), --format docker (to keep HEALTHCHECK): the default target (jvm) and --target native (the
#      native toolchain's cache, $cache/native, is mounted at the image's USHER_NATIVE_CACHE, seeded with the Debian
#      source the host's native cache already holds; the first native build takes several minutes); the image sizes;
#   3. idle memory, the published way: Usher's containers (JVM and native) and Caddy's, all run by podman the same way
#      (runc, cgroupfs, port 80 published on 127.0.0.1, one site proxied to a busybox httpd container), one request,
#      a quiet window of --quiet seconds (default 30), the median of 6 samples of the container cgroup's
#      memory.stat total_rss (anon) and memory.usage_in_bytes;
#   4. label latency: each Usher container watching podman's Docker-compatible API (the socket mounted), --runs
#      (default 5) labelled containers started one after the other, each timed from `podman run` to the first 200
#      through Usher (polled every 10 ms).
# --no-native: the JVM image only. Prints RESULT lines and writes them to bench/results/container-<date>.txt.
set -euo pipefail
quiet=30 runs=5 native=1
while [[ ${1-} == --* ]]; do
    case $1 in
        --quiet) quiet=$2; shift ;;
        --runs) runs=$2; shift ;;
        --no-native) native=0 ;;
        *) echo "container.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
[[ $(id -u) == 0 ]] || { echo "container.sh: must run as root" >&2; exit 2; }
[[ -f Containerfile ]] || { echo "container.sh: run from the repository root" >&2; exit 2; }
for tool in podman runc mmdebstrap curl busybox; do
    command -v "$tool" >/dev/null || { echo "container.sh: needs $tool (apt-get install podman runc mmdebstrap curl busybox-static)" >&2; exit 2; }
done
jdk=${USHER_BENCH_JDK:-/usr/lib/jvm/temurin-25-jdk-amd64}
[[ -x $jdk/bin/jlink ]] || { echo "container.sh: no JDK 25 at $jdk (set USHER_BENCH_JDK)" >&2; exit 2; }

cache=${USHER_IMAGE_CACHE:-/tmp/usher-image-cache}
work=$(mktemp -d /tmp/usher-container-bench.XXXXXX)
mkdir -p "$cache/podman"
out=bench/results/container-$(date -u +%Y-%m-%d-%H%M).txt
# podman's storage of its own, kept in the cache between runs (its layer cache makes a rebuild quick)
P=(podman --root "$cache/podman/root" --runroot "$cache/podman/run" --tmpdir "$cache/podman/tmp" --events-backend file
    --cgroup-manager cgroupfs --runtime /usr/sbin/runc)
RUN=(run -d --ulimit nofile=4096:4096 --ulimit nproc=4096:4096)
service_pid=
cleanup() {
    "${P[@]}" rm -a -f -t 0 >/dev/null 2>&1 || true
    "${P[@]}" network rm -f usher-bench-web >/dev/null 2>&1 || true
    [[ -n $service_pid ]] && kill "$service_pid" 2>/dev/null || true
    rm -rf -- "$work"
}
trap cleanup EXIT
say() { printf '==> %s\n' "$*" >&2; }
emit() { printf '%s\n' "$*" | tee -a "$out"; }
median() { sort -g | awk '{a[NR]=$1} END{ if(NR%2){print a[(NR+1)/2]} else {print (a[NR/2]+a[NR/2+1])/2} }'; }
mib() { awk -v b="$1" 'BEGIN{printf "%.1f", b/1048576}'; }

# ---- 1. base images -------------------------------------------------------------------------------------------
# As Docker's debian:bookworm-slim is made: no manuals, documentation (but the copyright files) or translations,
# and without usrmerge, which apt picks for init-system-helpers and which brings perl (46 MB) with it.
slim=(--dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*'
    --dpkgopt='path-include=/usr/share/doc/*/copyright' --dpkgopt='path-exclude=/usr/share/locale/*'
    --dpkgopt='path-include=/usr/share/locale/locale.alias' --dpkgopt='path-exclude=/usr/share/info/*'
    --customize-hook='chroot "$1" dpkg --purge usrmerge libfile-find-rule-perl libnumber-compare-perl libtext-glob-perl perl libperl5.36 perl-modules-5.36'
    --customize-hook='chroot "$1" apt-get clean' --customize-hook='rm -rf "$1"/var/lib/apt/lists/*'
    # a JRE's post-install (maven brings one) links its manual page there and fails when the folder is missing
    --setup-hook='mkdir -p "$1"/usr/share/man/man1')
rootfs() { # NAME PACKAGES
    if [[ ! -f $cache/$1.tar ]]; then
        say "mmdebstrap $1 ($2)"
        mmdebstrap --variant=minbase --include="usr-is-merged,$2" "${slim[@]}" bookworm "$cache/$1.part.tar" \
            >"$cache/$1.log" 2>&1
        mv "$cache/$1.part.tar" "$cache/$1.tar"
    fi
}
rootfs slim-base unzip
rootfs slim-build maven,unzip
rootfs slim-caddy caddy
"${P[@]}" import "$cache/slim-base.tar" localhost/usher-bench/base:bookworm >/dev/null
"${P[@]}" import "$cache/slim-build.tar" localhost/usher-bench/maven:bookworm >/dev/null
if ((native)); then
    rootfs slim-native-build maven,unzip,gcc,libc6-dev,binutils,xz-utils,zlib1g-dev,debian-archive-keyring,ca-certificates
    "${P[@]}" import "$cache/slim-native-build.tar" localhost/usher-bench/native-build:bookworm >/dev/null
fi
"${P[@]}" import "$cache/slim-caddy.tar" localhost/usher-bench/caddy-base:bookworm >/dev/null
mkdir -p "$work/jdk-context"
cp -a "$jdk" "$work/jdk-context/jdk"
printf 'FROM localhost/usher-bench/maven:bookworm\nCOPY jdk /opt/jdk\nENV JAVA_HOME=/opt/jdk PATH=/opt/jdk/bin:/usr/sbin:/usr/bin:/sbin:/bin\n' \
    >"$work/jdk-context/Containerfile"
"${P[@]}" build -q -t localhost/usher-bench/build:temurin25 "$work/jdk-context" >/dev/null

# ---- 2. the images ---------------------------------------------------------------------------------------------
build_args=(--build-arg BUILD_IMAGE=localhost/usher-bench/build:temurin25 --build-arg BUILD_JDK=/opt/jdk
    --build-arg BASE_IMAGE=localhost/usher-bench/base:bookworm
    --build-arg NATIVE_BUILD_IMAGE=localhost/usher-bench/native-build:bookworm
    --build-arg MAVEN_FLAGS=-o -v "$HOME/.m2:/root/.m2")
build_image() { # TAG LOG [podman build options...] -> prints the seconds it took
    local tag=$1 log=$2 t0
    shift 2
    t0=$(date +%s.%N)
    "${P[@]}" build --format docker -f Containerfile -t "$tag" "${build_args[@]}" "$@" . >"$log" 2>&1 ||
        { tail -n 60 "$log" >&2; echo "container.sh: podman build of $tag failed (whole log: $log)" >&2; exit 1; }
    awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.0f", b-a}'
}
say "podman build (Containerfile, offline)"
build_s=$(build_image localhost/usher:bench "$work/build.log")
size=$("${P[@]}" image inspect --format '{{.Size}}' localhost/usher:bench)
base_size=$("${P[@]}" image inspect --format '{{.Size}}' localhost/usher-bench/base:bookworm)
java_size=$("${P[@]}" run --rm --ulimit nofile=4096:4096 --ulimit nproc=4096:4096 --entrypoint du localhost/usher:bench \
    -sb /opt/java | awk '{print $1}')
emit "RESULT image=usher size_mib=$(mib "$size") base_mib=$(mib "$base_size") java_runtime_mib=$(mib "$java_size") build_s=$build_s"
if ((native)); then
    # the toolchain's cache outlives the build (a rebuild of the image reuses it); the Debian source the host's
    # native cache holds is copied in, so only what is new is downloaded
    mkdir -p "$cache/native"
    host_sources=${USHER_NATIVE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/usher-native}/sources
    [[ -d $host_sources && ! -d $cache/native/sources ]] && cp -a "$host_sources" "$cache/native/sources"
    say "podman build --target native (the first one builds the native toolchain and executable: several minutes)"
    native_build_s=$(build_image localhost/usher:bench-native "$work/build-native.log" --target native \
        -v "$cache/native:/var/cache/usher-native")
    native_size=$("${P[@]}" image inspect --format '{{.Size}}' localhost/usher:bench-native)
    exe_size=$("${P[@]}" run --rm --ulimit nofile=4096:4096 --ulimit nproc=4096:4096 --entrypoint du \
        localhost/usher:bench-native -sb /opt/usher | awk '{print $1}')
    emit "RESULT image=usher-native size_mib=$(mib "$native_size") base_mib=$(mib "$base_size") executable_and_lib_mib=$(mib "$exe_size") build_s=$native_build_s"
fi
printf 'FROM localhost/usher-bench/caddy-base:bookworm\nCMD ["caddy", "run", "--config", "/etc/caddy/Caddyfile", "--adapter", "caddyfile"]\n' \
    >"$work/Containerfile.caddy"
"${P[@]}" build -q --format docker -f "$work/Containerfile.caddy" -t localhost/usher-bench/caddy:bookworm "$work" >/dev/null
caddy_size=$("${P[@]}" image inspect --format '{{.Size}}' localhost/usher-bench/caddy:bookworm)
emit "RESULT image=caddy size_mib=$(mib "$caddy_size") base_mib=$(mib "$base_size") (Debian's caddy $(dpkg-deb -f /var/cache/apt/archives/caddy_*.deb Version 2>/dev/null || echo 2.6.2))"

# ---- a backend and the network --------------------------------------------------------------------------------
mkdir -p "$work/bb/bin" && cp /bin/busybox "$work/bb/bin/" && tar -C "$work/bb" -cf "$work/bb.tar" .
"${P[@]}" import "$work/bb.tar" localhost/usher-bench/busybox:1 >/dev/null
"${P[@]}" network create usher-bench-web >/dev/null
serve=(/bin/busybox sh -c 'mkdir -p /tmp/www && echo "$NAME" > /tmp/www/index.html && exec /bin/busybox httpd -f -p 80 -h /tmp/www')
"${P[@]}" "${RUN[@]}" --name backend --network usher-bench-web --env NAME=backend localhost/usher-bench/busybox:1 "${serve[@]}" >/dev/null
backend=$("${P[@]}" inspect --format '{{(index .NetworkSettings.Networks "usher-bench-web").IPAddress}}' backend)

cgroup_of() { # CONTAINER -> the memory cgroup directory of its main process
    local pid
    pid=$("${P[@]}" inspect --format '{{.State.Pid}}' "$1")
    echo "/sys/fs/cgroup/memory$(awk -F: '$2 ~ /(^|,)memory(,|$)/ {print $3}' "/proc/$pid/cgroup")"
}
await_200() { # PORT HOST [TIMEOUT_S] -> prints the seconds it took
    local t0 deadline now
    t0=$(date +%s.%N); deadline=$(awk -v t="$t0" -v s="${3:-60}" 'BEGIN{printf "%.3f", t+s}')
    while :; do
        [[ $(curl -s -o /dev/null -w '%{http_code}' -H "Host: $2" "http://127.0.0.1:$1/" 2>/dev/null) == 200 ]] && break
        now=$(date +%s.%N)
        awk -v n="$now" -v d="$deadline" 'BEGIN{exit !(n>d)}' && { echo "timeout"; return 1; }
        sleep 0.01
    done
    awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.3f", b-a}'
}
idle() { # NAME CONTAINER PORT HOST
    local cg samples=6 i anon=() usage=()
    curl -s -o /dev/null -H "Host: $4" "http://127.0.0.1:$3/"
    cg=$(cgroup_of "$2")
    for ((i = 1; i <= samples; i++)); do
        sleep "$(awk -v q="$quiet" -v n=$samples 'BEGIN{print q/n}')"
        anon+=("$(awk '$1=="total_rss"{print $2}' "$cg/memory.stat")")
        usage+=("$(cat "$cg/memory.usage_in_bytes")")
    done
    emit "RESULT idle=$1 anon_mib=$(mib "$(printf '%s\n' "${anon[@]}" | median)") usage_mib=$(mib "$(printf '%s\n' "${usage[@]}" | median)") quiet_s=$quiet samples=$samples cgroup=$cg"
}

# ---- 3. idle memory: Usher's containers beside Caddy's -----------------------------------------------------------
usher_images=(usher=localhost/usher:bench)
((native)) && usher_images+=(usher-native=localhost/usher:bench-native)
mkdir -p "$work/usher-config" "$work/caddy-config"
printf 'listen: {http: ":80", https: off}\nadmin: "127.0.0.1:2019"\nsites:\n  http://whoami.bench.test: %s:80\n' "$backend" \
    >"$work/usher-config/usher.yaml"
printf 'http://whoami.bench.test {\n\treverse_proxy %s:80\n}\n' "$backend" >"$work/caddy-config/Caddyfile"
chmod -R a+rX "$work/usher-config"
for entry in "${usher_images[@]}"; do
    name=${entry%%=*} image=${entry#*=}
    say "$name's container: idle memory"
    "${P[@]}" "${RUN[@]}" --name "$name" --network usher-bench-web -p 127.0.0.1:18780:80 \
        --sysctl net.ipv4.ip_unprivileged_port_start=80 -v "$work/usher-config:/etc/usher:ro" "$image" >/dev/null
    start_usher=$(await_200 18780 whoami.bench.test)
    emit "RESULT start=$name first_200_s_after_podman_run=$start_usher"
    idle "$name" "$name" 18780 whoami.bench.test
    health=$("${P[@]}" healthcheck run "$name" >/dev/null 2>&1 && echo healthy || echo unhealthy)
    aot=$("${P[@]}" logs "$name" 2>&1 | grep -ci 'aot\|cds' || true)
    t_stop=$(date +%s.%N); "${P[@]}" stop -t 20 "$name" >/dev/null
    stop_s=$(awk -v a="$t_stop" -v b="$(date +%s.%N)" 'BEGIN{printf "%.2f", b-a}')
    exit_code=$("${P[@]}" inspect --format '{{.State.ExitCode}}' "$name")
    emit "RESULT ${name}_container healthcheck=$health sigterm_stop_s=$stop_s exit_code=$exit_code aot_log_lines=$aot user=$("${P[@]}" inspect --format '{{.Config.User}}' "$name")"
    "${P[@]}" rm -f "$name" >/dev/null
done
say "Caddy's container: idle memory"
"${P[@]}" "${RUN[@]}" --name caddy --network usher-bench-web -p 127.0.0.1:18781:80 \
    -v "$work/caddy-config/Caddyfile:/etc/caddy/Caddyfile:ro" localhost/usher-bench/caddy:bookworm >/dev/null
start_caddy=$(await_200 18781 whoami.bench.test)
emit "RESULT start=caddy first_200_s_after_podman_run=$start_caddy"
idle caddy caddy 18781 whoami.bench.test
"${P[@]}" rm -f -t 0 caddy >/dev/null

# ---- 4. label latency -------------------------------------------------------------------------------------------
"${P[@]}" system service --time=0 "unix://$work/podman.sock" >"$work/service.log" 2>&1 &
service_pid=$!
for _ in $(seq 1 100); do [[ -S $work/podman.sock ]] && break; sleep 0.1; done
chmod 666 "$work/podman.sock" # the container's user usher reads it (a private temporary socket)
printf 'listen: {http: ":80", https: off}\nadmin: "127.0.0.1:2019"\ndocker: {socket: /var/run/docker.sock, network: usher-bench-web}\nsites: {}\n' \
    >"$work/usher-config/usher.yaml"
for entry in "${usher_images[@]}"; do
    name=${entry%%=*} image=${entry#*=}
    say "label latency ($name): $runs labelled containers"
    "${P[@]}" "${RUN[@]}" --name "$name" --network usher-bench-web -p 127.0.0.1:18780:80 \
        --sysctl net.ipv4.ip_unprivileged_port_start=80 -v "$work/usher-config:/etc/usher:ro" \
        -v "$work/podman.sock:/var/run/docker.sock" "$image" >/dev/null
    sleep 3
    lat=()
    for ((i = 1; i <= runs; i++)); do
        t0=$(date +%s.%N)
        "${P[@]}" "${RUN[@]}" --name "app$i" --network usher-bench-web --env "NAME=app$i" --label "usher.host=app$i.bench.test" \
            --label usher.port=80 localhost/usher-bench/busybox:1 "${serve[@]}" >/dev/null
        t1=$(date +%s.%N)
        served=$(await_200 18780 "app$i.bench.test" 30)
        total=$(awk -v a="$t0" -v b="$t1" -v s="$served" 'BEGIN{printf "%.3f", b-a+s}')
        lat+=("$total")
        emit "RESULT label_run=$i proxy=$name podman_run_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}') served_after_run_returned_s=$served from_podman_run_s=$total"
    done
    emit "RESULT label_latency proxy=$name median_from_podman_run_s=$(printf '%s\n' "${lat[@]}" | median) runs=$runs"
    "${P[@]}" logs "$name" 2>&1 | grep -E 'reloaded \(container labels\)|watching' | tail -n 3 >&2 || true
    for ((i = 1; i <= runs; i++)); do "${P[@]}" rm -f -t 0 "app$i" >/dev/null; done
    "${P[@]}" rm -f -t 0 "$name" >/dev/null
done
say "written: $out"
