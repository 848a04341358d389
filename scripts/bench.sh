#!/usr/bin/env bash
# `make bench`, first part: gw measured through its C ABI (bench/gwbench.c, linked to
# libgw.so) against a load server in a process of its own (bench/loadserver.c), beside a
# raw-socket floor that replays the bytes gw sent (bench/floor.c). Prints one table: figure,
# gw, floor, ratio (gw's cost over the floor's) and the target of issue 10.
# Figures are printed, never judged: only a broken harness fails the run (a gw call that
# fails, a server that does not start or dies).
#   GW_BENCH_LIB_DIR=DIR  measure DIR/libgw.so (and DIR/gw.h when present) instead of
#                         target/release with include/gw.h
#   GW_BENCH_QUICK=1      every count about 10x smaller: checks the harness in seconds
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/bench-build.sh
source scripts/lib/bench-server.sh
source scripts/lib/mock.sh

lib_dir="${GW_BENCH_LIB_DIR:-target/release}"
if [ ! -f "$lib_dir/libgw.so" ]; then
    echo "bench: no libgw.so in $lib_dir (run make build, or set GW_BENCH_LIB_DIR)" >&2
    exit 1
fi
lib_dir="$(cd "$lib_dir" && pwd)"

if [ "${GW_BENCH_QUICK:-0}" = 1 ]; then
    calls=2000 warmup=200 strace_n=100 events=100000 long_mib=128 scale_n=2000
    upload_reps=3 upload_mib=5 big_reps=5 inflight_n=200 fast_words=5000
else
    calls=20000 warmup=2000 strace_n=1000 events=1000000 long_mib=1024 scale_n=20000
    upload_reps=5 upload_mib=50 big_reps=40 inflight_n=1000 fast_words=20000
fi

echo "bench: compiling bench/ (gwbench against $lib_dir)" >&2
bench_build "$lib_dir"
# The reference row: ureq alone (benches/ureq_reference.rs), the HTTP client gw is built on.
echo "bench: compiling benches/ureq_reference.rs" >&2
UREQ_REFERENCE="$(${CARGO:-cargo} bench --bench ureq_reference --no-run --message-format=json 2>/dev/null |
    sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -n 1)"
if [ ! -x "$UREQ_REFERENCE" ]; then
    echo "bench: benches/ureq_reference.rs did not build" >&2
    exit 1
fi
start_loadserver
log=target/bench/figures.log
: >"$log"

# Runs one measuring program and prints its key=value line (also kept in the log).
measure() {
    local label="$1" line
    shift
    echo "bench: $label" >&2
    if ! line="$("$@")"; then
        echo "bench: $label: the harness failed ($*)" >&2
        exit 1
    fi
    echo "$label: $line" >>"$log"
    printf '%s\n' "$line"
}

# The value of key in a key=value line; empty when absent.
get() { sed -n "s/.*\(^\| \)$1=\([^ ]*\).*/\2/p" <<<"$2"; }

# The CPUs this shell may use, one per line ("0-3,6" -> 0 1 2 3 6).
allowed_cpus() {
    local part
    IFS=, read -ra parts <<<"$(taskset -pc $$ | sed 's/.*: //')"
    for part in "${parts[@]}"; do
        if [[ $part == *-* ]]; then seq "${part%-*}" "${part#*-}"; else echo "$part"; fi
    done
}
mapfile -t cpus < <(allowed_cpus)

# --- Non-streamed calls: the server pinned to one core, the client on the same core, then
# on another one.
pin_loadserver "${cpus[0]}"
lat=(port="$LOAD_PORT" n="$calls" warmup="$warmup")
one_gw="$(measure "gw_chat, one core" taskset -c "${cpus[0]}" "$GWBENCH" latency "${lat[@]}")"
one_fl="$(measure "floor, one core" taskset -c "${cpus[0]}" "$FLOOR" latency "${lat[@]}")"
one_ureq="$(measure "ureq alone, one core" taskset -c "${cpus[0]}" "$UREQ_REFERENCE" latency "${lat[@]}")"
two_gw="" two_fl=""
if [ "${#cpus[@]}" -ge 2 ]; then
    two_gw="$(measure "gw_chat, two cores" taskset -c "${cpus[1]}" "$GWBENCH" latency "${lat[@]}")"
    two_fl="$(measure "floor, two cores" taskset -c "${cpus[1]}" "$FLOOR" latency "${lat[@]}")"
