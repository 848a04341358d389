# Sourced by scripts that need the mock gateway: start_mock runs target/release/gw-mock on a
# free port, sets MOCK_URL to the address it prints first, and kills it when the script exits.

MOCK_PID=""
MOCK_URL=""

stop_mock() {
    if [ -n "$MOCK_PID" ]; then
        kill "$MOCK_PID" 2>/dev/null || true
        wait "$MOCK_PID" 2>/dev/null || true
        MOCK_PID=""
    fi
}

start_mock() {
    local addr_file
    addr_file="$(mktemp)"
    target/release/gw-mock --port 0 >"$addr_file" &
    MOCK_PID=$!
    trap stop_mock EXIT
    # A signal still goes through the EXIT trap, so the mock never outlives us.
    trap 'exit 130' INT
    trap 'exit 143' TERM
    # The address is printed once the port is bound; give a slow machine 10 s.
    for _ in $(seq 100); do
        MOCK_URL="$(head -n 1 "$addr_file")"
        [ -n "$MOCK_URL" ] && break
        kill -0 "$MOCK_PID" 2>/dev/null || break
        sleep 0.1
    done
    rm -f "$addr_file"
    if [ -z "$MOCK_URL" ]; then
        echo "gw-mock did not start" >&2
        exit 1
    fi
}
