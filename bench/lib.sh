# Shared by the live benchmarks (source it): failing, installing Debian packages, finding the
# queuesim binary, stopping the background server, describing the machine.

fail() { echo "FAIL: $*" >&2; exit 1; }

apt_install() {
    echo "installing $* (apt-get install -y $*)" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y "$@" >&2 \
        || { apt-get update >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y "$@" >&2; }
}

# need COMMAND [PACKAGE]: installs PACKAGE (default COMMAND) when COMMAND is missing.
need() {
    local package="${2:-$1}"
    if [ "$1" = time ]; then
        [ -x /usr/bin/time ] && return 0
    else
        command -v "$1" >/dev/null && return 0
    fi
    apt_install "$package" || fail "install $package first: apt-get install -y $package"
}

# Sets `bin`: $QUEUESIM_BIN, or a release build made now.
queuesim_binary() {
    if [ -n "${QUEUESIM_BIN:-}" ]; then
        bin="$QUEUESIM_BIN"
    else
        swift build -c release --product queuesim >&2
        bin="$(swift build -c release --show-bin-path)/queuesim"
    fi
    [ -x "$bin" ] || fail "no queuesim binary at $bin"
    # The scripts run queuesim from a temporary directory: a relative path would not resolve.
    bin="$(realpath "$bin")"
}

# Stops the background process whose pid is in $server (if any) and waits for it.
server=""
stop_server() {
    if [ -n "$server" ]; then
        kill "$server" 2>/dev/null || true
        wait "$server" 2>/dev/null || true
        server=""
    fi
}

# "2 cores, 23.5 GiB, Linux 6.18.44": the line every benchmark prints first.
machine_description() {
    echo "$(nproc) cores, $(free -m | awk '/Mem:/ { printf "%.1f GiB", $2 / 1024 }'), $(uname -sr)"
}


# --- the canned enqueue responder (bench/live-ceiling.sh, bench/live-connect.sh) ---------------

# Sets nginx_bin: Debian's nginx, installed (nginx-light, else nginx) when missing.
nginx_binary() {
    nginx_bin="$(command -v nginx || { [ -x /usr/sbin/nginx ] && echo /usr/sbin/nginx; } || true)"
    if [ -z "$nginx_bin" ]; then
        apt_install nginx-light || apt_install nginx || fail "install nginx first: apt-get install -y nginx-light"
        nginx_bin="$(command -v nginx || { [ -x /usr/sbin/nginx ] && echo /usr/sbin/nginx; } || true)"
    fi
    [ -n "$nginx_bin" ] || fail "nginx not found after installing it"
}

# Sets customer, room, queue_id, enqueue_path and answer: the room's safetynet enqueue JSON, shaped
# as WaitingRoomService.enqueue writes it, its token as KnownUserToken.signed writes it
# (e_~q_~ts_~ce_~rt_~h_, HMAC-SHA256 hex with the room's default secretKey `dev-secret`), so each
# visitor of the SDK ends `passed` after exactly one request.
safetynet_enqueue_answer() {
    customer=acme
    room=bench
    queue_id="0b6f2a4e-5c1d-4e8a-9f3b-6d7e8f901234"
    local expiry unsigned hash
    expiry=$(($(date +%s) + 86400))
    unsigned="e_${room}~q_${queue_id}~ts_${expiry}~ce_true~rt_safetynet"
    if command -v openssl >/dev/null; then
        hash=$(printf '%s' "$unsigned" | openssl dgst -sha256 -hmac dev-secret -r | cut -d' ' -f1)
    else # not an HMAC, but the same shape: a token from a real endpoint is judged by shape only
        hash=$(printf '%s' "dev-secret$unsigned" | sha256sum | cut -d' ' -f1)
    fi
    answer="{\"QueueId\":\"$queue_id\",\"QueueUrl\":\"https://$customer.queue-it.net/queue/$customer/$room?q=$queue_id\",\"QueueUrlTTLInMinutes\":30,\"EventTargetUrl\":\"https://$customer.example/launch\",\"QueueitToken\":\"${unsigned}~h_${hash}\"}"
    enqueue_path="/api/mobileapp/queue/$customer/$room/enqueue"
}