fi
unpin_loadserver

# --- Syscalls and threads created per call: strace -f -c at two call counts; the
# difference over the extra calls, so start-up (CA store, first connect) does not count.
strace_usable=0
if command -v strace >/dev/null && strace -f -c -o /dev/null true 2>/dev/null; then
    strace_usable=1
fi
# "syscalls clones" for `n` calls of program $1 under strace.
strace_counts() {
    local prog="$1" n="$2" file
    file="$(mktemp)"
    echo "bench: $(basename "$prog"), $n calls under strace" >&2
    if ! strace -f -c -o "$file" "$prog" latency port="$LOAD_PORT" n="$n" warmup=50 >/dev/null; then
        echo "bench: $prog under strace: the harness failed" >&2
        exit 1
    fi
    awk '$4 ~ /^[0-9]+$/ && $NF != "total" {
             total += $4; if ($NF == "clone" || $NF == "clone3") clones += $4 }
         END { print total + 0, clones + 0 }' "$file"
    rm -f "$file"
}
# "syscalls_per_call clones_per_call" for program $1.
per_call() {
    local small large
    small="$(strace_counts "$1" "$strace_n")"
    large="$(strace_counts "$1" $((2 * strace_n)))"
    awk -v s="$small" -v l="$large" -v n="$strace_n" 'BEGIN {
        split(s, a, " "); split(l, b, " ");
        printf "%.1f %.2f\n", (b[1] - a[1]) / n, (b[2] - a[2]) / n }'
}
sys_gw="n/a n/a" sys_fl="n/a n/a"
if [ "$strace_usable" = 1 ]; then
    sys_gw="$(per_call "$GWBENCH")"
    sys_fl="$(per_call "$FLOOR")"
    echo "syscalls, clones per call: gw $sys_gw, floor $sys_fl" >>"$log"
else
    echo "bench: strace is missing or cannot trace here: syscall figures are n/a" >&2
fi

# --- Connections, streams, RSS, threads, upload (no pinning).
conn=(port="$LOAD_PORT" calls=21)
conn_gw="$(measure "gw, 21 streamed then 21 plain calls" "$GWBENCH" connections "${conn[@]}")"
conn_fl="$(measure "floor, the same calls" "$FLOOR" connections "${conn[@]}")"

ev_gw="$(measure "gw, $events events, callback" "$GWBENCH" stream port="$LOAD_PORT" \
    events="$events" api=callback)"
ev_fl="$(measure "floor, the same stream" "$FLOOR" stream port="$LOAD_PORT")"
assembled_gw="$(measure "gw, $events events, callback, out given" "$GWBENCH" stream \
    port="$LOAD_PORT" events="$events" api=callback-assembled)"
pull_gw="$(measure "gw, $events events, pull" "$GWBENCH" stream port="$LOAD_PORT" \
    events="$events" api=pull)"

long_label="$long_mib MiB"
[ "$long_mib" = 1024 ] && long_label="1 GiB"
# Exit status 3: gw refused the stream with GW_TOO_LARGE, having assembled the answer
# although `out` is NULL. The figure is then taken again with the cap past the stream's size,
# and the table says so.
rss=(port="$LOAD_PORT" bytes=$((long_mib << 20)))
rss_note="" rss_status=0
echo "bench: gw, $long_label stream, out NULL" >&2
rss_gw="$("$GWBENCH" rss "${rss[@]}")" || rss_status=$?
if [ "$rss_status" = 3 ]; then
    rss_note=" (default max_response_bytes: GW_TOO_LARGE; figure with a 4 GiB cap)"
    rss_gw="$(measure "gw, $long_label stream, out NULL, max_response_bytes 4 GiB" "$GWBENCH" rss \
        "${rss[@]}" max_response_bytes=$((4 << 30)))"
elif [ "$rss_status" != 0 ]; then
    echo "bench: gw, $long_label stream: the harness failed" >&2
    exit 1
else
    echo "gw, $long_label stream, out NULL: $rss_gw" >>"$log"
fi
rss_fl="$(measure "floor, the same stream" "$FLOOR" stream port="$LOAD_PORT")"

