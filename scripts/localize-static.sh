#!/usr/bin/env bash
# make build: rewrites target/release/libgw.a so that its only defined global symbols are the
# gw_* functions. Cargo's staticlib also exports Rust's std, allocator shims and every
# dependency (~5,000 symbols), which clash with those of any other Rust static library linked
# into the same program.
#
# How: one relocatable link of every member (ld -r), then objcopy makes every defined symbol
# but gw_* local (references to libc and friends stay undefined).
#  - --force-group-allocation dissolves COMDAT groups: otherwise the linker keeps gw's copy of
#    a group the other library also has (DW.ref.rust_eh_personality), whose symbol is now
#    local, drops the other's, and the other's references no longer resolve.
#  - The embedded LLVM bitcode (.llvmbc) is dropped: merged into one section it is unreadable,
#    and binutils' LLVM plugin (installed with clang) then aborts nm and ar on the archive.
#
# Idempotent: an archive already clean is left alone. Cargo puts its own archive back when it
# rebuilds (or re-links target/release/libgw.a), so `make build` runs this after every cargo.
#
# GW_BINUTILS_PREFIX=aarch64-linux-gnu- uses that target's nm/ld/objcopy/ar (make dist localizes
# the archives it cross-builds). GW_LOCALIZE_GC_SECTIONS=1 also drops every section no gw_*
# function reaches (ld --gc-sections rooted at the gw_* symbols): make dist's smaller archives.
set -euo pipefail
cd "$(dirname "$0")/.."

lib="${1:-target/release/libgw.a}"
bu="${GW_BINUTILS_PREFIX:-}"
[ -f "$lib" ] || { echo "localize-static: $lib is missing; run cargo build --release first" >&2; exit 1; }

# Beside the archive, so the final mv is a rename on one file system.
work="$(mktemp -d "$(dirname "$lib")/.localize.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# Defined global symbols: nm prints "value type name" for them (archive member headers and
# blank lines have fewer fields; members without any make nm say so on stderr).
if ! "${bu}nm" -g --defined-only "$lib" >"$work/nm.out" 2>"$work/nm.err"; then
    echo "localize-static: nm failed on $lib:" >&2
    grep -v 'no symbols$' "$work/nm.err" >&2 || true
    exit 1
fi
awk 'NF == 3 { print $3 }' "$work/nm.out" | sort -u >"$work/globals"

grep '^gw_' "$work/globals" >"$work/keep" || { echo "localize-static: no gw_* symbol in $lib" >&2; exit 1; }
if ! grep -qv '^gw_' "$work/globals"; then
    echo "localize-static: $lib already exports only gw_* symbols"
    exit 0
fi

gc=()
if [ "${GW_LOCALIZE_GC_SECTIONS:-0}" = 1 ]; then
    gc=(--gc-sections)
    while read -r sym; do gc+=(-u "$sym"); done <"$work/keep"
fi
"${bu}ld" -r "${gc[@]}" --force-group-allocation --whole-archive "$lib" -o "$work/gw-all.o"
"${bu}objcopy" --remove-section=.llvmbc --remove-section=.llvmcmd --remove-section=.llvm_addrsig \
    --keep-global-symbols="$work/keep" "$work/gw-all.o" "$work/gw.o"
"${bu}ar" rcs "$work/libgw.a" "$work/gw.o"

# Replaces the file (not its content): cargo's hard link in target/release/deps keeps the
# original.
mv -f "$work/libgw.a" "$lib"
echo "localize-static: $lib now exports $(wc -l <"$work/keep") gw_* symbols and nothing else"
