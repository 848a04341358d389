# Sourced by scripts/bench.sh: the load server (target/bench/loadserver) in its own process.
# start_loadserver sets LOAD_PORT and LOAD_PID and stops the server when the script exits;
# pin_loadserver CPUS / unpin_loadserver move it between cores for the latency figures.

source "$(dirname "${BASH_SOURCE[0]}")/server-process.sh"

LOAD_PID=""
LOAD_PORT=""
LOAD_CPUS_ALL=""

stop_loadserver() {
    stop_server_process
    LOAD_PID=""
}

start_loadserver() {
    start_server_process "bench: the load server" "$LOADSERVER" --port 0
    LOAD_PID="$SERVER_PID"
    LOAD_PORT="$SERVER_LINE"
    LOAD_CPUS_ALL="$(taskset -pc "$LOAD_PID" | sed 's/.*: //')"
}

# Fails when the server died: every figure after that would be a failure of the harness.
check_loadserver() {
    if ! kill -0 "$LOAD_PID" 2>/dev/null; then
        echo "bench: the load server is gone" >&2
        exit 1
    fi
}

pin_loadserver() { taskset -a -pc "$1" "$LOAD_PID" >/dev/null; }
unpin_loadserver() { taskset -a -pc "$LOAD_CPUS_ALL" "$LOAD_PID" >/dev/null; }
