#!/usr/bin/env bash
# Measures how fast `queuesim run` opens new connections with `client.connections: device`
# (every visitor its own connection, as a phone) against wrk opening a new connection per
# request, in the same script, in plain HTTP and in TLS (a full handshake each time).
#
#   bench/live-connect.sh [SECONDS] [MODES]      (default 10, "plain tls")
#
# The responder is Debian's nginx (nginx-light, else nginx), one worker pinned to core 0, with
# `keepalive_timeout 0` (it closes every connection after its answer, so the client end holds
# no TIME_WAIT) and, for TLS, a fresh ECDSA P-256 certificate signed by a CA made here with
# openssl, session tickets and the session cache off (no resumption: every handshake is full,
# as for a phone that has never talked to the server). It answers the enqueue path with 200
# and the enqueue API's JSON for a safetynet room, so each visitor ends `passed` after one
# request. On core 1, for each mode:
#   1. wrk -t1 -c64 -d${SECONDS}s with `Connection: close` (a new connection, and on https a new
#      handshake, per request), POSTing the SDK's enqueue body; before queuesim and after it,
#      the ratio is against the mean of the two;
#   2. queuesim run on a generated scenario: `client.connections: device`, one `run` group,
#      wrk's rate × SECONDS visitors arriving faster than any generator serves them,
#      run.concurrency 64 (wrk's connections), `target.caFile` the CA made here (verification
#      on). queuesim's rate is run.json's connections_opened / (duration_ms / 1000).
# Checks that every visitor passed, that visitors.csv has a row per visitor and that the run
# opened one connection per visitor; exits non-zero otherwise.
#
# Target (issue 28): queuesim ≥ 50 % of wrk's new-connection rate in plain HTTP and ≥ 50 % of
# its TLS handshake rate. The script prints the ratios; it does not fail on them.
#
# Environment: QUEUESIM_BIN (default: swift build -c release), PORT (default 18093; TLS uses
# PORT + 1), QUEUESIM_TRANSPORT=nio (plain mode on SwiftNIO's loops, the reference for
# queuesim's own transport: docs/benchmarks.md, "Tenth look"). Needs 2 cores, nginx, wrk, openssl, GNU time, jq, curl; installs the missing ones
# with apt-get (root). Loopback only; every load is bounded in time.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-10}"
modes="${2:-plain tls}"
port="${PORT:-18093}"
tls_port=$((port + 1))
connections=64
[[ "$seconds" =~ ^[1-9][0-9]*$ ]] || { echo "usage: bench/live-connect.sh [SECONDS] [MODES]" >&2; exit 2; }
for mode in $modes; do
    [[ "$mode" = plain || "$mode" = tls ]] || { echo "MODES is a list of plain and tls" >&2; exit 2; }
done

. bench/lib.sh

nginx_binary
need wrk
need time
need jq
need curl
need openssl
taskset -c 1 true 2>/dev/null || fail "needs at least 2 cores (taskset -c 0 for nginx, -c 1 for the load)"
queuesim_binary

workdir="$(mktemp -d)"
trap 'stop_server; rm -rf "$workdir"' EXIT
for p in "$port" "$tls_port"; do
    if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then fail "something already listens on 127.0.0.1:$p (set PORT)"; fi
done

# --- a CA and the server's ECDSA P-256 certificate, made now ------------------------------------
pki="$workdir/pki"
mkdir -p "$pki"
(
    cd "$pki"
    openssl ecparam -name prime256v1 -genkey -noout -out ca.key
    openssl req -x509 -new -key ca.key -days 2 -subj "/CN=queuesim bench CA" \
        -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign -out ca.pem
    openssl ecparam -name prime256v1 -genkey -noout -out server.key
    openssl req -new -key server.key -subj "/CN=localhost" -out server.csr
    printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' > server.ext
    openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
        -extfile server.ext -out server.pem
) > "$workdir/openssl.log" 2>&1 || { cat "$workdir/openssl.log" >&2; fail "openssl could not make the certificates"; }

