#!/usr/bin/env bash
# Measures `queuesim run` over TLS and HTTP/2 against h2load, the HTTP/2 load generator of
# nghttp2, on the same nginx in the same script, in two shapes:
#
#   bench/live-h2.sh [SECONDS] [SHAPES]      (default 10, "streams connect")
#
# streams: requests per CPU-second of the client over long-lived TLS+h2 connections.
#   h2load -t1 -c64 -m1 -D SECONDS (64 connections, one stream in flight on each, for SECONDS);
#   queuesim with `client.connections: shared` and run.concurrency 64, as many visitors as
#   h2load made requests in SECONDS. CPU: h2load's user + system time (GNU time), queuesim's
#   run.json generator.cpu_seconds (the run, reports excluded; the whole process is printed too).
#   The ratio is requests per CPU-second; requests per second are printed beside it.
# connect: new TLS+h2 connections per second, one request each (a full handshake every time).
#   nginx answers one request per connection (`keepalive_requests 1`: GOAWAY, then close).
#   h2load does not reconnect after a GOAWAY, so its shape is batches: h2load -t1 -c64 -n64
#   (64 connections opened at once, one request each), run again and again for SECONDS; its
#   rate is the connections made over the sum of the batches' own "finished in" times (h2load's
#   start-up between batches left out). queuesim: `client.connections: device` (a connection
#   per visitor), run.concurrency 64; its rate is run.json's connections_opened per second of
#   duration_ms, as bench/live-connect.sh reads it.
# Each h2load measurement runs before queuesim and again after it; the ratio is against the
# mean of the two (this machine's speed drifts within minutes).
#
# The responder is Debian's nginx (nginx-light, else nginx; built with the HTTP/2 module), one
# worker pinned to core 0, `listen … ssl http2`, TLS 1.2/1.3 with a fresh ECDSA P-256
# certificate signed by a CA made here with openssl (names: localhost, 127.0.0.1 and the room's
# host $customer.queue-it.net), session tickets and the session cache off (no resumption). It
# answers the SDK's enqueue path with 200 and a safetynet room's enqueue JSON, so every visitor
# ends `passed` after one request, and logs each request's protocol (buffered, one line each,
# the same cost for both clients). h2load POSTs the SDK's enqueue body with the head queuesim's
# iOS visitors send (`:authority` the room's host). queuesim trusts the CA by `target.caFile`
# (verification on); h2load does not verify. Both clients run on core 1.
#
# Checks: h2load negotiated h2 and every request succeeded with a 2xx; every visitor passed
# with a visitors.csv row each; in `connect`, one connection per visitor; with client.http h2,
# nginx logged HTTP/2.0 for each of queuesim's enqueue requests (its reachability check, a
# GET /, is counted apart). Exits non-zero otherwise.
# Target (issue 55): queuesim ≥ 50 % of h2load in both shapes. The script prints the ratios;
# it does not fail on them.
#
# Environment: QUEUESIM_BIN (default: swift build -c release), PORT (default 18096),
# PERF_DATA (a file: the streams shape's queuesim run is recorded there with perf, call graphs
# by DWARF; read it with `perf report -i FILE --no-children --sort dso,symbol`),
# QUEUESIM_HTTP (the scenario's client.http, default h2; `h1` measures queuesim over
# TLS+HTTP/1.1 on the same nginx; empty leaves the key out, for a binary without it),
# H2LOAD_CLIENTS and H2LOAD_STREAMS (the streams shape's h2load -c and -m, default 64 and 1;
# 1 and 64 is the shape of a client that multiplexes 64 streams on one connection).
# Needs 2 cores, nginx with http_v2, h2load (nghttp2-client), openssl, GNU time, jq, curl;
# installs the missing ones with apt-get (root). Loopback only; every load is bounded in time.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-10}"
shapes="${2:-streams connect}"
port="${PORT:-18096}"
http_choice="${QUEUESIM_HTTP-h2}"
connections=64
h2_clients="${H2LOAD_CLIENTS:-64}"
h2_streams="${H2LOAD_STREAMS:-1}"
usage="usage: bench/live-h2.sh [SECONDS] [SHAPES]  (SECONDS a whole number > 0; SHAPES of streams, connect)"
[[ "$seconds" =~ ^[1-9][0-9]*$ ]] || { echo "$usage" >&2; exit 2; }
for shape in $shapes; do
    [[ "$shape" = streams || "$shape" = connect ]] || { echo "$usage" >&2; exit 2; }
