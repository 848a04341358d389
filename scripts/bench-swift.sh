#!/usr/bin/env bash
# The Swift binding's overhead over the C ABI (bindings/swift/Sources/GwBench), against a
# gw-mock started here: per-call wall and CPU time, CPU per stream event. Prints a table,
# asserts nothing. Release build. GW_BENCH_CALLS / GW_BENCH_STREAMS / GW_BENCH_WORDS tune it;
# GW_BENCH_BIG_KIB / GW_BENCH_BIG_CALLS the big data-URI image chat (Swift Data vs gw_chat).
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT="${SWIFT:-$(command -v swift || echo /opt/swift/usr/bin/swift)}"
[ -x "$SWIFT" ] || { echo "bench-swift: no Swift toolchain (swift on PATH or /opt/swift)" >&2; exit 1; }
for f in target/release/libgw.a target/release/gw-mock; do
    [ -e "$f" ] || { echo "bench-swift: $f is missing; run make build" >&2; exit 1; }
done
scratch=bindings/swift/.build/release-bench
# SwiftPM does not track libgw.a: relink when it changed.
digest="$(sha256sum target/release/libgw.a | cut -d' ' -f1)"
if [ "$(cat "$scratch/libgw.sha256" 2>/dev/null)" != "$digest" ]; then
    find "$scratch" -maxdepth 3 -name 'gw-swift-*' -prune -exec rm -rf {} + 2>/dev/null || true
fi
"$SWIFT" build -c release --package-path bindings/swift --scratch-path "$scratch" --product gw-swift-bench
mkdir -p "$scratch" && echo "$digest" >"$scratch/libgw.sha256"

source scripts/lib/mock.sh
start_mock
GW_BASE_URL="$MOCK_URL" "$scratch/release/gw-swift-bench"
