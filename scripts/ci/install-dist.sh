#!/usr/bin/env bash
# Installs what `make dist` and test-dist need, when missing (idempotent; says what it installs):
#   - Debian (bookworm and bookworm-security): rustc-web 1.96 (/usr/bin/rustc) with the aarch64
#     std (libstd-rust-web-dev:arm64, so arm64 is added as a foreign architecture),
#     gcc-aarch64-linux-gnu and its libc (cross-linking aarch64), qemu-user (running aarch64
#     programs), g++ and cmake (the SDK consumers), python3-venv.
#   - PyPI, in a virtualenv of its own (DIST_VENV, default ~/.cache/gw/dist-venv): ziglang and
#     cargo-zigbuild, pinned: zig links the x86_64 libgw.so against glibc 2.17.
# `install-dist.sh --venv-bin` prints the virtualenv's bin folder (for PATH) and installs
# nothing.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/apt.sh

venv="${DIST_VENV:-$HOME/.cache/gw/dist-venv}"
if [ "${1:-}" = --venv-bin ]; then
    echo "$venv/bin"
    exit 0
fi
say() { echo "install-dist: $*"; }

if ! dpkg --print-foreign-architectures | grep -x arm64 >/dev/null; then
    say "dpkg --add-architecture arm64 (for libstd-rust-web-dev:arm64)"
    apt_sudo dpkg --add-architecture arm64
    rm -f /var/lib/apt/lists/partial/.gw-updated 2>/dev/null || apt_sudo rm -f /var/lib/apt/lists/partial/.gw-updated
fi
missing=()
for pkg in rustc-web libstd-rust-web-dev:arm64 gcc-aarch64-linux-gnu libc6-dev-arm64-cross \
    qemu-user g++ cmake python3-venv; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
    say "installing ${missing[*]}"
    apt_install "${missing[@]}"
fi
case "$(/usr/bin/rustc --version)" in
"rustc 1.96."*) ;;
*) say "/usr/bin/rustc is $(/usr/bin/rustc --version), not rustc-web 1.96 (bookworm-security)"; exit 1 ;;
esac

if ! "$venv/bin/cargo-zigbuild" --version >/dev/null 2>&1 || ! "$venv/bin/python" -m ziglang version >/dev/null 2>&1; then
    say "ziglang and cargo-zigbuild from PyPI into $venv"
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q ziglang==0.17.1 cargo-zigbuild==0.24.1
fi
say "zig $("$venv/bin/python" -m ziglang version), $("$venv/bin/cargo-zigbuild" --version), $(/usr/bin/rustc --version) at /usr/bin/rustc"
