#!/usr/bin/env bash
# The sweep's performance target (issue 30): a 40-point × 5-seed sweep of a 100,000-visitor
# launch (a burst at the event start, outflow from 2,000/min to 11,750/min by 250/min, goal
# wait.p95 < 10m) in under 3 minutes on a 2-core machine, and its wall time at most 0.6 × the
# sum of the same runs made one by one with `queuesim run` (each writing its full report
# folder, as a shell loop would). Prints both times, the ratio, the sweep's peak RSS (GNU time)
# and the memory budget it ran under.
#
#   bench/sweep.sh              all 200 runs one by one as well (about as long again as ten sweeps)
#   bench/sweep.sh 4            one by one only every 4th point (50 runs), their time × 4:
#                               a sample that keeps the spread of outflows (low outflows
#                               make longer queues and longer runs)
#
# Environment: QUEUESIM_BIN (a queuesim binary; default: swift build -c release); VISITORS
# (default 100000: the burst; smaller only to check that the script works). Needs GNU
# time (installed with apt-get when missing, as root). Exits non-zero when a command fails to
# run (exit 2 or 3); exit 1 (no point meets the goal) is reported, not fatal.
set -euo pipefail
cd "$(dirname "$0")/.."
every="${1:-1}"
visitors="${VISITORS:-100000}"
[[ "$every" =~ ^[1-9][0-9]*$ ]] || { echo "usage: bench/sweep.sh [EVERY]  (a whole number > 0)" >&2; exit 2; }

. bench/lib.sh
need time
queuesim_binary

workdir="$(mktemp -d)"
trap 'rm -rf "$workdir"' EXIT
scenario="$workdir/launch-100k.yaml"
cat > "$scenario" <<YAML
version: 1
name: launch-100k
seed: 1
clock: virtual
target: { customerId: acme, waitingRoomId: spring-launch, endpoint: embedded }
client: { pollInterval: 5s, maxWait: 45m, requestTimeout: 10s }
arrivals:
  phases:
    - { burst: $visitors }
visitors:
  - { name: app, flow: run }
waitingRoom:
  mode: queue
  eventStart: 0s
  outflow: 6000/min
  latency: { enqueue: 20ms, queuePage: 10ms, jitter: 5ms }
sweep:
  vary:
    waitingRoom.outflow: { from: 2000/min, to: 11750/min, step: 250/min }
  seeds: 5
  goals:
    - wait.p95 < 10m
  minimize: waitingRoom.outflow
YAML

echo "machine: $(machine_description); burst of $visitors visitors"
echo "queuesim: $("$bin" --version)"

# The sweep, timed, with its peak RSS.
start=$(date +%s.%N)
status=0
/usr/bin/time -v -o "$workdir/sweep.time" "$bin" sweep "$scenario" --out "$workdir/sweep" --no-progress \
    > "$workdir/sweep.out" 2> "$workdir/sweep.err" || status=$?
sweep_seconds=$(echo "$(date +%s.%N) - $start" | bc)
[ "$status" -le 1 ] || { cat "$workdir/sweep.err" >&2; fail "queuesim sweep exited $status"; }
rss_kib=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$workdir/sweep.time")
runs=$(grep -c '^seed,' "$workdir/sweep/sweep.csv" || true)
echo "sweep: $runs runs in ${sweep_seconds}s (exit $status), peak RSS $((rss_kib / 1024)) MiB"
grep -h 'at a time\|instead of' "$workdir/sweep.err" | sed 's/^/  /'
echo "  answer: $(cat "$workdir/sweep.out")"

# The same runs one by one (every EVERY-th point, all its seeds), each a full `queuesim run`.
outflows=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "waitingRoom.outflow") c = i }
                    $1 == "point" { print $c }' "$workdir/sweep/sweep.csv")
one_by_one=0
count=0
index=0
for outflow in $outflows; do
    index=$((index + 1))
    [ $(((index - 1) % every)) -eq 0 ] || continue
    for seed in 1 2 3 4 5; do
        start=$(date +%s.%N)
        status=0
        "$bin" run "$scenario" --set "waitingRoom.outflow=$outflow" --seed "$seed" \
            --out "$workdir/one/$index-$seed" --no-progress --quiet > /dev/null 2>&1 || status=$?
        [ "$status" -le 1 ] || fail "queuesim run --set waitingRoom.outflow=$outflow --seed $seed exited $status"
        one_by_one=$(echo "$one_by_one + $(date +%s.%N) - $start" | bc)
        count=$((count + 1))
        rm -rf "$workdir/one"
    done
done
scaled=$(echo "$one_by_one * $every" | bc)
echo "one by one: $count runs in ${one_by_one}s$([ "$every" -gt 1 ] && echo " (every ${every}th point; × $every = ${scaled}s)")"
ratio=$(echo "scale=3; $sweep_seconds / $scaled" | bc)
echo "ratio sweep / one by one: $ratio (target ≤ 0.6); sweep under 3 minutes: $(echo "$sweep_seconds < 180" | bc | sed 's/1/yes/;s/0/no/')"