done
[[ "$h2_clients" =~ ^[1-9][0-9]*$ && "$h2_streams" =~ ^[1-9][0-9]*$ ]] \
    || { echo "H2LOAD_CLIENTS and H2LOAD_STREAMS are whole numbers > 0" >&2; exit 2; }
[[ -z "$http_choice" || "$http_choice" =~ ^(auto|h1|h2)$ ]] \
    || { echo "QUEUESIM_HTTP is auto, h1, h2 or empty" >&2; exit 2; }

. bench/lib.sh

nginx_binary
nginx_has_http2 || fail "$nginx_bin has no HTTP/2 module (nginx -V shows no --with-http_v2_module)"
need h2load nghttp2-client
need time
need jq
need curl
need openssl
taskset -c 1 true 2>/dev/null || fail "needs at least 2 cores (taskset -c 0 for nginx, -c 1 for the load)"
queuesim_binary

workdir="$(mktemp -d)"
trap 'stop_server; rm -rf "$workdir"' EXIT
if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then fail "something already listens on 127.0.0.1:$port (set PORT)"; fi

# --- the canned answer, the certificates, h2load's request -------------------------------------
safetynet_enqueue_answer
room_host="$customer.queue-it.net"
pki="$workdir/pki"
make_bench_pki "$pki" "DNS:localhost,DNS:$room_host,IP:127.0.0.1"
url="https://127.0.0.1:$port"
# The SDK's enqueue body and head as queuesim's iOS visitors send them (bench/lib.sh's
# write_enqueue_lua, in h2's lowercase names).
printf '%s' '{"userId":"0B6F2A4E-5C1D-4E8A-9F3B-6D7E8F901234","userAgent":"queuesim\/1 (virtual visitor)","sdkVersion":"iOS-3.5.2"}' \
    > "$workdir/enqueue.json"
h2load_head=(-H ":authority: $room_host" -H "content-type: application/json" -H "accept: application/json"
    -H "user-agent: queuesim/1 CFNetwork/1568.200.51 Darwin/24.1.0"
    -H "accept-language: en-US,en;q=0.9" -H "accept-encoding: gzip, deflate")

# write_responder SHAPE: nginx's config for SHAPE (streams: keep-alive for 1,000,000 requests;
# connect: one request per connection), logging each request's protocol to $protocol_log
# (curl's readiness checks left out).
write_responder() {
    responder_dir="$workdir/nginx-$1"
    local keepalive="keepalive_requests 1000000; keepalive_timeout 60s;"
    [ "$1" = streams ] || keepalive="keepalive_requests 1;"
    protocol_log="$responder_dir/logs/protocol.log"
    write_nginx_conf "$responder_dir" "worker_rlimit_nofile 16384;
events { worker_connections 8192; }" "    $keepalive
    ssl_certificate $pki/server.pem;
    ssl_certificate_key $pki/server.key;
    ssl_protocols TLSv1.2 TLSv1.3;
    ssl_session_tickets off;
    ssl_session_cache off;
    log_format protocol '\$server_protocol \$uri';
    map \$http_user_agent \$counted { ~^curl/ 0; default 1; }" "        listen 127.0.0.1:$port ssl http2;
        access_log $protocol_log protocol buffer=64k if=\$counted;"
}
# nginx starts afresh for each client's turn: its log then holds that turn's requests only
# (nginx writes the buffered lines when it stops).
start_responder() {
    rm -f "$protocol_log"
    start_nginx "$responder_dir" answers_with "$url$enqueue_path" --http2 --cacert "$pki/ca.pem"
}

