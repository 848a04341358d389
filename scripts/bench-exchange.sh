#!/usr/bin/env bash
# The exchange's cost for a streamed chat driven in memory as the Go binding drives it (one
# gw_exchange_feed_body per SSE event, then step, event, step), bench/gwexchange.c:
#
# - instructions (callgrind, only gw_exchange_* counted, marginal between two run lengths so
#   the first call's set-up cancels out), for GW_EXCHANGE_STREAM and GW_EXCHANGE_EVENTS_ONLY:
#   per text event of a long stream; per whole mock-like stream (19 events + [DONE]), with
#   what the stream costs beyond 17 text events (the role and finish chunks, [DONE], new,
#   request, head, finish, free) and each entry point's share;
# - ns per event with 2,000 exchanges in flight fed round-robin, against one in flight (the
#   cache side: what a step touches per event), and ns per stream outside its events.
#
# Prints figures, asserts nothing (scripts/bench-instructions.sh holds the gated ones).
#   GW_EXCH_LIB_DIR=DIR   measure DIR/libgw.so instead of target/release
#   GW_EXCH_NO_TIME=1     instructions only
set -euo pipefail
cd "$(dirname "$0")/.."

lib_dir="$(cd "${GW_EXCH_LIB_DIR:-target/release}" && pwd)"
[ -f "$lib_dir/libgw.so" ] || { echo "bench-exchange: no $lib_dir/libgw.so (make build)" >&2; exit 1; }
out=target/bench-exchange
mkdir -p "$out"
ln -sf "$lib_dir/libgw.so" "$out/libgw.so.0"
ln -sf "$lib_dir/libgw.so" "$out/libgw.so"
cc -O2 -Wall -Wextra -Werror -std=c11 -Iinclude bench/gwexchange.c -o "$out/gwexchange" \
    -L"$out" -lgw -Wl,-rpath,"$PWD/$out"

entries=(new request feed_head feed_body step event finish free)

# Runs callgrind on `gwexchange instr ARGS...`; prints "total new request ... free".
count() {
    local file="$out/callgrind.$*"
    file="${file// /.}"
    rm -f "$file"
    valgrind --tool=callgrind --callgrind-out-file="$file" --toggle-collect='gw_exchange_*' \
        "$out/gwexchange" instr "$@" >"$file.log" 2>&1 || {
        echo "bench-exchange: gwexchange instr $* failed:" >&2
        tail -n 20 "$file.log" >&2
        exit 1
    }
    local ann
    ann="$(callgrind_annotate --inclusive=yes --threshold=100 "$file" 2>/dev/null)"
    local line
    line="$(awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1; exit}' <<<"$ann")"
    for e in "${entries[@]}"; do
        line+=" $(awk -v f=":gw_exchange_$e " '
            index($0, f) {gsub(",", "", $1); print $1; found=1; exit}
            END {if (!found) print 0}' <<<"$ann")"
    done
    echo "$line"
}

for mode in stream events; do
    read -r -a a <<<"$(count mode=$mode streams=1 words=200)"
    read -r -a b <<<"$(count mode=$mode streams=1 words=2200)"
    per_event=$(((b[0] - a[0]) / 2000))
    read -r -a c <<<"$(count mode=$mode streams=10 words=17)"
    read -r -a d <<<"$(count mode=$mode streams=40 words=17)"
    per_stream=$(((d[0] - c[0]) / 30))
    echo "mode=$mode (instructions, gw_exchange_* only)"
    printf '  per text event (feed, step, event, step):        %8d\n' "$per_event"
    printf '  per mock stream (19 events, [DONE], new...free):  %8d\n' "$per_stream"
    printf '  of which beyond 17 text events:                   %8d\n' $((per_stream - 17 * per_event))
    printf '  per stream by entry point:'
    for i in "${!entries[@]}"; do
        printf ' %s=%d' "${entries[$i]}" $(((d[i + 1] - c[i + 1]) / 30))
    done
    echo
done

if [ "${GW_EXCH_NO_TIME:-0}" != 1 ]; then
    for mode in stream events; do
        "$out/gwexchange" time mode=$mode streams=2000 words=17 rounds=5
    done
fi
