#!/usr/bin/env bash
# bench/start-time.sh - start -> first 200 of Usher, measured as bench/run.sh does it, alternating between builds.
#
# usage: bench/start-time.sh [--tls] [--runs N] [--port-base P] [--keep] [native:]DIR[=LABEL]...
#   DIR     an Usher checkout or install (has ./usher and target/usher.jar; build it first: ./usher version)
#   native:DIR  the native executable of that checkout, target/native-image/usher (./usher build --native)
#   --tls   the bench's HTTPS config: 20 sites with tls: {cert, key} files, one shared self-signed P-256
#           certificate; the first 200 is an HTTPS request (curl -k with SNI), as bench/run.sh --tls does
#   --runs  starts per DIR (default 5); the DIRs take turns, so a busy spell hurts each of them alike
#   --threads  also print the CPU time of each JVM thread at the first 200 (JIT compilers, GC, main, loops)
#   --idle S   after the first 200, S seconds of quiet, then the cgroup's total_rss (anonymous memory)
#   --port-base P   ports P+1..P+20 (nginx backends), P+80 (HTTP), P+443 (HTTPS), P+90 (admin) (default 17000)
# Each start: the JVM (or the native executable) alone in a fresh cgroup (cpu quota 100000/100000 = one CPU,
# 2 GiB), pinned to CPU 1; nginx and curl on CPU 0; the jar and AOT cache (or the executable and its lib/) pre-read;
# curl polls every 5 ms until 200. Prints one line per start and, per DIR, the median and range, of the wall time and
# of the CPU time the cgroup used until then (steadier than wall time on a busy machine). USHER_JAVA_OPTS and other
# environment variables reach the launcher unchanged.
# Needs root (cgroup v1 writes), nginx, curl, openssl, taskset.
set -u -o pipefail

TLS=0 RUNS=5 BASE=17000 KEEP=0 THREADS=0 IDLE=0 DIRS=()
while [ $# -gt 0 ]; do
  case $1 in
    --tls) TLS=1 ;;
    --runs) RUNS=$2; shift ;;
    --port-base) BASE=$2; shift ;;
    --keep) KEEP=1 ;;
    --threads) THREADS=1 ;;
    --idle) IDLE=$2; shift ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) DIRS+=("$1") ;;
  esac
  shift
