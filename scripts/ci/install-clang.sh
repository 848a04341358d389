#!/usr/bin/env bash
# clang, for make test-header: it checks gw.h's nullability the way Swift and Kotlin/Native
# read it. Debian's package; does nothing when clang is already there.
set -euo pipefail

if command -v clang >/dev/null && command -v clang++ >/dev/null; then
    echo "install-clang: $(clang --version | head -n 1) is present"
    exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "install-clang: apt-get install clang"
$sudo apt-get update </dev/null
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends clang </dev/null
