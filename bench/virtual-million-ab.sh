#!/usr/bin/env bash
# A before/after comparison of the virtual million (bench/virtual-million.sh's workload): two
# release builds, a reference commit's and a newer one's, run in alternation, RUNS times each,
# in one script, so drift of the machine falls on both alike. Prints every run, the mean wall,
# user time and peak RSS per build, their ratio (new / reference), and whether the three CSV
# reports are byte-identical between all runs (exit 1 when they are not).
#
#   bench/virtual-million-ab.sh REF [RUNS] [VISITORS]
#
# REF: the reference commit. NEW (environment): the newer commit, default HEAD. RUNS: per
# build, default 5. VISITORS: default 1,000,000. Each commit is checked out in a worktree of
# its own (.build-ab-ref/src, .build-ab-new/src) and built there in release mode, so edits in
# the work tree meanwhile do not leak into a build. REF_BIN and NEW_BIN (environment): release
# binaries built already, used instead of building that side (REF is then only a label).
set -euo pipefail
cd "$(dirname "$0")/.."
ref="${1:?usage: bench/virtual-million-ab.sh REF [RUNS] [VISITORS]}"
runs="${2:-5}"
visitors="${3:-1000000}"
root="$(pwd)"
out="$(mktemp -d)"
[[ -n "${KEEP:-}" ]] || trap 'rm -rf "$out"' EXIT
[[ -x /usr/bin/time ]] || apt-get install -y time >&2

new="$(git rev-parse "${NEW:-HEAD}")"
# build NAME COMMIT: a release build of COMMIT in .build-ab-NAME.
build() {
    local src="$root/.build-ab-$1/src"
    if [[ ! -d "$src" ]]; then
        mkdir -p "$root/.build-ab-$1"
        git worktree add --detach "$src" "$2" >&2
    else
        git -C "$src" checkout --detach -q "$2"
    fi
    echo "building $1 ($(git -C "$src" rev-parse --short HEAD)), release" >&2
    (cd "$src" && swift build -c release --scratch-path "$root/.build-ab-$1/build" --product queuesim >&2)
}
[[ -n "${REF_BIN:-}" ]] || build ref "$ref"
[[ -n "${NEW_BIN:-}" ]] || build new "$new"
declare -A bins=(
    [ref]="${REF_BIN:-$root/.build-ab-ref/build/release/queuesim}"
    [new]="${NEW_BIN:-$root/.build-ab-new/build/release/queuesim}"
)

# The scenario of bench/virtual-million.sh, written by it.
OUT="$out" SCENARIO_ONLY=1 bench/virtual-million.sh "$visitors"

seconds() { awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$1"; }
field() { awk -F': ' -v k="$2" '$0 ~ k { print $2 }' "$1"; }

printf "%-5s %-4s %8s %8s %9s  %s\n" build run wall_s user_s rss_mib "sha256 of visitors.csv summary.csv timeline.csv"
for i in $(seq 1 "$runs"); do
    for build in ref new; do
        dir="$out/$build-$i"
        /usr/bin/time -v "${bins[$build]}" run "$out/million.yaml" --clock virtual --quiet --out "$dir" \
            2> "$out/$build-$i.time" || { cat "$out/$build-$i.time" >&2; exit 1; }
        sums=$(cd "$dir" && cat visitors.csv summary.csv timeline.csv | sha256sum | cut -c1-16)
        wall=$(seconds "$out/$build-$i.time")
        user=$(field "$out/$build-$i.time" "User time")
        rss=$(( $(field "$out/$build-$i.time" "Maximum resident set size") / 1024 ))
        printf "%-5s %-4s %8s %8s %9s  %s\n" "$build" "$i" "$wall" "$user" "$rss" "$sums"
        echo "$build $wall $user $rss $sums" >> "$out/results"
        rm -rf "$dir"
    done
done
awk '
    { n[$1]++; wall[$1] += $2; user[$1] += $3; if ($4 > rss[$1]) rss[$1] = $4; sums[$5] = 1 }
    END {
        for (b in n) printf "%-5s mean wall %.2f s, mean user %.2f s, peak RSS %d MiB (%d runs)\n", b, wall[b] / n[b], user[b] / n[b], rss[b], n[b]
        printf "wall ratio new/ref: %.3f; user ratio: %.3f\n", (wall["new"] / n["new"]) / (wall["ref"] / n["ref"]), (user["new"] / n["new"]) / (user["ref"] / n["ref"])
        k = 0; for (s in sums) k++
        print (k == 1 ? "reports: byte-identical in every run" : "reports: DIFFER between runs")
        exit (k == 1 ? 0 : 1)
    }' "$out/results"
