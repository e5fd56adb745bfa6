#!/usr/bin/env bash
# Issue 32 benchmark: ten million visitors in virtual time, and the memory per waiting visitor.
#
#   bench/virtual-10m.sh [VISITORS] [RUNS]
#
# The workload of bench/virtual-million.sh scaled to VISITORS (default 10,000,000): arrivals
# evenly over 10 minutes, an outflow of VISITORS/50 per minute, so the queue peaks near 50
# minutes with about 80 % of the visitors waiting at once. Runs the release build RUNS times
# (default 2) under /usr/bin/time -v, then once with a single visitor (the baseline), and
# prints per run: wall seconds, peak RSS, the SHA-256 of visitors.csv, summary.csv and
# timeline.csv together; then whether the runs gave the same bytes, the peak number waiting
# (timeline.csv's largest in_queue) and the memory per waiting visitor: (peak RSS − the
# baseline's) ÷ peak waiting. Targets (issue 32): under 3 minutes, peak RSS ≤ 3 GiB, ≤ 300 bytes
# per waiting visitor, the runs byte-identical. Exit 1 when the runs differ.
#
# Environment: QUEUESIM_BIN (a built binary; otherwise a release build in SCRATCH, default
# .build-virtual-rel), KEEP=1 keeps the work directory.
set -euo pipefail
cd "$(dirname "$0")/.."
visitors="${1:-10000000}"
runs="${2:-2}"
out="$(mktemp -d)"
[[ -n "${KEEP:-}" ]] && echo "work directory: $out" >&2 || trap 'rm -rf "$out"' EXIT
[[ -x /usr/bin/time ]] || apt-get install -y time >&2

OUT="$out" SCENARIO_ONLY=1 bench/virtual-million.sh "$visitors"
bin="${QUEUESIM_BIN:-}"
if [[ -z "$bin" ]]; then
    scratch="${SCRATCH:-.build-virtual-rel}"
    swift build -c release --scratch-path "$scratch" --product queuesim >&2
    bin="$scratch/release/queuesim"
fi

seconds() { awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$1"; }
rss_kib() { awk -F': ' '/Maximum resident set size/ { print $2 }' "$1"; }

# run NAME SCENARIO: one run; leaves $out/NAME.time and the reports in $out/NAME.
run() {
    /usr/bin/time -v "$bin" run "$2" --clock virtual --quiet --out "$out/$1" 2> "$out/$1.time" ||
        { cat "$out/$1.time" >&2; echo "queuesim exited with an error" >&2; exit 1; }
}

printf "%-9s %8s %10s  %s\n" run wall_s rss_mib "sha256 of visitors.csv summary.csv timeline.csv"
peak_rss=0
sums=()
for i in $(seq 1 "$runs"); do
    run "run-$i" "$out/million.yaml"
    sum=$(cd "$out/run-$i" && cat visitors.csv summary.csv timeline.csv | sha256sum | cut -c1-16)
    sums+=("$sum")
    rss=$(rss_kib "$out/run-$i.time")
    ((rss > peak_rss)) && peak_rss=$rss
    printf "%-9s %8s %10s  %s\n" "run-$i" "$(seconds "$out/run-$i.time")" "$((rss / 1024))" "$sum"
    waiting=$(awk -F, 'NR == 1 { for (c = 1; c <= NF; c++) if ($c == "in_queue") col = c; next } $col > m { m = $col } END { print m }' \
        "$out/run-$i/timeline.csv")
    [[ $i -lt $runs ]] && rm -rf "$out/run-$i"
done

# The baseline: the same scenario with one visitor (the process, its libraries, its buffers).
sed -e 's#rate: [0-9]*/min#rate: 0.1/min#' "$out/million.yaml" > "$out/one.yaml"
run baseline "$out/one.yaml"
baseline=$(rss_kib "$out/baseline.time")

echo "baseline:        $((baseline / 1024)) MiB (one visitor)"
echo "peak waiting:    $waiting (timeline.csv in_queue)"
echo "per waiting:     $(((peak_rss - baseline) * 1024 / waiting)) bytes ((peak RSS - baseline) / peak waiting)"
if [[ $(printf "%s\n" "${sums[@]}" | sort -u | wc -l) -ne 1 ]]; then
    echo "reports:         DIFFER between runs" >&2
    exit 1
fi
echo "reports:         byte-identical in all $runs runs"
