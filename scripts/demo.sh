#!/usr/bin/env bash
# make demo: builds gw, then runs the C quick-starts in examples/ against a gateway, then the
# Go, C++, Kotlin and Swift examples (each says when this machine cannot run it).
# With GW_BASE_URL unset it starts the mock gateway on a free port; with GW_BASE_URL and
# GW_API_KEY set it talks to that gateway (models from GW_CHAT_MODEL, GW_IMAGE_MODEL,
# GW_VIDEO_MODEL; the examples have defaults).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/mock.sh

echo "demo: cargo build --release --workspace"
cargo build --release --workspace
# The licenses scripts/install.sh installs with the library (the C++ demo installs it).
scripts/build-notices.sh

if [ -z "${GW_BASE_URL:-}" ]; then
    start_mock
    export GW_BASE_URL="$MOCK_URL" GW_API_KEY=sk-test
    # Mock video tasks finish on the third poll: no need to wait a second between polls.
    export GW_POLL_MS="${GW_POLL_MS:-100}"
    echo "demo: started the mock gateway at $GW_BASE_URL"
else
    : "${GW_API_KEY:?GW_API_KEY must be set along with GW_BASE_URL}"
    echo "demo: using the gateway at $GW_BASE_URL"
fi

bin=build/examples
mkdir -p "$bin"
for example in chat_stream image video; do
    cc -Wall -Wextra -Werror -std=c11 -Iinclude "examples/$example.c" -o "$bin/$example" \
        -Ltarget/release -lgw -Wl,-rpath,"$PWD/target/release"
done

for example in chat_stream image video; do
    echo
    echo "== examples/$example.c"
    "$bin/$example"
done
scripts/demo-go.sh
scripts/demo-cpp.sh
scripts/demo-kotlin.sh
scripts/demo-swift.sh
echo
echo "demo: all examples succeeded"
