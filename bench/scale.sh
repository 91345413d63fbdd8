#!/usr/bin/env bash
# bench/scale.sh - how Usher (and Caddy, nginx as anchors) scale with sites, clients and open connections.
#
# Run as root from the repository root:   bench/scale.sh            (about 7-8 minutes for all three proxies)
#                                          bench/scale.sh --targets usher --duration 5s     (a quick look)
#
# Same method as bench/run.sh: each proxy alone in a cgroup v1 group with 1 CPU (cfs quota 100000/100000) and
# 2 GiB, pinned to CPU 1; 20 nginx backends (one nginx, 127.0.0.1:19101-19120, ~300-byte answers), an
# `./usher whoami` websocket echo backend (127.0.0.1:19199), wrk and this script pinned to CPU 0. The proxy listens
# on 127.0.0.1:18180 (plain HTTP). Ports differ from run.sh's, but the script still waits while run.sh (or another
# holder of /tmp/usher-bench.lock) runs, because both would share the two CPUs.
#
# Per proxy:
#  a. sites: for 1, 20 and 200 configured sites (siteNNN.scale.test -> backend (NNN-1) mod 20), a fresh start,
#     idle memory (one request, 4 s quiet, median of 3 samples), 2 s wrk warm-up, then `wrk -t1 -c50 -d10s` with the
#     requests spread round-robin over ALL configured names (a wrk Lua script cycling prebuilt requests; the same
#     script with one name for 1 site), then memory after the load (3 s quiet, median of 3 samples).
#  b. clients: with 20 sites, after the c50 run, `wrk -t1 -c1000 -d10s` (same spread), req/s, p99, non-2xx, errors.
#  c. idle keep-alive connections: fresh start (20 sites); bench/scale_conns.py opens 1,000 then 5,000 HTTP/1.1
#     connections to site001 (one GET each, answer read, socket held open idle); anon delta / N in KiB. Before the
#     baseline, 100 connections are opened and closed (first-use costs); readings wait until memory is steady (see
#     scale_conns.py). For Usher each point is sampled again after a full GC (jcmd PID GC.run). Idle timeouts are
#     raised to 5 min in all three configs so that no connection is closed while the test runs.
#  d. websockets: fresh start (20 sites + ws.scale.test -> whoami); 1,000 websocket upgrades (101 read, held idle);
#     anon delta / N in KiB; an echo through the last one checks the tunnel.
# Memory = the proxy cgroup's memory.stat total_rss (anonymous memory; page cache excluded), usage = usage_in_bytes.
# ulimit -n is raised to 65536 (or the hard limit, if lower) for everything started here (wrk, proxies, Python).
#
# Output: RESULT lines on stdout and in WORKDIR/results.txt, a Markdown table in WORKDIR/scale.md; both are copied
# to bench/results/scale-STAMP.txt and .md. Options: see --help.
set -u -o pipefail

usage() {
  cat <<'EOF'
usage: bench/scale.sh [options]          (as root, from the repository root)
  --targets LIST        comma-separated: usher,caddy,nginx (default all three)
  --sites LIST          site counts for part a (default 1,20,200)
  --clients LIST        wrk -c values with 20 sites, part b (default 50,1000; 50 is the part-a run itself)
  --duration D          wrk -d per measured run (default 10s); --warmup D (default 2s; 0 = none)
  --idle-counts LIST    part c checkpoints (default 1000,5000)
  --ws-count N          part d websockets (default 1000)
  --skip a,b,c,d        leave parts out
  --port P              proxy port (default 18180); --backend-base P (default 19100 -> 19101..19120);
  --ws-port P           whoami port (default 19199)
  --workdir DIR         must match /tmp/bench-* (default /tmp/bench-scale-STAMP-PID)
  --wait-max S          wait at most S seconds for a running benchmark to finish (default 1200)
  --no-save             do not copy results to bench/results/
  --report FILE         only print the Markdown tables for a results file (RESULT lines) and exit
EOF
}
die() { echo "scale.sh: error: $*" >&2; exit 2; }
msg() { echo "# $*" >&2; [ -n "${LOG:-}" ] && echo "# $*" >>"$LOG"; return 0; }
now_us() { echo "${EPOCHREALTIME/./}"; }

TARGETS=usher,caddy,nginx SITES=1,20,200 CLIENTS=50,1000 DURATION=10s WARMUP=2s IDLE_COUNTS=1000,5000 WS_COUNT=1000
SKIP= REPORT= PORT=18180 BACKEND_BASE=19100 WS_PORT=19199 WORKDIR= WAIT_MAX=1200 SAVE=1
NBACK=20 MEM_LIMIT=2G CPU_QUOTA=100000 CPU_PERIOD=100000 PROXY_CPU=1 LOAD_CPU=0
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --targets) TARGETS=$2; shift ;; --sites) SITES=$2; shift ;; --clients) CLIENTS=$2; shift ;;
    --duration) DURATION=$2; shift ;; --warmup) WARMUP=$2; shift ;;
    --idle-counts) IDLE_COUNTS=$2; shift ;; --ws-count) WS_COUNT=$2; shift ;; --skip) SKIP=$2; shift ;;
    --port) PORT=$2; shift ;; --backend-base) BACKEND_BASE=$2; shift ;; --ws-port) WS_PORT=$2; shift ;;
    --workdir) WORKDIR=$2; shift ;; --wait-max) WAIT_MAX=$2; shift ;; --no-save) SAVE=0 ;;
    --report) REPORT=$2; shift ;;
    *) usage >&2; die "unknown argument: $1" ;;
  esac
  shift
