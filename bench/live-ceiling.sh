#!/usr/bin/env bash
# Measures the request-rate ceiling of `queuesim run` on the wall clock against a canned
# loopback responder, and wrk's rate against the same responder in the same script, back to
# back, so the two figures come from the same machine under the same conditions.
#
#   bench/live-ceiling.sh [SECONDS]          (default 10)
#
# The responder is Debian's nginx (package nginx-light, else nginx) with a config of its own
# in a temporary directory (pid, logs and temp paths there; one worker; no access log; keep-
# alive for 1,000,000 requests), pinned to core 0, on 127.0.0.1:$PORT (default 18090). It
# answers every request under /api/mobileapp/queue/ with 200 and the enqueue API's JSON for a
# safetynet room (a KnownUser token with rt_safetynet, signed with the room's default key), so
# each visitor of the SDK ends `passed` after exactly one request. Then, on core 1:
#   1. wrk -t1 -c64 -d${SECONDS}s POSTing the SDK's enqueue body to the enqueue path (before
#      queuesim and again after it: the ratio is against the mean of the two);
#   2. queuesim run on a generated scenario: one `run` group, 60,000 × SECONDS visitors arriving
#      at 200,000/s (faster than any generator serves them), run.concurrency 64 (wrk's 64
#      connections), so visitors queue for a place as wrk's closed loop does. The run lasts as
#      long as those visitors take, several times SECONDS at ~10,000 requests/s.
# queuesim's rate is run.json's requests / (duration_ms / 1000). The script checks that every
# visitor is `passed` and that visitors.csv has one row per visitor, and exits non-zero otherwise.
#
# Prints: machine, the exact commands, wrk's requests/s, queuesim's requests/s, their ratio,
# queuesim's CPU µs per request and per visitor (run.json's `generator` object; /usr/bin/time
# -v figures when the binary writes none), and the generator's saturation verdict.
#
# Environment: QUEUESIM_BIN (a queuesim binary; default: swift build -c release), PORT,
# CONNECTIONS (client.connections; default `shared`: the keep-alive pool this ceiling measures;
# empty for a binary from before issue 28, which has no such key), METRICS_SCRAPE=1 (the run
# also serves /metrics on 127.0.0.1:$((PORT+1)) and a curl on core 0 scrapes it every second,
# as a Prometheus would: bench/metrics-overhead.sh compares the two). QUEUESIM_TRANSPORT=nio
# (passed to queuesim) runs it on SwiftNIO's loops instead of queuesim's own plain-HTTP
# transport: the reference for the transport's before and after (docs/benchmarks.md, "Tenth look").
# Needs 2 cores, nginx, wrk, GNU time, jq and curl; installs the missing ones with apt-get
# (root). Installing Debian's nginx may start its system service on a host with systemd (port 80).
# Loopback only; every load is bounded in time.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-10}"
port="${PORT:-18090}"
connections=64
connections_model="${CONNECTIONS-shared}"
connections_key="${connections_model:+, connections: $connections_model}"
[[ "$seconds" =~ ^[1-9][0-9]*$ ]] || { echo "usage: bench/live-ceiling.sh [SECONDS]  (a whole number > 0)" >&2; exit 2; }

. bench/lib.sh

# --- tools ------------------------------------------------------------------------------------
nginx_binary
need wrk
need time
need jq
need curl
taskset -c 1 true 2>/dev/null || fail "needs at least 2 cores (taskset -c 0 for nginx, -c 1 for the load)"

queuesim_binary

workdir="$(mktemp -d)"
trap 'stop_server; rm -rf "$workdir"' EXIT

if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    fail "something already listens on 127.0.0.1:$port (set PORT)"
fi

# --- the canned answer: the room's safetynet enqueue JSON (bench/lib.sh) -----------------------
safetynet_enqueue_answer

write_nginx_conf "$workdir/nginx" "events { worker_connections 4096; }" \
    "    keepalive_requests 1000000;
    keepalive_timeout 60s;" "        listen 127.0.0.1:$port;"

# The SDK's enqueue call as the scenario's iOS visitors send it (bench/lib.sh).
write_enqueue_lua "$workdir/enqueue.lua"

visitors=$((60000 * seconds))
cat > "$workdir/scenario.yaml" <<YAML
version: 1
name: live-ceiling
seed: 1
target: { customerId: $customer, waitingRoomId: $room, endpoint: "http://127.0.0.1:$port" }
client: { requestTimeout: 30s, userAgent: "queuesim/1 (virtual visitor)", sdkVersion: iOS-3.5.2$connections_key }
arrivals:
  process: uniform
  phases: [ { duration: ${seconds}s, rate: 200000 } ]
  maxVisitors: $visitors
