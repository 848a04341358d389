#!/usr/bin/env bash
# Checks `make install` as a user meets it: installs into a scratch PREFIX, compiles the
# README's C quick start, then builds and runs a small program with the installed gw.pc
# (shared) and gw-static.pc (static). The shared library must carry the SONAME libgw.so.0
# (installed as libgw.so.X.Y.Z with its links), the shared program must record libgw.so.0,
# not libgw.so, and the static one must not need libgw.so at all (ldd, and a run with it
# moved away).
set -euo pipefail
cd "$(dirname "$0")/.."

prefix="$(mktemp -d)"
trap 'rm -rf "$prefix"' EXIT
PREFIX="$prefix" scripts/install.sh
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"

cat >"$prefix/hello.c" <<'C'
#include <stdio.h>
#include <gw.h>
int main(void)
{
    char *quoted = NULL;
    int rc = gw_json_quote("a \"b\"", &quoted);
    printf("gw %s (header %s, 0x%06x), %s, %s\n", gw_version(), GW_VERSION_STRING,
           (unsigned)GW_VERSION_NUM, gw_status_str(GW_TIMEOUT), quoted);
    gw_free(quoted);
    return rc;
}
C

# The README's C quick start compiles as it stands against the installed tree.
sed -n '/^## Quick start (C)/,/^```$/p' README.md | sed '1,/^```c$/d; $d' >"$prefix/quick_start.c"
grep -q gw_json_quote "$prefix/quick_start.c" || { echo "test-install: no quick start in README.md" >&2; exit 1; }
cc -std=c11 -Wall -Wextra -Werror "$prefix/quick_start.c" -o "$prefix/quick_start" \
    $(pkg-config --cflags --libs gw) -Wl,-rpath,"$prefix/lib"
echo "test-install: the README's C quick start compiles"

echo "test-install: pkg-config --cflags --libs gw: $(pkg-config --cflags --libs gw)"
cc -std=c11 -Wall -Werror "$prefix/hello.c" -o "$prefix/hello_shared" \
    $(pkg-config --cflags --libs gw) -Wl,-rpath,"$prefix/lib"
"$prefix/hello_shared"

version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"
soname="libgw.so.${version%%.*}"
got="$(readelf -d "$prefix/lib/libgw.so.$version" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')"
if [ "$got" != "$soname" ]; then
    echo "test-install: libgw.so.$version has SONAME '$got', expected $soname" >&2
    exit 1
fi
for link in "$soname:libgw.so.$version" "libgw.so:$soname"; do
    if [ "$(readlink "$prefix/lib/${link%%:*}")" != "${link#*:}" ]; then
        echo "test-install: $prefix/lib/${link%%:*} does not point to ${link#*:}" >&2
        exit 1
    fi
done
needed="$(readelf -d "$prefix/hello_shared" | sed -n 's/.*(NEEDED).*\[\(libgw[^]]*\)\]/\1/p')"
if [ "$needed" != "$soname" ]; then
    echo "test-install: hello_shared needs '$needed', expected $soname" >&2
    exit 1
fi
echo "test-install: SONAME $soname, program records $needed"
for f in LICENSE-APACHE LICENSE-MIT; do
    cmp -s "$f" "$prefix/share/doc/gw/$f" || { echo "test-install: share/doc/gw/$f is missing or differs" >&2; exit 1; }
done
# The third-party notices name every crate whose code is in the installed libgw.a (told by
# the first segment of each demangled Rust symbol: make build's archive is one object whose
# symbols, made local, keep their names; std's own crates are in RUST-STD-COPYRIGHT.html)
# and no crate that only builds or generates code (build scripts' and proc macros' crates,
# gw-mock's).
[ -s "$prefix/share/doc/gw/RUST-STD-COPYRIGHT.html" ] ||
    { echo "test-install: share/doc/gw/RUST-STD-COPYRIGHT.html is missing" >&2; exit 1; }
# Defined symbols (address, type, name), demangled: "ureq::agent::Agent::run", "core[1a2b]::...".
nm --demangle=rust "$prefix/lib/libgw.a" 2>/dev/null | awk 'NF >= 3 { $1 = ""; $2 = ""; print substr($0, 3) }' \
    >"$prefix/symbols.txt"
cargo metadata -q --format-version 1 --filter-platform "$(rustc -vV | sed -n 's/^host: //p')" \
    >"$prefix/metadata.json"