done
skipped() { case ",$SKIP," in *",$1,"*) return 0 ;; esac; return 1; }

[ "$(id -u)" = 0 ] || die "must run as root (cgroup v1 writes)"
[ -x ./usher ] && [ -f bench/scale_conns.py ] || die "run from the repository root (./usher, bench/scale_conns.py)"
for t in wrk nginx curl python3 taskset ss awk; do command -v $t >/dev/null || die "missing tool $t"; done
case ",$TARGETS," in *,caddy,*) command -v caddy >/dev/null || die "missing caddy" ;; esac
[ "$(nproc --all)" -ge 2 ] || die "needs 2 CPUs (proxy on CPU 1, load on CPU 0)"
MEMCG=/sys/fs/cgroup/memory CPUCG=/sys/fs/cgroup/cpu ACCTCG=/sys/fs/cgroup/cpuacct
for d in $MEMCG $CPUCG $ACCTCG; do [ -w "$d" ] || die "cgroup v1 hierarchy $d not writable"; done

STAMP=$(date +%Y-%m-%d-%H%M)
[ -n "$WORKDIR" ] || WORKDIR=/tmp/bench-scale-$STAMP-$$
case $WORKDIR in /tmp/bench-*) ;; *) die "--workdir must be under /tmp/bench-*" ;; esac

