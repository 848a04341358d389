#!/usr/bin/env bash
# scripts/dist/natives.sh PLATFORM: builds gw's libraries for one platform of `make dist` with
# the size-minded `dist` profile (Cargo.toml) and writes target/dist/natives/PLATFORM/ with
# libgw.so (stripped, SONAME libgw.so.MAJOR) and libgw.a (only gw_* global, debug info stripped).
#   linux-x86_64   cargo zigbuild for x86_64-unknown-linux-gnu.2.17: zig links libgw.so against
#                  glibc 2.17 stubs, so it loads on any glibc >= 2.17 (manylinux2014's floor).
#   linux-aarch64  Debian's rustc-web (/usr/bin/rustc, 1.96, with libstd-rust-web-dev:arm64 as
#                  the target's std) driven by cargo zigbuild for aarch64-unknown-linux-gnu.2.17.
#                  rustup cannot add the aarch64 std here (no network but the package
#                  registries); aarch64-linux-gnu binutils localize and strip.
# Then it checks what a release promises: the newest GLIBC_ symbol version the .so needs is at
# most 2.17, and the sizes (.so <= 3.5 MiB, see below; .a <= 10 MB). Installs nothing:
# install-dist.sh does.
# Cargo reuses its own build cache (target/<triple>/dist, target/cross-aarch64), so a second
# run with unchanged sources only re-checks.
set -euo pipefail
cd "$(dirname "$0")/../.."

platform="$1"
out="target/dist/natives/$platform"
say() { echo "dist-natives[$platform]: $*" >&2; }
# cargo-zigbuild and zig (python -m ziglang) from install-dist.sh's virtualenv.
PATH="$(scripts/ci/install-dist.sh --venv-bin):$PATH"
# no-dependency-logs (Cargo.toml) instead of the default feature: no one can install a `log`
# logger in the C library, so the log records of ureq and rustls are compiled out.
build=(-p gw --lib --profile dist --no-default-features --features no-dependency-logs)

case "$platform" in
linux-x86_64)
    triple=x86_64-unknown-linux-gnu
    built="target/$triple/dist"
    binutils=""
    cargo zigbuild "${build[@]}" --target "$triple.2.17" >&2
    ;;
linux-aarch64)
    triple=aarch64-unknown-linux-gnu
    # A target folder of its own: this cargo runs another rustc (1.96) than the host builds.
    export CARGO_TARGET_DIR=target/cross-aarch64
    built="$CARGO_TARGET_DIR/$triple/dist"
    binutils=aarch64-linux-gnu-
    # zig links here too: gcc-aarch64-linux-gnu links against bookworm's glibc 2.36, which gave
    # a libgw.so needing GLIBC_2.34 (pthread_create, dlsym, ... moved into libc in 2.34).
    RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc \
        cargo zigbuild "${build[@]}" --target "$triple.2.17" >&2
    ;;
*)
    echo "dist-natives: unknown platform '$platform' (linux-x86_64 or linux-aarch64)" >&2
    exit 2
    ;;
esac

rm -rf "$out"
mkdir -p "$out"
cp "$built/libgw.so" "$built/libgw.a" "$out/"
"${binutils}strip" --strip-all "$out/libgw.so"
# LTO leaves LLVM bitcode (.llvmbc) in the archive's objects, which binutils' LLVM 14 plugin
# (installed with clang) cannot read: nm then sees no symbols. Dropped before localizing.
"${binutils}objcopy" --remove-section=.llvmbc --remove-section=.llvmcmd "$out/libgw.a"
# --gc-sections: only what a gw_* function reaches stays (about 12 MB -> 7 MB for x86_64).
GW_LOCALIZE_GC_SECTIONS=1 GW_BINUTILS_PREFIX="$binutils" scripts/localize-static.sh "$out/libgw.a" >&2
"${binutils}strip" --strip-debug "$out/libgw.a"

# The glibc floor: the newest GLIBC_x.y among the versions of the symbols libgw.so imports.
floor="$("${binutils}objdump" -T "$out/libgw.so" | grep -o 'GLIBC_[0-9][0-9.]*' | sort -t_ -k2 -V | tail -n 1)"
so_size=$(stat -c %s "$out/libgw.so")
a_size=$(stat -c %s "$out/libgw.a")
say "libgw.so $so_size bytes, needs $floor; libgw.a $a_size bytes"
fail=0
if [ "$(printf '%s\n' "${floor#GLIBC_}" 2.17 | sort -V | tail -n 1)" != 2.17 ]; then
    say "libgw.so needs $floor, newer than GLIBC_2.17:"
    "${binutils}objdump" -T "$out/libgw.so" | grep -v 'GLIBC_2\.\(17\|[0-9]\)\b\|GLIBC_2\.1[0-6]\b' | grep GLIBC_ >&2 || true
    fail=1
fi
# Issue 26 asked for <= 2.5 MB (2,500,000 bytes): not reached. With the dist profile (Cargo.toml:
# opt-level 2 for gw and its hot path, "s" for the rest) and no-dependency-logs, libgw.so is
# 2,966,432 bytes on x86_64 and 2,561,360 on aarch64: .text is ~1.9 MB / 1.6 MB of rustls, ring,
# std (with its backtrace printer), ureq and gw, and unwinding tables another 0.35 MB. This guard
# catches growth; it does not claim the 2.5 MB.
[ "$so_size" -le 3670016 ] || { say "libgw.so is over 3.5 MiB"; fail=1; }
[ "$a_size" -le 10485760 ] || { say "libgw.a is over 10 MB"; fail=1; }
echo "$floor" >"$out/glibc-floor"
exit "$fail"