python3 - "$prefix/share/doc/gw/THIRD-PARTY-NOTICES.txt" "$prefix/symbols.txt" "$prefix/metadata.json" <<'PY'
import json, re, sys
notices, symbols, metadata = sys.argv[1:]
text = open(notices, encoding="utf-8").read()
listed = set(re.findall(r"^  (\S+) \S+: ", text, re.M))
if not listed:
    sys.exit("test-install: THIRD-PARTY-NOTICES.txt lists no crate")
# The crate is the path's first segment ("<T as Trait>::f", whose crate is further in, aside).
root = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(?:\[[0-9a-f]+\])?::")
in_library = {m.group(1) for m in map(root.match, open(symbols).read().splitlines()) if m}
lib_names = {}
for package in json.load(open(metadata))["packages"]:
    for target in package["targets"]:
        if "lib" in target["kind"] or "rlib" in target["kind"]:
            lib_names[target["name"].replace("-", "_")] = package["name"]
std = {"std", "core", "alloc", "compiler_builtins", "panic_unwind", "panic_abort", "unwind", "__rustc",
       "rustc_demangle", "std_detect", "addr2line", "gimli", "object",
       "rustc_std_workspace_core", "rustc_std_workspace_alloc"}
if len(in_library - std - {"gw"}) < 10:
    sys.exit(f"test-install: libgw.a's symbols name too few crates to check: {sorted(in_library)}")
missing = sorted(n for n in in_library - std - {"gw"} if lib_names.get(n, n) not in listed)
if missing:
    sys.exit(f"test-install: libgw.a holds code of crates the notices do not name: {missing}")
build_only = {"syn", "quote", "proc-macro2", "serde_derive", "thiserror-impl", "cbindgen", "cc",
              "tokio", "axum", "hyper"} & listed
if build_only:
    sys.exit(f"test-install: the notices name crates not linked into libgw: {sorted(build_only)}")
print(f"test-install: THIRD-PARTY-NOTICES.txt names {len(listed)} crates, every one of the "
      f"{len(in_library - std - {'gw'})} non-std crates with code in libgw.a")
PY

# Without the notices the install stops and says what is missing; scripts/build-notices.sh,
# when it cannot write them, warns and leaves none (a plain build stays usable), and with
# --strict (the Android AAR) fails.
notices_kept="$(mktemp -d)"
mv target/release/notices "$notices_kept/"
restore_notices() { rm -rf target/release/notices; mv "$notices_kept/notices" target/release/; }
if PREFIX="$prefix/refused" scripts/install.sh >/dev/null 2>"$prefix/why"; then
    restore_notices
    echo "test-install: install.sh installed without the third-party notices" >&2; exit 1
fi
restore_notices
grep -q "THIRD-PARTY-NOTICES.txt is missing; run 'make build' first" "$prefix/why" ||
    { echo "test-install: unclear refusal: $(cat "$prefix/why")" >&2; exit 1; }
CARGO=false scripts/build-notices.sh --out "$prefix/no-notices" 2>"$prefix/why" ||
    { echo "test-install: build-notices.sh failed a plain build: $(cat "$prefix/why")" >&2; exit 1; }
grep -q "cargo tree failed; no third-party notices" "$prefix/why" && [ ! -e "$prefix/no-notices" ] ||
    { echo "test-install: build-notices.sh did not warn, or left notices: $(cat "$prefix/why")" >&2; exit 1; }
if CARGO=false scripts/build-notices.sh --strict --out "$prefix/no-notices" 2>/dev/null; then
    echo "test-install: build-notices.sh --strict passed without notices" >&2; exit 1
fi
echo "test-install: without the notices install.sh refuses; build-notices.sh warns, or fails with --strict"

# Static, the README's recipe: gw-static.pc names libgw.a itself. The program must not need
# libgw.so (ldd, and no NEEDED entry), and must run with no libgw.so anywhere to be found.
echo "test-install: pkg-config --cflags --libs gw-static: $(pkg-config --cflags --libs gw-static)"
cc -std=c11 -Wall -Werror "$prefix/hello.c" -o "$prefix/hello_static" \
    $(pkg-config --cflags --libs gw-static)
if ldd "$prefix/hello_static" | grep libgw ||
    readelf -d "$prefix/hello_static" | grep 'NEEDED.*libgw' >/dev/null; then
    echo "test-install: the gw-static build still needs libgw.so" >&2
    exit 1
fi
mkdir "$prefix/moved"
mv "$prefix"/lib/libgw.so* "$prefix/moved/"
"$prefix/hello_static"
mv "$prefix"/moved/libgw.so* "$prefix/lib/"
echo "test-install: the gw-static build runs without libgw.so: $(ldd "$prefix/hello_static" | tr -s ' \t\n' ' ')"
echo "test-install: ok"
