#!/usr/bin/env bash
# scripts/dist/sdk.sh: the C/C++ SDK archives of a release, after scripts/dist/natives.sh:
# target/dist/gw-<version>-<platform>.tar.gz with one top folder gw-<version>-<platform>/ laid out
# as `make install` lays out a prefix (scripts/install.sh):
#   include/gw.h, include/gw/*.hpp (the header-only C++ binding)
#   lib/libgw.so.X.Y.Z, libgw.so.X (the SONAME), libgw.so, lib/libgw.a
#   lib/pkgconfig/gw.pc, gw-static.pc: prefix=${pcfiledir}/../.., so they work wherever the
#     archive is unpacked
#   lib/cmake/gw: find_package(gw CONFIG) with gw::gw, gw::gw_static, gw::cpp, gw::cpp_static;
#     the config finds the prefix from its own place
#   share/doc/gw: LICENSE-APACHE, LICENSE-MIT, THIRD-PARTY-NOTICES.txt (scripts/dist/notices.py),
#     under the prefix rather than at the top, so unpacking into /usr/local leaves no loose files
# and target/dist/SHA256SUMS for the archives.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/dist/lib.sh

version="$(gw_version)"
major="${version%%.*}"
require_notices sdk
for platform in linux-x86_64 linux-aarch64; do
    natives="target/dist/natives/$platform"
    [ -f "$natives/libgw.so" ] || { echo "sdk: $natives/libgw.so is missing (scripts/dist/natives.sh)" >&2; exit 1; }
    name="gw-$version-$platform"
    stage="target/dist/sdk-stage/$name"
    rm -rf "$stage"
    install -d "$stage/include/gw" "$stage/lib/pkgconfig" "$stage/lib/cmake/gw" "$stage/share/doc/gw"
    for f in $notice_files; do install -m 0644 "$notices_dir/$f" "$stage/share/doc/gw/"; done
    install -m 0644 include/gw.h "$stage/include/"
    install -m 0644 bindings/cpp/include/gw/*.hpp "$stage/include/gw/"
    install -m 0755 "$natives/libgw.so" "$stage/lib/libgw.so.$version"
    ln -s "libgw.so.$version" "$stage/lib/libgw.so.$major"
    ln -s "libgw.so.$major" "$stage/lib/libgw.so"
    install -m 0644 "$natives/libgw.a" "$stage/lib/"
    for pc in gw gw-static; do
        # '${pcfiledir}' is pkg-config's own variable: the folder the .pc file was found in.
        # shellcheck disable=SC2016
        sed -e 's|@PREFIX@|${pcfiledir}/../..|g' -e "s|@VERSION@|$version|g" "$pc.pc.in" \
            >"$stage/lib/pkgconfig/$pc.pc"
    done
    install -m 0644 bindings/cpp/cmake/gwConfig.cmake "$stage/lib/cmake/gw/"
    # Both platforms are 64-bit.
    sed -e "s|@VERSION@|$version|g" -e "s|@SIZEOF_VOID_P@|8|g" \
        bindings/cpp/cmake/gwConfigVersion.cmake.in >"$stage/lib/cmake/gw/gwConfigVersion.cmake"
    # Reproducible: fixed owner, order and times.
    tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 \
        -C target/dist/sdk-stage -czf "target/dist/$name.tar.gz" "$name"
    echo "sdk: target/dist/$name.tar.gz ($(stat -c %s "target/dist/$name.tar.gz") bytes)" >&2
done
rm -rf target/dist/sdk-stage
# What a release page lists beside the archives, for `sha256sum -c SHA256SUMS`.
(cd target/dist && sha256sum "gw-$version"-linux-*.tar.gz >SHA256SUMS)
