# Sourced by the bench/conformance/ scripts (not run by itself): the three servers under test, each in front of
# echo-backend.py on 127.0.0.1:$BACKEND, each over TLS with one self-signed certificate for "localhost" and over
# plain HTTP:
#   usher   ./usher run (this checkout)          https 127.0.0.1:19443   http 127.0.0.1:19480
#   caddy   Debian's caddy (as bench/bench.sh)   https 127.0.0.1:19543   http 127.0.0.1:19580
#   nginx   Debian's nginx, http2 on             https 127.0.0.1:19643   http 127.0.0.1:19680
# parse_suite_args SUITE ARGS... reads a suite script's arguments (--out DIR, --configs LIST, server names) into
# out, configs and names; start_targets WORK [NAMES...] starts the servers (all three by default) and waits until
# each answers; stop_targets ends them. https_port NAME and http_port NAME give the ports.

BACKEND=19080
declare -A HTTPS_PORT=([usher]=19443 [caddy]=19543 [nginx]=19643)
declare -A HTTP_PORT=([usher]=19480 [caddy]=19580 [nginx]=19680)
target_pids=()

https_port() { echo "${HTTPS_PORT[$1]}"; }
http_port() { echo "${HTTP_PORT[$1]}"; }

conformance_root=$(cd -P -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)

parse_suite_args() { # SUITE ARGS...
    local suite=$1
    shift
    out=
    names=()
    while (($#)); do
        case $1 in
        --out) out=$2; shift 2 ;;
        --configs) configs=$2; shift 2 ;;
        --*) echo "$suite.sh: unknown option $1" >&2; exit 2 ;;
        *) names+=("$1"); shift ;;
        esac
    done
    ((${#names[@]})) || names=(usher caddy nginx)
    out=${out:-$(mktemp -d "${TMPDIR:-/tmp}/usher-$suite.XXXXXX")}
    mkdir -p "$out"
}

start_targets() { # WORK [NAMES...]
    local work=$1
    shift
    local names=("$@")
    ((${#names[@]})) || names=(usher caddy nginx)
    mkdir -p "$work"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 7 -subj /CN=localhost \
        -addext subjectAltName=DNS:localhost -keyout "$work/key.pem" -out "$work/cert.pem" >/dev/null 2>&1
    python3 "$conformance_root/bench/conformance/echo-backend.py" "$BACKEND" >"$work/backend.log" 2>&1 &
    target_pids+=($!)
    local name
    for name in "${names[@]}"; do
        "start_$name" "$work"
    done
    for name in "${names[@]}"; do
        local i
        for i in $(seq 300); do # a first ./usher run may build the jar and its AOT cache first
            curl -sk -o /dev/null --max-time 2 --resolve "localhost:$(https_port "$name"):127.0.0.1" \
                "https://localhost:$(https_port "$name")/" && break
            sleep 1
        done
    done
}

start_usher() { # WORK
    local work=$1
    cat >"$work/usher.yaml" <<YAML
listen: {http: "127.0.0.1:${HTTP_PORT[usher]}", https: "127.0.0.1:${HTTPS_PORT[usher]}"}
admin: off
data: $work/usher-data
sites:
  localhost: {to: "127.0.0.1:$BACKEND", tls: {cert: "$work/cert.pem", key: "$work/key.pem"}}
  http://127.0.0.1: "127.0.0.1:$BACKEND"
  # Usher has no catch-all site: the names h1spec's requests carry (Caddy's http:// and nginx's default
  # server answer any name)
  http://example.com: "127.0.0.1:$BACKEND"
  http://example.org: "127.0.0.1:$BACKEND"
YAML
    (cd "$conformance_root" && exec ./usher run --config "$work/usher.yaml") >"$work/usher.log" 2>&1 &
    target_pids+=($!)
}

start_caddy() { # WORK
    local work=$1
    cat >"$work/Caddyfile" <<CADDY
{
    admin off
    auto_https off
    skip_install_trust
    storage file_system $work/caddy-data
}
https://localhost:${HTTPS_PORT[caddy]} {
    bind 127.0.0.1
    tls $work/cert.pem $work/key.pem
    reverse_proxy 127.0.0.1:$BACKEND
}
http://:${HTTP_PORT[caddy]} {
    bind 127.0.0.1
    reverse_proxy 127.0.0.1:$BACKEND
}
CADDY
    HOME=$work XDG_DATA_HOME=$work XDG_CONFIG_HOME=$work caddy run --config "$work/Caddyfile" --adapter caddyfile \
        >"$work/caddy.log" 2>&1 &
    target_pids+=($!)
}

start_nginx() { # WORK
    local work=$1
    mkdir -p "$work/nginx-tmp"
    cat >"$work/nginx.conf" <<NGINX
worker_processes 1; daemon off; pid $work/nginx.pid; error_log $work/nginx-error.log warn;
events { worker_connections 1024; }
http { access_log off; server_tokens off;
  client_body_temp_path $work/nginx-tmp/b; proxy_temp_path $work/nginx-tmp/p; fastcgi_temp_path $work/nginx-tmp/f;
  uwsgi_temp_path $work/nginx-tmp/u; scgi_temp_path $work/nginx-tmp/s;
  upstream backend { server 127.0.0.1:$BACKEND; keepalive 16; }
  map \$http_upgrade \$connection_upgrade { default upgrade; '' ''; }
  server { listen 127.0.0.1:${HTTPS_PORT[nginx]} ssl http2; server_name localhost;
    ssl_certificate $work/cert.pem; ssl_certificate_key $work/key.pem;
    location / { proxy_pass http://backend; proxy_http_version 1.1; proxy_set_header Host \$host;
      proxy_set_header Upgrade \$http_upgrade; proxy_set_header Connection \$connection_upgrade; } }
  server { listen 127.0.0.1:${HTTP_PORT[nginx]};
    location / { proxy_pass http://backend; proxy_http_version 1.1; proxy_set_header Host \$host;
      proxy_set_header Upgrade \$http_upgrade; proxy_set_header Connection \$connection_upgrade; } } }
NGINX
    nginx -p "$work" -e "$work/nginx-error.log" -c "$work/nginx.conf" &
    target_pids+=($!)
}

stop_targets() {
    local pid
    for pid in "${target_pids[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    wait 2>/dev/null || true
    target_pids=()
}

version_of() { # NAME
    case $1 in
    usher) (cd "$conformance_root" && ./usher version 2>/dev/null | head -n 1) ;;
    caddy) caddy version 2>/dev/null | head -n 1 ;;
    nginx) nginx -v 2>&1 | head -n 1 ;;
    esac
}
