#!/usr/bin/env bash
# scripts/dist/go-module.sh: the Go module of a release, after scripts/dist/natives.sh.
#  1. target/dist/go-release/bindings/go: the module's release tree, as a release commit tags it
#     (bindings/go/vX.Y.Z): bindings/go of this checkout without its checkout link
#     (link_static.go), plus scripts/dist/go-release/ (per-GOOS/GOARCH link files, the
#     compile-time messages for CGO_ENABLED=0 and other platforms), gw.h in
#     internal/native/include and the stripped, localized libgw.a per platform in
#     internal/native/<goos>_<goarch>/ with THIRD-PARTY-NOTICES.txt beside them in
#     internal/native/, and gw's LICENSE-APACHE and LICENSE-MIT at the module's root (where
#     pkg.go.dev looks before it shows the docs). main's history never holds the archives (as
#     wasmtime-go): only this tree does.
#  2. target/dist/goproxy/: that tree as a GOPROXY folder (@v/list, .info, .mod, .zip), zipped by
#     scripts/dist/gomodzip (golang.org/x/mod/zip; scripts/dist/gomodzip-build.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/dist/lib.sh

go_dir="$(scripts/ci/install-go.sh --which)"
PATH="$go_dir:$PATH"
module="$(sed -n 's/^module //p' bindings/go/go.mod)"
tree=target/dist/go-release/bindings/go
proxy=target/dist/goproxy

rm -rf target/dist/go-release "$proxy"
mkdir -p "$tree"
# What the checkout holds under bindings/go (tracked or new, not ignored), bench/ (a module of
# its own, which a module zip leaves out anyway) and the checkout link excepted.
git ls-files --cached --others --exclude-standard -- bindings/go |
    grep -v -e '^bindings/go/bench/' -e '^bindings/go/link_static\.go$' |
    while read -r f; do
        [ -f "$f" ] || continue # deleted in the working tree
        mkdir -p "$tree/$(dirname "${f#bindings/go/}")"
        cp "$f" "$tree/${f#bindings/go/}"
    done
cp -r scripts/dist/go-release/. "$tree/"
for pair in linux-x86_64:linux_amd64 linux-aarch64:linux_arm64; do
    natives="target/dist/natives/${pair%%:*}"
    [ -f "$natives/libgw.a" ] || { echo "go-module: $natives/libgw.a is missing (scripts/dist/natives.sh)" >&2; exit 1; }
    cp "$natives/libgw.a" "$tree/internal/native/${pair#*:}/"
done
cp include/gw.h "$tree/internal/native/include/"
require_notices go-module
cp "$notices_dir/LICENSE-APACHE" "$notices_dir/LICENSE-MIT" "$tree/"
cp "$notices_dir/THIRD-PARTY-NOTICES.txt" "$tree/internal/native/"

# Built by dist.sh (scripts/dist/gomodzip-build.sh) unless run alone.
[ -x target/dist/gomodzip ] || scripts/dist/gomodzip-build.sh target/dist/gomodzip
target/dist/gomodzip -dir "$tree" -module "$module" -version "v$(gw_version)" -out "$proxy"
echo "go-module: $module v$(gw_version) in $proxy ($(find "$proxy" -name "*.zip" -printf "%s") bytes zipped)" >&2
