#!/usr/bin/env bash
# Holds `run`'s memory estimate (RunMemoryEstimate, the `memory` row of `queuesim validate`,
# also the sweep's per-point figure) against what runs really peak at (issue 51 item 8): each
# plan below is validated (the estimate) and run on the virtual clock under /usr/bin/time -v
# (maximum resident set size).
#
#   bench/memory-estimate.sh [PLAN ...]     (default: every plan)
#
# Plans: launch-10k launch-100k launch-1m (scenarios/launch.yaml, its unique keys cycled so it
# scales, --visitors N), soak-10k soak-100k (scenarios/soak.yaml, --visitors N; a million
# takes about 20 minutes on 2 cores), burst-200k (200,000 iOS visitors at once, as the sweep's
# memory figures), groups-2000 (launch.yaml's 1,900 visitors over 2,000 groups, bench/groups.sh).
# Prints per plan: the estimate, the measured peak, estimate ÷ peak (RunMemoryTests holds
# each at ≥ 0.9 with these numbers). Environment: QUEUESIM_BIN (default: a release build made
# now), KEEP=1 keeps the scenarios and reports (their folder is printed).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
export PATH=/opt/swift/usr/bin:$PATH

plans=("$@")
[ ${#plans[@]} -gt 0 ] || plans=(launch-10k launch-100k launch-1m soak-10k soak-100k burst-200k groups-2000)
need time
queuesim_binary

workdir="$(mktemp -d)"
if [ "${KEEP:-0}" = 1 ]; then echo "scenarios and reports kept in $workdir" >&2; else trap 'rm -rf "$workdir"' EXIT; fi
mkdir -p "$workdir/data"
cp scenarios/data/* "$workdir/data/"
sed 's/order: unique/order: cycle/' scenarios/launch.yaml > "$workdir/launch.yaml"
cp scenarios/soak.yaml "$workdir/soak.yaml"
cat > "$workdir/burst.yaml" <<'YAML'
version: 1
name: burst
seed: 5
clock: virtual
target: { customerId: acme, waitingRoomId: burst }
client: { pollInterval: 5s, maxWait: 10h }
arrivals: { phases: [ { burst: 200000 } ] }
waitingRoom: { mode: queue, outflow: 50000/min }
YAML
awk '/^visitors:/ { skipping = 1; next } skipping && /^[^ #-]/ { skipping = 0 } !skipping' \
    scenarios/launch.yaml > "$workdir/groups.yaml"
{
    echo "visitors:"
    for ((g = 1; g <= 2000; g++)); do echo "  - { name: g$g, weight: 1 }"; done
} >> "$workdir/groups.yaml"

# arguments PLAN: the scenario file and options of PLAN.
arguments() {
    case "$1" in
        launch-10k) echo "$workdir/launch.yaml --visitors 10000" ;;
        launch-100k) echo "$workdir/launch.yaml --visitors 100000" ;;
        launch-1m) echo "$workdir/launch.yaml --visitors 1000000" ;;
        soak-10k) echo "$workdir/soak.yaml --visitors 10000" ;;
        soak-100k) echo "$workdir/soak.yaml --visitors 100000" ;;
        soak-1m) echo "$workdir/soak.yaml --visitors 1000000" ;;
        burst-200k) echo "$workdir/burst.yaml" ;;
        groups-2000) echo "$workdir/groups.yaml" ;;
        *) fail "unknown plan $1" ;;
    esac
}

# measure PLAN: prints "estimate_MiB peak_MiB peak_KiB wall_s".
measure() {
    local plan="$1" status=0 estimate peak peak_kib wall
    # shellcheck disable=SC2046 # the plan's words are the arguments
    estimate=$("$bin" validate $(arguments "$plan") --clock virtual --seed 1 2>/dev/null |
        awk '$1 == "memory" { value = $3; unit = $4; sub(/,$/, "", unit)
            if (unit == "GiB") value *= 1024; else if (unit == "KiB") value /= 1024; print value }')
    [ -n "$estimate" ] || fail "queuesim validate of $plan printed no memory row"
    # shellcheck disable=SC2046
    /usr/bin/time -v -o "$workdir/$plan.time" "$bin" run $(arguments "$plan") --clock virtual --seed 1 \
        --quiet --no-progress --out "$workdir/$plan" >"$workdir/$plan.log" 2>&1 || status=$?
    # 0 or 1 (launch.yaml's thresholds fail when it is scaled): the run finished.
    if [ "$status" -gt 1 ]; then
        cat "$workdir/$plan.log" "$workdir/$plan.time" >&2
        fail "queuesim run of $plan exited $status"
    fi
    peak_kib=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$workdir/$plan.time")
    peak=$(awk -v k="$peak_kib" 'BEGIN { printf "%.1f", k / 1024 }')
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0
        for (i = 1; i <= n; i++) s = s * 60 + p[i]; printf "%.1f", s }' "$workdir/$plan.time")
    echo "$estimate $peak $peak_kib $wall"
}

echo "machine: $(machine_description)"
echo "binary: $bin"
printf '%-12s %14s %14s %14s %10s %8s\n' plan estimate_MiB peak_RSS_MiB peak_RSS_KiB est/peak wall_s
for plan in "${plans[@]}"; do
    read -r estimate peak peak_kib wall < <(measure "$plan")
    printf '%-12s %14s %14s %14s %10s %8s\n' "$plan" "$estimate" "$peak" "$peak_kib" \
        "$(awk -v e="$estimate" -v p="$peak" 'BEGIN { printf "%.2f", e / p }')" "$wall"
done
