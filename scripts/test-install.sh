#!/usr/bin/env bash
# Checks `make install` as a user meets it: installs into a scratch PREFIX, then builds and runs
# a small program with the installed gw.pc, linked shared and static. The shared library must
# carry the SONAME libgw.so.0 (installed as libgw.so.X.Y.Z with its links), and the program
# must record libgw.so.0, not libgw.so.
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
    printf("gw %s, %s\n", gw_version(), gw_status_str(GW_TIMEOUT));
    return 0;
}
C

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

# Static: libgw.a in place of -lgw, plus what it needs (Libs.private).
cc -std=c11 -Wall -Werror "$prefix/hello.c" -o "$prefix/hello_static" \
    $(pkg-config --cflags gw) -Wl,-Bstatic -lgw -Wl,-Bdynamic \
    $(pkg-config --static --libs-only-L --libs-only-l gw | sed 's/ -lgw / /')
"$prefix/hello_static"
if ldd "$prefix/hello_static" | grep -q libgw; then
    echo "test-install: the static build still needs libgw.so" >&2
    exit 1
fi
echo "test-install: ok"
