#!/usr/bin/env bash
# Measures what a scenario's groups cost (issue 51): scenarios/launch.yaml's 1,900 visitors,
# spread over N groups (`visitors:` entries g1 … gN of equal weight, the same arrivals, room and
# run), run on the virtual clock under /usr/bin/time -v.
#
#   bench/groups.sh [N ...]          (default: 1 200 1000 2000)
#
# Prints, per N: wall seconds, peak RSS and the visitors the run recorded; then the ratios
# largest-N / 1-group for wall time and peak RSS (the target is ≤ 2.0 for both). The first N
# must be 1. Environment: QUEUESIM_BIN (default: a release build made now), KEEP=1 keeps the
# scenarios and reports (their folder is printed).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
export PATH=/opt/swift/usr/bin:$PATH

counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(1 200 1000 2000)
[ "${counts[0]}" = 1 ] || fail "the first group count must be 1 (the ratios are against it)"
need time
queuesim_binary

workdir="$(mktemp -d)"
if [ "${KEEP:-0}" = 1 ]; then echo "scenarios and reports kept in $workdir" >&2; else trap 'rm -rf "$workdir"' EXIT; fi

# scenario N FILE: launch.yaml with its three groups replaced by N plain groups of weight 1.
scenario() {
    local groups="$1" file="$2"
    awk '/^visitors:/ { skipping = 1; next } skipping && /^[^ #-]/ { skipping = 0 } !skipping' \
        scenarios/launch.yaml > "$file"
    {
        echo "visitors:"
        for ((g = 1; g <= groups; g++)); do echo "  - { name: g$g, weight: 1 }"; done
    } >> "$file"
}

# measure N: runs the N-group scenario; prints "N wall_seconds peak_kib visitors".
measure() {
    local groups="$1" status=0
    scenario "$groups" "$workdir/g$groups.yaml"
    /usr/bin/time -v -o "$workdir/g$groups.time" \
        "$bin" run "$workdir/g$groups.yaml" --clock virtual --seed 1 --quiet --no-progress \
        --out "$workdir/g$groups" >"$workdir/g$groups.log" 2>&1 || status=$?
    # 0 or 1 (a threshold of launch.yaml may fail with many tiny groups): reports were written.
    if [ "$status" -gt 1 ]; then
        cat "$workdir/g$groups.log" "$workdir/g$groups.time" >&2
        fail "queuesim run of $groups groups exited $status"
    fi
    local wall peak visitors
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0
        for (i = 1; i <= n; i++) s = s * 60 + p[i]; printf "%.2f", s }' "$workdir/g$groups.time")
    peak=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$workdir/g$groups.time")
    visitors=$(($(wc -l < "$workdir/g$groups/visitors.csv") - 1))
    echo "$groups $wall $peak $visitors"
}

echo "machine: $(machine_description)"
echo "binary: $bin"
printf '%8s %10s %14s %9s\n' groups wall_s peak_rss_MiB visitors
first_wall="" first_peak="" last_wall="" last_peak=""
for groups in "${counts[@]}"; do
    read -r n wall peak visitors < <(measure "$groups")
    printf '%8d %10s %14.1f %9d\n' "$n" "$wall" "$(awk -v k="$peak" 'BEGIN { print k / 1024 }')" "$visitors"
    [ -n "$first_wall" ] || { first_wall="$wall"; first_peak="$peak"; }
    last_wall="$wall" last_peak="$peak"
done
awk -v n="${counts[-1]}" -v w1="$first_wall" -v wn="$last_wall" -v p1="$first_peak" -v pn="$last_peak" 'BEGIN {
    printf "ratio %s groups / 1 group: wall %.2f, peak RSS %.2f (target <= 2.0 for both)\n", n, wn / w1, pn / p1 }'
