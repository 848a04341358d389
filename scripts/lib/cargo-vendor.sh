#!/usr/bin/env bash
# Prints a CARGO_HOME that builds gw offline from a vendored copy of its crates.
#
#   scripts/lib/cargo-vendor.sh <vendor folder | .tar.xz from `make vendor` or `cargo vendor`>
#
# The CARGO_HOME lives outside the source tree (under $GW_CARGO_CACHE, default
# ~/.cache/gw-cargo) and holds one config.toml that replaces crates.io with the vendored
# folder and turns the network off. A CARGO_HOME rather than `cargo --config`: build.rs runs
# cbindgen, which runs `cargo metadata` itself, and only a config that cargo finds on its own
# reaches that nested cargo. An archive is unpacked once per content (keyed by its sha256).
set -euo pipefail

src="${1:?usage: cargo-vendor.sh <vendor folder or .tar.xz>}"
cache="${GW_CARGO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gw-cargo}"
say() { echo "cargo-vendor: $*" >&2; }

if [ -d "$src" ]; then
    # `cargo vendor` output: the crates are the folder itself, or its vendor/ child.
    vendor="$(cd "$src" && pwd)"
    [ -d "$vendor/vendor" ] && [ ! -f "$vendor/.cargo-checksum.json" ] && vendor="$vendor/vendor"
    key="$(printf '%s' "$vendor" | sha256sum | cut -c1-16)"
    home="$cache/dir-$key"
elif [ -f "$src" ]; then
    key="$(sha256sum "$src" | cut -c1-16)"
    home="$cache/tar-$key"
    vendor="$home/vendor"
    if [ ! -f "$home/.unpacked" ]; then
        say "unpacking $src into $home"
        rm -rf "$home"
        mkdir -p "$home"
        tar -xJf "$src" -C "$home"
        [ -d "$vendor" ] || { say "$src holds no vendor/ folder"; exit 1; }
        touch "$home/.unpacked"
    fi
else
    say "GW_CARGO_VENDOR=$src is neither a folder nor a file"
    exit 1
fi

mkdir -p "$home"
cat >"$home/config.toml.new" <<TOML
# Written by gw's scripts/lib/cargo-vendor.sh: crates come from $vendor, never the network.
[source.crates-io]
replace-with = "gw-vendored"

[source.gw-vendored]
directory = "$vendor"

[net]
offline = true
TOML
mv "$home/config.toml.new" "$home/config.toml"
echo "$home"