# check_h2load OUT: fails unless h2load negotiated h2 and every request it finished got a 2xx.
check_h2load() {
    grep -q '^Application protocol: h2$' "$1" || { cat "$1" >&2; fail "h2load did not negotiate h2"; }
    local line
    line=$(grep '^requests:' "$1") || { cat "$1" >&2; fail "no requests line in h2load's output"; }
    [[ "$line" =~ ([0-9]+)\ succeeded,\ 0\ failed,\ 0\ errored ]] || { cat "$1" >&2; fail "h2load saw failures: $line"; }
    grep -qE "^status codes: ${BASH_REMATCH[1]} 2xx," "$1" || { cat "$1" >&2; fail "h2load saw non-2xx answers"; }
}
succeeded() { grep '^requests:' "$1" | sed -E 's/.* ([0-9]+) succeeded.*/\1/'; }
cpu_of() { awk '{ u += $1; s += $2 } END { printf "%.3f", u + s }' "$1"; } # GNU time's "%U %S" lines
# finished_seconds OUT: h2load's "finished in 1.29s" / "255.43ms" / "812us" in seconds.
finished_seconds() {
    sed -nE 's/^finished in ([0-9.]+)(s|ms|us),.*/\1 \2/p' "$1" \
        | awk '{ f = ($2 == "s") ? 1 : ($2 == "ms") ? 1e-3 : 1e-6; printf "%.6f", $1 * f }'
}

# h2load_streams LABEL: one long-lived run; sets h_rate (requests/s), h_per_cpu, h_cpu, h_requests.
h2load_streams() {
    local out="$workdir/h2load-streams-$1.txt" time_file="$workdir/h2load-streams-$1.time" status=0
    h2load_cmd=(timeout --foreground -k 5 $((seconds + 30)) taskset -c 1 /usr/bin/time -f '%U %S' -o "$time_file"
        h2load -t1 -c"$h2_clients" -m"$h2_streams" -D "$seconds" -d enqueue.json "${h2load_head[@]}" "$url$enqueue_path")
    (cd "$workdir" && "${h2load_cmd[@]}") > "$out" 2>&1 || status=$?
    [ "$status" -eq 0 ] || { cat "$out" >&2; fail "h2load exited $status"; }
    check_h2load "$out"
    h_requests=$(succeeded "$out")
    h_cpu=$(cpu_of "$time_file")
    h_rate=$(awk -v n="$h_requests" -v t="$(finished_seconds "$out")" 'BEGIN { printf "%.0f", n / t }')
    h_per_cpu=$(awk -v n="$h_requests" -v c="$h_cpu" 'BEGIN { printf "%.0f", n / (c > 0 ? c : 0.001) }')
}

# h2load_connect LABEL: batches of 64 one-request connections for SECONDS; sets h_rate
# (connections/s over the batches' own time), h_per_cpu (connections per CPU-second),
# h_cpu, h_requests, h_batches.
h2load_connect() {
    local out="$workdir/h2load-connect-$1.txt" time_file="$workdir/h2load-connect-$1.time" status
    local deadline=$(($(date +%s) + seconds)) busy=0 finished
    h_requests=0
    h_batches=0
    : > "$time_file"
    h2load_cmd=(timeout --foreground -k 5 30 taskset -c 1 /usr/bin/time -a -f '%U %S' -o "$time_file"
        h2load -t1 -c"$connections" -n"$connections" -d enqueue.json "${h2load_head[@]}" "$url$enqueue_path")
    while [ "$(date +%s)" -lt "$deadline" ]; do
        status=0
        (cd "$workdir" && "${h2load_cmd[@]}") > "$out" 2>&1 || status=$?
        [ "$status" -eq 0 ] || { cat "$out" >&2; fail "h2load exited $status"; }
        check_h2load "$out"
        h_requests=$((h_requests + $(succeeded "$out")))
        finished=$(finished_seconds "$out")
        busy=$(awk -v a="$busy" -v b="$finished" 'BEGIN { printf "%.6f", a + b }')
        h_batches=$((h_batches + 1))
    done
    h_cpu=$(cpu_of "$time_file")
    h_rate=$(awk -v n="$h_requests" -v t="$busy" 'BEGIN { printf "%.0f", n / t }')
    h_per_cpu=$(awk -v n="$h_requests" -v c="$h_cpu" 'BEGIN { printf "%.0f", n / (c > 0 ? c : 0.001) }')
}

