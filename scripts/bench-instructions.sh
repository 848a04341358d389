#!/usr/bin/env bash
# make bench-instructions (and the test-instructions suite): user-space instructions gw spends
# per plain call, per stream event, per 1 MiB text chat and per 5 MiB image chat, and per plain
# call through the sans-IO exchange as the Go binding drives it (split by phase), counted by
# callgrind (this VM has no `perf stat -e instructions`) and compared with the committed
# baseline, bench/instructions-baseline.txt. Instruction counts do not move with the machine's
# load as wall-clock figures do, so a figure more than 5% above its baseline fails the run.
#
# Each figure is marginal: bench/gwinstr runs its mode at two lengths and the difference is
# divided by the difference of the lengths, so start-up (the first connection, lazy statics)
# cancels out. Only gw's entry points are counted (--toggle-collect=gw_chat*), not the harness;
# the exchange's figure counts gwinstr's phase functions (exch_phase_*), each a few gw calls,
# and callgrind_annotate splits it by phase (bench/gwinstr.c).
#
#   GW_INSTR_LIB_DIR=DIR   measure DIR/libgw.so instead of target/release
#   GW_INSTR_WRITE=1       write the measured figures as the new baseline (a commit of its own
#                          that says why)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/bench-server.sh

lib_dir="$(cd "${GW_INSTR_LIB_DIR:-target/release}" && pwd)"
baseline=bench/instructions-baseline.txt
tolerance_pct=5
[ -f "$lib_dir/libgw.so" ] || { echo "bench-instructions: no $lib_dir/libgw.so (make build)" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "bench-instructions: valgrind is not installed" >&2; exit 1; }
# A cost no instruction count shows: AVX and legacy SSE mixed in one function.
scripts/check-sse-mix.sh "$lib_dir/libgw.so"

out=target/bench-instr
mkdir -p "$out"
cflags=(-O2 -Wall -Wextra -Werror -std=c11 -pthread)
LOADSERVER="$out/loadserver"
cc "${cflags[@]}" bench/loadserver.c bench/loadserver_routes.c bench/chunked.c bench/http_head.c \
    -o "$LOADSERVER"
ln -sf "$lib_dir/libgw.so" "$out/libgw.so.0"
ln -sf "$lib_dir/libgw.so" "$out/libgw.so"
cc "${cflags[@]}" -Iinclude bench/gwinstr.c bench/bodies.c bench/gwcheck.c -o "$out/gwinstr" \
    -L"$out" -lgw -Wl,-rpath,"$PWD/$out"
start_loadserver

# The exchange's phases, as gwinstr names them; last_response is counted beside a call, not in it.
phases=(derive new request feed_head body_end_finish frees)
exchange_short=200 exchange_long=1200

# "PHASE INSTRUCTIONS" lines of the exchange run FILE, inclusive of what each phase calls.
phase_counts() {
    callgrind_annotate --inclusive=yes "$1" |
        sed -n 's/^ *\([0-9,]*\) .*:exch_phase_\([a-z_]*\) .*/\2 \1/p' | tr -d ,
}

# Instructions counted in gw_chat* over one run: MODE N (the exchange mode: in its six phases).
count() {
    local mode="$1" n="$2" file="$out/callgrind.$1.$2" collect='gw_chat*'
    local args=(port="$LOAD_PORT" n="$n")
    if [ "$mode" = exchange ]; then
        collect='exch_phase_*'
        args=(n="$n")
    fi
    rm -f "$file"
    if ! valgrind --tool=callgrind --callgrind-out-file="$file" --toggle-collect="$collect" \
        "$out/gwinstr" "$mode" "${args[@]}" >"$out/$mode.$n.log" 2>&1; then
        echo "bench-instructions: gwinstr $mode n=$n failed:" >&2
        tail -n 20 "$out/$mode.$n.log" >&2
        exit 1
    fi
    check_loadserver
    if [ "$mode" = exchange ]; then
        phase_counts "$file" | awk -v want="${phases[*]}" '
            BEGIN {split(want, p, " "); for (i in p) in_call[p[i]] = 1}
            ($1 in in_call) {sum += $2; seen++}
            END {if (seen != length(in_call)) exit 1; print sum}' || {
            echo "bench-instructions: not every exchange phase in $file" >&2
            exit 1
        }
        return
    fi
    awk '/^totals:/ {print $2; found=1} END {if (!found) exit 1}' "$file" || {
        echo "bench-instructions: no totals in $file" >&2
        exit 1
    }
}

