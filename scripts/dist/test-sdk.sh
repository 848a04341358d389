#!/usr/bin/env bash
# test-dist, C/C++ part (run by scripts/test-dist.sh, which set PATH, GW_BASE_URL and
# GW_DIST_WORK): each SDK archive unpacked into a folder of its own, tests/dist/c/consumer.c built with
# `pkg-config gw` / `gw-static` and with CMake find_package(gw) (gw::gw, gw::gw_static), and
# tests/dist/cpp/consumer.cpp (gw::cpp, gw::cpp_static) on x86_64, both through
# tests/dist/CMakeLists.txt; every program run against gw-mock, the aarch64 ones cross-built
# and run under qemu-aarch64.
set -euo pipefail
cd "$(dirname "$0")/../.."
dist_part=sdk
source scripts/dist/lib.sh

version="$(gw_version)"
repo="$PWD"

# The archives as downloaded match the checksums published beside them.
(cd target/dist && sha256sum --quiet -c SHA256SUMS) || fail "target/dist/SHA256SUMS does not match the archives"
grep -c "gw-$version-linux-" target/dist/SHA256SUMS | grep -qx 2 || fail "SHA256SUMS lists $(wc -l <target/dist/SHA256SUMS) lines, not the two archives"
for platform in linux-x86_64 linux-aarch64; do
    dir="$GW_DIST_WORK/sdk-$platform"
    mkdir -p "$dir"
    tar -xzf "target/dist/gw-$version-$platform.tar.gz" -C "$dir"
    sdk="$dir/gw-$version-$platform"
    same_notices "test-dist[sdk]: $platform" "$sdk/share/doc/gw"
    case "$platform" in
    linux-x86_64)
        cc=cc run=() cmake_cross=() readelf=readelf
        ;;
    linux-aarch64)
        cc=aarch64-linux-gnu-gcc run=(run_aarch64) readelf=aarch64-linux-gnu-readelf
        cmake_cross=(-DCMAKE_SYSTEM_NAME=Linux -DCMAKE_SYSTEM_PROCESSOR=aarch64 -DCMAKE_C_COMPILER=aarch64-linux-gnu-gcc)
        ;;
    esac
    # Runs one program against gw-mock; a shared one finds libgw.so.0 in the SDK's lib/.
    check() {
        local app="$1" linked="$2"
        if [ "$linked" = shared ]; then
            "$readelf" -d "$app" | grep 'NEEDED.*\[libgw\.so\.0\]' >/dev/null || fail "$app does not need libgw.so.0"
            LD_LIBRARY_PATH="$sdk/lib" "${run[@]}" "$app"
        else
            if "$readelf" -d "$app" | grep 'NEEDED.*libgw' >/dev/null; then fail "$app needs libgw.so, linked static"; fi
            "${run[@]}" "$app"
        fi
    }

    # pkg-config: gw.pc and gw-static.pc find the SDK from their own folder.
    export PKG_CONFIG_PATH="$sdk/lib/pkgconfig"
    [ "$(pkg-config --variable=prefix gw)" -ef "$sdk" ] || fail "gw.pc's prefix is $(pkg-config --variable=prefix gw), not $sdk"
    # shellcheck disable=SC2046 # pkg-config's flags are words
    "$cc" -Wall -Wextra -Werror tests/dist/c/consumer.c $(pkg-config --cflags --libs gw) -o "$dir/pc-shared"
    check "$dir/pc-shared" shared
    # shellcheck disable=SC2046
    "$cc" -Wall -Wextra -Werror tests/dist/c/consumer.c $(pkg-config --cflags --libs gw-static) -o "$dir/pc-static"
    check "$dir/pc-static" static

    # CMake: find_package(gw CONFIG) from the unpacked prefix.
    for linked in shared static; do
        static=OFF
        [ "$linked" = shared ] || static=ON
        cmake -S tests/dist -B "$dir/cmake-$linked" -DGW_LANG=C -DCMAKE_PREFIX_PATH="$sdk" -DGW_STATIC=$static \
            "${cmake_cross[@]}" >"$dir/cmake-$linked.log" || { cat "$dir/cmake-$linked.log"; fail "cmake ($linked)"; }
        cmake --build "$dir/cmake-$linked" >>"$dir/cmake-$linked.log" || { cat "$dir/cmake-$linked.log"; fail "build ($linked)"; }
        check "$dir/cmake-$linked/consumer" "$linked"
        if [ "$platform" = linux-x86_64 ]; then
            cmake -S tests/dist -B "$dir/cpp-$linked" -DGW_LANG=CXX -DCMAKE_PREFIX_PATH="$sdk" -DGW_STATIC=$static \
                >"$dir/cpp-$linked.log" || { cat "$dir/cpp-$linked.log"; fail "cmake C++ ($linked)"; }
            cmake --build "$dir/cpp-$linked" >>"$dir/cpp-$linked.log" || { cat "$dir/cpp-$linked.log"; fail "build C++ ($linked)"; }
            check "$dir/cpp-$linked/consumer_cpp" "$linked"
        fi
    done
    cd "$repo"
done
echo "test-dist[sdk]: both SDKs built and ran with pkg-config and CMake, shared and static"