# run_queuesim SHAPE VISITORS: queuesim run on a generated scenario; its reports in $dir/out.
run_queuesim() {
    local model=shared http_key="" status=0
    [ "$1" = streams ] || model=device
    [ -z "$http_choice" ] || http_key=", http: $http_choice"
    dir="$workdir/$1"
    mkdir -p "$dir"
    cat > "$dir/scenario.yaml" <<YAML
version: 1
name: live-h2-$1
seed: 1
target: { customerId: $customer, waitingRoomId: $room, endpoint: "$url", caFile: $pki/ca.pem }
client: { requestTimeout: 30s, userAgent: "queuesim/1 (virtual visitor)", sdkVersion: iOS-3.5.2, connections: $model$http_key }
arrivals:
  process: uniform
  phases: [ { duration: ${seconds}s, rate: 200000 } ]
  maxVisitors: $2
visitors: [ { name: app, flow: run } ]
run: { concurrency: $connections }
YAML
    "$bin" validate "$dir/scenario.yaml" > "$dir/validate.txt" 2>&1 \
        || { cat "$dir/validate.txt" >&2; fail "queuesim validate refused the generated scenario"; }
    local profile=()
    # PERF_DATA: the streams run's profile (perf record, DWARF call graphs), for
    # `perf report -i FILE --no-children --sort dso,symbol`; its figures then carry perf's cost.
    [ -z "${PERF_DATA:-}" ] || [ "$1" != streams ] \
        || profile=(perf record -q -F 999 -g --call-graph dwarf,16384 -o "$PERF_DATA" --)
    run_cmd=(taskset -c 1 /usr/bin/time -v -o run.time timeout --foreground -k 15 $((seconds * 20 + 60))
        "${profile[@]}" "$bin" run scenario.yaml --out out --quiet)
    (cd "$dir" && "${run_cmd[@]}") > "$dir/run.log" 2>&1 || status=$?
    if [ "$status" -ne 0 ]; then
        cat "$dir/run.log" >&2
        [ ! -f "$dir/run.time" ] || cat "$dir/run.time" >&2
        fail "queuesim run ($1) exited $status"
    fi
    kill -0 "$server" 2>/dev/null || fail "nginx died during the run"
}

echo "machine:            $(machine_description); load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "(commands run in a temporary directory)"
echo "h2load:             $(h2load --version 2>&1 | head -1)"

