# Sourced by scripts that run one local server beside them (gw-mock, the bench's load server).
# start_server_process NAME COMMAND... runs COMMAND in the background, waits for the first line
# it prints (its address or port) into SERVER_LINE, and kills it when the script exits.

SERVER_PID=""
SERVER_LINE=""

stop_server_process() {
    if [ -n "$SERVER_PID" ]; then
        kill "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
        SERVER_PID=""
    fi
}

start_server_process() {
    local name="$1" line_file
    shift
    line_file="$(mktemp)"
    "$@" >"$line_file" &
    SERVER_PID=$!
    trap stop_server_process EXIT
    # A signal still goes through the EXIT trap, so the server never outlives us.
    trap 'exit 130' INT
    trap 'exit 143' TERM
    # The line is printed once the port is bound; give a slow machine 10 s.
    for _ in $(seq 100); do
        SERVER_LINE="$(head -n 1 "$line_file")"
        [ -n "$SERVER_LINE" ] && break
        kill -0 "$SERVER_PID" 2>/dev/null || break
        sleep 0.1
    done
    rm -f "$line_file"
    if [ -z "$SERVER_LINE" ]; then
        echo "$name did not start" >&2
        exit 1
    fi
}
