#!/usr/bin/env bash
# Does a long wall-clock run keep its memory flat? `queuesim run` (release build) against the
# embedded waiting room, 100 visitors a second for MINUTES minutes (default 30), each through
# the queue page to the target: a queue that lets 120 a second through, so it stays short and
# the run stays in a steady state. The script samples the process's resident memory every
# 10 s and judges the samples after the warm-up (the first sixth of the run, at least a minute;
# half of a one-minute run): every one within ±10 % of their mean.
#
#   bench/live-soak.sh [MINUTES]          (default 30)
#
# Prints: machine, command, visitors and outcomes, requests, the generator's CPU per request
# and saturation verdict, RSS after warm-up (min, mean, max, and the spread as ± % of the
# mean), and the verdict. Exits 1 when RSS is not flat or a row is missing. Environment:
# QUEUESIM_BIN (default: swift build -c release). Loopback only; bounded by MINUTES + 5 min.
set -euo pipefail
cd "$(dirname "$0")/.."
minutes="${1:-30}"
[[ "$minutes" =~ ^[1-9][0-9]*$ ]] || { echo "usage: bench/live-soak.sh [MINUTES]  (a whole number > 0)" >&2; exit 2; }
. bench/lib.sh
need jq
queuesim_binary

workdir="$(mktemp -d)"
run_pid=""
cleanup() {
    [ -n "$run_pid" ] && kill "$run_pid" 2>/dev/null || true
    rm -rf "$workdir"
}
trap cleanup EXIT

visitors=$((minutes * 60 * 100))
# run.concurrency only caps: a few hundred visitors are in flight at once. The preflight refuses
# a cap whose device connections (4 descriptors a visitor with the embedded room in the process,
# plus 256) exceed `ulimit -n`'s hard limit, so the cap comes down to what the limit allows.
concurrency=10000
hard_limit=$(ulimit -Hn)
if [ "$hard_limit" != unlimited ] && [ $(((hard_limit - 256) / 4)) -lt "$concurrency" ]; then
    concurrency=$(((hard_limit - 256) / 4))
fi
cat > "$workdir/soak.yaml" <<YAML
version: 1
name: live-soak
seed: 1
target: { customerId: acme, waitingRoomId: soak }
client: { pollInterval: 2s, maxWait: 10m, requestTimeout: 10s }
arrivals:
  process: uniform
  phases: [ { duration: ${minutes}m, rate: 100 } ]
visitors: [ { name: app } ]
waitingRoom: { mode: queue, outflow: 7200/min, latency: { enqueue: 20ms, queuePage: 10ms, jitter: 5ms } }
run: { concurrency: $concurrency }
YAML

"$bin" run "$workdir/soak.yaml" --out "$workdir/out" --quiet &
run_pid=$!
samples="$workdir/rss.txt"
deadline=$(( $(date +%s) + minutes * 60 + 300 ))
while kill -0 "$run_pid" 2>/dev/null; do
    rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$run_pid/status" 2>/dev/null || true)
    [ -n "$rss" ] && echo "$(date +%s) $rss" >> "$samples"
    if [ "$(date +%s)" -gt "$deadline" ]; then
        echo "FAIL: the run did not end within $minutes min + 5 min" >&2
        exit 1
    fi
    sleep 10
done
status=0
wait "$run_pid" || status=$?
run_pid=""
[ "$status" -eq 0 ] || [ "$status" -eq 1 ] || { echo "FAIL: queuesim run exited $status" >&2; exit 1; }

json="$workdir/out/run.json"
rows=$(($(wc -l < "$workdir/out/visitors.csv") - 1))
# The first sixth of the run, but at least a minute (half of a one-minute run).
warmup=$(( minutes * 60 / 6 > 60 ? minutes * 60 / 6 : (minutes > 1 ? 60 : 30) ))
first=$(head -1 "$samples" | cut -d' ' -f1)
echo "machine:       $(machine_description)"
echo "command:       queuesim run <100 visitors/s for ${minutes} min, queue at 7200/min> --quiet"
echo "visitors:      $visitors planned, $rows rows; outcomes $(jq -c '.outcomes | with_entries(select(.value > 0))' "$json")"
echo "requests:      $(jq '.requests' "$json")"
echo "generator:     $(jq -r '"\(.generator.cpu_seconds) s CPU, \(.generator.cpu_us_per_request) µs per request, loop lag p99 \(.generator.loop_lag_p99_ms) ms, saturated \(.generator.saturated_seconds) s"' "$json")"
awk -v start="$first" -v warm="$warmup" '
    $1 - start >= warm { n++; s += $2; if (min == "" || $2 < min) min = $2; if ($2 > max) max = $2 }
    END {
        if (n == 0) { print "FAIL: no samples after the warm-up"; exit 1 }
        mean = s / n
        spread = (max - mean > mean - min ? max - mean : mean - min) / mean * 100
        printf "RSS after %d s warm-up (%d samples): min %.1f MiB, mean %.1f MiB, max %.1f MiB, spread ±%.1f %%\n",
            warm, n, min / 1024, mean / 1024, max / 1024, spread
        if (spread > 10) { print "FAIL: RSS is not flat (over ±10 %)"; exit 1 }
        print "ok: RSS flat within ±10 % after the warm-up"
    }' "$samples"
[ "$rows" -eq "$visitors" ] || { echo "FAIL: $rows rows for $visitors visitors" >&2; exit 1; }
