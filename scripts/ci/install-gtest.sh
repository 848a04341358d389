#!/usr/bin/env bash
# Installs what the C++ suite needs when it is missing: GoogleTest (Debian's libgtest-dev,
# which ships the built libraries), nlohmann/json (nlohmann_test.cpp checks gw/nlohmann.hpp
# against it), CMake and g++. Idempotent: does nothing when all are there.
set -euo pipefail
source "$(dirname "$0")/../lib/apt.sh"

need=()
if [ ! -f /usr/include/gtest/gtest.h ] || ! compgen -G "/usr/lib/*/libgtest.a" >/dev/null; then
    need+=(libgtest-dev)
fi
[ -f /usr/include/nlohmann/json.hpp ] || need+=(nlohmann-json3-dev)
command -v cmake >/dev/null || need+=(cmake)
command -v g++ >/dev/null || need+=(g++)

if [ "${#need[@]}" -eq 0 ]; then
    echo "install-gtest: GoogleTest, nlohmann/json, CMake and g++ are present"
    exit 0
fi
echo "install-gtest: installing ${need[*]}"
apt_install "${need[@]}"
