#!/usr/bin/env bash
# The C++ quick-start (examples/cpp) as a user meets it: `make install` into a scratch prefix,
# a CMake project using find_package(gw CONFIG) and gw::cpp, then the program run against the
# gateway in GW_BASE_URL / GW_API_KEY (with GW_BASE_URL unset, a mock gateway is started).
# Called at the end of scripts/demo.sh; expects `make build` to have run.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/mock.sh
source scripts/lib/cpp-example.sh

if [ -z "${GW_BASE_URL:-}" ]; then
    start_mock
    export GW_BASE_URL="$MOCK_URL" GW_API_KEY=sk-test
fi

work=build/cpp-demo
rm -rf "$work"
mkdir -p "$work"
PREFIX="$PWD/$work/prefix" scripts/install.sh
build_cpp_example "$PWD/$work/prefix" "$work/example" OFF

echo
echo "== examples/cpp/main.cpp (CMake: find_package(gw CONFIG), gw::cpp)"
"$work/example/chat_stream"
