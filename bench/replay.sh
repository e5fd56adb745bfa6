#!/usr/bin/env bash
# Issue 53 benchmark: a ten-million-line log replayed within the memory of an ordinary plan.
#
#   bench/replay.sh [LINES]
#
# Writes bench/virtual-million.sh's scenario for LINES visitors (default 10,000,000: evenly over
# 10 minutes into an outflow of LINES/50 per minute) and a log of LINES lines with epoch
# timestamps at exactly the instants that plan's uniform arrivals take ((k + ½) × 600 s / LINES,
# to the nanosecond), then runs both on the virtual clock under /usr/bin/time -v: the ordinary
# plan, and the same scenario with `arrivals: { replay: access.log, timestamps: epoch }`.
# Prints per run: wall seconds, peak RSS, the visitors who passed and the most waiting at once
# (timeline.csv's in_queue); then the log's size and the replay's RSS over the plan's. The two
# runs are the same crowd, but not the same bytes: the log's first line is second 0, so every
# replayed arrival comes half a gap (30 µs at ten million) before the plan's.
# Target (issue 53): the replay's peak RSS within the ordinary plan's. Exit 1 when it is not.
#
# Environment: QUEUESIM_BIN (a built binary; otherwise a release build in SCRATCH, default
# .build-replay-rel), KEEP=1 keeps the work directory.
set -euo pipefail
cd "$(dirname "$0")/.."
lines="${1:-10000000}"
out="$(mktemp -d)"
[[ -n "${KEEP:-}" ]] && echo "work directory: $out" >&2 || trap 'rm -rf "$out"' EXIT
[[ -x /usr/bin/time ]] || apt-get install -y time >&2

OUT="$out" SCENARIO_ONLY=1 bench/virtual-million.sh "$lines"
bin="${QUEUESIM_BIN:-}"
if [[ -z "$bin" ]]; then
    scratch="${SCRATCH:-.build-replay-rel}"
    swift build -c release --scratch-path "$scratch" --product queuesim >&2
    bin="$scratch/release/queuesim"
fi

# The uniform plan's k-th arrival, in integer nanoseconds (exact in awk's doubles up to 2^53).
awk -v n="$lines" 'BEGIN {
    base = 1714554000; span = 600 * 1000000000
    for (k = 0; k < n; k++) {
        t = int((2 * k + 1) * span / (2 * n))
        printf "%d.%09d\n", base + int(t / 1000000000), t % 1000000000
    }
}' > "$out/access.log"
sed -e 's#^  process: uniform#  replay: access.log#' -e 's#^  phases:#  timestamps: epoch#' \
    -e '/^    - { duration: 10m/d' "$out/million.yaml" > "$out/replay.yaml"

seconds() { awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$1"; }
rss_kib() { awk -F': ' '/Maximum resident set size/ { print $2 }' "$1"; }

printf "%-8s %8s %10s %10s %12s\n" run wall_s rss_mib passed peak_waiting
for name in plan replay; do
    scenario="$out/million.yaml"
    [[ $name == replay ]] && scenario="$out/replay.yaml"
    /usr/bin/time -v "$bin" run "$scenario" --clock virtual --quiet --out "$out/$name" 2> "$out/$name.time" ||
        { cat "$out/$name.time" >&2; echo "queuesim exited with an error ($name)" >&2; exit 1; }
    passed=$(awk -F, 'NR == 1 { for (c = 1; c <= NF; c++) if ($c == "outcome") col = c; next } $col == "passed" { n++ } END { print n + 0 }' \
        "$out/$name/visitors.csv")
    waiting=$(awk -F, 'NR == 1 { for (c = 1; c <= NF; c++) if ($c == "in_queue") col = c; next } $col > m { m = $col } END { print m + 0 }' \
        "$out/$name/timeline.csv")
    printf "%-8s %8s %10s %10s %12s\n" "$name" "$(seconds "$out/$name.time")" "$(($(rss_kib "$out/$name.time") / 1024))" \
        "$passed" "$waiting"
    [[ -n "${KEEP:-}" ]] || rm -rf "${out:?}/$name"
done

plan=$(rss_kib "$out/plan.time")
replay=$(rss_kib "$out/replay.time")
echo "log:             $lines lines, $(($(stat -c %s "$out/access.log") / 1048576)) MiB"
echo "replay / plan:   $(awk -v r="$replay" -v p="$plan" 'BEGIN { printf "%.3f", r / p }') of the plan's peak RSS"
# Within: at most the plan's peak, with 5 % for the read buffer and the allocator's noise.
if ((replay * 100 > plan * 105)); then
    echo "the replay's peak RSS is above the plan's" >&2
    exit 1
fi
