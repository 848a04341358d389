#!/usr/bin/env bash
# make vendor: writes target/vendor/crates.tar.xz (or $GW_VENDOR_OUT), a `cargo vendor` copy of
# every crate in Cargo.lock (gw, gw-mock, the optional features), unpacking to a vendor/
# folder. Build from it anywhere with `make build GW_CARGO_VENDOR=<that file>`: no network.
# cargo vendor reads the registry, so this needs one; with GW_CARGO_VENDOR set (no registry
# here) it re-packs that copy after checking that it covers Cargo.lock.
set -euo pipefail
cd "$(dirname "$0")/.."

out="${GW_VENDOR_OUT:-target/vendor/crates.tar.xz}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

if [ -n "${GW_CARGO_VENDOR:-}" ]; then
    # The Makefile has pointed CARGO_HOME at the copy: a locked, offline metadata run fails
    # when a crate of Cargo.lock is missing from it.
    cargo metadata --locked --offline --format-version 1 >/dev/null
    vendor="$(sed -n 's/^directory = "\(.*\)"$/\1/p' "$CARGO_HOME/config.toml")"
    echo "vendor: re-packing $vendor (GW_CARGO_VENDOR)"
    cp -a "$vendor" "$work/vendor"
else
    echo "vendor: cargo vendor --locked"
    cargo vendor --locked "$work/vendor" >/dev/null
fi
mkdir -p "$(dirname "$out")"
tar -C "$work" -cJf "$out.tmp" vendor
mv "$out.tmp" "$out"
echo "vendor: wrote $out ($(du -h "$out" | cut -f1), $(find "$work/vendor" -mindepth 1 -maxdepth 1 -type d | wc -l) crates, Cargo.lock sha256 $(sha256sum Cargo.lock | cut -c1-16))"