# write_enqueue_lua FILE: wrk's script for the SDK's enqueue call, with the bytes queuesim's iOS
# visitors send for a scenario whose `userAgent` is `queuesim/1 (virtual visitor)`: CFNetwork's
# headers (docs/client-core.md; wrk writes them in its own order) and the body with `/` escaped.
# CONNECTION (default keep-alive) is the `Connection` header's value: `close` makes wrk open a
# new connection per request (a header set here overrides wrk's -H).
write_enqueue_lua() {
    cat > "$1" <<'LUA'
wrk.method = "POST"
wrk.headers["Host"] = "acme.queue-it.net"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Connection"] = "keep-alive"
wrk.headers["Accept"] = "application/json"
wrk.headers["User-Agent"] = "queuesim/1 CFNetwork/1568.200.51 Darwin/24.1.0"
wrk.headers["Accept-Language"] = "en-US,en;q=0.9"
wrk.headers["Accept-Encoding"] = "gzip, deflate"
wrk.body = '{"userId":"0B6F2A4E-5C1D-4E8A-9F3B-6D7E8F901234","userAgent":"queuesim\\/1 (virtual visitor)","sdkVersion":"iOS-3.5.2"}'
LUA
    [ -z "${2:-}" ] || sed -i "s/\"keep-alive\"/\"$2\"/" "$1"
}

# write_nginx_conf DIR MAIN HTTP LISTEN: DIR/nginx.conf for the canned enqueue responder (one
# worker, pid, logs and temp paths in DIR, no access log), answering `answer` under
# /api/mobileapp/queue/ and 404 elsewhere. MAIN: main-context lines (the events block among
# them); HTTP: the http block's own lines (keep-alive, TLS); LISTEN: the server's listen lines.
write_nginx_conf() {
    local dir="$1"
    mkdir -p "$dir/logs"
    cat > "$dir/nginx.conf" <<NGINX
worker_processes 1;
daemon off;
pid $dir/nginx.pid;
error_log $dir/logs/error.log warn;
$2
http {
    access_log off;
    client_body_temp_path $dir/body;
    proxy_temp_path $dir/proxy;
    fastcgi_temp_path $dir/fastcgi;
    uwsgi_temp_path $dir/uwsgi;
    scgi_temp_path $dir/scgi;
$3
    server {
$4
        location /api/mobileapp/queue/ {
            default_type application/json;
            return 200 '$answer';
        }
        location / { return 404; }
    }
}
NGINX
}

# start_nginx DIR CHECK...: starts nginx on core 0 with DIR/nginx.conf (logs in DIR/logs; sets
# `server` and `nginx_cmd`), then runs CHECK until it succeeds (5 s at most) or fails the script.
start_nginx() {
    local dir="$1"
    shift
    nginx_cmd=(taskset -c 0 "$nginx_bin" -p "$dir" -c "$dir/nginx.conf" -e "$dir/logs/error.log")
    "${nginx_cmd[@]}" > "$dir/stdout.log" 2>&1 &
    server=$!
    for _ in $(seq 1 50); do
        kill -0 "$server" 2>/dev/null || break
        if "$@"; then return 0; fi
        sleep 0.1
    done
    cat "$dir/stdout.log" "$dir/logs/error.log" >&2 2>/dev/null || true
    fail "nginx did not answer as expected ($*)"
}

# answers_with URL [CURL OPTION...]: whether a POST to URL gets `answer` back.
answers_with() {
    local url="$1"
    shift
    [ "$(curl -fsS --max-time 2 "$@" -X POST -H 'Content-Type: application/json' -d '{}' "$url" 2>/dev/null || true)" = "$answer" ]
}

# --- TLS on loopback (bench/live-h2.sh) ---------------------------------------------------------

# make_bench_pki DIR SAN: DIR/ca.pem (a CA made now) and DIR/server.pem, DIR/server.key (an ECDSA
# P-256 certificate it signed, for SAN, e.g. `DNS:localhost,IP:127.0.0.1`), valid two days. A
# client trusts the server with `--cacert DIR/ca.pem` (curl) or `target.caFile` (queuesim).
make_bench_pki() {
    local dir="$1" san="$2"
    mkdir -p "$dir"
    (
        cd "$dir"
        openssl ecparam -name prime256v1 -genkey -noout -out ca.key
        openssl req -x509 -new -key ca.key -days 2 -subj "/CN=queuesim bench CA" \
            -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign -out ca.pem
        openssl ecparam -name prime256v1 -genkey -noout -out server.key
        openssl req -new -key server.key -subj "/CN=localhost" -out server.csr
        printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth\n' "$san" > server.ext
        openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
            -extfile server.ext -out server.pem
    ) > "$dir/openssl.log" 2>&1 || { cat "$dir/openssl.log" >&2; fail "openssl could not make the certificates"; }
}

# nginx_has_http2: whether $nginx_bin was built with the HTTP/2 module (Debian's nginx-light is).
nginx_has_http2() {
    "$nginx_bin" -V 2>&1 | grep -q -- '--with-http_v2_module'
}
