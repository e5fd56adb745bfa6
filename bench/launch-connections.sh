#!/usr/bin/env bash
# Runs scenarios/launch.yaml as written (its burst of 800 at 10 s into the embedded room) on the
# wall clock RUNS times with `client.connections: device` (each visitor opening its own
# connections, as phones do) and once with `shared` (the keep-alive pool), and prints per run:
# enqueue p99, the generator's saturated seconds and their windows, event-loop lag, the
# process's CPU and the connections it opened. Then what the device connections cost: the
# extra CPU of the device runs (their mean) over the shared run, per extra connection, and the
# lag at the burst.
#
#   bench/launch-connections.sh [RUNS]          (default 5)
#
# The issue's target (28): enqueue p99 under 200 ms in five device runs in a row, or the burst
# second reported saturated with the reason. Exits non-zero when a run fails to write its
# reports or visitors.csv lacks a row per visitor; a failed threshold (exit 1) is reported,
# not fatal.
#
# Environment: QUEUESIM_BIN (a queuesim binary; default: swift build -c release). Needs jq and
# GNU time; installs them with apt-get when missing (root).
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-5}"
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "usage: bench/launch-connections.sh [RUNS]  (a whole number > 0)" >&2; exit 2; }

. bench/lib.sh
need jq
need time
queuesim_binary

workdir="$(mktemp -d)"
trap 'rm -rf "$workdir"' EXIT
cp -r scenarios "$workdir/scenarios"
# The same scenario with one line more: `connections` under `client:`.
for model in device shared; do
    awk -v model="$model" '{ print } /^client:/ { print "  connections: " model }' scenarios/launch.yaml \
        > "$workdir/scenarios/launch-$model.yaml"
done

# run MODEL N: one run; prints its line and leaves its run.json and time -v output.
run() {
    local model="$1" n="$2" out="$workdir/out-$1-$2" status=0
    (cd "$workdir" && /usr/bin/time -v -o "time-$model-$n.txt" timeout --foreground -k 10 180 \
        "$bin" run "scenarios/launch-$model.yaml" --out "$out" --quiet) > "$workdir/log-$model-$n.txt" 2>&1 \
        || status=$?
    [ "$status" -eq 0 ] || [ "$status" -eq 1 ] || { cat "$workdir/log-$model-$n.txt" >&2; fail "run $model $n exited $status"; }
    local json="$out/run.json" rows visitors
    rows=$(($(wc -l < "$out/visitors.csv") - 1))
    visitors=$(jq -r '.visitors' "$json")
    [ "$rows" -eq "$visitors" ] || fail "run $model $n: $rows rows for $visitors visitors"
    local cpu
    cpu=$(awk -F': ' '/User time/ { u = $2 } /System time/ { s = $2 } END { printf "%.2f", u + s }' \
        "$workdir/time-$model-$n.txt")
    echo "$cpu" > "$workdir/cpu-$model-$n"
    jq -r --arg model "$model" --arg n "$n" --arg cpu "$cpu" --arg exit "$status" '
        "\($model) \($n): enqueue p99 \(.overall.enqueue_ms.p99) ms, passed \(.outcomes.passed)/\(.visitors), "
        + "connections \(.generator.connections_opened), CPU \($cpu) s, loop lag p99 \(.generator.loop_lag_p99_ms) ms "
        + "max \(.generator.loop_lag_max_ms) ms, "
        + (if (.generator.saturated_windows | length) == 0 then "kept up"
           else "SATURATED \(.generator.saturated_seconds) s (" + ([.generator.saturated_windows[]
             | "\(.from_second)-\(.to_second) s"] | join(", ")) + ")" end)
        + ", exit \($exit)"' "$json"
}

echo "machine:   $(machine_description)"
echo "queuesim:  $bin run scenarios/launch-MODEL.yaml --out DIR --quiet   (under /usr/bin/time -v)"
echo "scenario:  scenarios/launch.yaml + client.connections: MODEL"
echo
for n in $(seq 1 "$runs"); do run device "$n"; done
run shared 1
echo
device_cpu=$(cat "$workdir"/cpu-device-* | awk '{ s += $1 } END { printf "%.2f", s / NR }')
device_connections=$(jq -s 'map(.generator.connections_opened) | add / length' "$workdir"/out-device-*/run.json)
shared_cpu=$(cat "$workdir/cpu-shared-1")
shared_connections=$(jq -r '.generator.connections_opened' "$workdir/out-shared-1/run.json")
awk -v dc="$device_cpu" -v sc="$shared_cpu" -v dn="$device_connections" -v sn="$shared_connections" 'BEGIN {
    printf "device connections cost: %.2f s CPU (device mean) - %.2f s (shared) = %.2f s for %.0f - %.0f = %.0f more connections: %.0f µs each (both ends: the embedded room is in the process)\n",
        dc, sc, dc - sc, dn, sn, dn - sn, (dn > sn ? (dc - sc) * 1e6 / (dn - sn) : 0) }'
