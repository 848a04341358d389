#!/usr/bin/env bash
# Installs what the C++ suite needs when it is missing: GoogleTest (Debian's libgtest-dev,
# which ships the built libraries), CMake and g++. Idempotent: does nothing when all are there.
set -euo pipefail

need=()
if [ ! -f /usr/include/gtest/gtest.h ] || ! compgen -G "/usr/lib/*/libgtest.a" >/dev/null; then
    need+=(libgtest-dev)
fi
command -v cmake >/dev/null || need+=(cmake)
command -v g++ >/dev/null || need+=(g++)

if [ "${#need[@]}" -eq 0 ]; then
    echo "install-gtest: GoogleTest, CMake and g++ are present"
    exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "install-gtest: installing ${need[*]}"
$sudo apt-get update </dev/null
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "${need[@]}" </dev/null