for shape in $shapes; do
    write_responder "$shape"
    [ "$shape" = streams ] && unit="requests" || unit="connections"
    start_responder
    "h2load_$shape" before
    stop_server
    h_first_rate=$h_rate h_first_per_cpu=$h_per_cpu first_requests=$h_requests
    visitors=$(awk -v r="$h_rate" -v s="$seconds" 'BEGIN { printf "%d", r * s }')
    [ "$visitors" -gt 0 ] || fail "h2load made no $unit"
    start_responder
    run_queuesim "$shape" "$visitors"
    stop_server
    # Each line: the protocol and the path; the SDK's requests by protocol, then anything else
    # (queuesim's reachability check, GET /, is not a visitor's request).
    protocols=$(awk -v p="$enqueue_path" '$2 == p { print $1 }' "$protocol_log" | sort | uniq -c \
        | awk '{ printf "%s%s %s", sep, $1, $2; sep = ", " }')
    others=$(awk -v p="$enqueue_path" '$2 != p' "$protocol_log" | sort | uniq -c \
        | awk '{ printf "%s%s %s %s", sep, $1, $2, $3; sep = ", " }')
    start_responder
    "h2load_$shape" after
    stop_server
    h_mean_rate=$(awk -v a="$h_first_rate" -v b="$h_rate" 'BEGIN { printf "%.0f", (a + b) / 2 }')
    h_mean_per_cpu=$(awk -v a="$h_first_per_cpu" -v b="$h_per_cpu" 'BEGIN { printf "%.0f", (a + b) / 2 }')

    json="$dir/out/run.json"
    [ -f "$json" ] || fail "no run.json ($shape)"
    rows=$(($(wc -l < "$dir/out/visitors.csv") - 1))
    passed=$(jq -r '.outcomes.passed // 0' "$json")
    requests=$(jq -r '.requests' "$json")
    opened=$(jq -r '.generator.connections_opened // empty' "$json")
    [ -n "$opened" ] || fail "run.json has no generator.connections_opened"
    q_cpu=$(jq -r '.generator.cpu_seconds' "$json")
    duration_ms=$(jq -r '.duration_ms' "$json")
    whole_cpu=$(awk -F': ' '/User time/ { u = $2 } /System time/ { s = $2 } END { printf "%.2f", u + s }' "$dir/run.time")
    peak_kib=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$dir/run.time")
    counted=$requests
    [ "$shape" = streams ] || counted=$opened
    q_rate=$(awk -v n="$counted" -v d="$duration_ms" 'BEGIN { printf "%.0f", n / (d / 1000) }')
    q_per_cpu=$(awk -v n="$counted" -v c="$q_cpu" 'BEGIN { printf "%.0f", n / (c > 0 ? c : 0.001) }')
    q_whole_per_cpu=$(awk -v n="$counted" -v c="$whole_cpu" 'BEGIN { printf "%.0f", n / (c > 0 ? c : 0.001) }')

    echo
    echo "[$shape] responder:   ${nginx_cmd[*]}"
    echo "[$shape] h2load:      $(printf '%q ' "${h2load_cmd[@]}")"
    [ "$shape" = streams ] || echo "                     (run again and again for ${seconds} s: $h_batches batches after queuesim)"
    echo "[$shape] queuesim:    ${run_cmd[*]}"
    echo "                     (scenario: $visitors visitors, client.connections $([ "$shape" = streams ] && echo shared || echo device), client.http ${http_choice:-(not set)}, run.concurrency $connections, endpoint $url, caFile the CA made here)"
    echo "[$shape] h2load:      $h_mean_rate $unit/s, $h_mean_per_cpu $unit per CPU-second (mean of $h_first_rate/s · $h_first_per_cpu before, $h_rate/s · $h_per_cpu after; $first_requests and $h_requests $unit, ${h_cpu} s CPU after)"
    echo "[$shape] queuesim:    $q_rate $unit/s, $q_per_cpu $unit per CPU-second ($requests requests on $opened connections in $(awk -v d="$duration_ms" 'BEGIN { printf "%.2f", d / 1000 }') s, $q_cpu s CPU in the run; $passed of $visitors passed, $rows rows)"
    echo "[$shape] nginx saw:   ${protocols:-nothing} on the enqueue path during queuesim's run${others:+ (besides: $others)}"
    # run.json's own account (generator.protocols_by_endpoint; absent before issue 55).
    jq -r --arg s "$shape" '.generator.protocols_by_endpoint[]? | "[\($s)] run.json:    \(.endpoint) spoke "
        + (.connections | to_entries | map("\(.key) on \(.value) connection(s)") | join(", "))
        + "; \(.streams_per_connection_mean) requests per connection (at most \(.streams_per_connection_max))"' "$json"
    if [ "$shape" = streams ]; then
        awk -v q="$q_per_cpu" -v h="$h_mean_per_cpu" -v qr="$q_rate" -v hr="$h_mean_rate" 'BEGIN {
            printf "[streams] queuesim / h2load: %.1f %% of requests per CPU-second (target ≥ 50 %%); %.1f %% of requests/s\n", 100 * q / h, 100 * qr / hr }'
    else
        awk -v q="$q_rate" -v h="$h_mean_rate" -v qc="$q_per_cpu" -v hc="$h_mean_per_cpu" 'BEGIN {
            printf "[connect] queuesim / h2load: %.1f %% of new connections/s (target ≥ 50 %%); %.1f %% per CPU-second\n", 100 * q / h, 100 * qc / hc }'
    fi
    jq -r --arg s "$shape" '.generator | "[\($s)] generator:   " + (if (.saturated_windows | length) == 0 then "kept up" else "SATURATED \(.saturated_seconds) s" end) + " (loop lag p99 \(.loop_lag_p99_ms) ms)"' "$json"
    awk -v p="$peak_kib" -v t="$whole_cpu" -v n="$q_whole_per_cpu" -v s="$shape" -v u="$unit" 'BEGIN {
        printf "[%s] whole process: %s s CPU (%s %s per CPU-second, start and reports included), peak RSS %.1f MiB\n", s, t, n, u, p / 1024 }'

    [ "$rows" -eq "$visitors" ] || fail "visitors.csv has $rows rows for $visitors visitors ($shape)"
    [ "$passed" -eq "$visitors" ] || fail "only $passed of $visitors visitors passed ($shape)"
    [ "$shape" = streams ] || [ "$opened" -eq "$visitors" ] \
        || fail "$opened connections for $visitors visitors: device mode opens one per visitor here"
    if [ "$http_choice" = h2 ] && [ "$protocols" != "$requests HTTP/2.0" ]; then
        fail "client.http h2, but nginx logged ${protocols:-nothing} on the enqueue path for queuesim's $requests requests"
    fi
done
echo
echo "ok: every visitor passed; h2load spoke h2 throughout"
