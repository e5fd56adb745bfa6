#!/usr/bin/env bash
# Measures what a scenario's groups cost (issue 51): scenarios/launch.yaml's 1,900 visitors,
# spread over N groups (`visitors:` entries g1 … gN of equal weight, the same arrivals, room and
# run), run on the virtual clock under /usr/bin/time -v.
#
#   bench/groups.sh [N ...]          (default: 1 200 1000 2000)
#
# Prints, per N: wall seconds, CPU seconds (user + system), peak RSS and the visitors the run
# recorded; then the ratios largest-N / 1-group for wall time, CPU and peak RSS (the target is
# ≤ 2.0 for wall time and peak RSS). The first N must be 1. Environment: QUEUESIM_BIN (default:
# a release build made now), ROUNDS (default 1): the counts are run in turn ROUNDS times, so a
# loaded machine's drift reaches every N alike, and each figure is the median of its rounds;
# KEEP=1 keeps the scenarios and reports (their folder is printed).
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

# measure N: runs the N-group scenario; prints "N wall_seconds cpu_seconds peak_kib visitors".
measure() {
    local groups="$1" status=0
    [ -f "$workdir/g$groups.yaml" ] || scenario "$groups" "$workdir/g$groups.yaml"
    rm -rf "$workdir/g$groups" "$workdir/g$groups.runs"
    # Wall time from the clock in nanoseconds: /usr/bin/time's 10 ms steps are a sixth of a
    # 1-group run. Its CPU times and peak RSS are kept.
    local started ended
    started=$(date +%s%N)
    /usr/bin/time -v -o "$workdir/g$groups.time" \
        "$bin" run "$workdir/g$groups.yaml" --clock virtual --seed 1 --quiet --no-progress \
        --out "$workdir/g$groups" >"$workdir/g$groups.log" 2>&1 || status=$?
    ended=$(date +%s%N)
    # 0 or 1 (a threshold of launch.yaml may fail with many tiny groups): reports were written.
    if [ "$status" -gt 1 ]; then
        cat "$workdir/g$groups.log" "$workdir/g$groups.time" >&2
        fail "queuesim run of $groups groups exited $status"
    fi
    local wall cpu peak visitors
    wall=$(awk -v ns=$((ended - started)) 'BEGIN { printf "%.3f", ns / 1e9 }')
    cpu=$(awk -F': ' '/(User|System) time \(seconds\)/ { s += $2 } END { printf "%.2f", s }' "$workdir/g$groups.time")
    peak=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$workdir/g$groups.time")
    visitors=$(($(wc -l < "$workdir/g$groups/visitors.csv") - 1))
    echo "$groups $wall $cpu $peak $visitors"
}

rounds="${ROUNDS:-1}"
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || fail "ROUNDS must be a whole number of 1 or more, not '$rounds'"
echo "machine: $(machine_description)"
echo "binary: $bin"
echo "rounds: $rounds (figures are medians)"
: > "$workdir/figures"
for ((round = 1; round <= rounds; round++)); do
    for groups in "${counts[@]}"; do measure "$groups" >> "$workdir/figures"; done
done
printf '%8s %10s %8s %14s %9s\n' groups wall_s cpu_s peak_rss_MiB visitors
# Per N the median of each column over the rounds; the ratios are the last N's to the first's.
awk -v order="${counts[*]}" '
    function median(list,   v, n, i, j, t) {
        n = split(list, v, " ")
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] + 0 < v[i] + 0) { t = v[i]; v[i] = v[j]; v[j] = t }
        return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
    }
    { wall[$1] = wall[$1] " " $2; cpu[$1] = cpu[$1] " " $3; peak[$1] = peak[$1] " " $4; visitors[$1] = $5 }
    END {
        n = split(order, groups, " ")
        for (i = 1; i <= n; i++) {
            g = groups[i]
            w[i] = median(wall[g]); c[i] = median(cpu[g]); p[i] = median(peak[g])
            printf "%8d %10.3f %8.2f %14.1f %9d\n", g, w[i], c[i], p[i] / 1024, visitors[g]
        }
        printf "ratio %s groups / 1 group: wall %.2f, CPU %.2f, peak RSS %.2f (target <= 2.0 for wall and peak RSS)\n",
            groups[n], w[n] / w[1], c[n] / c[1], p[n] / p[1]
    }' "$workdir/figures"