# --- the canned answer: the room's safetynet enqueue JSON (bench/lib.sh) -----------------------
safetynet_enqueue_answer

write_nginx_conf "$workdir/nginx" "worker_rlimit_nofile 16384;
events { worker_connections 8192; }" "    keepalive_timeout 0;
    ssl_certificate $pki/server.pem;
    ssl_certificate_key $pki/server.key;
    ssl_protocols TLSv1.2 TLSv1.3;
    ssl_session_tickets off;
    ssl_session_cache off;" "        listen 127.0.0.1:$port;
        listen 127.0.0.1:$tls_port ssl;"

write_enqueue_lua "$workdir/enqueue.lua" close

start_nginx "$workdir/nginx" answers_with "http://127.0.0.1:$port$enqueue_path"
# The same nginx answers TLS with the CA made here (verification on, as queuesim's caFile).
answers_with "https://127.0.0.1:$tls_port$enqueue_path" --cacert "$pki/ca.pem" \
    || fail "nginx did not answer on https://127.0.0.1:$tls_port with the CA made here"

echo "machine:            $(machine_description)"
echo "(commands run in a temporary directory)"
echo "responder:          ${nginx_cmd[*]}"
echo "                    ($("$nginx_bin" -v 2>&1 | sed 's/^nginx version: //'); keepalive_timeout 0; TLS: ECDSA P-256, tickets and session cache off)"

run_wrk() { # MODE URL LABEL
    local out="$workdir/wrk-$1-$3.txt" status=0
    wrk_cmd=(timeout --foreground -k 5 $((seconds + 30)) taskset -c 1
        wrk -t1 -c"$connections" -d"${seconds}s" -s enqueue.lua "$2$enqueue_path")
    (cd "$workdir" && "${wrk_cmd[@]}") > "$out" 2>&1 || status=$?
    [ "$status" -eq 0 ] || { cat "$out" >&2; fail "wrk exited $status"; }
    grep -q '^Requests/sec:' "$out" || { cat "$out" >&2; fail "no Requests/sec in wrk's output"; }
    if grep -q 'Non-2xx' "$out"; then cat "$out" >&2; fail "wrk saw non-2xx answers"; fi
}
wrk_rate() { awk '/^Requests\/sec:/ { print $2 }' "$workdir/wrk-$1-$2.txt"; }

for mode in $modes; do
    if [ "$mode" = tls ]; then url="https://127.0.0.1:$tls_port"; ca_key=", caFile: $pki/ca.pem"; else url="http://127.0.0.1:$port"; ca_key=""; fi
    run_wrk "$mode" "$url" before
    wrk_first=$(wrk_rate "$mode" before)
    # As many visitors as wrk made connections in SECONDS: at half wrk's rate the run lasts twice.
    visitors=$(awk -v r="$wrk_first" -v s="$seconds" 'BEGIN { printf "%d", r * s }')
    [ "$visitors" -gt 0 ] || fail "wrk made no connections"
    dir="$workdir/$mode"
    mkdir -p "$dir"
    cat > "$dir/scenario.yaml" <<YAML
version: 1
name: live-connect-$mode
seed: 1
target: { customerId: $customer, waitingRoomId: $room, endpoint: "$url"$ca_key }
client: { requestTimeout: 30s, userAgent: "queuesim/1 (virtual visitor)", sdkVersion: iOS-3.5.2, connections: device }
arrivals:
  process: uniform
  phases: [ { duration: ${seconds}s, rate: 200000 } ]
  maxVisitors: $visitors