# ---------------------------------------------------------------- Markdown tables from RESULT lines
md_tables() {
python3 - "$1" <<'PY'
import sys
rows = []
for line in open(sys.argv[1]):
    if line.startswith("RESULT "):
        rows.append(dict(kv.split("=", 1) for kv in line.split()[1:] if "=" in kv))
label = {"usher": "Usher", "caddy": "Caddy", "nginx": "nginx"}
names = [n for n in ["usher", "caddy", "nginx"] if any(r.get("name") == n for r in rows)]
load = [r for r in rows if r["test"] == "load"]
def us(r):  # proxy CPU time per request: less sensitive to other load on the machine than req/s
    return "%.0f" % (float(r["proxy_cpu_pct"]) * 1e4 / float(r["rps"])) if float(r["rps"]) > 0 else "na"
if load:
    print("Sites (wrk -t1 -c50, requests round-robin over all configured names; other CPU % = busy CPU on the machine\n"
          "outside the proxy, wrk and the backends, 100 = one CPU: above ~15 the row was disturbed):\n")
    print("| proxy | sites | req/s | p50 ms | p99 ms | non-2xx | errors | proxy CPU % | proxy CPU µs/req | other CPU % | idle anon MiB | after-load anon MiB |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for n in names:
        for r in sorted((r for r in load if r["name"] == n and r["conns"] == "50"), key=lambda r: int(r["sites"])):
            print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (label[n], r["sites"], f'{int(r["rps"]):,}', r["p50_ms"],
                  r["p99_ms"], r["non2xx"], r["errors"], r["proxy_cpu_pct"], us(r), r["other_cpu_pct"], r["idle_anon_mib"], r["after_anon_mib"]))
    cl = [r for r in load if r["sites"] == "20"]
    if any(r["conns"] != "50" for r in cl):
        print("\nConcurrent clients (20 sites, wrk -t1, connections held open by wrk for the whole run):\n")
        print("| proxy | clients | req/s | p50 ms | p99 ms | non-2xx | errors (kind) | proxy CPU % | proxy CPU µs/req | other CPU % | after-load anon MiB |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for n in names:
            for r in sorted((r for r in cl if r["name"] == n), key=lambda r: int(r["conns"])):
                print("| %s | %s | %s | %s | %s | %s | %s (%s) | %s | %s | %s | %s |" % (label[n], r["conns"], f'{int(r["rps"]):,}', r["p50_ms"],
                      r["p99_ms"], r["non2xx"], r["errors"], r["errors_by_kind"], r["proxy_cpu_pct"], us(r), r["other_cpu_pct"], r["after_anon_mib"]))
conn = [r for r in rows if r["test"] in ("keepalive", "ws")]
if conn:
    print("\nMemory per open connection (anonymous memory delta / N; usage delta includes kernel socket memory):\n")
    print("| proxy | kind | N | alive | anon before MiB | anon after MiB | KiB per connection (anon) | KiB per connection (usage) | KiB per connection (anon, after full GC) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for n in names:
        for r in (r for r in conn if r["name"] == n):
            kind = "idle keep-alive" if r["test"] == "keepalive" else "websocket"
            print("| %s | %s | %s | %s | %.1f | %.1f | %s | %s | %s |" % (label[n], kind, f'{int(r["n"]):,}', r["alive"],
                  float(r["anon_base_kib"]) / 1024, float(r["anon_kib"]) / 1024, r["anon_per_conn_kib"], r["usage_per_conn_kib"],
                  r.get("anon_gc_per_conn_kib", "–")))
PY
}
[ -n "$REPORT" ] && { md_tables "$REPORT"; exit; }

# ---------------------------------------------------------------- one benchmark at a time
LOCK=/tmp/usher-bench.lock HAVE_LOCK=0
others() {  # running benchmarks other than this one
  local p
  pgrep -f 'bench/run\.sh' 2>/dev/null | while read -r p; do [ "$p" != $$ ] && echo "$p"; done
  if [ -s $LOCK ]; then p=$(cat $LOCK 2>/dev/null); [ "$p" != $$ ] && kill -0 "$p" 2>/dev/null && echo "lock:$p"; fi
}
waited=0
while [ -n "$(others)" ]; do
  [ $waited -ge "$WAIT_MAX" ] && die "another benchmark is still running after ${WAIT_MAX}s: $(others | tr '\n' ' ')"
  [ $((waited % 60)) = 0 ] && echo "# waiting for another benchmark to finish: $(others | tr '\n' ' ')" >&2
  sleep 10; waited=$((waited + 10))
done
echo $$ >$LOCK; HAVE_LOCK=1

mkdir -p "$WORKDIR" || die "cannot create $WORKDIR"
LOG=$WORKDIR/scale.log RESULTS=$WORKDIR/results.txt
: >"$RESULTS"

# ---------------------------------------------------------------- state + cleanup (only PIDs started here)
ID=$$ LOADCG=bench-scale-load-$$ CG= PROXY_PID= BACKEND_PID= WHOAMI_PID= WRK_PID= PY_PID=
kill_wait() {  # TERM, wait up to $2 s, then KILL
  local pid=$1 to=${2:-10} i=0
  [ -n "$pid" ] || return 0
  kill -TERM "$pid" 2>/dev/null || return 0
  while [ $i -lt $((to * 50)) ] && kill -0 "$pid" 2>/dev/null && [ "$(awk '{print $3}' /proc/"$pid"/stat 2>/dev/null)" != Z ]; do
    sleep 0.02; i=$((i + 1))
  done
  kill -0 "$pid" 2>/dev/null && [ "$(awk '{print $3}' /proc/"$pid"/stat 2>/dev/null)" != Z ] && kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  return 0
}
cg_destroy() {
  local name=$1 d p i
  [ -n "$name" ] || return 0
  for i in $(seq 1 100); do [ -s $MEMCG/$name/cgroup.procs ] || break; sleep 0.05; done
  for p in $(cat $MEMCG/$name/cgroup.procs 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
  sleep 0.1
  for d in $MEMCG $CPUCG $ACCTCG; do [ -d $d/$name ] && { rmdir $d/$name 2>/dev/null || msg "WARNING: could not rmdir $d/$name"; }; done
  return 0
}
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  [ -n "$WRK_PID" ] && kill_wait "$WRK_PID" 3
  [ -n "$PY_PID" ] && kill_wait "$PY_PID" 3
  [ -n "$PROXY_PID" ] && kill_wait "$PROXY_PID" 15
  [ -n "$CG" ] && cg_destroy "$CG"
  [ -n "$WHOAMI_PID" ] && kill_wait "$WHOAMI_PID" 10
  [ -n "$BACKEND_PID" ] && kill_wait "$BACKEND_PID" 10
  if [ -d $ACCTCG/$LOADCG ]; then
    for p in $(seq 1 50); do [ -s $ACCTCG/$LOADCG/cgroup.procs ] || break; sleep 0.1; done
    rmdir $ACCTCG/$LOADCG 2>/dev/null || msg "WARNING: could not rmdir $ACCTCG/$LOADCG"
  fi
  [ $HAVE_LOCK = 1 ] && [ "$(cat $LOCK 2>/dev/null)" = $$ ] && rm -f $LOCK
  [ -n "${LOG:-}" ] && msg "log: $LOG   results: $RESULTS"
  exit $rc
}
trap cleanup EXIT
trap 'msg "interrupted"; exit 130' INT TERM

# ---------------------------------------------------------------- helpers
port_busy() { ss -Htln "sport = :$1" | grep -q .; }
stat_field() { awk -v k="$2" '$1==k{print $2; f=1} END{if(!f) print 0}' "$1"; }
median() { sort -g | awk '{a[NR]=$1} END{ if(NR==0){print "na"; exit} if(NR%2){print a[(NR+1)/2]} else {print (a[NR/2]+a[NR/2+1])/2} }'; }
mib() { awk -v b="$1" 'BEGIN{ if(b=="na"||b==""){print "na"} else printf "%.1f", b/1048576 }'; }
host_of() { printf 'site%03d.scale.test' "$1"; }            # site i (1-based)
port_of() { echo $((BACKEND_BASE + ($1 - 1) % NBACK + 1)); } # its backend
code_of() {  # code_of HOST [BODYFILE]
  curl -s -o "${2:-/dev/null}" -w '%{http_code}' --max-time 2 -H "Host: $1" "http://127.0.0.1:$PORT/" 2>/dev/null
}
proc_stat_busy() { awk '/^cpu /{print $2+$3+$4+$7+$8, $9; exit}' /proc/stat; }
mem_sample() { echo "$(stat_field $MEMCG/$CG/memory.stat total_rss) $(cat $MEMCG/$CG/memory.usage_in_bytes)"; }
mem_median() {  # mem_median QUIET_S N -> sets M_ANON M_USAGE (MiB)
  local f=$WORKDIR/mem.tmp i
  sleep "$1"; : >"$f"
  for i in $(seq 1 "$2"); do [ "$i" -gt 1 ] && sleep 1; mem_sample >>"$f"; done
  M_ANON=$(mib "$(awk '{print $1}' "$f" | median)"); M_USAGE=$(mib "$(awk '{print $2}' "$f" | median)")
}
# Start as `sh -c "$LOADJOIN" sh "$ACCTCG/$LOADCG" CMD... &` (not through a shell function: a function in the
# background runs in a forked subshell, and $! would be that subshell, not CMD).
LOADJOIN='echo $$ > "$1"/cgroup.procs && shift && exec "$@"'

# ---------------------------------------------------------------- backends (outside the proxy cgroup, CPU 0)
start_backends() {
  local d=$WORKDIR/backend p i pad
  mkdir -p "$d/tmp"; chmod 1777 "$d/tmp"
  pad=$(printf 'x%.0s' $(seq 1 120))
  {
    echo "worker_processes 1; daemon off; pid $d/nginx.pid; error_log $d/error.log warn;"
    echo "worker_rlimit_nofile 65536; events { worker_connections 16384; }"
    echo "http { access_log off; server_tokens off; keepalive_timeout 75s; keepalive_requests 1000000;"
    echo "  client_body_temp_path $d/tmp/body; proxy_temp_path $d/tmp/proxy; fastcgi_temp_path $d/tmp/fcgi;"
    echo "  uwsgi_temp_path $d/tmp/uwsgi; scgi_temp_path $d/tmp/scgi;"
    for i in $(seq 1 $NBACK); do
      p=$((BACKEND_BASE + i))
      echo "  server { listen 127.0.0.1:$p backlog=4096; default_type text/plain;"
      echo "    location / { return 200 \"Hostname: be$p\\nIP: 127.0.0.1\\nRemoteAddr: 127.0.0.1:40000\\nGET / HTTP/1.1\\nHost: \$host\\nUser-Agent: wrk\\nX-Forwarded-For: 127.0.0.1\\nX-Forwarded-Proto: http\\nX-Pad: $pad\\n\"; } }"
    done
    echo "}"
  } >"$d/nginx.conf"
  nginx -t -q -p "$d" -e "$d/error.log" -c "$d/nginx.conf" || die "backend nginx config invalid"
  sh -c "$LOADJOIN" sh "$ACCTCG/$LOADCG" nginx -p "$d" -e "$d/error.log" -c "$d/nginx.conf" >>"$d/stdout.log" 2>&1 &
  BACKEND_PID=$!
  for i in $(seq 1 100); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$((BACKEND_BASE + NBACK))/")" = 200 ] && break; sleep 0.05
  done
  [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$((BACKEND_BASE + 1))/")" = 200 ] || die "backends not answering"
  sh -c "$LOADJOIN" sh "$ACCTCG/$LOADCG" ./usher whoami --listen "127.0.0.1:$WS_PORT" --name ws-echo >"$WORKDIR/whoami.log" 2>&1 &
  WHOAMI_PID=$!
  for i in $(seq 1 300); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$WS_PORT/")" = 200 ] && break
    kill -0 $WHOAMI_PID 2>/dev/null || die "whoami exited: $(tail -3 "$WORKDIR/whoami.log")"; sleep 0.1
  done
  msg "backends: nginx pid $BACKEND_PID on 127.0.0.1:$((BACKEND_BASE + 1))..$((BACKEND_BASE + NBACK)); whoami pid $WHOAMI_PID on :$WS_PORT"
}

