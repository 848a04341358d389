#!/usr/bin/env bash
# scripts/dist/natives.sh PLATFORM: builds gw's libraries for one platform of `make dist` with
# the size-minded `dist` profile (Cargo.toml) and writes target/dist/natives/PLATFORM/ with
# libgw.so (stripped, SONAME libgw.so.MAJOR), libgw.a (only gw_* global, debug info stripped) and
# cargo-units.jsonl (what cargo compiled into them, for scripts/dist/notices.py).
#   linux-x86_64   cargo zigbuild for x86_64-unknown-linux-gnu.2.17: zig links libgw.so against
#                  glibc 2.17 stubs, so it loads on any glibc >= 2.17 (manylinux2014's floor).
#   linux-aarch64  the same for aarch64-unknown-linux-gnu.2.17; aarch64-linux-gnu binutils
#                  localize and strip.
# Both with Debian's rustc-web (/usr/bin/rustc, 1.96) building std from its own source
# (rust-web-src) together with gw: -Zbuild-std, which RUSTC_BOOTSTRAP=1 lets a stable compiler
# take, as for cargo-fuzz. That needs no prebuilt std for aarch64, comes from Debian's registry
# (rustup cannot fetch components on the CI machines), and makes libgw.so small (issue 26):
#   - std without its `backtrace` feature: no DWARF symbolizer (gimli, addr2line, miniz for
#     debug sections) behind the default panic hook. A panic still prints its message; a
#     RUST_BACKTRACE trace shows addresses, not names. gw's FFI guard turns panics into
#     GW_INTERNAL anyway.
#   - std's `optimize_for_size`; std at opt-level 2 (see below), with fat LTO.
#   - -Zlocation-detail=none: panics carry no file:line (no table of source paths).
#   - -C force-unwind-tables=no: no unwind entries for functions that cannot unwind; those that
#     can keep theirs, so panic = "unwind" and the FFI guard still work.
#   - -Zpanic-in-drop=abort: destructors are taken not to unwind, so the code that drops the rest
#     of a frame when a destructor panics goes (x86_64: 75 KB of landing pads, their
#     .gcc_except_table and unwind entries). A panic anywhere else still unwinds to the FFI
#     guard; one inside a destructor aborts the process. gw's destructors (direct_body::Lease,
#     cancel::CallScope, log::InLogger, event_stream::HeldCall) only reset a thread-local Cell and
#     prune a list under a poison-tolerant lock: none can panic. rustc builds itself so.
#   - -Zrelax-elf-relocations=yes: GOT loads of gw's own symbols are emitted as relaxable
#     (R_X86_64_REX_GOTPCRELX, what clang and gcc emit by default), so the linker turns them
#     into direct `lea`s: 1,536 GOT slots and their relocations fewer in libgw.so (49 KB).
#     Linkers since binutils 2.26 (2016) read them; ring's C objects carried them already.
# Then it checks what a release promises: the newest GLIBC_ symbol version the .so needs is at
# most 2.17, and the sizes (.so, see below; .a <= 10 MB). Installs nothing:
# install-dist.sh does.
# Cargo reuses its own build cache (target/natives), so a second
# run with unchanged sources only re-checks.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/dist/lib.sh

platform="$1"
out="target/dist/natives/$platform"
say() { echo "dist-natives[$platform]: $*" >&2; }
# cargo-zigbuild and zig (python -m ziglang) from install-dist.sh's virtualenv.
PATH="$(scripts/ci/install-dist.sh --venv-bin):$PATH"
# std's own crates at opt-level 2, not the profile's "s" for crates off the hot path: at "s" a
# stream event took 5% more instructions (std's non-generic code: UTF-8 checks, I/O), at 2 it is
# as with the prebuilt std, and the library 208 bytes larger. Given here, not in Cargo.toml,
# where every other build would warn that no package matches.
build=(-p gw --lib --profile dist "${dist_features[@]}"
    -Zbuild-std=std,panic_unwind -Zbuild-std-features=optimize_for_size
    --config 'profile.dist.package.core.opt-level=2'
    --config 'profile.dist.package.alloc.opt-level=2'
    --config 'profile.dist.package.std.opt-level=2')
export RUSTC_BOOTSTRAP=1
export RUSTFLAGS="${RUSTFLAGS:+$RUSTFLAGS }-C force-unwind-tables=no -Zlocation-detail=none -Zpanic-in-drop=abort -Zrelax-elf-relocations=yes"

case "$platform" in
linux-x86_64)
    triple=x86_64-unknown-linux-gnu
    binutils=""
    ;;
linux-aarch64)
    triple=aarch64-unknown-linux-gnu
    binutils=aarch64-linux-gnu-
    ;;
*)
    echo "dist-natives: unknown platform '$platform' (linux-x86_64 or linux-aarch64)" >&2
    exit 2
    ;;
esac
# A target folder of its own: this cargo runs another rustc than the host builds do.
export CARGO_TARGET_DIR=target/natives
built="$CARGO_TARGET_DIR/$triple/dist"
# cargo's JSON messages (diagnostics still rendered on stderr) name every crate compiled into
# the libraries, std's included: scripts/dist/notices.py writes the third-party notices from them.
units="$CARGO_TARGET_DIR/$triple-dist-units.jsonl"
# The shell opens the redirect before cargo runs: on a fresh clone the folder is not there yet.
mkdir -p "$CARGO_TARGET_DIR"
RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc cargo zigbuild "${build[@]}" --target "$triple.2.17" \
    --message-format=json-render-diagnostics >"$units"

rm -rf "$out"
mkdir -p "$out"
mv "$units" "$out/cargo-units.jsonl"
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
# Issue 26 asked for <= 2.5 MB (2,500,000 bytes): x86_64 2,471,232, aarch64 2,082,416 then.
# The exchange (issue 40: its state machine and the gw_exchange_* C ABI) took x86_64 to
# 2,526,168 bytes (+38 KB net of the blocking code it replaced, after marking its cold paths
# not to inline) and the per-call work to 2,536,920; the cap was 2.55 MB until a trim (branch
# trim: a Value's text through serde_json::to_string, one ureq request path for every body,
# options read as an object into their defaults) took it to 2,491,640 bytes; the video wait as
# an exchange (task_wait.rs, gw_exchange_new_video_wait: +10 KB) to 2,501,688, the roots cache,
# the exchange's fast head and request paths and lazy metadata to 2,525,040 (cap 2.51 MB then). A
# second trim (branch trim2: the FFI guard's failure path in one cold function, malloc_string not
# inlined into each export) took it to 2,497,072, so the cap is 2.5 MB again (candidates for the
# next trim: docs/install.md). It catches what it is for: a dependency or a feature pulled in
# unnoticed.
so_max=2500000
[ "$so_size" -le "$so_max" ] || { say "libgw.so is $so_size bytes, over $so_max"; fail=1; }
[ "$a_size" -le 10485760 ] || { say "libgw.a is over 10 MB"; fail=1; }
# The archive keeps its function symbols (the .so is stripped): no function mixes AVX and
# legacy SSE (scripts/check-sse-mix.sh says why).
if [[ $triple == x86_64-* ]]; then
    scripts/check-sse-mix.sh "$out/libgw.a" >&2 || fail=1
fi
echo "$floor" >"$out/glibc-floor"
exit "$fail"
