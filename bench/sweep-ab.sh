#!/usr/bin/env bash
# Two builds' time per sweep point, compared fairly on a machine whose speed drifts from hour to
# hour: bench/sweep.sh's 200-run sweep (40 points × 5 seeds of a 100,000-visitor burst), once
# per build with `--jobs 1`, both builds started together so each has a core and both meet the
# same slowdowns. Prints each build's wall and user time, their ratio (new / reference), and
# whether the two sweep.csv files are byte-identical (exit 1 when they are not).
#
#   REF_BIN=<queuesim> NEW_BIN=<queuesim> bench/sweep-ab.sh
#
# VISITORS (default 100000): the burst; smaller only to check that the script works.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${REF_BIN:?REF_BIN: the reference build's queuesim binary}"
: "${NEW_BIN:?NEW_BIN: the newer build's queuesim binary}"
visitors="${VISITORS:-100000}"
. bench/lib.sh
need time

workdir="$(mktemp -d)"
trap 'rm -rf "$workdir"' EXIT
# The scenario bench/sweep.sh writes, read out of that script so the two never differ.
sed -n '/cat > "$scenario" <<YAML/,/^YAML/p' bench/sweep.sh | sed '1d;$d' | sed "s/\$visitors/$visitors/" \
    > "$workdir/launch.yaml"

echo "machine: $(machine_description); burst of $visitors visitors; both builds at once, --jobs 1 each"
for side in ref new; do
    bin=REF_BIN
    [[ $side == new ]] && bin=NEW_BIN
    /usr/bin/time -f "%e %U" -o "$workdir/$side.time" "${!bin}" sweep "$workdir/launch.yaml" \
        --out "$workdir/$side" --no-progress --jobs 1 > /dev/null 2> "$workdir/$side.err" &
done
wait
for side in ref new; do
    # GNU time notes a non-zero exit (1: no point met the goal) on a line of its own first.
    read -r wall user < <(tail -1 "$workdir/$side.time")
    echo "$side   wall $wall s   user $user s"
    eval "${side}_wall=$wall"
done
awk -v n="$new_wall" -v r="$ref_wall" 'BEGIN { printf "wall ratio new/ref: %.3f\n", n / r }'
if cmp -s "$workdir/ref/sweep.csv" "$workdir/new/sweep.csv"; then
    echo "sweep.csv: byte-identical"
else
    echo "sweep.csv: DIFFERENT" >&2
    exit 1
fi
