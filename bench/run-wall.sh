#!/usr/bin/env bash
# Measures `queuesim run` on the wall clock against the embedded waiting room (release build):
# VISITORS visitors arrive over 10 s into a queue that releases 600 a minute, so nearly all of
# them wait in the queue at once until run.duration (60 s) ends them as `queued`. Each visitor
# is a task with its own client-core machine, cookie jar and HTTP polls every 30 s (the room's
# Retry-After cap), all in one process.
#
#   bench/run-wall.sh [VISITORS]          (default 20000)
#
# Prints: visitors, wall seconds, completed visitors per second, peak visitors in flight, peak
# RSS, and RSS per visitor in flight (gross, and above a 1-visitor baseline run); checks that
# visitors.csv has one row per visitor. Environment: SCRATCH_PATH (default .build).
set -euo pipefail
cd "$(dirname "$0")/.."
visitors="${1:-20000}"
scratch="${SCRATCH_PATH:-.build}"

if [ ! -x /usr/bin/time ]; then
    echo "installing GNU time (Debian package: time)" >&2
    apt-get install -y time >&2 || { echo "install it first: apt-get install -y time" >&2; exit 1; }
fi
swift build -c release --product queuesim --scratch-path "$scratch" >&2
bin="$(swift build -c release --scratch-path "$scratch" --show-bin-path)/queuesim"

workdir="$(mktemp -d)"
trap 'rm -rf "$workdir"' EXIT

# scenario COUNT FILE: COUNT visitors over 10 s (at least 1/s), queue at 600/min, 60 s run.
scenario() {
    local count="$1" rate
    rate=$(awk -v n="$count" 'BEGIN { r = n / 10; if (r < 1) r = 1; printf "%g", r }')
    cat > "$2" <<YAML
version: 1
name: run-wall-bench
seed: 1
target: { customerId: acme, waitingRoomId: bench }
client: { pollInterval: 5s, maxWait: 10m, requestTimeout: 30s }
arrivals:
  phases: [ { duration: 10s, rate: $rate } ]
  maxVisitors: $count
visitors: [ { name: app } ]
waitingRoom: { mode: queue, outflow: 600/min }
run: { concurrency: $count, duration: 60s }
YAML
}

# measure COUNT NAME: runs the scenario under /usr/bin/time -v; leaves NAME.time and NAME/.
measure() {
    scenario "$1" "$workdir/$2.yaml"
    local status=0
    /usr/bin/time -v -o "$workdir/$2.time" "$bin" run "$workdir/$2.yaml" --out "$workdir/$2" --quiet || status=$?
    if [ "$status" -ne 0 ]; then
        echo "queuesim run exited $status" >&2
        cat "$workdir/$2.time" >&2
        exit 1
    fi
}

peak_kib() { awk -F': ' '/Maximum resident set size/ { print $2 }' "$1"; }
wall_seconds() {
    awk -F': ' '/Elapsed \(wall clock\)/ {
        n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$1"
}

measure 1 baseline
measure "$visitors" main

rows=$(($(wc -l < "$workdir/main/visitors.csv") - 1))
outcomes=$(awk -F, 'NR > 1 { n[$6]++ } END { for (o in n) printf "%s %d, ", o, n[o] }' "$workdir/main/visitors.csv")
peak_in_flight=$(awk -F, 'NR > 1 && $5 > m { m = $5 } END { print m + 0 }' "$workdir/main/timeline.csv")
wall=$(wall_seconds "$workdir/main.time")
peak=$(peak_kib "$workdir/main.time")
base=$(peak_kib "$workdir/baseline.time")

echo "machine:                 $(nproc) cores, $(free -m | awk '/Mem:/ { printf "%.1f GiB", $2 / 1024 }'), $(uname -sr)"
echo "command:                 /usr/bin/time -v queuesim run <scenario: $visitors over 10s, outflow 600/min, 60s> --quiet"
echo "visitors:                $visitors (rows: $rows; $outcomes)"
echo "wall seconds:            $wall"
awk -v r="$rows" -v w="$wall" 'BEGIN { printf "completed visitors/s:    %.0f\n", r / w }'
echo "peak in flight (queue):  $peak_in_flight"
awk -v p="$peak" -v b="$base" 'BEGIN { printf "peak RSS:                %.1f MiB (1-visitor baseline %.1f MiB)\n", p / 1024, b / 1024 }'
awk -v p="$peak" -v b="$base" -v n="$peak_in_flight" 'BEGIN {
    if (n > 0) printf "RSS per visitor in flight: %.1f KiB gross, %.1f KiB above the baseline\n", p / n, (p - b) / n }'
if [ "$rows" -ne "$visitors" ]; then
    echo "FAIL: visitors.csv has $rows rows for $visitors visitors" >&2
    exit 1
fi
if [ "$peak" -ge $((1024 * 1024)) ]; then
    echo "FAIL: peak RSS is 1 GiB or more" >&2
    exit 1
fi
echo "ok: one row per visitor, peak RSS under 1 GiB"
