#!/usr/bin/env bash
# Measures the embedded waiting room's enqueue endpoint: `queuesim serve` (release build) on
# 127.0.0.1 under wrk (Debian package `wrk`), POSTing the mobile SDK's enqueue body.
#
#   bench/room-enqueue-wrk.sh [SECONDS] [CONNECTIONS]
#
# Prints wrk's report; the figure to record is "Requests/sec". Loopback only, bounded in time.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-15}"
connections="${2:-64}"
port="${PORT:-18080}"

command -v wrk >/dev/null || { echo "install wrk first: apt-get install -y wrk" >&2; exit 1; }
swift build -c release --product queuesim >&2
bin="$(swift build -c release --show-bin-path)/queuesim"

workdir="$(mktemp -d)"
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; rm -rf "$workdir"' EXIT
cat > "$workdir/bench.yaml" <<'YAML'
version: 1
name: room-bench
target: { customerId: acme, waitingRoomId: bench }
arrivals: { phases: [ { burst: 1 } ] }
visitors: [ { name: app } ]
waitingRoom: { mode: queue, outflow: 600/min }
YAML
cat > "$workdir/enqueue.lua" <<'LUA'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json"
wrk.body = '{"userId":"0b6f2a4e-bench","userAgent":"wrk","sdkVersion":"iOS-3.5.2"}'
LUA

"$bin" serve "$workdir/bench.yaml" --port "$port" --log-level error > "$workdir/serve.log" 2>&1 &
server=$!
for _ in $(seq 1 100); do
    grep -q "listening" "$workdir/serve.log" 2>/dev/null && break
    sleep 0.1
done
grep -q "listening" "$workdir/serve.log" || { cat "$workdir/serve.log" >&2; exit 1; }

echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, $(uname -sr)"
echo "command: wrk -t2 -c$connections -d${seconds}s -s enqueue.lua http://127.0.0.1:$port/api/mobileapp/queue/acme/bench/enqueue"
wrk -t2 -c"$connections" -d"${seconds}s" --latency -s "$workdir/enqueue.lua" \
    "http://127.0.0.1:$port/api/mobileapp/queue/acme/bench/enqueue"
