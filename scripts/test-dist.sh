#!/usr/bin/env bash
# The dist suite: `make dist` (scripts/dist.sh), then every artifact installed and used as a user
# would, from a fresh folder, with no Rust toolchain on PATH (consumer_bin, scripts/dist/lib.sh),
# against target/release/gw-mock on loopback:
#   scripts/dist/test-sdk.sh  the C/C++ SDK archives: pkg-config and CMake, shared and static,
#                             x86_64 and aarch64 (cross-built, run under qemu-aarch64)
#   scripts/dist/test-go.sh   the Go module through GOPROXY=file://: go get, build, vendor,
#                             CGO_ENABLED=0 and unsupported-platform messages, linux/arm64
#                             (cross-built, run under qemu-aarch64); SKIPPED with the reason
#                             where make dist could not build it (go.skipped)
#   scripts/dist/test-jvm.sh  dev.gw:gw-kotlin from the maven/ folder: a Kotlin and a Java
#                             project, also with a stale libgw.so on LD_LIBRARY_PATH; SKIPPED
#                             with the reason where make dist could not build it (maven.skipped)
#   scripts/dist/test-swift.sh the Swift package by URL at a tag: SwiftPM downloads the Linux
#                             artifact bundle over HTTPS from a local server and checks its
#                             checksum (and refuses a wrong one), a program runs; SKIPPED with
#                             the reason where there is no Swift toolchain
# A part that cannot run here says SKIPPED with its reason, and the last line repeats it.
# Installs what it needs (scripts/ci/install-dist.sh). Expects `make build` (gw-mock).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/mock.sh
source scripts/dist/lib.sh

[ -x target/release/gw-mock ] || { echo "test-dist: target/release/gw-mock is missing; run make build" >&2; exit 1; }
scripts/ci/install-dist.sh
PATH="$(scripts/ci/install-go.sh --which):$PATH"

start=$SECONDS
scripts/dist.sh
echo "test-dist: make dist took $((SECONDS - start)) s"
# The notices name every crate of cargo's own dependency graph for the shipped libraries: a
# second list, from the lock file, beside notices.py's, from what was compiled.
for triple in x86_64-unknown-linux-gnu aarch64-unknown-linux-gnu; do
    cargo tree -q -p gw -e normal,no-proc-macro "${dist_features[@]}" --target "$triple" \
        --prefix none --format '{p}' | awk '$1 != "gw" { print $1, substr($2, 2) }' | sort -u |
        while read -r name crate_version; do
            grep -q "^  $name $crate_version: " "$notices_dir/THIRD-PARTY-NOTICES.txt" ||
                { echo "test-dist: THIRD-PARTY-NOTICES.txt lacks $name $crate_version ($triple)" >&2; exit 1; }
        done
done
grep -q "^  std 0.0.0: " "$notices_dir/THIRD-PARTY-NOTICES.txt" ||
    { echo "test-dist: THIRD-PARTY-NOTICES.txt lacks Rust's std" >&2; exit 1; }
ls -l target/dist/*.tar.gz target/dist/*.zip target/dist/natives/*/*
[ -f target/dist/go.skipped ] || ls -l target/dist/goproxy/*/*/*/*/*/@v/*.zip
[ -f target/dist/maven.skipped ] || ls -l target/dist/maven/dev/gw/gw-kotlin/*/*.jar

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
consumer_path="$(consumer_bin "$work/bin")"
for tool in cargo rustc rustup; do
    if PATH="$consumer_path" command -v "$tool" >/dev/null; then
        echo "test-dist: $tool is still on the consumers' PATH" >&2
        exit 1
    fi
done
start_mock
trap 'rm -rf "$work"; stop_mock' EXIT # start_mock set its own; keep both jobs
export GW_BASE_URL="$MOCK_URL" GW_API_KEY=sk-test GW_DIST_WORK="$work" GW_DIST_SKIPS="$work/skipped"
: >"$GW_DIST_SKIPS"

for part in sdk go jvm swift; do
    part_start=$SECONDS
    marker="target/dist/$part.skipped"
    [ "$part" != jvm ] || marker=target/dist/maven.skipped
    if [ -f "$marker" ]; then
        echo "test-dist: $part SKIPPED: make dist did not build it: $(cat "$marker")"
        echo "$part: $(cat "$marker")" >>"$GW_DIST_SKIPS"
        continue
    fi
    echo "test-dist: $part (PATH without cargo/rustc)"
    PATH="$consumer_path" "scripts/dist/test-$part.sh"
    echo "test-dist: $part done in $((SECONDS - part_start)) s"
done
if [ -s "$GW_DIST_SKIPS" ]; then
    echo "test-dist: passed in $((SECONDS - start)) s; SKIPPED $(paste -sd ';' "$GW_DIST_SKIPS" | sed 's/;/; /g')"
else
    echo "test-dist: passed in $((SECONDS - start)) s"
fi
