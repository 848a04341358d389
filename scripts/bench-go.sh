#!/usr/bin/env bash
# make bench-go: bindings/go against openai-go and go-openai on one gw-mock, same requests
# (bindings/go/bench, its own module: the binding itself keeps no third-party dependency).
# Fetches those clients and benchstat from the Go module proxy on first use. Prints the
# raw runs to build/bench-go.txt and a benchstat table (medians over COUNT runs).
# BENCHTIME (default 1s) and COUNT (default 6) tune it; asserts nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
PATH="$(scripts/ci/install-go.sh --which):$PATH"
stamp="$(cat target/release/libgw.a include/gw.h | sha256sum | cut -c1-16)"
export CGO_CFLAGS="${CGO_CFLAGS:--O2 -g} -DGW_BUILD_STAMP=$stamp" # see scripts/test-go.sh
export GW_MOCK_BIN="$PWD/target/release/gw-mock"
mkdir -p build
out="$PWD/build/bench-go.txt"
cd bindings/go/bench
go test -run '^$' -bench . -benchtime "${BENCHTIME:-1s}" -count "${COUNT:-6}" | tee "$out"
go tool benchstat -col /client "$out"
