#!/usr/bin/env bash
# Measures the memory and CPU of `queuesim run` (wall clock) holding many visitors waiting in a
# queue at once, against a waiting room in another process: `queuesim serve` on 127.0.0.1,
# pinned to core 0, with a queue room that lets 600 a minute through. The generator, pinned to
# core 1 under /usr/bin/time -v, sends VISITORS visitors over 10 s with
# run.concurrency = VISITORS and a 60 s run.duration, so nearly all of them wait in the queue
# at once (polling at the room's Retry-After, at most every 30 s) and end `queued`. A 1-visitor
# run the same way gives the fixed RSS. Each run gets a fresh server.
#
#   bench/live-queue.sh [VISITORS]          (default 20000; about 70 s per run)
#
# Prints: visitors and rows, outcome counts, peak in_queue (timeline.csv), the generator's CPU
# seconds (user + sys) and CPU µs per visitor, peak RSS, and RSS per waiting visitor (gross,
# and above the baseline) in KiB. Exits non-zero when a run fails or visitors.csv does not
# have one row per visitor.
#
# Environment: QUEUESIM_BIN (a queuesim binary; default: swift build -c release), PORT
# (default 18091), CONNECTIONS (client.connections: `device`, the default, each visitor holding
# its own WebView connection, or `shared`; empty for a binary from before issue 28), PLATFORM
# (client.platform, default ios). Needs 2 cores, GNU time and jq; installs the missing ones with apt-get
# (root). Loopback only; every run is bounded in time.
set -euo pipefail
cd "$(dirname "$0")/.."
visitors="${1:-20000}"
connections_model="${CONNECTIONS-device}"
connections_key="${connections_model:+, connections: $connections_model}${PLATFORM:+, platform: $PLATFORM}"
port="${PORT:-18091}"
[[ "$visitors" =~ ^[1-9][0-9]*$ ]] || { echo "usage: bench/live-queue.sh [VISITORS]  (a whole number > 0)" >&2; exit 2; }

. bench/lib.sh
need time
need jq
taskset -c 1 true 2>/dev/null || fail "needs at least 2 cores (taskset -c 0 for the room, -c 1 for the generator)"

queuesim_binary

workdir="$(mktemp -d)"
trap 'stop_server; rm -rf "$workdir"' EXIT

cat > "$workdir/room.yaml" <<'YAML'
version: 1
name: live-queue-room
target: { customerId: acme, waitingRoomId: bench }
arrivals: { phases: [ { burst: 1 } ] }
visitors: [ { name: app } ]
waitingRoom: { mode: queue, outflow: 600/min }
YAML

# gen COUNT FILE: COUNT visitors over 10 s (at least 1/s) against the server, 60 s run.
gen() {
    local count="$1" rate
    rate=$(awk -v n="$count" 'BEGIN { r = n / 10; if (r < 1) r = 1; printf "%g", r }')
    cat > "$2" <<YAML
version: 1
name: live-queue
seed: 1
target: { customerId: acme, waitingRoomId: bench, endpoint: "http://127.0.0.1:$port" }
client: { pollInterval: 5s, maxWait: 10m, requestTimeout: 30s$connections_key }
arrivals:
  phases: [ { duration: 10s, rate: $rate } ]
  maxVisitors: $count
visitors: [ { name: app } ]
run: { concurrency: $count, duration: 60s }
YAML
}

start_server() {
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
        fail "something already listens on 127.0.0.1:$port (set PORT)"
    fi
    taskset -c 0 "$bin" serve "$workdir/room.yaml" --port "$port" --log-level error > "$workdir/serve.log" 2>&1 &
    server=$!
    for _ in $(seq 1 100); do
        grep -q "listening" "$workdir/serve.log" 2>/dev/null && return 0
        kill -0 "$server" 2>/dev/null || break
        sleep 0.1
    done
    cat "$workdir/serve.log" >&2
    fail "queuesim serve did not start listening on 127.0.0.1:$port"
}

# measure COUNT NAME: a fresh server, then the generator under /usr/bin/time -v; leaves
# NAME.time, NAME.log, NAME.server (the server's VmHWM) and NAME/.
measure() {
    gen "$1" "$workdir/$2.yaml"
    start_server
    local status=0
    # `timeout --foreground` signals only its child (queuesim), which then still gets Ctrl-C.
    taskset -c 1 /usr/bin/time -v -o "$workdir/$2.time" timeout --foreground -k 15 180 \
        "$bin" run "$workdir/$2.yaml" --out "$workdir/$2" --quiet > "$workdir/$2.log" 2>&1 || status=$?
    if [ "$status" -ne 0 ]; then
        cat "$workdir/$2.log" >&2
        [ ! -f "$workdir/$2.time" ] || cat "$workdir/$2.time" >&2
        [ "$status" -ne 124 ] || echo "queuesim run did not finish within 180 s" >&2
        fail "queuesim run ($2, $1 visitors) exited $status"
    fi
    kill -0 "$server" 2>/dev/null || { cat "$workdir/serve.log" >&2; fail "queuesim serve died during the $2 run"; }
    awk '/VmHWM/ { print $2 }' "/proc/$server/status" > "$workdir/$2.server"
    stop_server
}

