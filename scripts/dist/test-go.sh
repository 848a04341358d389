#!/usr/bin/env bash
# test-dist, Go part (run by scripts/test-dist.sh, which set PATH, GW_BASE_URL and
# GW_DIST_WORK): the module from target/dist/goproxy as a user gets it, with a fresh module
# cache, GOPROXY=file://..., GOSUMDB=off and GOTOOLCHAIN=local:
#   go get + go build (static: no libgw.so needed) + run against gw-mock;
#   go mod vendor, then a build from vendor/ alone (an empty module cache, GOPROXY=off) + run;
#   CGO_ENABLED=0 and GOARCH=386 (no archive in the module) fail to compile with their message;
#   GOARCH=arm64 cross-built with aarch64-linux-gnu-gcc and run under qemu-aarch64 (run_aarch64);
#   -tags gw_pkgconfig against the unpacked x86_64 SDK (test-sdk.sh unpacked it).
# The program is bindings/go/testdata/outside/main.go (one chat and one stream).
set -euo pipefail
cd "$(dirname "$0")/../.."
dist_part=go
source scripts/dist/lib.sh

module="$(sed -n 's/^module //p' bindings/go/go.mod)"
version="v$(gw_version)"
sdk="$GW_DIST_WORK/sdk-linux-x86_64/gw-$(gw_version)-linux-x86_64"
app="$GW_DIST_WORK/go-app"
mkdir -p "$app"
cp bindings/go/testdata/outside/main.go "$app/"

export GOMODCACHE="$GW_DIST_WORK/go-modcache" GOPATH="$GW_DIST_WORK/go-path"
export GOPROXY="file://$PWD/target/dist/goproxy" GOSUMDB=off GOTOOLCHAIN=local GOFLAGS=-mod=mod
unset GOROOT CGO_CFLAGS CGO_LDFLAGS
repo="$PWD"
cd "$app"
go mod init example.com/consumer >/dev/null 2>&1
go get "$module@$version"
module_dir="$(go list -m -f '{{.Dir}}' "$module")"
same_notices "test-dist[go]: the module" "$module_dir" "$module_dir/internal/native"
go build -o app .
if ldd app | grep libgw >/dev/null; then fail "the default build links libgw.so"; fi
./app

echo "test-dist[go]: go mod vendor"
go mod vendor
vendored="vendor/$module/internal/native"
for f in include/gw.h linux_amd64/libgw.a linux_arm64/libgw.a; do
    [ -f "$vendored/$f" ] || fail "go mod vendor left out $vendored/$f"
done
GOMODCACHE="$GW_DIST_WORK/go-modcache-empty" GOPROXY=off GOFLAGS=-mod=vendor go build -o app-vendored .
./app-vendored

echo "test-dist[go]: CGO_ENABLED=0 and an unsupported platform fail at compile time, saying why"
if CGO_ENABLED=0 go build -o /dev/null . >"$GW_DIST_WORK/nocgo.log" 2>&1; then fail "CGO_ENABLED=0 built"; fi
sed -n 2p "$GW_DIST_WORK/nocgo.log" | grep 'undefined: gw_requires_cgo__build_with_CGO_ENABLED_1' >/dev/null ||
    { cat "$GW_DIST_WORK/nocgo.log"; fail "CGO_ENABLED=0: not the expected message"; }
# zig cc (install-dist.sh's virtualenv) is a C compiler for linux/386 with its own libc headers.
zig="$("$("$repo/scripts/ci/install-dist.sh" --venv-bin)/python" -c 'import ziglang, os; print(os.path.dirname(ziglang.__file__))')/zig"
if GOARCH=386 CGO_ENABLED=1 CC="$zig cc -target x86-linux-gnu" go build -o /dev/null . >"$GW_DIST_WORK/386.log" 2>&1; then
    fail "GOARCH=386 built"
fi
sed -n 2p "$GW_DIST_WORK/386.log" | grep 'undefined: gw_has_no_prebuilt_library_for_this_GOOS_GOARCH' >/dev/null ||
    { cat "$GW_DIST_WORK/386.log"; fail "GOARCH=386: not the expected message"; }
head -n 3 "$GW_DIST_WORK/nocgo.log" "$GW_DIST_WORK/386.log"

echo "test-dist[go]: linux/arm64 cross-built (aarch64-linux-gnu-gcc), run under qemu-aarch64"
GOARCH=arm64 CGO_ENABLED=1 CC=aarch64-linux-gnu-gcc go build -o app-arm64 .
aarch64-linux-gnu-readelf -h app-arm64 | grep 'Machine:.*AArch64' >/dev/null || fail "app-arm64 is not an aarch64 program"
if aarch64-linux-gnu-readelf -d app-arm64 | grep 'NEEDED.*libgw' >/dev/null; then fail "app-arm64 links libgw.so"; fi
# The program checks the chat's and the stream's text itself (exit 1 otherwise); its last line
# names the gw its archive holds.
arm64_out="$(run_aarch64 ./app-arm64)" || fail "app-arm64 under qemu-aarch64 failed: $arm64_out"
echo "$arm64_out"
[ "$arm64_out" = "outside program: gw ${version#v}, chat and stream ok" ] ||
    fail "app-arm64 under qemu-aarch64 printed '$arm64_out'"
echo "test-dist[go]: -tags gw_pkgconfig against the x86_64 SDK"
[ -d "$sdk" ] || fail "$sdk is missing (test-sdk.sh unpacks it)"
PKG_CONFIG_PATH="$sdk/lib/pkgconfig" go build -tags gw_pkgconfig -o app-shared .
LD_LIBRARY_PATH="$sdk/lib" ldd app-shared | grep "$sdk/lib/libgw.so" >/dev/null || fail "app-shared does not use the SDK's libgw.so"
LD_LIBRARY_PATH="$sdk/lib" ./app-shared
echo "test-dist[go]: passed"
