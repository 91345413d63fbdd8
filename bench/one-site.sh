# Sourced by bench/warmup.sh, bench/h2-alloc.sh and bench/https-backend.sh (not run by itself): the one-site set-up both measure through.
#   one_site_backend WORK BPORT [TLSPORT CERT KEY]   nginx on 127.0.0.1:BPORT (one worker, keep-alive, a ~300-byte
#                                 whoami-like answer, as bench/run.sh's backends; /text a 4096-byte text/plain page), and the same answer over TLS 1.3 on
#                                 TLSPORT when given; pinned to CPU 0; its PID is appended to the caller's pids
#   one_site_https WORK PORT BPORT   a self-signed P-256 certificate for whoami01.bench.test and WORK/usher.yaml
#                                 serving that site over HTTPS on PORT (HTTP on PORT+2); sets url
#   one_site_http WORK PORT BPORT    WORK/usher.yaml serving http://whoami01.bench.test on PORT; sets url

one_site_backend() {
    local work=$1 bport=$2 tlsport=${3-} cert=${4-} key=${5-}
    local body='Hostname: whoami01\nIP: 127.0.0.1\nRemoteAddr: 127.0.0.1:40000\nGET / HTTP/1.1\nHost: whoami01.bench.test\nUser-Agent: hey/0.0.1\nAccept-Encoding: gzip\nX-Forwarded-For: 127.0.0.1\nX-Forwarded-Proto: http\nX-Pad: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n'
    local tls_server=
    [[ -n $tlsport ]] && tls_server="server { listen 127.0.0.1:$tlsport ssl; ssl_certificate $cert; ssl_certificate_key $key;
    ssl_protocols TLSv1.3; default_type text/plain; location / { return 200 \"$body\"; } }"
    mkdir -p "$work/tmp"
    # /text: 4096 bytes of text/plain for the gzip passes (gzip -5: about 900 bytes, like a small HTML/JSON page)
    for ((i = 0; i < 90; i++)); do printf 'line %04d of the sample page: words and numbers %d\n' "$i" $((i * 7919 % 10007)); done \
        >"$work/text.full"
    head -c 4096 "$work/text.full" >"$work/text.txt"
    chmod o+x "$work" && chmod o+r "$work/text.txt" # nginx's worker runs as nobody
    cat >"$work/nginx.conf" <<CONF
worker_processes 1; daemon off; pid $work/nginx.pid; error_log $work/error.log warn;
events { worker_connections 4096; }
http { access_log off; server_tokens off; keepalive_timeout 75s; keepalive_requests 1000000;
  client_body_temp_path $work/tmp/b; proxy_temp_path $work/tmp/p; fastcgi_temp_path $work/tmp/f;
  uwsgi_temp_path $work/tmp/u; scgi_temp_path $work/tmp/s;
  server { listen 127.0.0.1:$bport; default_type text/plain; location / { return 200 "$body"; }
    location = /text { alias $work/text.txt; } }
  $tls_server }
CONF
    taskset -c 0 nginx -p "$work" -e "$work/error.log" -c "$work/nginx.conf" &
    pids+=($!)
}

one_site_https() {
    local work=$1 port=$2 bport=$3
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$work/key.pem" -out "$work/cert.pem" \
        -days 2 -subj /CN=whoami01.bench.test -addext subjectAltName=DNS:whoami01.bench.test >/dev/null 2>&1
    printf 'listen: {http: "127.0.0.1:%d", https: "127.0.0.1:%d"}\ndata: %s/data\nadmin: off\nsites:\n  whoami01.bench.test: {to: "127.0.0.1:%d", tls: {cert: "%s", key: "%s"}}\n' \
        "$((port + 2))" "$port" "$work" "$bport" "$work/cert.pem" "$work/key.pem" >"$work/usher.yaml"
    url=https://whoami01.bench.test:$port/
}

one_site_http() {
    local work=$1 port=$2 bport=$3
    printf 'listen: {http: "127.0.0.1:%d"}\ndata: %s/data\nadmin: off\nsites:\n  http://whoami01.bench.test: "127.0.0.1:%d"\n' \
        "$port" "$work" "$bport" >"$work/usher.yaml"
    url=http://whoami01.bench.test:$port/
}
