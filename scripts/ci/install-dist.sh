#!/usr/bin/env bash
# Installs what `make dist` and test-dist need, when missing (idempotent; says what it installs):
#   - Debian (bookworm and bookworm-security): rustc-web 1.96 (/usr/bin/rustc) and its std's
#     source (rust-web-src): make dist builds std from source with gw for both platforms
#     (scripts/dist/natives.sh), so no prebuilt aarch64 std is needed; gcc-aarch64-linux-gnu
#     and its libc (binutils for the aarch64 libraries, cgo for the arm64 Go program),
#     qemu-user (running aarch64 programs), g++ and cmake (the SDK consumers), python3-venv.
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

missing=()
for pkg in rustc-web rust-web-src gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user g++ cmake \
    python3-venv; do
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
[ -f /usr/lib/rustlib/src/rust/library/std/Cargo.toml ] ||
    { say "rust-web-src left no std source at /usr/lib/rustlib/src/rust/library"; exit 1; }
if ! "$venv/bin/cargo-zigbuild" --version >/dev/null 2>&1 || ! "$venv/bin/python" -m ziglang version >/dev/null 2>&1; then
    say "ziglang and cargo-zigbuild from PyPI into $venv"
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q ziglang==0.17.1 cargo-zigbuild==0.24.1
fi
say "zig $("$venv/bin/python" -m ziglang version), $("$venv/bin/cargo-zigbuild" --version), $(/usr/bin/rustc --version) at /usr/bin/rustc with its source"
