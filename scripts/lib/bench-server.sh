# Sourced by scripts/bench.sh: the load server (target/bench/loadserver) in its own process.
# start_loadserver sets LOAD_PORT and LOAD_PID and stops the server when the script exits;
# pin_loadserver CPUS / unpin_loadserver move it between cores for the latency figures.

LOAD_PID=""
LOAD_PORT=""
LOAD_CPUS_ALL=""

stop_loadserver() {
    if [ -n "$LOAD_PID" ]; then
        kill "$LOAD_PID" 2>/dev/null || true
        wait "$LOAD_PID" 2>/dev/null || true
        LOAD_PID=""
    fi
}

start_loadserver() {
    local port_file
    port_file="$(mktemp)"
    "$LOADSERVER" --port 0 >"$port_file" &
    LOAD_PID=$!
    trap stop_loadserver EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    for _ in $(seq 100); do
        LOAD_PORT="$(head -n 1 "$port_file")"
        [ -n "$LOAD_PORT" ] && break
        kill -0 "$LOAD_PID" 2>/dev/null || break
        sleep 0.1
    done
    rm -f "$port_file"
    if [ -z "$LOAD_PORT" ]; then
        echo "bench: the load server did not start" >&2
        exit 1
    fi
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
