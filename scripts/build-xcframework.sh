#!/usr/bin/env bash
# Builds target/xcframework/CGw.xcframework (and CGw.xcframework.zip beside it) from libgw.a, with
# one library per Apple platform:
#   ios-arm64                           iOS devices              aarch64-apple-ios
#   ios-arm64_x86_64-simulator          the iOS simulator        aarch64-apple-ios-sim + x86_64-apple-ios
#   macos-arm64_x86_64                  macOS                    aarch64-apple-darwin + x86_64-apple-darwin
#   ios-arm64_x86_64-maccatalyst        Mac Catalyst             aarch64-apple-ios-macabi + x86_64-apple-ios-macabi
# each with the C module CGw in Headers/CGw/ (gw.h, module.modulemap): a folder of its own, so
# that two XCFrameworks in one app never copy two Headers/module.modulemap onto each other (Xcode
# puts every static XCFramework's headers into one include folder; clang finds
# <include>/CGw/module.modulemap by the module's name). And each slice carries a
# PrivacyInfo.xcprivacy: Rust's std reads the boot-time clock (std::time::Instant is
# clock_gettime(CLOCK_UPTIME_RAW), mach_absolute_time's clock; gw's timeouts use it), a required-reason API
# (NSPrivacyAccessedAPICategorySystemBootTime, reason 35F9.1: time between events in the app);
# gw collects no data and does no tracking. A static library has no bundle of its own: whether
# Xcode's privacy report picks the manifest up from the slice is untested; an app can copy the
# entry into its own PrivacyInfo.xcprivacy.
# The zip is the release asset the Swift package's Apple binary target points to (beside the
# Linux artifact bundle, scripts/dist/swift.sh, which takes it as
# GW_SWIFT_XCFRAMEWORK_ZIP=target/xcframework/CGw.xcframework.zip); its checksum is printed last.
#
# UNTESTED: written on Linux machines without macOS, Xcode or the Apple Rust targets; it has
# never been run (only `bash -n` and shellcheck). It needs macOS with Xcode (xcodebuild, lipo,
# plutil, ditto, swift) and rustup. The crate is built with the feature platform-verifier so
# that `tlsVerifier: .platform` (the system trust store) works on Apple platforms.
#
#   GW_XCFRAMEWORK_OUT   output directory (default target/xcframework)
#   IPHONEOS_DEPLOYMENT_TARGET (16.0, also Mac Catalyst's), MACOSX_DEPLOYMENT_TARGET (13.0):
#                        as in the Swift package's platforms
set -euo pipefail
cd "$(dirname "$0")/.."

[ "$(uname -s)" = Darwin ] || { echo "build-xcframework: needs macOS with Xcode (this is $(uname -s))" >&2; exit 1; }
for tool in cargo rustup xcodebuild lipo plutil ditto swift; do
    command -v "$tool" >/dev/null || { echo "build-xcframework: $tool is not installed" >&2; exit 1; }
done

out="${GW_XCFRAMEWORK_OUT:-target/xcframework}"
export IPHONEOS_DEPLOYMENT_TARGET="${IPHONEOS_DEPLOYMENT_TARGET:-16.0}"
export MACOSX_DEPLOYMENT_TARGET="${MACOSX_DEPLOYMENT_TARGET:-13.0}"
targets=(aarch64-apple-ios aarch64-apple-ios-sim x86_64-apple-ios aarch64-apple-darwin x86_64-apple-darwin
    aarch64-apple-ios-macabi x86_64-apple-ios-macabi)

rustup target add "${targets[@]}"
for t in "${targets[@]}"; do
    echo "build-xcframework: cargo build --release --target $t"
    cargo build --release --lib --features platform-verifier --target "$t"
done

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The headers of every slice: include/CGw/{gw.h,module.modulemap} becomes Headers/CGw/. No
# `link "gw"` in the module map: Xcode and SwiftPM link the slice's libgw.a themselves, and an
# autolink of -lgw could find another libgw on the linker's search path.
headers="$work/include"
mkdir -p "$headers/CGw"
cp include/gw.h "$headers/CGw/gw.h"
cat >"$headers/CGw/module.modulemap" <<'MAP'
module CGw {
    header "gw.h"
    export *
}
MAP

cat >"$work/PrivacyInfo.xcprivacy" <<'PLIST'
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
    <key>NSPrivacyTracking</key>
    <false/>
    <key>NSPrivacyTrackingDomains</key>
    <array/>
    <key>NSPrivacyCollectedDataTypes</key>
    <array/>
    <key>NSPrivacyAccessedAPITypes</key>
    <array>
        <dict>
            <key>NSPrivacyAccessedAPIType</key>
            <string>NSPrivacyAccessedAPICategorySystemBootTime</string>
            <key>NSPrivacyAccessedAPITypeReasons</key>
            <array>
                <string>35F9.1</string>
            </array>
        </dict>
    </array>
</dict>
</plist>
PLIST
plutil -lint "$work/PrivacyInfo.xcprivacy"

# The simulator, macOS and Mac Catalyst slices are each one fat archive of their two architectures.
mkdir -p "$work/ios" "$work/ios-sim" "$work/macos" "$work/maccatalyst"
cp target/aarch64-apple-ios/release/libgw.a "$work/ios/libgw.a"
lipo -create target/aarch64-apple-ios-sim/release/libgw.a target/x86_64-apple-ios/release/libgw.a \
    -output "$work/ios-sim/libgw.a"
lipo -create target/aarch64-apple-darwin/release/libgw.a target/x86_64-apple-darwin/release/libgw.a \
    -output "$work/macos/libgw.a"
lipo -create target/aarch64-apple-ios-macabi/release/libgw.a target/x86_64-apple-ios-macabi/release/libgw.a \
    -output "$work/maccatalyst/libgw.a"

rm -rf "$out/CGw.xcframework" "$out/CGw.xcframework.zip"
mkdir -p "$out"
xcodebuild -create-xcframework \
    -library "$work/ios/libgw.a" -headers "$headers" \
    -library "$work/ios-sim/libgw.a" -headers "$headers" \
    -library "$work/macos/libgw.a" -headers "$headers" \
    -library "$work/maccatalyst/libgw.a" -headers "$headers" \
    -output "$out/CGw.xcframework"

# Every slice (a folder beside Info.plist) gets the privacy manifest; each must hold
# Headers/CGw/module.modulemap.
slices=0
for slice in "$out"/CGw.xcframework/*/; do
    [ -f "$slice/Headers/CGw/module.modulemap" ] ||
        { echo "build-xcframework: $slice lacks Headers/CGw/module.modulemap" >&2; exit 1; }
    cp "$work/PrivacyInfo.xcprivacy" "$slice/PrivacyInfo.xcprivacy"
    slices=$((slices + 1))
done
[ "$slices" = 4 ] || { echo "build-xcframework: $slices slices, not 4" >&2; exit 1; }

# The release asset: a zip with CGw.xcframework at its root (ditto keeps the layout Xcode expects).
(cd "$out" && ditto -c -k --sequesterRsrc --keepParent CGw.xcframework CGw.xcframework.zip)
echo "build-xcframework: $out/CGw.xcframework ($slices slices), $out/CGw.xcframework.zip"
echo "build-xcframework: checksum $(cd "$out" && swift package compute-checksum CGw.xcframework.zip)"
