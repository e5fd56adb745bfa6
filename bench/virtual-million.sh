#!/usr/bin/env bash
# Issue 6 benchmark: a million visitors in virtual time.
#
#   bench/virtual-million.sh [VISITORS]
#
# 1,000,000 visitors arrive evenly over 10 minutes (100,000/min) into a queue that lets
# 20,000/min through (about 50 minutes of queue at the peak; VISITORS scales both, so every
# count has the same shape: bench/virtual-10m.sh runs ten million); clients poll every 5 s unless
# the page says otherwise (Retry-After), wait at most 2 h. Modelled latency: enqueue 20 ms,
# queue page 10 ms, no jitter, no faults. Runs `queuesim run --clock virtual --quiet` (release
# build) under /usr/bin/time -v and prints wall seconds, peak RSS and the rows written.
# Target (issue 6): under 20 s of wall time and under 1 GiB peak RSS, reports included.
#
# Environment: SCRATCH (build directory, default .build-virtual-rel), OUT (work directory,
# default a fresh temporary directory, removed unless KEEP=1). SCENARIO_ONLY=1 writes the
# scenario to $OUT/million.yaml and stops (bench/virtual-million-ab.sh runs the same one).
set -euo pipefail
cd "$(dirname "$0")/.."
visitors="${1:-1000000}"
scratch="${SCRATCH:-.build-virtual-rel}"
out="${OUT:-$(mktemp -d)}"
[[ -n "${OUT:-}" || -n "${KEEP:-}" ]] || trap 'rm -rf "$out"' EXIT
mkdir -p "$out"

if [[ ! -x /usr/bin/time ]]; then
    echo "installing GNU time (apt-get install -y time)" >&2
    apt-get install -y time >&2
fi

# The rate that brings exactly $visitors in 10 minutes (uniform arrivals are evenly spaced).
rate_per_min=$((visitors / 10))
outflow_per_min=$((visitors / 50))
cat > "$out/million.yaml" <<YAML
version: 1
name: virtual-million
seed: 6
clock: virtual
target: { customerId: acme, waitingRoomId: million }
client: { pollInterval: 5s, maxWait: 2h, requestTimeout: 10s }
arrivals:
  process: uniform
  phases:
    - { duration: 10m, rate: ${rate_per_min}/min }
visitors:
  - { name: app }
waitingRoom:
  mode: queue
  eventStart: 0s
  outflow: ${outflow_per_min}/min
  latency: { enqueue: 20ms, queuePage: 10ms, jitter: 0ms }
YAML
[[ -z "${SCENARIO_ONLY:-}" ]] || exit 0

swift build -c release --scratch-path "$scratch" --product queuesim >&2
bin="$scratch/release/queuesim"

status=0
/usr/bin/time -v "$bin" run "$out/million.yaml" --clock virtual --quiet --out "$out/reports" \
    2> "$out/time.txt" || status=$?
if [[ $status -ne 0 ]]; then
    cat "$out/time.txt" >&2
    echo "queuesim exited with $status" >&2
    exit "$status"
fi

wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$out/time.txt")
rss_kb=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$out/time.txt")
user=$(awk -F': ' '/User time/ { print $2 }' "$out/time.txt")
sys=$(awk -F': ' '/System time/ { print $2 }' "$out/time.txt")
rows=$(($(wc -l < "$out/reports/visitors.csv") - 1))
seconds=$(($(wc -l < "$out/reports/timeline.csv") - 1))
requests=$(grep -o '"requests" : [0-9]*' "$out/reports/run.json" | grep -o '[0-9]*$')

echo "visitors:        $visitors"
echo "wall seconds:    $wall (user $user, sys $sys)"
echo "peak RSS:        $((rss_kb / 1024)) MiB ($rss_kb kB)"
echo "visitors.csv:    $rows rows"
echo "timeline.csv:    $seconds rows (simulated seconds)"
echo "requests:        $requests"
echo "report.html:     $(wc -c < "$out/reports/report.html") bytes"
awk -F, 'NR > 1 && $1 == "all" { printf "outcome %-10s %d (wait p50 %s ms, p95 %s ms, max %s ms)\n", $2, $3, $10, $12, $14 }' \
    "$out/reports/summary.csv"