visitors: [ { name: app, flow: run } ]
run: { concurrency: $connections }
YAML
"$bin" validate "$workdir/scenario.yaml" > "$workdir/validate.txt" 2>&1 \
    || { cat "$workdir/validate.txt" >&2; fail "queuesim validate refused the generated scenario"; }

# --- the responder ----------------------------------------------------------------------------
start_nginx "$workdir/nginx" answers_with "http://127.0.0.1:$port$enqueue_path"

# --- wrk --------------------------------------------------------------------------------------
# Commands run in the temporary directory; `timeout --foreground` signals only its child (the
# load), which then still gets Ctrl-C.
wrk_cmd=(timeout --foreground -k 5 $((seconds + 30)) taskset -c 1
    wrk -t1 -c"$connections" -d"${seconds}s" -s enqueue.lua "http://127.0.0.1:$port$enqueue_path")
# wrk runs before and after queuesim: this machine's speed drifts by tens of per cent within
# minutes, and the mean of the two brackets the queuesim run in time.
run_wrk() {
    local out="$workdir/wrk-$1.txt" status=0
    (cd "$workdir" && "${wrk_cmd[@]}") > "$out" 2>&1 || status=$?
    [ "$status" -eq 0 ] || { cat "$out" >&2; fail "wrk exited $status"; }
    grep -q '^Requests/sec:' "$out" || { cat "$out" >&2; fail "no Requests/sec in wrk's output"; }
    if grep -q 'Non-2xx' "$out"; then cat "$out" >&2; fail "wrk saw non-2xx answers"; fi
}
wrk_rate() { awk '/^Requests\/sec:/ { print $2 }' "$workdir/wrk-$1.txt"; }
run_wrk before
wrk_errors=$(grep -E '^ *Socket errors' "$workdir/wrk-before.txt" | sed 's/^ *//' || true)

# --- queuesim run -----------------------------------------------------------------------------
# The run lasts as long as the visitors take (60,000 × SECONDS of them); give up below
# about 1,000 requests/s.
limit=$((seconds * 60 + 60))
run_cmd=(taskset -c 1 /usr/bin/time -v -o run.time timeout --foreground -k 15 "$limit"
    "$bin" run scenario.yaml --out out --quiet)
scraper=""
if [ "${METRICS_SCRAPE:-0}" = 1 ]; then
    metrics_port=$((port + 1))
    run_cmd+=(--metrics-listen "127.0.0.1:$metrics_port" --metrics-linger 0s)
    # Every second for as long as the run may last, on nginx's core: the scrape's cost to
    # queuesim is serving it, not making it.
    (for _ in $(seq "$limit"); do
        sleep 1
        taskset -c 0 curl -s --max-time 1 -o /dev/null "http://127.0.0.1:$metrics_port/metrics" || true
    done) &
    scraper=$!
fi
status=0
(cd "$workdir" && "${run_cmd[@]}") > "$workdir/run.log" 2>&1 || status=$?
if [ -n "$scraper" ]; then kill "$scraper" 2>/dev/null || true; wait "$scraper" 2>/dev/null || true; fi
if [ "$status" -ne 0 ]; then
    cat "$workdir/run.log" >&2
    [ ! -f "$workdir/run.time" ] || cat "$workdir/run.time" >&2
    [ "$status" -ne 124 ] || echo "queuesim run did not finish within $limit s" >&2
    fail "queuesim run exited $status"
fi
kill -0 "$server" 2>/dev/null || fail "nginx died during the run"
run_wrk after
wrk_before=$(wrk_rate before)
wrk_after=$(wrk_rate after)
wrk_rps=$(awk -v a="$wrk_before" -v b="$wrk_after" 'BEGIN { printf "%.0f", (a + b) / 2 }')

json="$workdir/out/run.json"
[ -f "$json" ] || fail "no run.json"
rows=$(($(wc -l < "$workdir/out/visitors.csv") - 1))
outcome_col=$(head -1 "$workdir/out/visitors.csv" | tr -d '\r' | tr ',' '\n' | grep -nx outcome | cut -d: -f1 || true)
[ -n "$outcome_col" ] || fail "visitors.csv has no outcome column"
outcomes=$(awk -F, -v c="$outcome_col" 'NR > 1 { n[$c]++ } END { for (o in n) printf "%s %d, ", o, n[o] }' \
    "$workdir/out/visitors.csv")
