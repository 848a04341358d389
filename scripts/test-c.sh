#!/usr/bin/env bash
# The C suite (tests/c): built against include/gw.h with -Wall -Wextra -Werror, linked once
# with libgw.so and once with libgw.a; both run against one gw-mock, and the shared build
# runs again under valgrind (no leak, no memory error). Every run happens even when an
# earlier one fails, so one pass shows everything. The C examples run too (under valgrind),
# and the C of README.md and docs/ (scripts/doc-snippets.sh).
# Expects `make build` to have run.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/mock.sh

lib=target/release
out=build/c-tests
cflags=(-Wall -Wextra -Werror -std=c11 -g -Iinclude -Itests/c -Iexamples/exchange -pthread)
# The exchange's event-loop driver (examples/exchange) is built into the suite: its tests
# drive it (tests/c/test_exchange_loop.c). It inflates gzip answers with zlib.
loop_c=(examples/exchange/gw_loop.c examples/exchange/gwl_*.c)
mkdir -p "$out"

echo "test-c: compiling tests/c and examples/exchange's loop (shared and static)"
cc "${cflags[@]}" tests/c/*.c "${loop_c[@]}" -o "$out/gw_tests_shared" -L"$lib" -lgw \
    -Wl,-rpath,"$PWD/$lib" -lz
cc "${cflags[@]}" tests/c/*.c "${loop_c[@]}" -o "$out/gw_tests_static" "$lib/libgw.a" \
    -lpthread -ldl -lm -lz
# The static build must not need libgw.so at run time.
if ldd "$out/gw_tests_static" | grep libgw >/dev/null; then
    echo "test-c: gw_tests_static links libgw.so dynamically" >&2
    exit 1
fi
command -v valgrind >/dev/null || { echo "test-c: valgrind is not installed" >&2; exit 1; }

start_mock
export GW_TEST_BASE_URL="$MOCK_URL"
echo "test-c: gw-mock at $GW_TEST_BASE_URL"

failed=()

echo "test-c: shared build"
"$out/gw_tests_shared" || failed+=(shared)

echo "test-c: static build"
"$out/gw_tests_static" || failed+=(static)

echo "test-c: shared build under valgrind"
# The suppression file holds runtime-internal false positives only; see the reasons there.
vg_log="$out/valgrind.log"
vg_status=0
# --child-silent-after-fork: the fork test's children would otherwise write their own
# reports into the same log (they check themselves and report through a pipe).
# 100 streams at once through the loop instead of 1,000: the same paths, a tenth of the time.
GW_TEST_LOOP_STREAMS=100 valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect,possible \
    --child-silent-after-fork=yes \
    --show-leak-kinds=definite,indirect,possible --error-exitcode=1 \
    --suppressions=tests/c/valgrind.supp --log-file="$vg_log" \
    "$out/gw_tests_shared" || vg_status=$?
grep -v '^==[0-9]*== *$' "$vg_log" | grep -A1000 'HEAP SUMMARY' || cat "$vg_log"
# A suppression may hide one block (the main thread's handle), never a growing number.
suppressed="$(sed -n 's/.*suppressed: [0-9,]* bytes in \([0-9,]*\) blocks.*/\1/p' "$vg_log" | tail -n 1)"
if [ "$vg_status" -ne 0 ] || [ "${suppressed:-0}" -gt 1 ]; then
    failed+=(valgrind)
fi

# The C examples (examples/*.c) as `make demo` builds them, run against the mock under
# valgrind. chat_stream gets the model name from issue 22 that used to inject a field
# ("temperature": 9, refused): quoted with gw_json_quote, it is one model name.
echo "test-c: examples/*.c, given text that would inject a field"
injection='m", "temperature": 9, "x": "'
examples_ok=1
for example in chat_stream image video; do
    cc -Wall -Wextra -Werror -std=c11 -g -Iinclude "examples/$example.c" -o "$out/$example" \
        -L"$lib" -lgw -Wl,-rpath,"$PWD/$lib" || { examples_ok=0; continue; }
    if ! GW_BASE_URL="$MOCK_URL" GW_API_KEY=sk-test GW_POLL_MS=50 GW_CHAT_MODEL="$injection" \
        valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect,possible \
            --show-leak-kinds=definite,indirect,possible --error-exitcode=1 \
            --suppressions=tests/c/valgrind.supp "$out/$example" >"$out/$example.log" 2>&1; then
        cat "$out/$example.log" >&2
        examples_ok=0
    fi
done
grep -q '^usage: {' "$out/chat_stream.log" || examples_ok=0
grep -q '^image: http' "$out/image.log" || examples_ok=0
grep -q '^video: http' "$out/video.log" || examples_ok=0
[ "$examples_ok" -eq 1 ] || { cat "$out"/{chat_stream,image,video}.log >&2; failed+=(examples); }

# The C in the documentation: README.md's quick start built, run and its output compared
# (a quoted injection included), docs/drivers.md's loop compiled (scripts/doc-snippets.sh).
echo "test-c: the C of README.md and docs/"
scripts/doc-snippets.sh "$out/doc-snippets" || failed+=(doc-snippets)

if [ "${#failed[@]}" -gt 0 ]; then
    echo "test-c: FAILED: ${failed[*]}" >&2
    exit 1
fi
echo "test-c: shared, static and valgrind runs passed"
