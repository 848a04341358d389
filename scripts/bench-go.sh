#!/usr/bin/env bash
# make bench-go: bindings/go under load and per call (bindings/go/bench, its own module: the
# binding itself keeps no third-party dependency). Asserts nothing.
# 1. bench/load: streams in flight at once (STREAMS, default 100,1000,2000) and plain calls
#    from 8 goroutines, each library in a fresh process: peak RSS and RSS per stream, OS
#    threads, CPU per stream and per call, RSS and threads 2 s after the burst; gw through
#    net/http and through its built-in transport, and go-openai beside them where the Go
#    module proxy gives it (or GO_OPENAI_SRC names a checkout of its source), and bare
#    net/http (no client library: the floor). Medians of ROUNDS (default 3). Then, under
#    callgrind where valgrind is installed, instructions per plain call and per 19-event
#    stream (whole process, one goroutine) and Go allocations per call: figures the
#    machine's load does not move. Printed to build/bench-go-load.txt.
# 2. The per-call benchmarks against openai-go and go-openai (BENCHTIME, default 1s; COUNT,
#    default 6), with a benchstat table; only where the module proxy gives those modules.
set -euo pipefail
cd "$(dirname "$0")/.."
PATH="$(scripts/ci/install-go.sh --which):$PATH"
stamp="$(cat target/release/libgw.a include/gw.h | sha256sum | cut -c1-16)"
export CGO_CFLAGS="${CGO_CFLAGS:--O2 -g} -DGW_BUILD_STAMP=$stamp" # see scripts/test-go.sh
export GW_MOCK_BIN="$PWD/target/release/gw-mock"
mkdir -p build
out="$PWD/build/bench-go.txt"
cd bindings/go/bench
tags=()
if timeout 120 go mod download github.com/sashabaranov/go-openai github.com/openai/openai-go/v3 >/dev/null 2>&1; then
    tags=(-tags openai)
    third_party=1
else
    third_party=0
    echo "bench-go: openai-go and go-openai cannot be fetched (no module proxy): gw's two transports only"
fi
if [ "$third_party" = 0 ] && [ -n "${GO_OPENAI_SRC:-}" ]; then
    # A checkout of go-openai's source (it needs no module of its own) puts it beside gw
    # without the proxy: the load program alone, built in a module of its own that
    # replaces both modules by their directories.
    side="$(mktemp -d)"
    trap 'rm -rf "$side"' EXIT
    mkdir "$side/load"
    cp load/*.go "$side/load/"
    printf '%s\n' "module loadbench" "" "go 1.26.0" "" \
        "require github.com/gw-dev/gw/bindings/go v0.0.0" \
        "require github.com/sashabaranov/go-openai v1.43.0" \
        "replace github.com/gw-dev/gw/bindings/go => $(cd .. && pwd)" \
        "replace github.com/sashabaranov/go-openai => $(cd "$GO_OPENAI_SRC" && pwd)" >"$side/go.mod"
    echo "bench-go: go-openai from $GO_OPENAI_SRC"
    bin="$PWD/../../../build/bench-go-load"
    (cd "$side" && GOFLAGS=-mod=mod go build -tags openai -o "$bin" ./load)
else
    go build "${tags[@]}" -o "$PWD/../../../build/bench-go-load" ./load
fi
"$PWD/../../../build/bench-go-load" -streams "${STREAMS:-100,1000,2000}" -rounds "${ROUNDS:-3}" |
    tee "$PWD/../../../build/bench-go-load.txt"
[ "$third_party" = 1 ] || exit 0
echo
go test -run '^$' -bench . -benchtime "${BENCHTIME:-1s}" -count "${COUNT:-6}" | tee "$out"
go tool benchstat -col /client "$out"