outcomes="${outcomes%, }"
passed=$(awk -F, -v c="$outcome_col" 'NR > 1 && $c == "passed" { n++ } END { print n + 0 }' "$workdir/out/visitors.csv")
requests=$(jq -r '.requests' "$json")
duration_ms=$(jq -r '.duration_ms' "$json")
json_passed=$(jq -r '.outcomes.passed // 0' "$json")
q_rps=$(awk -v r="$requests" -v d="$duration_ms" 'BEGIN { printf "%.0f", r / (d / 1000) }')
cpu_time=$(awk -F': ' '/User time/ { u = $2 } /System time/ { s = $2 } END { printf "%.2f", u + s }' "$workdir/run.time")
peak_kib=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$workdir/run.time")

echo "machine:            $(machine_description)"
echo "(commands run in a temporary directory)"
echo "responder:          ${nginx_cmd[*]}"
echo "                    ($("$nginx_bin" -v 2>&1 | sed 's/^nginx version: //'); 200 + the safetynet enqueue JSON, ${#answer} bytes)"
echo "wrk:                ${wrk_cmd[*]}"
echo "queuesim:           ${run_cmd[*]}"
echo "                    (scenario: $visitors visitors at 200000/s, run.concurrency $connections, endpoint http://127.0.0.1:$port)"
echo
echo "wrk:                $(printf '%.0f' "$wrk_rps") requests/s (mean of $(printf '%.0f' "$wrk_before") before and $(printf '%.0f' "$wrk_after") after queuesim)${wrk_errors:+ ($wrk_errors)}"
echo "queuesim run:       $q_rps requests/s ($requests requests in $(awk -v d="$duration_ms" 'BEGIN { printf "%.2f", d / 1000 }') s; visitors $visitors, rows $rows: $outcomes)"
awk -v q="$q_rps" -v w="$wrk_rps" 'BEGIN { printf "queuesim / wrk:     %.1f %%\n", 100 * q / w }'
if jq -e '.generator | type == "object"' "$json" >/dev/null; then
    jq -r '.generator | "queuesim CPU:       \(.cpu_us_per_request) µs per request, \(.cpu_us_per_visitor) µs per visitor (run.json generator: \(.cpu_seconds) s CPU, \(.loops) event loop(s))"' "$json"
    awk -v t="$cpu_time" -v r="$requests" -v n="$rows" 'BEGIN {
        printf "                    whole process (time -v, start and reports included): %s s, %.1f µs per request, %.1f µs per visitor\n", t, t * 1e6 / r, t * 1e6 / n }'
    jq -r '.generator | "generator:          " + (if (.saturated_windows | length) == 0
        then "kept up (event-loop lag p99 \(.loop_lag_p99_ms) ms, max \(.loop_lag_max_ms) ms; arrival lag p99 \(.arrival_lag_p99_ms) ms)"
        else "SATURATED for \(.saturated_seconds) s (event-loop lag p99 \(.loop_lag_p99_ms) ms, max \(.loop_lag_max_ms) ms; arrival lag p99 \(.arrival_lag_p99_ms) ms)" end)
        + "; \(.visitors_held_by_concurrency) visitors waited for a place under run.concurrency"' "$json"
else
    awk -v t="$cpu_time" -v r="$requests" -v n="$rows" 'BEGIN {
        printf "queuesim CPU:       %.1f µs per request, %.1f µs per visitor (/usr/bin/time -v user+sys %s s, whole process; run.json has no generator object)\n", t * 1e6 / r, t * 1e6 / n, t }'
    echo "generator:          no saturation verdict (run.json has no generator object)"
fi
awk -v p="$peak_kib" 'BEGIN { printf "queuesim peak RSS:  %.1f MiB\n", p / 1024 }'

[ "$rows" -eq "$visitors" ] || fail "visitors.csv has $rows rows for $visitors visitors"
[ "$passed" -eq "$visitors" ] || fail "only $passed of $visitors visitors passed ($outcomes)"
[ "$json_passed" -eq "$visitors" ] || fail "run.json counts $json_passed passed of $visitors"
[ "$requests" -eq "$visitors" ] || echo "note: $requests requests for $visitors visitors (expected one each)"
echo "ok: every visitor passed, one row per visitor"