# ---------------------------------------------------------------- proxy configs: gen_NAME DIR NSITES WS(0/1)
PROXY_CMD=()
gen_usher() {
  local d=$1 n=$2 ws=$3 i
  {
    echo "listen: {http: \"127.0.0.1:$PORT\", https: off}"
    echo "admin: off"
    echo "timeouts: {idle: 5m}"      # keep-alive clients held for part c (default 60 s)
    echo "data: $d/data"
    echo "sites:"
    for i in $(seq 1 "$n"); do echo "  $(host_of "$i"): 127.0.0.1:$(port_of "$i")"; done
    [ "$ws" = 1 ] && echo "  ws.scale.test: 127.0.0.1:$WS_PORT"
  } >"$d/usher.yaml"
  PROXY_CMD=(./usher run --config "$d/usher.yaml")
}
gen_caddy() {
  local d=$1 n=$2 ws=$3 i
  mkdir -p "$d/data" "$d/config" "$d/home"
  {
    echo "{"; echo "  admin off"; echo "  auto_https off"; echo "  http_port $PORT"; echo "  grace_period 2s"
    printf '  servers {\n    timeouts {\n      idle 5m\n    }\n  }\n}\n'
    for i in $(seq 1 "$n"); do
      echo "http://$(host_of "$i"):$PORT {"; echo "  bind 127.0.0.1"; echo "  reverse_proxy 127.0.0.1:$(port_of "$i")"; echo "}"
    done
    [ "$ws" = 1 ] && { echo "http://ws.scale.test:$PORT {"; echo "  bind 127.0.0.1"; echo "  reverse_proxy 127.0.0.1:$WS_PORT"; echo "}"; }
  } >"$d/Caddyfile"
  HOME=$d/home XDG_DATA_HOME=$d/data XDG_CONFIG_HOME=$d/config caddy validate --config "$d/Caddyfile" --adapter caddyfile \
    >"$d/validate.log" 2>&1 || { cat "$d/validate.log" >&2; die "caddy config invalid"; }
  PROXY_CMD=(env HOME="$d/home" XDG_DATA_HOME="$d/data" XDG_CONFIG_HOME="$d/config"
    "$(command -v caddy)" run --config "$d/Caddyfile" --adapter caddyfile)
}
gen_nginx() {  # like run.sh's nginx-keepalive target, plus the websocket Upgrade/Connection headers
  local d=$1 n=$2 ws=$3 i p
  mkdir -p "$d/tmp"; chmod 1777 "$d/tmp"
  {
    echo "worker_processes 1; daemon off; pid $d/nginx.pid; error_log $d/error.log warn;"
    echo "worker_rlimit_nofile 65536; events { worker_connections 16384; }"
    echo "http { access_log off; server_tokens off; sendfile on; tcp_nopush on; tcp_nodelay on; keepalive_timeout 300s;"
    echo "  proxy_read_timeout 300s; proxy_send_timeout 300s;"
    echo "  server_names_hash_max_size 1024; server_names_hash_bucket_size 64;"
    echo "  client_body_temp_path $d/tmp/body; proxy_temp_path $d/tmp/proxy; fastcgi_temp_path $d/tmp/fcgi;"
    echo "  uwsgi_temp_path $d/tmp/uwsgi; scgi_temp_path $d/tmp/scgi;"
    echo "  map \$http_upgrade \$connection_upgrade { default upgrade; '' ''; }"
    for i in $(seq 1 $NBACK); do p=$((BACKEND_BASE + i)); echo "  upstream u$p { server 127.0.0.1:$p; keepalive 32; }"; done
    echo "  upstream u$WS_PORT { server 127.0.0.1:$WS_PORT; keepalive 32; }"
    echo "  server { listen 127.0.0.1:$PORT backlog=4096; server_name _; return 404; }"
    loc() {
      echo "  server { listen 127.0.0.1:$PORT; server_name $1;"
      echo "    location / { proxy_pass http://u$2; proxy_http_version 1.1;"
      echo "      proxy_set_header Upgrade \$http_upgrade; proxy_set_header Connection \$connection_upgrade; proxy_set_header Host \$host;"
      echo "      proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for; proxy_set_header X-Forwarded-Proto \$scheme;"
      echo "      proxy_set_header X-Real-IP \$remote_addr; } }"
    }
    for i in $(seq 1 "$n"); do loc "$(host_of "$i")" "$(port_of "$i")"; done
    [ "$ws" = 1 ] && loc ws.scale.test "$WS_PORT"
    echo "}"
  } >"$d/nginx.conf"
  nginx -t -q -p "$d" -e "$d/error.log" -c "$d/nginx.conf" 2>>"$d/error.log" || { cat "$d/error.log" >&2; die "nginx config invalid"; }
  PROXY_CMD=("$(command -v nginx)" -p "$d" -e "$d/error.log" -c "$d/nginx.conf")
}

