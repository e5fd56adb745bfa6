#!/usr/bin/env bash
# How much CPU of its own a load generator may spend per keep-alive request, or per new
# connection, and still make 50 % of wrk's rate against the same nginx (the targets of
# bench/live-ceiling.sh and bench/live-connect.sh). It runs wrk itself with a busy loop of pure
# user-space work in its Lua `response` callback, at increasing lengths: the kernel's work per
# request stays wrk's own, and the loop stands in for what a generator's own code adds (its HTTP
# client, its visitors' machines, its rows). Read queuesim's user and system time per request
# against this table: how much of its own work it may keep, and whether its kernel share is
# wrk's.
#
#   bench/client-budget.sh [keepalive|connect|both] [SECONDS]     (default both, 8 s a point)
#
# keepalive: nginx as in bench/live-ceiling.sh (keep-alive, one worker, core 0) and
#   `wrk -t1 -c64` on core 1; connect: nginx as in bench/live-connect.sh's plain half
#   (`keepalive_timeout 0`) and `wrk -t1 -c64 -H "Connection: close"` (a new connection per
#   request). Both POST the SDK's enqueue body (bench/lib.sh).
# Prints per point: the loop's length (iterations of LuaJIT's `for`), wrk's rate, its share of
# the first point's (plain wrk, no callback), and wrk's user and system CPU µs per request (GNU
# time).
#
# With FLOOR=1 it also builds bench/epoll-floor (a Swift client on epoll and non-blocking sockets)
# and runs it against the same nginx after wrk's points: the floor of a transport of one's own.
#
# Environment: PORT (default 18094), FLOOR. Needs 2 cores, nginx, wrk, GNU time and curl; installs the
# missing ones with apt-get (root). Loopback only; every load is bounded in time.
set -euo pipefail
cd "$(dirname "$0")/.."
modes="${1:-both}"
seconds="${2:-8}"
port="${PORT:-18094}"
case "$modes" in
keepalive | connect) ;;
both) modes="keepalive connect" ;;
*) echo "usage: bench/client-budget.sh [keepalive|connect|both] [SECONDS]" >&2; exit 2 ;;
esac
[[ "$seconds" =~ ^[1-9][0-9]*$ ]] || { echo "usage: SECONDS is a whole number > 0" >&2; exit 2; }

. bench/lib.sh

nginx_binary
need wrk
need time
need curl
taskset -c 1 true 2>/dev/null || fail "needs at least 2 cores (taskset -c 0 for nginx, -c 1 for wrk)"
if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    fail "something already listens on 127.0.0.1:$port (set PORT)"
fi

floor_bin=""
if [ "${FLOOR:-0}" = 1 ]; then
    (cd bench/epoll-floor && swift build -c release > /dev/null) || fail "could not build bench/epoll-floor"
    floor_bin="$PWD/bench/epoll-floor/.build/release/epoll-floor"
fi

workdir="$(mktemp -d)"
trap 'stop_server; rm -rf "$workdir"' EXIT
safetynet_enqueue_answer

echo "machine: $(machine_description)"
for mode in $modes; do
    if [ "$mode" = keepalive ]; then
        write_nginx_conf "$workdir/nginx" "events { worker_connections 4096; }" \
            "    keepalive_requests 1000000; keepalive_timeout 60s;" "        listen 127.0.0.1:$port;"
        write_enqueue_lua "$workdir/enqueue.lua"
        # About 0, 2, 4, 6 and 8 µs of work per answer on this machine's LuaJIT.
        lengths="0 3000 6000 9000 12000"
    else
        write_nginx_conf "$workdir/nginx" "events { worker_connections 4096; }" \
            "    keepalive_timeout 0;" "        listen 127.0.0.1:$port;"
        write_enqueue_lua "$workdir/enqueue.lua" close
        # About 0, 10, 20, 30 and 40 µs per answer (and so per connection).
        lengths="0 15000 30000 45000 60000"
    fi
    start_nginx "$workdir/nginx" answers_with "http://127.0.0.1:$port$enqueue_path"
    echo
    echo "[$mode] wrk -t1 -c64 -d${seconds}s$([ "$mode" = connect ] && echo ' -H "Connection: close"') -s <enqueue + loop>.lua (core 1) against nginx (core 0)"
    printf '[%s] %10s %14s %8s %14s %14s\n' "$mode" "loop" "requests/s" "share" "user µs/req" "system µs/req"
    first=""
    for length in $lengths; do
        # The first point is wrk as the targets measure it: with a `response` callback, even an
        # empty one, wrk hands every answer to Lua (3–7 % slower on the 2026-11-28 host).
        cp "$workdir/enqueue.lua" "$workdir/point.lua"
        if [ "$length" -gt 0 ]; then
            cat >> "$workdir/point.lua" <<LUA
response = function(status, headers, body)
    local x = 0
    for i = 1, $length do x = x + i end
    sink = x
end
LUA
        fi
        status=0
        (cd "$workdir" && /usr/bin/time -f "%U %S" -o time.txt timeout --foreground -k 5 $((seconds + 30)) \
            taskset -c 1 wrk -t1 -c64 -d"${seconds}s" -s point.lua "http://127.0.0.1:$port$enqueue_path") \
            > "$workdir/wrk.txt" 2>&1 || status=$?
        [ "$status" -eq 0 ] || { cat "$workdir/wrk.txt" >&2; fail "wrk exited $status"; }
        if grep -q 'Non-2xx' "$workdir/wrk.txt"; then cat "$workdir/wrk.txt" >&2; fail "wrk saw non-2xx answers"; fi
        rate=$(awk '/^Requests\/sec:/ { print $2 }' "$workdir/wrk.txt")
        [ -n "$rate" ] || { cat "$workdir/wrk.txt" >&2; fail "no Requests/sec in wrk's output"; }
        read -r user system < "$workdir/time.txt"
        first="${first:-$rate}"
        awk -v m="$mode" -v l="$length" -v r="$rate" -v f="$first" -v u="$user" -v s="$system" -v d="$seconds" \
            'BEGIN { n = r * d; printf "[%s] %10d %14.0f %7.1f%% %14.1f %14.1f\n", m, l, r, 100 * r / f, u * 1e6 / n, s * 1e6 / n }'
    done
    if [ -n "$floor_bin" ]; then
        floor=$(timeout --foreground -k 5 $((seconds + 30)) taskset -c 1 "$floor_bin" "$mode" "$seconds" "$port") \
            || fail "epoll-floor failed: $floor"
        echo "[$mode] epoll-floor (no loop): $floor"
    fi
    stop_server
done
