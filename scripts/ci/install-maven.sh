#!/usr/bin/env bash
# Installs Maven and a JDK (17+) from Debian when missing; does nothing when both are there.
# Used by .ci/run before `make test` (test-kotlin needs them).
set -euo pipefail
source "$(dirname "$0")/../lib/apt.sh"

have_jdk() {
    command -v javac >/dev/null || return 1
    local v
    v="$(javac -version 2>&1 | sed -n 's/^javac \([0-9]*\).*/\1/p')"
    [ "${v:-0}" -ge 17 ]
}

if command -v mvn >/dev/null && have_jdk; then
    echo "install-maven: maven and JDK $(javac -version 2>&1 | cut -d' ' -f2) are present"
    exit 0
fi

packages=(maven)
have_jdk || packages+=(openjdk-17-jdk-headless)
echo "install-maven: installing ${packages[*]}"
apt_install "${packages[@]}"
