#!/usr/bin/env bash
# The Swift example (bindings/swift/Sources/GwExample): chat, a stream, an image and a video
# wait, through gw's own stack and then through URLSession. Against GW_BASE_URL / GW_API_KEY when GW_BASE_URL is set, else against a gw-mock
# started here. Expects `make build` (libgw.a, gw-mock) and a Swift toolchain.
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT="${SWIFT:-$(command -v swift || echo /opt/swift/usr/bin/swift)}"
if [ ! -x "$SWIFT" ]; then
    echo
    echo "demo-swift: skipped (no Swift toolchain: swift on PATH or /opt/swift)"
    exit 0
fi
[ -e target/release/libgw.a ] || { echo "demo-swift: target/release/libgw.a is missing; run make build" >&2; exit 1; }

if [ -z "${GW_BASE_URL:-}" ]; then
    source scripts/lib/mock.sh
    start_mock
    export GW_BASE_URL="$MOCK_URL" GW_API_KEY=sk-test
    echo "demo-swift: against gw-mock at $GW_BASE_URL"
fi
# The plain scratch directory of scripts/test-swift.sh: built once for both. Then the same
# through the URLSession transport (GW_TRANSPORT=urlsession), from the same build.
"$SWIFT" run --package-path bindings/swift --scratch-path bindings/swift/.build/plain \
    -Xswiftc -warnings-as-errors gw-swift-example
echo
GW_TRANSPORT=urlsession "$SWIFT" run --package-path bindings/swift --scratch-path bindings/swift/.build/plain \
    --skip-build gw-swift-example
