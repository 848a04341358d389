# Sourced by scripts that need the mock gateway: start_mock runs target/release/gw-mock on a
# free port, sets MOCK_URL to the address it prints first, and kills it when the script exits.

source "$(dirname "${BASH_SOURCE[0]}")/server-process.sh"

MOCK_URL=""

stop_mock() { stop_server_process; }

start_mock() {
    start_server_process gw-mock target/release/gw-mock --port 0
    MOCK_URL="$SERVER_LINE"
}
