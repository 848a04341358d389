#!/usr/bin/env bash
# Builds target/xcframework/CGw.xcframework from libgw.a for iOS devices, the iOS simulator
# (arm64 + x86_64) and macOS (arm64 + x86_64), with gw.h and a module map (module CGw), for
# Xcode projects and for a SwiftPM .binaryTarget (see bindings/swift/README.md).
#
# UNTESTED: written on Linux machines without macOS, Xcode or the Apple Rust targets; it has
# never been run. It needs macOS with Xcode (xcodebuild, lipo) and rustup. The crate is built
# with the feature platform-verifier so that `tlsVerifier: .platform` (the system trust store)
# works on Apple platforms.
#
#   GW_XCFRAMEWORK_OUT   output directory (default target/xcframework)
#   IPHONEOS_DEPLOYMENT_TARGET (16.0), MACOSX_DEPLOYMENT_TARGET (13.0): as in Package.swift
set -euo pipefail
cd "$(dirname "$0")/.."

[ "$(uname -s)" = Darwin ] || { echo "build-xcframework: needs macOS with Xcode (this is $(uname -s))" >&2; exit 1; }
for tool in cargo rustup xcodebuild lipo; do
    command -v "$tool" >/dev/null || { echo "build-xcframework: $tool is not installed" >&2; exit 1; }
done

out="${GW_XCFRAMEWORK_OUT:-target/xcframework}"
export IPHONEOS_DEPLOYMENT_TARGET="${IPHONEOS_DEPLOYMENT_TARGET:-16.0}"
export MACOSX_DEPLOYMENT_TARGET="${MACOSX_DEPLOYMENT_TARGET:-13.0}"
targets=(aarch64-apple-ios aarch64-apple-ios-sim x86_64-apple-ios aarch64-apple-darwin x86_64-apple-darwin)

rustup target add "${targets[@]}"
for t in "${targets[@]}"; do
    echo "build-xcframework: cargo build --release --target $t"
    cargo build --release --lib --features platform-verifier --target "$t"
done

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# One header directory per slice: gw.h and the module map of CGw (as bindings/swift's C target).
headers="$work/include"
mkdir -p "$headers"
cp include/gw.h "$headers/gw.h"
cat >"$headers/module.modulemap" <<'MAP'
module CGw {
    header "gw.h"
    link "gw"
    export *
}
MAP

# The simulator and macOS slices are each one fat archive of their two architectures.
mkdir -p "$work/ios" "$work/ios-sim" "$work/macos"
cp target/aarch64-apple-ios/release/libgw.a "$work/ios/libgw.a"
lipo -create target/aarch64-apple-ios-sim/release/libgw.a target/x86_64-apple-ios/release/libgw.a \
    -output "$work/ios-sim/libgw.a"
lipo -create target/aarch64-apple-darwin/release/libgw.a target/x86_64-apple-darwin/release/libgw.a \
    -output "$work/macos/libgw.a"

rm -rf "$out/CGw.xcframework"
mkdir -p "$out"
xcodebuild -create-xcframework \
    -library "$work/ios/libgw.a" -headers "$headers" \
    -library "$work/ios-sim/libgw.a" -headers "$headers" \
    -library "$work/macos/libgw.a" -headers "$headers" \
    -output "$out/CGw.xcframework"
echo "build-xcframework: $out/CGw.xcframework"