# ---------------------------------------------------------------- proxy lifecycle (run.sh's cgroup method)
JOIN='echo $$ > "$1"/cgroup.procs && echo $$ > "$2"/cgroup.procs && echo $$ > "$3"/cgroup.procs || exit 97; shift 3; exec "$@"'
start_proxy() {  # start_proxy NAME NSITES WS -> PROXY_PID, CG, START_S
  local name=$1 n=$2 ws=$3 d t0 i code
  d=$WORKDIR/$name-s$n$([ "$ws" = 1 ] && echo -ws); mkdir -p "$d"
  gen_"$name" "$d" "$n" "$ws"
  port_busy "$PORT" && die "port $PORT already in use"
  CG=bench-scale-$ID-$name
  for i in $MEMCG $CPUCG $ACCTCG; do mkdir "$i/$CG" || die "mkdir $i/$CG failed"; done
  echo "$MEM_LIMIT" >$MEMCG/$CG/memory.limit_in_bytes || die "cannot set memory limit"
  [ -f $MEMCG/$CG/memory.memsw.limit_in_bytes ] && { echo "$MEM_LIMIT" >$MEMCG/$CG/memory.memsw.limit_in_bytes || msg "WARNING: cannot set memsw limit"; }
  { echo 0 >$MEMCG/$CG/memory.swappiness; } 2>/dev/null
  echo "$CPU_PERIOD" >$CPUCG/$CG/cpu.cfs_period_us && echo "$CPU_QUOTA" >$CPUCG/$CG/cpu.cfs_quota_us || die "cannot set the cpu quota"
  t0=$(now_us)
  taskset -c $PROXY_CPU sh -c "$JOIN" sh "$MEMCG/$CG" "$CPUCG/$CG" "$ACCTCG/$CG" "${PROXY_CMD[@]}" >>"$d/proxy.log" 2>&1 &
  PROXY_PID=$!
  while :; do
    code=$(code_of "$(host_of 1)") && [ "$code" = 200 ] && break
    kill -0 $PROXY_PID 2>/dev/null || { tail -20 "$d/proxy.log" >&2; die "$name exited during start"; }
    [ $(($(now_us) - t0)) -gt 60000000 ] && die "$name: no 200 within 60 s"
    sleep 0.01
  done
  START_S=$(awk -v d=$(($(now_us) - t0)) 'BEGIN{printf "%.2f", d/1e6}')
  grep -q ":memory:/$CG\$" /proc/$PROXY_PID/cgroup || die "$name pid $PROXY_PID is not in memory cgroup $CG"
  # routing check: first and last configured name must reach their own backend
  for i in 1 "$n"; do
    code=$(code_of "$(host_of "$i")" "$WORKDIR/route.txt")
    [ "$code" = 200 ] && grep -q "Hostname: be$(port_of "$i")" "$WORKDIR/route.txt" || die "$name: $(host_of "$i") -> $code, wrong backend"
  done
  msg "$name ($n sites$([ "$ws" = 1 ] && echo ' + ws')) pid $PROXY_PID: first 200 after ${START_S}s"
}
stop_proxy() {
  kill_wait "$PROXY_PID" 15; PROXY_PID=
  cg_destroy "$CG"; CG=
}

