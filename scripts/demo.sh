#!/usr/bin/env bash
# make demo: builds gw, then runs the C quick-starts in examples/ against a gateway, then
# examples/exchange (100 streamed chats at once on one thread, through the exchange and an
# epoll loop), then the Go, C++, Kotlin and Swift examples (each says when this machine
# cannot run it).
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

using_mock=0
if [ -z "${GW_BASE_URL:-}" ]; then
    using_mock=1
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

# The exchange driven by an event loop: plain http:// to a numeric address only (gw_loop.h),
# and only gw-mock answers each prompt with a text the example can check.
echo
echo "== examples/exchange/many_streams.c (one thread, 100 streamed chats at once)"
if [[ "$GW_BASE_URL" == http://* ]]; then
    cc -Wall -Wextra -Werror -std=c11 -Iinclude -Iexamples/exchange examples/exchange/*.c \
        -o "$bin/many_streams" -Ltarget/release -lgw -Wl,-rpath,"$PWD/target/release" -lz
    GW_EXPECT_ECHO="$using_mock" "$bin/many_streams" 100
else
    echo "skipped: examples/exchange's loop speaks plain http:// only, and GW_BASE_URL is not"
fi
scripts/demo-go.sh
scripts/demo-cpp.sh
scripts/demo-kotlin.sh
scripts/demo-swift.sh
echo
echo "demo: all examples succeeded"