done
[ ${#DIRS[@]} -gt 0 ] || { sed -n '2,17p' "$0" >&2; exit 2; }
die() { echo "start-time.sh: $*" >&2; exit 2; }
now_us() { echo "${EPOCHREALTIME/./}"; }
median() { sort -g | awk '{a[NR]=$1} END{if(NR%2){print a[(NR+1)/2]} else {print (a[NR/2]+a[NR/2+1])/2}}'; }

HTTP_PORT=$((BASE + 80)) HTTPS_PORT=$((BASE + 443)) ADMIN_PORT=$((BASE + 90)) HOST=whoami01.bench.test
WORK=$(mktemp -d /tmp/start-time.XXXXXX)
CG=start-time-$$ MEMCG=/sys/fs/cgroup/memory CPUCG=/sys/fs/cgroup/cpu ACCTCG=/sys/fs/cgroup/cpuacct
NGINX_PID= PROXY_PID=
cleanup() {
  [ -n "$PROXY_PID" ] && { kill -TERM "$PROXY_PID" 2>/dev/null; wait "$PROXY_PID" 2>/dev/null; }
  [ -n "$NGINX_PID" ] && { kill -TERM "$NGINX_PID" 2>/dev/null; wait "$NGINX_PID" 2>/dev/null; }
  rmdir "$MEMCG/$CG" "$CPUCG/$CG" "$ACCTCG/$CG" 2>/dev/null
  [ $KEEP = 1 ] && echo "# kept $WORK" >&2 || rm -rf "$WORK"
}
trap cleanup EXIT INT TERM

mkdir -p "$MEMCG/$CG" "$CPUCG/$CG" "$ACCTCG/$CG" || die "cannot create cgroup $CG (run as root, cgroup v1)"
echo 2147483648 >"$MEMCG/$CG/memory.limit_in_bytes"
echo 100000 >"$CPUCG/$CG/cpu.cfs_period_us"
echo 100000 >"$CPUCG/$CG/cpu.cfs_quota_us"

# 20 nginx backends, like bench/run.sh's (a small body naming the host)
mkdir -p "$WORK/nginx" "$WORK/tls"
{
  echo "worker_processes 1; daemon off; pid $WORK/nginx/pid; events {}"
  echo "http { access_log off; client_body_temp_path $WORK/nginx; proxy_temp_path $WORK/nginx;"
  echo "  fastcgi_temp_path $WORK/nginx; uwsgi_temp_path $WORK/nginx; scgi_temp_path $WORK/nginx;"
  for i in $(seq 1 20); do
    printf '  server { listen 127.0.0.1:%d; location / { return 200 "Hostname: whoami%02d\\n"; } }\n' $((BASE + i)) "$i"
  done
  echo "}"
} >"$WORK/nginx/nginx.conf"
taskset -c 0 nginx -p "$WORK/nginx" -e "$WORK/nginx/error.log" -c "$WORK/nginx/nginx.conf" &
NGINX_PID=$!
san="DNS:*.bench.test"
for i in $(seq 1 20); do san="$san,DNS:$(printf 'whoami%02d.bench.test' "$i")"; done
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$WORK/tls/key.pem" \
  -out "$WORK/tls/cert.pem" -days 30 -subj "/CN=bench.test" -addext "subjectAltName=$san,IP:127.0.0.1" \
  >/dev/null 2>&1 || die "openssl failed"

config() {  # $1 = data dir -> usher.yaml on stdout (as bench/examples/usher.sh writes it)
  if [ $TLS = 1 ]; then
    echo "listen: {http: \"127.0.0.1:$HTTP_PORT\", https: \"127.0.0.1:$HTTPS_PORT\"}"
  else
    echo "listen: {http: \"127.0.0.1:$HTTP_PORT\"}"
  fi
  echo "data: $1"
  echo "admin: \"127.0.0.1:$ADMIN_PORT\""
  echo "sites:"
  for i in $(seq 1 20); do
    local host upstream
    host=$(printf 'whoami%02d.bench.test' "$i") upstream="127.0.0.1:$((BASE + i))"
    if [ $TLS = 1 ]; then
      echo "  $host: {to: \"$upstream\", tls: {cert: \"$WORK/tls/cert.pem\", key: \"$WORK/tls/key.pem\"}}"
    else
      echo "  http://$host: \"$upstream\""
    fi
  done
}

req() {
  if [ $TLS = 1 ]; then
    taskset -c 0 curl -sk -o /dev/null -w '%{http_code}' --max-time 2 --resolve "$HOST:$HTTPS_PORT:127.0.0.1" \
      "https://$HOST:$HTTPS_PORT/" 2>/dev/null
  else
    taskset -c 0 curl -s -o /dev/null -w '%{http_code}' --max-time 2 -H "Host: $HOST" \
      "http://127.0.0.1:$HTTP_PORT/" 2>/dev/null
  fi
}

for _ in $(seq 1 100); do [ "$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:$((BASE + 1))/)" = 200 ] && break; sleep 0.05; done
JOIN='echo $$ > "$1"/cgroup.procs && echo $$ > "$2"/cgroup.procs && echo $$ > "$3"/cgroup.procs || exit 97; shift 3; exec "$@"'
declare -A TIMES CPUS
# what to start for a DIR argument, and the files to pre-read (page cache) before each start
command_of() { case ${1%%=*} in native:*) echo ./target/native-image/usher ;; *) echo ./usher ;; esac; }
files_of() {
  local dir=${1%%=*}
  case $dir in
    native:*) dir=${dir#native:}; echo "$dir/target/native-image/usher" "$dir"/target/native-image/lib/*.so ;;
    *) echo "$dir/target/usher.jar" "$dir/target/usher.aot" ;;
  esac
}
for d in "${DIRS[@]}"; do
  dir=${d%%=*}
  case $dir in
    native:*) dir=${dir#native:}
      [ -x "$dir/target/native-image/usher" ] || die "$dir: no target/native-image/usher (run ./usher build --native there)" ;;
    *) [ -x "$dir/usher" ] && [ -f "$dir/target/usher.jar" ] || die "$dir: no ./usher or target/usher.jar (run ./usher version there)" ;;
  esac
  slot=$WORK/$(echo "$d" | md5sum | cut -c1-8)
  mkdir -p "$slot/data"
  config "$slot/data" >"$slot/usher.yaml"
