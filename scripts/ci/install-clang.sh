#!/usr/bin/env bash
# clang, for make test-header: it checks gw.h's nullability the way Swift and Kotlin/Native
# read it. Debian's package; does nothing when clang is already there.
set -euo pipefail
source "$(dirname "$0")/../lib/apt.sh"

if command -v clang >/dev/null && command -v clang++ >/dev/null; then
    echo "install-clang: $(clang --version | head -n 1) is present"
    exit 0
fi
echo "install-clang: apt-get install clang"
apt_install clang
