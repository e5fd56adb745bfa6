#!/usr/bin/env bash
# Issue 53 benchmark: `queuesim calibrate` on an hour-long synthetic event of about 50,000
# visitors, under 3 minutes on the 2-core reference machine.
#
#   bench/calibrate.sh [ROUNDS]
#
# Writes stats.csv of a synthetic event made by SyntheticEvent's model (a FIFO room with wasted
# turns; here in a few lines of Python so the bench needs no test build): 60 minutes of
# arrivals — 600 a minute for 20 minutes, 1,200 for 20, 700 for 20 (50,000 in all) — into
# 900 turns a minute, exponential patience of mean 6 min, 5 % no-shows, seed 53, 90 minutes
# of rows. The scenario replays queueinflow and guesses a patience of 15 min and no no-shows.
# Prints the wall time, the fitted values against the known ones, and both scores.
# Target (issue 53): under 180 s. Exit 1 when slower.
#
# Environment: QUEUESIM_BIN (a built binary; otherwise a release build in SCRATCH, default
# .build-release-H), KEEP=1 keeps the work directory.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-4}"
out="$(mktemp -d)"
[[ -n "${KEEP:-}" ]] && echo "work directory: $out" >&2 || trap 'rm -rf "$out"' EXIT

python3 - "$out/stats.csv" <<'PY'
import math, random, sys, datetime
rng = random.Random(53)
arrivals = [600] * 20 + [1200] * 20 + [700] * 20
minutes, spacing, mean, no_show = 90, 60 / 900, 360.0, 0.05
sums = {k: [0.0] * minutes for k in ("in", "out", "unused", "line", "wr", "we", "ne")}
def minute(t): m = int(t // 60); return m if m < minutes else None
def snap(t): m = max(0, math.ceil(t / 60) - 1); return m if m < minutes else None
last = -math.inf
for m, count in enumerate(arrivals):
    for a in sorted(m * 60 + 60 * rng.random() for _ in range(count)):
        turn = max(a, last + spacing); last = turn
        gone = rng.random() < no_show or a - math.log(1 - rng.random()) * mean < turn
        sums["in"][minute(a)] += 1; sums["line"][snap(a)] += 1
        if snap(turn) is not None: sums["line"][snap(turn)] -= 1
        if minute(turn) is None: continue
        if gone: sums["unused"][minute(turn)] += 1; continue
        sums["out"][minute(turn)] += 1; sums["wr"][minute(turn)] += (turn - a) / 60
        sums["we"][minute(a)] += (turn - a) / 60; sums["ne"][minute(a)] += 1
def cell(v): return "" if v is None else (str(int(v)) if v == int(v) else "%.3f" % v)
start = datetime.datetime(2026, 5, 1, 9, 0, tzinfo=datetime.timezone.utc)
with open(sys.argv[1], "w") as f:
    f.write("minute,queueinflow,queueoutflow,safetynetoutflow,queueidsinqueue,oldqueuenumbers,"
            "queueexpectedwaittime,queueactualwaittime\n")
    line = 0
    for m in range(minutes):
        line += sums["line"][m]
        wr = sums["wr"][m] / sums["out"][m] if sums["out"][m] else None
        we = sums["we"][m] / sums["ne"][m] if sums["ne"][m] else None
        t = (start + datetime.timedelta(minutes=m)).strftime("%Y-%m-%dT%H:%M:%SZ")
        f.write(",".join([t] + [cell(v) for v in (sums["in"][m], sums["out"][m], 0, line,
                sums["unused"][m], we, wr)]) + "\n")
PY

cat > "$out/scenario.yaml" <<'YAML'
version: 1
name: calibrate-bench
seed: 7
clock: virtual
target: { customerId: acme, waitingRoomId: launch }
arrivals: { replay: stats.csv, column: queueinflow, per: minute, within: uniform }
visitors:
  - name: app
    patience: { mean: 15m }   # a guess
waitingRoom: { outflow: 900/min, latency: { enqueue: 0s, queuePage: 0s, protectedApi: 0s, jitter: 0s } }
YAML

bin="${QUEUESIM_BIN:-}"
if [[ -z "$bin" ]]; then
    scratch="${SCRATCH:-.build-release-H}"
    swift build -c release --scratch-path "$scratch" --product queuesim >&2
    bin="$scratch/release/queuesim"
fi
started=$(date +%s.%N)
"$bin" calibrate "$out/scenario.yaml" --real "$out/stats.csv" --out "$out/calibrated" --rounds "$rounds" \
    2> "$out/progress.txt"
ended=$(date +%s.%N)
seconds=$(python3 -c "print(round($ended - $started, 1))")
echo "known: patience mean 360s, noShow 5%"
echo "wall: ${seconds} s (target under 180 s) on $(nproc) cores"
python3 -c "import sys; sys.exit(0 if $seconds < 180 else 1)"