scale=(port="$LOAD_PORT" threads=8 n="$scale_n")
scale_gw="$(measure "gw, 8 threads on one client vs 1" "$GWBENCH" scale "${scale[@]}")"
scale_fl="$(measure "floor, 8 connections vs 1" "$FLOOR" scale "${scale[@]}")"

up_gw="$(measure "gw, $upload_mib MiB upload" "$GWBENCH" upload port="$LOAD_PORT" \
    reps="$upload_reps" mib="$upload_mib")"
up_fl="$(measure "floor, the same upload" "$FLOOR" upload port="$LOAD_PORT" reps="$upload_reps")"

# --- Big request bodies (issue 20): gw_chat of a 5 MiB data-URI image chat and of a 1 MiB
# text chat, each call interleaved with the floor replaying gw's bytes (gwbench_bigbody.c).
big=(port="$LOAD_PORT" reps="$big_reps")
big_img="$(measure "gw and floor interleaved, 5 MiB data-URI image chat" "$GWBENCH" bigbody \
    "${big[@]}" kind=image kib=5120)"
big_txt="$(measure "gw and floor interleaved, 1 MiB text chat" "$GWBENCH" bigbody \
    "${big[@]}" kind=text kib=1024)"
big_cjk="$(measure "gw and floor interleaved, 1 MiB Chinese text chat" "$GWBENCH" bigbody \
    "${big[@]}" kind=cjk kib=1024)"
big_str="$(measure "gw and floor interleaved, 5 MiB data-URI image chat, streamed" "$GWBENCH" \
    bigbody "${big[@]}" kind=image kib=5120 api=stream)"
# The same image chat at a fifth of the size: its allocations must not differ.
big_small="$(measure "gw and floor interleaved, 1 MiB data-URI image chat" "$GWBENCH" bigbody \
    "${big[@]}" kind=image kib=1024)"
check_loadserver
stop_loadserver

# --- The table.
# gw's cost over the floor's: a / b, "n/a" when either is missing.
ratio() {
    awk -v a="$1" -v b="$2" 'BEGIN {
        if (a == "" || b == "" || a == "n/a" || b == "n/a" || b + 0 == 0) print "n/a";
        else printf "%.2fx\n", a / b }'
}
unit() { if [ -n "$1" ] && [ "$1" != n/a ]; then echo "$1 $2"; else echo n/a; fi; }
row() { printf '| %s | %s | %s | %s | %s |\n' "$@"; }
# A figure measured for both: row LABEL KEY GW_LINE FLOOR_LINE UNIT TARGET.
both() {
    local g f
    g="$(get "$2" "$3")" f="$(get "$2" "$4")"
    row "$1" "$(unit "$g" "$5")" "$(unit "$f" "$5")" "$(ratio "$g" "$f")" "$6"
}
scaled() {
    local r one many
    r="$(get ratio "$1")" one="$(get calls_per_s_1 "$1")" many="$(get calls_per_s_n "$1")"
    echo "${r}x ($one -> $many calls/s)"
}

commit="$(git describe --always --dirty 2>/dev/null || echo unknown)"
lib_commit="$commit (this checkout)"
[ -f "$lib_dir/COMMIT" ] && lib_commit="$(head -n 1 "$lib_dir/COMMIT") (from $lib_dir/COMMIT)"
[ "$lib_dir" != "$PWD/target/release" ] && [ ! -f "$lib_dir/COMMIT" ] && lib_commit="unknown"
echo
echo "gw bench: $lib_dir/libgw.so, gw $(get version "$("$GWBENCH" version)"), commit $lib_commit"
echo "harness: bench/ at $commit; machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'); load average now $(cut -d' ' -f1-3 /proc/loadavg)"
[ "${GW_BENCH_QUICK:-0}" = 1 ] && echo "GW_BENCH_QUICK=1: counts 10x smaller, figures rough"
echo
row figure gw floor ratio target
row --- --- --- --- ---
both "non-streamed call, p50, client and server on one core" p50_us "$one_gw" "$one_fl" us "<= 1.3x"
both "same, p99" p99_us "$one_gw" "$one_fl" us "-"
both "same, CPU per call" cpu_us_per_call "$one_gw" "$one_fl" us "-"
both "reference, not gw: ureq alone (default Agent) sending the same request, p50, one core" \
    p50_us "$one_ureq" "$one_fl" us "- (the HTTP client gw is built on, by itself)"
