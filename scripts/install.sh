#!/usr/bin/env bash
# Installs libgw.so, libgw.a, gw.h, gw.pc and gw-static.pc, the C++ headers (include/gw/),
# the CMake package (lib/cmake/gw) and the licenses (share/doc/gw: gw's own, the notices of
# the crates linked into libgw and of Rust's std, written by `make build` with
# scripts/build-notices.sh) under $PREFIX (default /usr/local).
# DESTDIR is honoured for staged installs (packaging); gw.pc still names $PREFIX.
# The shared library goes in as libgw.so.X.Y.Z with the usual links: libgw.so.X (its SONAME,
# which programs record and the loader looks for) and libgw.so (what -lgw finds).
set -euo pipefail
cd "$(dirname "$0")/.."

prefix="${PREFIX:-/usr/local}"
dest="${DESTDIR:-}${prefix}"
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"

notices=target/release/notices
for f in target/release/libgw.so target/release/libgw.a include/gw.h \
    "$notices/THIRD-PARTY-NOTICES.txt" "$notices/RUST-STD-COPYRIGHT.html"; do
    [ -f "$f" ] || { echo "install: $f is missing; run 'make build' first" >&2; exit 1; }
done

echo "install: gw $version into $dest"
install -d "$dest/lib/pkgconfig" "$dest/include"
major="${version%%.*}"
install -m 0755 target/release/libgw.so "$dest/lib/libgw.so.$version"
ln -sfn "libgw.so.$version" "$dest/lib/libgw.so.$major"
ln -sfn "libgw.so.$major" "$dest/lib/libgw.so"
install -m 0644 target/release/libgw.a "$dest/lib/libgw.a"
install -m 0644 include/gw.h "$dest/include/gw.h"
# gw.pc links libgw.so; gw-static.pc names libgw.a itself (with -lgw the linker would take
# libgw.so even under `pkg-config --static`).
for pc in gw gw-static; do
    sed -e "s|@PREFIX@|$prefix|g" -e "s|@VERSION@|$version|g" "$pc.pc.in" >"$dest/lib/pkgconfig/$pc.pc"
done

# C++: the header-only binding and find_package(gw CONFIG) (gw::gw, gw::gw_static). The
# config finds the prefix from its own place; the version file gets the version and the
# pointer size of this build.
install -d "$dest/include/gw" "$dest/lib/cmake/gw"
install -m 0644 bindings/cpp/include/gw/*.hpp "$dest/include/gw/"
install -m 0644 bindings/cpp/cmake/gwConfig.cmake "$dest/lib/cmake/gw/gwConfig.cmake"
sed -e "s|@VERSION@|$version|g" -e "s|@SIZEOF_VOID_P@|$(($(getconf LONG_BIT) / 8))|g" \
    bindings/cpp/cmake/gwConfigVersion.cmake.in >"$dest/lib/cmake/gw/gwConfigVersion.cmake"

# The licenses, where a prefix keeps a package's (MIT and Apache-2.0 ask that they go with
# every copy, binaries included: libgw holds the code of every crate in the notices).
install -d "$dest/share/doc/gw"
install -m 0644 LICENSE-APACHE LICENSE-MIT "$notices/THIRD-PARTY-NOTICES.txt" \
    "$notices/RUST-STD-COPYRIGHT.html" "$dest/share/doc/gw/"