visitors: [ { name: app, flow: run } ]
run: { concurrency: $connections }
YAML
    "$bin" validate "$dir/scenario.yaml" > "$dir/validate.txt" 2>&1 \
        || { cat "$dir/validate.txt" >&2; fail "queuesim validate refused the generated scenario"; }
    limit=$((seconds * 20 + 60))
    run_cmd=(taskset -c 1 /usr/bin/time -v -o run.time timeout --foreground -k 15 "$limit"
        "$bin" run scenario.yaml --out out --quiet)
    status=0
    (cd "$dir" && "${run_cmd[@]}") > "$dir/run.log" 2>&1 || status=$?
    if [ "$status" -ne 0 ]; then
        cat "$dir/run.log" >&2
        [ ! -f "$dir/run.time" ] || cat "$dir/run.time" >&2
        fail "queuesim run ($mode) exited $status"
    fi
    kill -0 "$server" 2>/dev/null || fail "nginx died during the run"
    run_wrk "$mode" "$url" after
    wrk_after=$(wrk_rate "$mode" after)
    wrk_rps=$(awk -v a="$wrk_first" -v b="$wrk_after" 'BEGIN { printf "%.0f", (a + b) / 2 }')

    json="$dir/out/run.json"
    [ -f "$json" ] || fail "no run.json ($mode)"
    rows=$(($(wc -l < "$dir/out/visitors.csv") - 1))
    passed=$(jq -r '.outcomes.passed // 0' "$json")
    opened=$(jq -r '.generator.connections_opened // empty' "$json")
    [ -n "$opened" ] || fail "run.json has no generator.connections_opened (a binary from before issue 28?)"
    requests=$(jq -r '.requests' "$json")
    duration_ms=$(jq -r '.duration_ms' "$json")
    q_rate=$(awk -v c="$opened" -v d="$duration_ms" 'BEGIN { printf "%.0f", c / (d / 1000) }')
    cpu_time=$(awk -F': ' '/User time/ { u = $2 } /System time/ { s = $2 } END { printf "%.2f", u + s }' "$dir/run.time")
    peak_kib=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$dir/run.time")
    what="new connections"
    [ "$mode" = tls ] && what="TLS handshakes"
    echo
    echo "[$mode] wrk:          $(printf '%q ' "${wrk_cmd[@]}")"
    echo "[$mode] queuesim:     ${run_cmd[*]}"
    echo "                    (scenario: $visitors visitors, client.connections device, run.concurrency $connections, endpoint $url${ca_key:+, caFile the CA made here})"
    echo "[$mode] wrk:          $wrk_rps $what/s (mean of $(printf '%.0f' "$wrk_first") before and $(printf '%.0f' "$wrk_after") after queuesim)"
    echo "[$mode] queuesim run: $q_rate $what/s ($opened connections, $requests requests in $(awk -v d="$duration_ms" 'BEGIN { printf "%.2f", d / 1000 }') s; $passed of $visitors passed, $rows rows)"
    awk -v q="$q_rate" -v w="$wrk_rps" -v m="$mode" 'BEGIN { printf "[%s] queuesim / wrk: %.1f %%  (target ≥ 50 %%)\n", m, 100 * q / w }'
    jq -r --arg m "$mode" '.groups[0] as $g | "[\($m)] first request:  connect p50 \($g.connect_ms.p50 // "-") ms, p99 \($g.connect_ms.p99 // "-") ms; tls p50 \($g.tls_ms.p50 // "-") ms, p99 \($g.tls_ms.p99 // "-") ms"' "$json" 2>/dev/null || true
    jq -r --arg m "$mode" '.generator | "[\($m)] queuesim CPU:  \(.cpu_us_per_request) µs per request (\(.cpu_seconds) s); " + (if (.saturated_windows | length) == 0 then "kept up" else "SATURATED \(.saturated_seconds) s" end) + " (loop lag p99 \(.loop_lag_p99_ms) ms)"' "$json"
    awk -v p="$peak_kib" -v t="$cpu_time" -v m="$mode" 'BEGIN { printf "[%s] whole process: %s s CPU, peak RSS %.1f MiB\n", m, t, p / 1024 }'
    [ "$rows" -eq "$visitors" ] || fail "visitors.csv has $rows rows for $visitors visitors ($mode)"
    [ "$passed" -eq "$visitors" ] || fail "only $passed of $visitors visitors passed ($mode)"
    [ "$opened" -eq "$visitors" ] || fail "$opened connections for $visitors visitors ($mode): device mode opens one per visitor here"
done
echo
echo "ok: every visitor passed on its own connection"