peak_kib() { awk -F': ' '/Maximum resident set size/ { print $2 }' "$1"; }
cpu_seconds() { awk -F': ' '/User time/ { u = $2 } /System time/ { s = $2 } END { printf "%.2f", u + s }' "$1"; }
wall_seconds() {
    awk -F': ' '/Elapsed \(wall clock\)/ {
        n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$1"
}
column_of() { head -1 "$1" | tr -d '\r' | tr ',' '\n' | grep -nx "$2" | cut -d: -f1 || true; }

measure 1 baseline
measure "$visitors" main

out="$workdir/main"
rows=$(($(wc -l < "$out/visitors.csv") - 1))
outcome_col=$(column_of "$out/visitors.csv" outcome)
queue_col=$(column_of "$out/timeline.csv" in_queue)
[ -n "$outcome_col" ] && [ -n "$queue_col" ] || fail "visitors.csv or timeline.csv lacks the outcome or in_queue column"
outcomes=$(awk -F, -v c="$outcome_col" 'NR > 1 { n[$c]++ } END { for (o in n) printf "%s %d, ", o, n[o] }' "$out/visitors.csv")
outcomes="${outcomes%, }"
peak_in_queue=$(awk -F, -v c="$queue_col" 'NR > 1 && $c + 0 > m { m = $c + 0 } END { print m + 0 }' "$out/timeline.csv")
requests=$(jq -r '.requests' "$out/run.json")
cpu=$(cpu_seconds "$workdir/main.time")
wall=$(wall_seconds "$workdir/main.time")
peak=$(peak_kib "$workdir/main.time")
base=$(peak_kib "$workdir/baseline.time")
server_peak=$(cat "$workdir/main.server")

echo "machine:                 $(machine_description)"
echo "server:                  taskset -c 0 $bin serve room.yaml --port $port --log-level error   (queue, outflow 600/min)"
echo "generator:               taskset -c 1 /usr/bin/time -v timeout --foreground -k 15 180 $bin run gen.yaml --out DIR --quiet"
echo "                         (endpoint http://127.0.0.1:$port; $visitors visitors over 10 s; poll 5s, maxWait 10m; concurrency $visitors, duration 60s)"
echo "visitors:                $visitors (rows: $rows; $outcomes)"
echo "requests:                $requests in $wall s wall"
echo "peak in queue:           $peak_in_queue"
awk -v c="$cpu" -v n="$visitors" 'BEGIN { printf "generator CPU:           %s s user+sys, %.0f µs per visitor\n", c, c * 1e6 / n }'
if jq -e '.generator | type == "object"' "$out/run.json" >/dev/null; then
    jq -r '.generator | "generator (run.json):    \(.cpu_seconds) s CPU during the run, \(.loops) event loop(s); "
        + (if (.saturated_windows | length) == 0 then "kept up" else "SATURATED for \(.saturated_seconds) s" end)
        + " (event-loop lag p99 \(.loop_lag_p99_ms) ms, max \(.loop_lag_max_ms) ms; arrival lag p99 \(.arrival_lag_p99_ms) ms)"' \
        "$out/run.json"
fi
awk -v p="$peak" -v b="$base" 'BEGIN { printf "peak RSS:                %.1f MiB (1-visitor baseline %.1f MiB)\n", p / 1024, b / 1024 }'
awk -v p="$peak" -v b="$base" -v n="$peak_in_queue" 'BEGIN {
    if (n > 0) printf "RSS per waiting visitor: %.1f KiB gross, %.1f KiB above the baseline\n", p / n, (p - b) / n
    else print "RSS per waiting visitor: - (nobody was in the queue)" }'
awk -v s="$server_peak" 'BEGIN { printf "server peak RSS:         %.1f MiB (VmHWM)\n", s / 1024 }'

[ "$rows" -eq "$visitors" ] || fail "visitors.csv has $rows rows for $visitors visitors"
[ "$peak_in_queue" -gt 0 ] || fail "nobody waited in the queue"
echo "ok: one row per visitor"
