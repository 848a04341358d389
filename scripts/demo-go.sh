#!/usr/bin/env bash
# make demo, Go part: streams a chat reply with bindings/go/examples/chat. Run from
# scripts/demo.sh, which has built gw and set GW_BASE_URL / GW_API_KEY (the mock or a
# real gateway).
set -euo pipefail
cd "$(dirname "$0")/.."
go_status=0
go_dir="$(scripts/ci/install-go.sh --which 2>/dev/null)" || go_status=$?
if [ "$go_status" -eq 77 ]; then
    echo
    echo "demo-go: skipped (needs Go >= 1.23; this machine has none and offers none)"
    exit 0
fi
[ "$go_status" -eq 0 ] || exit "$go_status"
PATH="$go_dir:$PATH"
stamp="$(cat target/release/libgw.a include/gw.h | sha256sum | cut -c1-16)"
export CGO_CFLAGS="${CGO_CFLAGS:--O2 -g} -DGW_BUILD_STAMP=$stamp" # see scripts/test-go.sh
echo
echo "== bindings/go/examples/chat"
cd bindings/go
go run ./examples/chat "Hello from Go"