# ---------------------------------------------------------------- wrk with the load spread over the names
gen_lua() {  # gen_lua NSITES -> file
  local n=$1 f=$WORKDIR/spread-$1.lua i
  {
    echo "local hosts = {"
    for i in $(seq 1 "$n"); do echo "  \"$(host_of "$i")\","; done
    echo "}"
    echo "local reqs, i = {}, 0"
    echo "init = function(args) for k, h in ipairs(hosts) do reqs[k] = wrk.format(\"GET\", \"/\", {Host = h}) end end"
    echo "request = function() i = i % #reqs + 1; return reqs[i] end"
  } >"$f"
  echo "$f"
}
run_wrk() {  # run_wrk NAME NSITES CONC DURATION LABEL -> W_* values
  local name=$1 n=$2 c=$3 dur=$4 label=$5 out lua pu0 pu1 lu0 lu1 b0 b1 s0 s1 t0 t1 el hz
  lua=$(gen_lua "$n"); out=$WORKDIR/$name-s$n-c$c-$label.wrk.txt
  pu0=$(cat $ACCTCG/$CG/cpuacct.usage); lu0=$(cat $ACCTCG/$LOADCG/cpuacct.usage); read -r b0 s0 < <(proc_stat_busy); t0=$(now_us)
  sh -c "$LOADJOIN" sh "$ACCTCG/$LOADCG" wrk -t1 -c"$c" -d"$dur" --latency -s "$lua" "http://127.0.0.1:$PORT/" >"$out" 2>&1 &
  WRK_PID=$!; wait $WRK_PID; WRK_PID=
  t1=$(now_us); pu1=$(cat $ACCTCG/$CG/cpuacct.usage); lu1=$(cat $ACCTCG/$LOADCG/cpuacct.usage); read -r b1 s1 < <(proc_stat_busy)
  el=$((t1 - t0)); hz=$(getconf CLK_TCK)
  local wlat='function ms(v){ if(v~/us$/) return v/1000; if(v~/ms$/) return v+0; if(v~/m$/) return v*60000; if(v~/s$/) return v*1000; return v+0 }'
  W_RPS=$(awk '/^Requests\/sec:/{printf "%.0f", $2; exit}' "$out")
  W_P50=$(awk "$wlat"' /Latency Distribution/{s=1; next} s && $1=="50%"{printf "%.2f", ms($2); exit}' "$out")
  W_P99=$(awk "$wlat"' /Latency Distribution/{s=1; next} s && $1=="99%"{printf "%.2f", ms($2); exit}' "$out")
  W_NON2XX=$(awk '/Non-2xx or 3xx responses:/{n=$NF} END{print n+0}' "$out")
  W_ERR=$(awk '/Socket errors:/{gsub(/,/,""); n=$4+$6+$8+$10} END{print n+0}' "$out")
  W_ERRD=$(awk '/Socket errors:/{gsub(/,/,""); printf "connect=%d/read=%d/write=%d/timeout=%d", $4, $6, $8, $10; f=1} END{if(!f) printf "none"}' "$out")
  W_PCPU=$(awk -v u=$((pu1 - pu0)) -v t=$el 'BEGIN{printf "%.1f", u/10/t}')
  W_LCPU=$(awk -v u=$((lu1 - lu0)) -v t=$el 'BEGIN{printf "%.1f", u/10/t}')
  W_OTHER=$(awk -v b=$((b1 - b0)) -v hz="$hz" -v t=$el -v p="$W_PCPU" -v l="$W_LCPU" 'BEGIN{printf "%.1f", b/hz*1e8/t - p - l}')
  W_STEAL=$(awk -v b=$((s1 - s0)) -v hz="$hz" -v t=$el 'BEGIN{printf "%.1f", b/hz*1e8/t}')
  [ -n "$W_RPS" ] || W_RPS=0; [ -n "$W_P99" ] || W_P99=na; [ -n "$W_P50" ] || W_P50=na
  { echo "== wrk $name sites=$n c=$c $label"; cat "$out"; } >>"$LOG"
  if awk -v o="$W_OTHER" -v s="$W_STEAL" 'BEGIN{exit !(o+0 >= 15 || s+0 >= 10)}'; then
    msg "WARNING: $name sites=$n c=$c disturbed: other processes ${W_OTHER}% of a CPU, steal ${W_STEAL}%"
  fi
}
emit() { echo "$1" | tee -a "$RESULTS" >>"$LOG"; echo "$1"; }

