#!/bin/sh
# Builds every libFuzzer target and runs each for a bounded time, one after another.
# Usage: fuzz/run-all.sh [SECONDS_PER_TARGET]   (default 20; CI gives 12; give 600 for a soak)
# Exit status: 0 when no target found a crash, a timeout or an out-of-memory input; 1 otherwise.
# Inputs that failed stay in .build-fuzz-runs/<target>/ (crash-*, timeout-*, oom-*), and the
# corpus each run grew stays beside them for the next run. See fuzz/README.md.
set -eu
seconds="${1:-20}"
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${FUZZ_BUILD_PATH:-$root/.build-fuzz-spm}"
runs="${FUZZ_RUNS_PATH:-$root/.build-fuzz-runs}"
export PATH="/opt/swift/usr/bin:$PATH"
# A crash prints Swift's own message; the symbolicating backtracer would read memory that
# AddressSanitizer then reports instead of the real failure.
export SWIFT_BACKTRACE=enable=no

# One SwiftPM build of fuzz/Package.swift for every target that needs queuesim's modules.
# Every Swift module is instrumented (coverage reaches into the parsers); -enable-testing lets
# the targets reach internal parsers with @testable import.
# Debug by default: a cold release build of every instrumented dependency takes 16 minutes on
# 2 cores (6.6 in debug), too long for CI; FUZZ_CONFIGURATION=release for long soaks.
flags="-c ${FUZZ_CONFIGURATION:-debug} --package-path $root/fuzz --build-path $build"
# SwiftPM does not notice a file added to or removed from the repository (a path dependency
# here) while its build plan is cached: drop the plan so it is made again from the tree.
rm -f "$build/debug.yaml" "$build/release.yaml"
# shellcheck disable=SC2086
swift build $flags -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -enable-testing
# shellcheck disable=SC2086
bin="$(swift build $flags -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -enable-testing \
    --show-bin-path)"

failed=""
mkdir -p "$runs"

# FUZZ_ONLY="URLFuzz TokenCheckFuzz": run only these targets (yaml-reader is one too), e.g. to
# split a soak over two processes on two cores.
selected() { [ -z "${FUZZ_ONLY:-}" ] || case " $FUZZ_ONLY " in *" $1 "*) true ;; *) false ;; esac; }

# The YAML reader keeps its own script (the Yaml folder compiled alone with swiftc).
if ! selected yaml-reader; then
    :
elif "$root/fuzz/run-reader-fuzz.sh" "$seconds" > "$runs/yaml-reader.log" 2>&1; then
    echo "fuzz: yaml-reader: ok ($seconds s)"
else
    echo "fuzz: yaml-reader: FAILED; see $runs/yaml-reader.log and $root/.build-fuzz/crash-*"
    tail -30 "$runs/yaml-reader.log"
    failed="$failed yaml-reader"
fi

# target, max input length, dictionary (or -)
while read -r target length dictionary; do
    selected "$target" || continue
    work="$runs/$target"
    mkdir -p "$work/corpus"
    case "$target" in
        ScenarioFuzz) cp "$root"/scenarios/*.yaml "$work/corpus/" ;;
        CSVFuzz) cp "$root"/scenarios/data/*.csv "$work/corpus/" ;;
    esac
    options="-max_total_time=$seconds -max_len=$length -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048"
    # Swift's runtime caches look like leaks to LeakSanitizer; growth is bounded by the RSS limit.
    options="$options -detect_leaks=0 -print_final_stats=1 -artifact_prefix=$work/"
    [ "$dictionary" = "-" ] || options="$options -dict=$root/fuzz/$dictionary"
    # New inputs go to the first folder; the checked-in seeds are read only.
    # `timeout`: a bound on the whole process in case libFuzzer's own limits fail.
    # shellcheck disable=SC2086
    if (cd "$work" && timeout -k 10 $((seconds + 300)) "$bin/$target" $options corpus "$root/fuzz/seeds/$target") \
        > "$work/log" 2>&1; then
        echo "fuzz: $target: ok ($seconds s, $(grep -o 'stat::number_of_executed_units: [0-9]*' "$work/log" | grep -o '[0-9]*$') runs)"
    else
        echo "fuzz: $target: FAILED; the input is in $work/, the log in $work/log"
        grep -E "ERROR|Fatal error|SUMMARY|artifact_prefix|Test unit written" "$work/log" | head -20 || true
        failed="$failed $target"
    fi
done <<TARGETS
ScenarioFuzz 16384 scenario.dict
RoomRequestFuzz 8192 room.dict
URLFuzz 4096 url.dict
TokenCheckFuzz 1024 token.dict
FlatJSONFuzz 4096 json.dict
CSVFuzz 8192 csv.dict
HTTP1ResponseFuzz 8192 http1.dict
PushFuzz 4096 url.dict
RunFolderFuzz 65536 csv.dict
ShardFolderFuzz 65536 json.dict
TARGETS

if [ -n "$failed" ]; then
    echo "fuzz: failed:$failed"
    exit 1
fi
echo "fuzz: every target ran $seconds s without a failure"
