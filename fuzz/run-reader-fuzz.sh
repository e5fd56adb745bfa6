#!/bin/sh
# Builds the libFuzzer target for the YAML reader and runs it for a bounded time.
# Usage: fuzz/run-reader-fuzz.sh [SECONDS]   (default 30)
# Exit status: 0 when no crash was found, non-zero otherwise (crash-* files hold the input).
set -eu
seconds="${1:-30}"
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$root/.build-fuzz"
mkdir -p "$out/corpus"
# Seed the corpus with the ready-made scenarios.
cp "$root"/scenarios/*.yaml "$out/corpus/" 2>/dev/null || true
swiftc -O -sanitize=fuzzer,address -parse-as-library \
    -module-name QueueSimFuzz -package-name queuesim \
    -I "$root/Sources/CYaml" \
    "$root"/Sources/QueueSim/Yaml/*.swift "$root/fuzz/YamlReaderFuzz.swift" \
    -o "$out/yaml-reader-fuzz"
cd "$out"
exec ./yaml-reader-fuzz -max_total_time="$seconds" -max_len=65536 -timeout=5 -rss_limit_mb=2048 \
    -dict="$root/fuzz/yaml.dict" corpus
