#!/usr/bin/env bash
# libgw.a beside another Rust static library (run by `make test-c`). Checks that the archive
# `make build` leaves (scripts/localize-static.sh) defines exactly the gw_* functions gw.h
# declares and no other global symbol, then links a C program with it and with
# tests/static-neighbour (an unrelated Rust staticlib, with its own std) and runs it. With the
# archive cargo writes, that link fails (DW.ref.rust_eh_personality, duplicate std symbols).
set -euo pipefail
cd "$(dirname "$0")/.."

lib=target/release/libgw.a
out=build/static-neighbour
mkdir -p "$out"
failed=0

nm -g --defined-only "$lib" | awk 'NF == 3 { print $3 }' | sort >"$out/exported"
# The functions gw.h declares: names followed by "(" once comments are gone (cc -E drops them).
cc -E -P include/gw.h | grep -oE '\bgw_[a-z0-9_]+\(' | tr -d '(' | sort -u >"$out/declared"

others="$(grep -cv '^gw_' "$out/exported" || true)"
if [ "$others" -ne 0 ]; then
    echo "test-static: $lib exports $others non-gw_ symbols, e.g.:" >&2
    grep -v '^gw_' "$out/exported" | head -n 5 >&2
    failed=1
fi
if ! diff -u "$out/declared" "$out/exported" >"$out/exports.diff"; then
    echo "test-static: gw_* symbols of $lib differ from the functions gw.h declares:" >&2
    cat "$out/exports.diff" >&2
    failed=1
fi
echo "test-static: $lib exports $(wc -l <"$out/exported") symbols, all declared in gw.h"

echo "test-static: building tests/static-neighbour (its own cargo project)"
cargo build --release --quiet --manifest-path tests/static-neighbour/Cargo.toml \
    --target-dir target/static-neighbour
neighbour=target/static-neighbour/release/libstatic_neighbour.a

# Both orders: the linker must not depend on which archive it meets first.
for order in "$lib $neighbour" "$neighbour $lib"; do
    # shellcheck disable=SC2086 # two archive paths, split on purpose
    if cc -std=c11 -Wall -Wextra -Werror -Iinclude tests/static-neighbour/main.c $order \
        -lpthread -ldl -lm -o "$out/two_rust_libs" 2>"$out/link.log"; then
        "$out/two_rust_libs" || failed=1
    else
        echo "test-static: linking $order failed:" >&2
        head -n 20 "$out/link.log" >&2
        failed=1
    fi
done

if [ "$failed" -ne 0 ]; then
    echo "test-static: FAILED" >&2
    exit 1
fi
echo "test-static: ok"