load_result() {  # load_result NAME NSITES CONC IDLE_ANON IDLE_USAGE
  local name=$1 n=$2 c=$3 ia=$4 iu=$5
  [ "$WARMUP" != 0 ] && run_wrk "$name" "$n" "$c" "$WARMUP" warmup
  run_wrk "$name" "$n" "$c" "$DURATION" measure
  mem_median 3 3
  emit "RESULT test=load name=$name sites=$n conns=$c rps=$W_RPS p50_ms=$W_P50 p99_ms=$W_P99 non2xx=$W_NON2XX errors=$W_ERR errors_by_kind=$W_ERRD proxy_cpu_pct=$W_PCPU load_cpu_pct=$W_LCPU other_cpu_pct=$W_OTHER steal_pct=$W_STEAL idle_anon_mib=$ia idle_usage_mib=$iu after_anon_mib=$M_ANON after_usage_mib=$M_USAGE peak_usage_mib=$(mib "$(cat $MEMCG/$CG/memory.max_usage_in_bytes)") start_s=$START_S spread=round-robin-over-$n-names duration=$DURATION"
}

conns_test() {  # conns_test NAME MODE HOST COUNTS
  local name=$1 mode=$2 host=$3 counts=$4 out=$WORKDIR/$1-$2.conns.txt rc gc=()
  # Usher (a JVM): also sample after a full GC (jcmd PID GC.run) at each point
  [ "$name" = usher ] && [ -x "$JCMD" ] && gc=(--gc-cmd "$JCMD $PROXY_PID GC.run")
  sh -c "$LOADJOIN" sh "$ACCTCG/$LOADCG" python3 bench/scale_conns.py --name "$name" --mode "$mode" --port "$PORT" --host "$host" --counts "$counts" \
    --cgroup "$MEMCG/$CG" "${gc[@]}" >"$out" 2>>"$LOG" &
  PY_PID=$!; wait $PY_PID; rc=$?; PY_PID=
  [ $rc = 0 ] || msg "WARNING: scale_conns.py $name $mode exited with $rc (see $LOG)"
  grep '^CONNS ' "$out" | while read -r line; do emit "RESULT test=$mode ${line#CONNS }"; done
}

