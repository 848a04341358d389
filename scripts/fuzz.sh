#!/usr/bin/env bash
# make fuzz [FUZZ_SECONDS=N] [FUZZ_TARGETS="a b"] [FUZZ_FORK=J]: runs each cargo-fuzz target of
# fuzz/ for N seconds (default 60), one at a time with one job (the CPU is shared), from
# its committed corpus (new finds go to target/fuzz-corpus, so the committed seeds
# stay minimized). RUSTC_BOOTSTRAP=1 lets the stable toolchain take cargo-fuzz's
# nightly flags (-Zsanitizer=address, its runtimes are the toolchain's own).
# A crash stops the run with the input's path; copy it to fuzz/regressions/<target>/.
# FUZZ_FORK=J runs J worker processes per target (libFuzzer's -fork): for `response`, whose
# in-process gateway makes each execution cost ~1.5 ms, all cores are the only way to 10 M.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${FUZZ_SECONDS:-60}"
targets="${FUZZ_TARGETS:-sse_parser event_stream request_body validation options multipart response exchange go_answer_decode}"
if [ -n "$(echo " $targets " | sed 's/ go_answer_decode / /g' | tr -d ' ')" ]; then
    if ! cargo fuzz --version >/dev/null 2>&1; then
        cargo install cargo-fuzz --locked
    fi
    export RUSTC_BOOTSTRAP=1
    cargo fuzz build --release --debug-assertions
fi
for t in $targets; do
    if [ "$t" = go_answer_decode ]; then
        # Go's own fuzzing (bindings/go's FuzzAnswerDecode: the hand-written answer decoders
        # against encoding/json). A failing input lands in bindings/go/testdata/fuzz/, which
        # `go test` replays from then on: commit it with the fix.
        echo "== $t: ${seconds}s"
        make -s build >target/fuzz-go-build.log 2>&1 || { cat target/fuzz-go-build.log >&2; exit 1; }
        stamp="$(cat target/release/libgw.a include/gw.h | sha256sum | cut -c1-16)"
        (cd bindings/go && CGO_CFLAGS="-O2 -g -DGW_BUILD_STAMP=$stamp" \
            go test -run '^$' -fuzz '^FuzzAnswerDecode$' -fuzztime "${seconds}s" -parallel 1 . 2>&1 | tail -n 3)
        continue
    fi
    work="$PWD/target/fuzz-corpus/$t"
    mkdir -p "$work"
    echo "== $t: ${seconds}s"
    # One process unless FUZZ_FORK (no -jobs: libFuzzer's -jobs=1 forks a worker that logs to a
    # file).
    extra=()
    [ -f "fuzz/dict/$t.dict" ] && extra=(-dict="$PWD/fuzz/dict/$t.dict")
    [ -n "${FUZZ_FORK:-}" ] && extra+=(-fork="$FUZZ_FORK")
    cargo fuzz run --release --debug-assertions "$t" "$work" "$PWD/fuzz/corpus/$t" -- \
        -max_total_time="$seconds" -print_final_stats=1 -timeout=20 -rss_limit_mb=3072 \
        "${extra[@]}" 2>&1 | tee "target/fuzz-$t.log" | grep -E "^(#[0-9]+ +DONE|stat::number_of_executed_units|==|SUMMARY|Test unit written)" || true
    # -fork prints a running total per job instead of final stats: its last line is the count.
    [ -n "${FUZZ_FORK:-}" ] && { grep -E "^#[0-9]+: " "target/fuzz-$t.log" | tail -n 1 || true; }
    if grep -q "Test unit written\|SUMMARY:" "target/fuzz-$t.log"; then
        echo "fuzz: $t found a failing input (target/fuzz-$t.log)" >&2
        exit 1
    fi
done