both "same, CPU per call" cpu_us_per_call "$one_ureq" "$one_fl" us "-"
if [ -n "$two_gw" ]; then
    both "non-streamed call, p50, server on one core and client on another" p50_us "$two_gw" "$two_fl" us "<= 1.05x"
    both "same, p99" p99_us "$two_gw" "$two_fl" us "-"
    both "same, CPU per call" cpu_us_per_call "$two_gw" "$two_fl" us "-"
else
    row "non-streamed call, p50, server on one core and client on another" "n/a (one CPU)" n/a n/a "<= 1.05x"
fi
row "syscalls per call" "${sys_gw% *}" "${sys_fl% *}" "$(ratio "${sys_gw% *}" "${sys_fl% *}")" "<= 8"
row "threads created per call" "${sys_gw#* }" "${sys_fl#* }" - 0
row "TCP connections for 21 streamed calls in a row" "$(get streamed_connections "$conn_gw")" \
    "$(get streamed_connections "$conn_fl")" - 1
row "new TCP connections for 21 non-streamed calls after them" "$(get plain_connections "$conn_gw")" \
    "$(get plain_connections "$conn_fl")" - -
both "CPU per stream event ($events events of 157 B, callback, out NULL)" cpu_us_per_event "$ev_gw" "$ev_fl" us "<= 0.3 us"
row "heap allocations per stream event (callback)" "$(get allocs_per_event "$ev_gw")" \
    "$(get allocs_per_event "$ev_fl")" - "<= 2"
both "CPU per stream event, callback, out given (assembles the answer; issue 31's figure)" \
    cpu_us_per_event "$assembled_gw" "$ev_fl" us "<= 0.3 us"
row "heap allocations per stream event, callback, out given" \
    "$(get allocs_per_event "$assembled_gw")" "$(get allocs_per_event "$ev_fl")" - -
both "CPU per stream event, pull API (assembles the answer)" cpu_us_per_event "$pull_gw" "$ev_fl" us -
row "heap allocations per stream event, pull API" "$(get allocs_per_event "$pull_gw")" \
    "$(get allocs_per_event "$ev_fl")" - -
row "peak RSS growth over a $long_label stream (callback, out NULL)" \
    "$(unit "$(get rss_growth_mib "$rss_gw")" MiB)$rss_note" "$(unit "$(get rss_growth_mib "$rss_fl")" MiB)" - "< 1 MiB"
row "same stream, events per second" "$(get events_per_s "$rss_gw")" "$(get events_per_s "$rss_fl")" \
    "$(ratio "$(get events_per_s "$rss_fl")" "$(get events_per_s "$rss_gw")")" -
row "8 threads vs 1 on one client (floor: 8 connections), throughput" "$(scaled "$scale_gw")" \
    "$(scaled "$scale_fl")" - ">= 1.8x"
both "$upload_mib MiB multipart upload, best of $upload_reps" best_ms "$up_gw" "$up_fl" ms "<= 2x"
both "same, median" median_ms "$up_gw" "$up_fl" ms -
# Rows of one big-body line: CPU (with the ratio gwbench computed), allocations, RSS growth.
# A third argument replaces the CPU target (issue 20 sets none for the Chinese text).
big_rows() {
    local l="$2"
    row "$1, CPU per call (interleaved with the floor, median of $big_reps)" \
        "$(unit "$(get gw_cpu_us "$l")" us)" "$(unit "$(get floor_cpu_us "$l")" us)" \
        "$(get ratio "$l")x" "${3:-<= 2x}"
    row "same, heap allocations per call (bytes asked for)" \
        "$(get allocs_per_call "$l") ($(get alloc_mib_per_call "$l") MiB)" - - \
        "independent of the body's size"
    row "same, peak RSS growth during one call" \
        "$(get rss_growth_mib "$l") MiB ($(get rss_per_body "$l")x the body)" - - "<= 1.2x the body"
}
big_rows "5 MiB data-URI image chat (gw_chat)" "$big_img"
big_rows "1 MiB text chat (gw_chat)" "$big_txt"
big_rows "1 MiB Chinese text chat (gw_chat; UTF-8 past ASCII all through)" "$big_cjk" -
big_rows "5 MiB data-URI image chat streamed (gw_chat_stream, out NULL)" "$big_str"
row "heap allocations per call, image chat of 1 MiB vs 5 MiB" \
    "$(get allocs_per_call "$big_small") vs $(get allocs_per_call "$big_img")" - - "the same"