# ---------------------------------------------------------------- main
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" || die "cannot raise ulimit -n"
need_fds=$(( $(tr , '\n' <<<"$IDLE_COUNTS,$WS_COUNT,$CLIENTS" | sort -n | tail -1) * 2 + 500 ))
[ "$(ulimit -n)" = unlimited ] || [ "$(ulimit -n)" -ge $need_fds ] || die "ulimit -n is $(ulimit -n), need $need_fds (hard limit $(ulimit -Hn))"
{
  echo "# bench/scale.sh $(date -Is) host=$(hostname) kernel=$(uname -r) cpus=$(nproc --all) cpu=\"$(awk -F': ' '/model name/{print $2; exit}' /proc/cpuinfo)\" mem=$(awk '/MemTotal/{printf "%.0fGiB", $2/1048576}' /proc/meminfo)"
  echo "# caddy=$(caddy version 2>/dev/null | awk '{print $1}') nginx=$(nginx -v 2>&1 | sed 's/.*\///') wrk=$(wrk -v 2>&1 | awk 'NR==1{print $2}') java=$(. scripts/jdk.sh >/dev/null 2>&1; usher_find_jdk >/dev/null 2>&1 && "$USHER_JDK_JAVA" -version 2>&1 | head -1 | tr -d '"')"
  echo "# targets=$TARGETS sites=$SITES clients=$CLIENTS duration=$DURATION warmup=$WARMUP idle_counts=$IDLE_COUNTS ws_count=$WS_COUNT cgroup=1cpu/$MEM_LIMIT pin=proxy:cpu$PROXY_CPU,load:cpu$LOAD_CPU ulimit_n=$(ulimit -n)"
  echo "# loadavg at start: $(cat /proc/loadavg)"
  o=$(pgrep -af 'bench/run\.sh|mvn|java' | grep -v "^$$ " | cut -c1-140)
  echo "# other work at start (pgrep -af 'bench/run.sh|mvn|java'): ${o:-none}" | tr '\n' ';'; echo
} | tee "$LOG" >&2
msg "workdir $WORKDIR"

for p in "$PORT" "$WS_PORT" $(seq $((BACKEND_BASE + 1)) $((BACKEND_BASE + NBACK))); do port_busy "$p" && die "port $p already in use"; done
msg "building Usher if needed (./usher version)"
./usher version >>"$LOG" 2>&1 || die "./usher version failed (see $LOG)"
JCMD=$(bash -c '. scripts/jdk.sh && usher_find_jdk >/dev/null 2>&1 && echo "${USHER_JDK_JAVA%/java}/jcmd"')
for f in target/usher.jar target/usher.aot; do [ -f "$f" ] && cat "$f" >/dev/null; done   # page cache, outside the cgroup

taskset -pc $LOAD_CPU $$ >/dev/null || die "taskset failed"
mkdir -p $ACCTCG/$LOADCG || die "cannot create $ACCTCG/$LOADCG"
start_backends

IFS=, read -r -a T_LIST <<<"$TARGETS"
IFS=, read -r -a S_LIST <<<"$SITES"
IFS=, read -r -a C_LIST <<<"$CLIENTS"
T_START=$(now_us)
for t in "${T_LIST[@]}"; do
  case $t in usher|caddy|nginx) ;; *) die "unknown target $t" ;; esac
  if ! skipped a || ! skipped b; then
    for n in "${S_LIST[@]}"; do
      if skipped a && [ "$n" != 20 ]; then continue; fi
      start_proxy "$t" "$n" 0
      mem_median 4 3; ia=$M_ANON iu=$M_USAGE
      msg "$t $n sites idle: anon ${ia} MiB, usage ${iu} MiB"
      load_result "$t" "$n" 50 "$ia" "$iu"
      if [ "$n" = 20 ] && ! skipped b; then
        for c in "${C_LIST[@]}"; do [ "$c" = 50 ] || load_result "$t" "$n" "$c" "$ia" "$iu"; done
      fi
      stop_proxy
    done
  fi
  if ! skipped c; then
    start_proxy "$t" 20 0
    conns_test "$t" keepalive "$(host_of 1)" "$IDLE_COUNTS"
    stop_proxy
  fi
  if ! skipped d; then
    start_proxy "$t" 20 1
    conns_test "$t" ws ws.scale.test "$WS_COUNT"
    stop_proxy
  fi
done
o=$(pgrep -af 'bench/run\.sh|mvn' | grep -v "^$$ " | cut -c1-140)
{ echo "# loadavg at end: $(cat /proc/loadavg); elapsed $(( ($(now_us) - T_START) / 1000000 )) s"; echo "# other work at end: ${o:-none}" | tr '\n' ';'; echo; } | tee -a "$LOG" >&2

md_tables "$RESULTS" >"$WORKDIR/scale.md"
cat "$WORKDIR/scale.md"
if [ $SAVE = 1 ]; then
  mkdir -p bench/results
  { head -5 "$LOG"; grep '^# loadavg at end\|^# other work at end' "$LOG"; cat "$RESULTS"; } >"bench/results/scale-$STAMP.txt"
  cp "$WORKDIR/scale.md" "bench/results/scale-$STAMP.md"
  msg "saved bench/results/scale-$STAMP.txt and bench/results/scale-$STAMP.md"
fi
