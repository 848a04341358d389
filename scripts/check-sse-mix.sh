#!/usr/bin/env bash
# check-sse-mix.sh LIB: fails when a function of LIB uses ymm registers and also a legacy-encoded
# (non-VEX) SSE instruction. After an AVX instruction leaves the upper halves of the registers
# in use, each such instruction costs a state transition on Intel CPUs: an `asm!` load that
# the compiler cannot re-encode made gw's 1 MiB request-body scan 4.5x slower, and no
# instruction count shows it. Run by scripts/bench-instructions.sh (the test-instructions suite)
# on the release library and by scripts/dist/natives.sh on the x86_64 archive.
set -euo pipefail
lib="$1"
command -v objdump >/dev/null || { echo "check-sse-mix: objdump is not installed" >&2; exit 1; }
# The library's own architecture decides, not the machine's (ymm and SSE are x86_64's).
if ! objdump -f "$lib" | grep 'architecture: i386:x86-64' >/dev/null; then
    echo "check-sse-mix: SKIPPED ($lib is not x86_64 code)"
    exit 0
fi
mixed="$(objdump -d --no-show-raw-insn "$lib" | awk '
    function report() {
        if (ymm > 0 && legacy > 0)
            printf "  %s: %d legacy SSE instructions beside %d on ymm\n", fn, legacy, ymm
    }
    /^[0-9a-f]+ <.*>:$/ { report(); fn = $2; sub(/^</, "", fn); sub(/>:$/, "", fn); ymm = 0; legacy = 0; next }
    /%ymm/ { ymm++ }
    /%xmm/ {
        n = split($0, fields, "\t"); mnemonic = fields[n]; sub(/ .*/, "", mnemonic)
        if (mnemonic !~ /^v/) legacy++
    }
    END { report() }')"
if [ -n "$mixed" ]; then
    echo "check-sse-mix: $lib mixes AVX and legacy SSE in one function:" >&2
    printf '%s\n' "$mixed" >&2
    exit 1
fi
echo "check-sse-mix: no function of $lib mixes AVX and legacy SSE"