echo
echo "ratio: gw's time, CPU or count over the floor's (for events per second, the floor's rate over gw's)."

# --- Many streams in flight (issue 40): one thread driving exchanges (examples/exchange's
# epoll loop) beside a thread per gw_chat_stream, against gw-mock dripping an event every
# 200 ms so all are open at once (bench/inflight.c).
echo
if ! nm -D "$lib_dir/libgw.so" 2>/dev/null | grep ' gw_exchange_new$' >/dev/null; then
    echo "streams in flight: skipped, $lib_dir/libgw.so has no gw_exchange_* (older than the exchange)"
else
    echo "bench: compiling bench/inflight.c with examples/exchange" >&2
    under="$(dirname "$GWBENCH")"
    INFLIGHT="$under/inflight"
    header_dir=include
    [ -f "$lib_dir/gw.h" ] && header_dir="$lib_dir"
    cc "${bench_cflags[@]}" -I"$header_dir" -Iexamples/exchange -Ibench \
        bench/inflight.c bench/alloc_live.c bench/measure.c examples/exchange/gw_loop.c \
        examples/exchange/gwl_*.c -o "$INFLIGHT" -L"$under" -lgw -Wl,-rpath,"$under" -lz
    start_mock
    fly=(url="$MOCK_URL" n="$inflight_n" drip_ms=200)
    fly_loop="$(measure "$inflight_n streams in flight, exchange + gw_loop, one thread" "$INFLIGHT" loop "${fly[@]}")"
    fly_threads="$(measure "$inflight_n streams in flight, gw_chat_stream on a thread each" "$INFLIGHT" threads "${fly[@]}")"
    fly_fast="$(measure "one fast stream of $fast_words events, exchange + gw_loop" "$INFLIGHT" fast \
        url="$MOCK_URL" words="$fast_words")"
    stop_mock
    kib() { awk -v b="$1" 'BEGIN { printf "%.1f KiB", b / 1024 }'; }
    row3() { printf '| %s | %s | %s |\n' "$@"; }
    echo
    row3 "$inflight_n streamed chats in flight (gw-mock: an event every 200 ms)" \
        "exchange + gw_loop, one thread" "gw_chat_stream, one thread per call"
    row3 --- --- ---
    for key in wall_s cpu_s; do
        label="wall time"; [ "$key" = cpu_s ] && label="CPU (user + sys)"
        row3 "$label" "$(get "$key" "$fly_loop") s" "$(get "$key" "$fly_threads") s"
    done
    row3 "peak RSS (growth over the start)" \
        "$(get peak_rss_mib "$fly_loop") MiB (+$(get rss_growth_mib "$fly_loop"))" \
        "$(get peak_rss_mib "$fly_threads") MiB (+$(get rss_growth_mib "$fly_threads"))"
    row3 "threads, mid-stream" "$(get threads "$fly_loop")" "$(get threads "$fly_threads")"
    row3 "live heap per stream, mid-stream" \
        "$(kib "$(get live_per_stream_b "$fly_loop")"): gw $(kib "$(get gw_per_stream_b "$fly_loop")"), the loop $(kib "$(get loop_per_stream_b "$fly_loop")")" \
        "$(kib "$(get live_per_stream_b "$fly_threads")"): gw's state, the connection (ureq: 16 KiB in, 64 KiB out), the thread's"
    row3 "heap allocations per stream until then (bytes asked)" \
        "$(get allocs_per_stream "$fly_loop") ($(kib "$(get asked_per_stream_b "$fly_loop")"))" \
        "$(get allocs_per_stream "$fly_threads") ($(kib "$(get asked_per_stream_b "$fly_threads")"))"
    echo
    echo "gw's own state per streamed chat in flight (exchange, parser, assembly, buffers; target <= 32 KiB):"
    echo "  mid-stream: $(kib "$(get gw_per_stream_b "$fly_loop")"); an exchange just made: $(kib "$(get created_per_stream_b "$fly_loop")");"
    echo "  peak over one fast stream of $fast_words events (events only, no assembly): $(kib "$(get gw_peak_b "$fly_fast")")"
fi
echo "Raw lines: $log"