# The exchange's figure by phase (marginal, per call), from the runs of its two lengths.
print_phases() {
    local short="$1" long="$2"
    join <(phase_counts "$out/callgrind.exchange.$short" | sort) \
        <(phase_counts "$out/callgrind.exchange.$long" | sort) |
        awk -v d=$((long - short)) -v order="${phases[*]} last_response" '
            {per[$1] = int(($3 - $2) / d)}
            END {
                n = split(order, p, " ")
                for (i = 1; i <= n; i++) {
                    note = p[i] == "last_response" ? "  (gw_client_last_response, not in the call)" : ""
                    printf "  %-22s %14d%s\n", p[i], per[p[i]], note
                }
            }'
}

# figure mode short long unit
figures=(
    "plain_call call 200 1200 call"
    "stream_event stream 10000 50000 event"
    "text_chat_1mib bigtext 2 6 call"
    "image_chat_5mib bigimage 1 3 call"
    "exchange_call exchange $exchange_short $exchange_long call"
)

declare -A base
if [ -f "$baseline" ]; then
    while read -r name value _; do
        [[ -z "$name" || "$name" == \#* ]] && continue
        base["$name"]="$value"
    done <"$baseline"
fi

failed=0
results=()
printf '%-16s %14s %14s %8s  %s\n' figure "instructions" baseline ratio verdict
for spec in "${figures[@]}"; do
    read -r name mode short long unit <<<"$spec"
    a="$(count "$mode" "$short")"
    b="$(count "$mode" "$long")"
    per=$(((b - a) / (long - short)))
    results+=("$name $per per-$unit")
    ref="${base[$name]:-}"
    if [ -z "$ref" ]; then
        printf '%-16s %14d %14s %8s  %s\n' "$name" "$per" - - "no baseline"
        [ "${GW_INSTR_WRITE:-0}" = 1 ] || failed=1
        continue
    fi
    ratio="$(awk -v a="$per" -v b="$ref" 'BEGIN {printf "%.3f", a / b}')"
    verdict=ok
    if awk -v a="$per" -v b="$ref" -v t="$tolerance_pct" 'BEGIN {exit !(a > b * (1 + t / 100))}'; then
        verdict="FAIL: more than ${tolerance_pct}% above the baseline"
        failed=1
    elif awk -v a="$per" -v b="$ref" -v t="$tolerance_pct" 'BEGIN {exit !(a < b * (1 - t / 100))}'; then
        verdict="ok, more than ${tolerance_pct}% below: lower the baseline (a commit that says why)"
    fi
    printf '%-16s %14d %14d %8s  %s\n' "$name" "$per" "$ref" "$ratio" "$verdict"
done
echo "exchange_call by phase (instructions per call; derive ... frees add up to exchange_call):"
print_phases "$exchange_short" "$exchange_long"

if [ "${GW_INSTR_WRITE:-0}" = 1 ]; then
    {
        echo "# figure  user-space instructions per unit (callgrind, marginal; scripts/bench-instructions.sh)"
        echo "# Measured with $(rustc --version 2>/dev/null || echo "an unknown rustc") on $(date -u +%F), CPU: $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n 1)."
        printf '%s\n' "${results[@]}"
    } >"$baseline"
    echo "bench-instructions: wrote $baseline" >&2
    exit 0
fi
if [ "$failed" = 1 ]; then
    echo "bench-instructions: a figure is above its baseline ($baseline) or has none" >&2
    exit 1
fi
