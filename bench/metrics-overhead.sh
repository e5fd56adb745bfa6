#!/usr/bin/env bash
# What live metrics cost the live engine (issue 31): bench/live-ceiling.sh without and with
# `--metrics-listen` and a scrape every second (METRICS_SCRAPE=1), alternated ROUNDS times
# (default 2) so the machine's drift falls on both. Prints each run's queuesim requests/s and
# queuesim/wrk ratio, the means, and the rate with metrics as a share of the rate without
# (target: at least 95 %).
#
#   bench/metrics-overhead.sh [SECONDS] [ROUNDS]     (defaults 10 and 2)
#
# Environment: as bench/live-ceiling.sh (QUEUESIM_BIN, PORT, CONNECTIONS).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-10}"
rounds="${2:-2}"
[[ "$seconds" =~ ^[1-9][0-9]*$ && "$rounds" =~ ^[1-9][0-9]*$ ]] \
    || { echo "usage: bench/metrics-overhead.sh [SECONDS] [ROUNDS]" >&2; exit 2; }
. bench/lib.sh
queuesim_binary
export QUEUESIM_BIN="$bin"

results="$(mktemp)"
trap 'rm -f "$results"' EXIT
for round in $(seq "$rounds"); do
    for scrape in 0 1; do
        out="$(METRICS_SCRAPE=$scrape bench/live-ceiling.sh "$seconds")" || { echo "$out" >&2; fail "live-ceiling.sh failed"; }
        rate=$(echo "$out" | awk '/^queuesim run:/ { print $3 }')
        ratio=$(echo "$out" | awk '/^queuesim \/ wrk:/ { print $4 }')
        label=$([ "$scrape" = 1 ] && echo "with /metrics, 1 s scrape" || echo "without metrics")
        echo "round $round, $label: $rate requests/s ($ratio % of wrk)"
        echo "$scrape $rate $ratio" >> "$results"
    done
done
awk '{ n[$1]++; r[$1] += $2; w[$1] += $3 }
     END {
         printf "mean without: %.0f requests/s (%.1f %% of wrk)\n", r[0] / n[0], w[0] / n[0]
         printf "mean with:    %.0f requests/s (%.1f %% of wrk)\n", r[1] / n[1], w[1] / n[1]
         printf "with / without: %.1f %% (requests/s), %.1f %% (ratio to wrk)\n", 100 * (r[1] / n[1]) / (r[0] / n[0]), 100 * (w[1] / n[1]) / (w[0] / n[0])
     }' "$results"
