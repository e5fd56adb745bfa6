# Shared by the live benchmarks (source it): failing, installing Debian packages, finding the
# queuesim binary, stopping the background server, describing the machine.

fail() { echo "FAIL: $*" >&2; exit 1; }

apt_install() {
    echo "installing $* (apt-get install -y $*)" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y "$@" >&2 \
        || { apt-get update >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y "$@" >&2; }
}

# need COMMAND [PACKAGE]: installs PACKAGE (default COMMAND) when COMMAND is missing.
need() {
    local package="${2:-$1}"
    if [ "$1" = time ]; then
        [ -x /usr/bin/time ] && return 0
    else
        command -v "$1" >/dev/null && return 0
    fi
    apt_install "$package" || fail "install $package first: apt-get install -y $package"
}

# Sets `bin`: $QUEUESIM_BIN, or a release build made now.
queuesim_binary() {
    if [ -n "${QUEUESIM_BIN:-}" ]; then
        bin="$QUEUESIM_BIN"
    else
        swift build -c release --product queuesim >&2
        bin="$(swift build -c release --show-bin-path)/queuesim"
    fi
    [ -x "$bin" ] || fail "no queuesim binary at $bin"
    # The scripts run queuesim from a temporary directory: a relative path would not resolve.
    bin="$(realpath "$bin")"
}

# Stops the background process whose pid is in $server (if any) and waits for it.
server=""
stop_server() {
    if [ -n "$server" ]; then
        kill "$server" 2>/dev/null || true
        wait "$server" 2>/dev/null || true
        server=""
    fi
}

# "2 cores, 23.5 GiB, Linux 6.18.44": the line every benchmark prints first.
machine_description() {
    echo "$(nproc) cores, $(free -m | awk '/Mem:/ { printf "%.1f GiB", $2 / 1024 }'), $(uname -sr)"
}