done
echo "# $(date -u +%FT%TZ) tls=$TLS runs=$RUNS loadavg: $(cut -d' ' -f1-3 /proc/loadavg)"
for run in $(seq 1 "$RUNS"); do
  for d in "${DIRS[@]}"; do
    dir=${d%%=*} label=${d#*=}
    dir=${dir#native:}
    slot=$WORK/$(echo "$d" | md5sum | cut -c1-8)
    # shellcheck disable=SC2046
    cat $(files_of "$d") >/dev/null 2>&1
    port=$HTTP_PORT; [ $TLS = 1 ] && port=$HTTPS_PORT
    ss -Hltn "sport = :$port" | grep -q . && die "port $port busy"
    t0=$(now_us)
    (cd "$dir" && taskset -c 1 sh -c "$JOIN" sh "$MEMCG/$CG" "$CPUCG/$CG" "$ACCTCG/$CG" $(command_of "$d") run --config "$slot/usher.yaml" \
      >>"$slot/log" 2>&1) &
    PROXY_PID=$!
    ready= cpu=
    u0=$(cat "$ACCTCG/$CG/cpuacct.usage")
    while kill -0 "$PROXY_PID" 2>/dev/null; do
      if [ "$(req)" = 200 ]; then
        ready=$(awk -v d=$(($(now_us) - t0)) 'BEGIN{printf "%.3f", d/1e6}')
        cpu=$(awk -v u=$(($(cat "$ACCTCG/$CG/cpuacct.usage") - u0)) 'BEGIN{printf "%.3f", u/1e9}')
        if [ $THREADS = 1 ]; then
          for p in $(cat "$MEMCG/$CG/cgroup.procs"); do
            for t in /proc/"$p"/task/*; do
              printf '  %s %s ms\n' "$(tr ' ' _ <"$t/comm")" "$(awk -v hz="$(getconf CLK_TCK)" '{print ($14+$15)*1000/hz}' "$t/stat")"
            done
          done | sort -k2 -n -r | awk '$2 > 0'
        fi
        break
      fi
      [ $(($(now_us) - t0)) -gt 30000000 ] && break
      sleep 0.005
    done
    idle=
    if [ -n "$ready" ] && [ "$IDLE" != 0 ]; then
      sleep "$IDLE"
      idle=$(awk '$1 == "total_rss" {printf ", idle total_rss %.1f MiB", $2 / 1048576}' "$MEMCG/$CG/memory.stat")
    fi
    # the subshell's child is the JVM (the launcher execs java)
    for p in $(cat "$MEMCG/$CG/cgroup.procs"); do kill -TERM "$p"; done
    wait "$PROXY_PID" 2>/dev/null; PROXY_PID=
    for _ in $(seq 1 200); do [ -s "$MEMCG/$CG/cgroup.procs" ] || break; sleep 0.05; done
    [ -n "$ready" ] || { tail -20 "$slot/log" >&2; die "$label: no 200"; }
    echo "$label run $run: ${ready} s (CPU ${cpu} s)$idle"
    TIMES[$d]="${TIMES[$d]:-} $ready" CPUS[$d]="${CPUS[$d]:-} $cpu"
  done
done
for d in "${DIRS[@]}"; do
  # shellcheck disable=SC2086
  set -- ${TIMES[$d]}
  printf '%s: median %s s, range %s-%s s (n=%d, tls=%d)\n' "${d#*=}" "$(printf '%s\n' "$@" | median)" \
    "$(printf '%s\n' "$@" | sort -g | head -1)" "$(printf '%s\n' "$@" | sort -g | tail -1)" $# $TLS
  # shellcheck disable=SC2086
  set -- ${CPUS[$d]}
  printf '%s: CPU to first 200 median %s s, range %s-%s s\n' "${d#*=}" "$(printf '%s\n' "$@" | median)" \
    "$(printf '%s\n' "$@" | sort -g | head -1)" "$(printf '%s\n' "$@" | sort -g | tail -1)"
done
