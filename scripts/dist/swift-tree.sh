#!/usr/bin/env bash
# scripts/dist/swift-tree.sh OUT BASE_URL BUNDLE_ZIP [XCFRAMEWORK_ZIP]: writes OUT, the tree of
# the Swift package's own repository (gw-swift) as a release tags it:
#   Package.swift  tools 6.2; the library Gw over two binary targets chosen by platform:
#                  CGwLinux (BASE_URL/CGwLinux.artifactbundle.zip, Linux) and, with
#                  XCFRAMEWORK_ZIP, CGw (BASE_URL/CGw.xcframework.zip, macOS, iOS, Mac Catalyst).
#                  Both carry the C module CGw (gw.h), which Sources/Gw imports. Checksums of the
#                  given files. Nothing a dependency may not use: no unsafeFlags, no environment,
#                  no #filePath; Rust's std needs pthread, dl and m on Linux (linkedLibrary),
#                  Security and CoreFoundation on Apple platforms (linkedFramework).
#   Sources/Gw     copied from bindings/swift/Sources/Gw (never a second copy in git)
#   LICENSE-APACHE, LICENSE-MIT, THIRD-PARTY-NOTICES.txt, README.md, .gitignore
# Used by scripts/dist/swift.sh (make dist) and scripts/dist/test-swift.sh (the same tree with the
# test server's URL). SwiftPM's checksum is the SHA-256 of the file: `swift package
# compute-checksum` where a Swift toolchain is installed, else sha256sum (the same digest;
# test-swift.sh compares the two).
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/dist/lib.sh

out="$1" base_url="${2%/}" bundle_zip="$3" xcframework_zip="${4:-}"
version="$(gw_version)"
say() { echo "dist-swift-tree: $*" >&2; }
require_notices swift-tree
swift_bin="${SWIFT:-$(command -v swift || echo /opt/swift/usr/bin/swift)}"
checksum() {
    if [ -x "$swift_bin" ]; then
        (cd "$(dirname "$1")" && "$swift_bin" package compute-checksum "$(basename "$1")")
    else
        sha256sum "$1" | cut -d' ' -f1
    fi
}
linux_sum="$(checksum "$bundle_zip")"

apple_dep="" apple_target=""
if [ -n "$xcframework_zip" ]; then
    apple_sum="$(checksum "$xcframework_zip")"
    apple_dep='
                .target(name: "CGw", condition: .when(platforms: [.macOS, .iOS, .macCatalyst])),'
    apple_target="
        // gw.h and libgw.a per Apple platform (scripts/build-xcframework.sh, macOS only).
        .binaryTarget(
            name: \"CGw\",
            url: \"$base_url/CGw.xcframework.zip\",
            checksum: \"$apple_sum\"),"
fi

rm -rf "$out"
mkdir -p "$out/Sources"
cp -R bindings/swift/Sources/Gw "$out/Sources/Gw"
for f in $notice_files; do install -m 0644 "$notices_dir/$f" "$out/"; done
cat >"$out/Package.swift" <<SWIFT
// swift-tools-version:6.2
//
// gw $version for Swift: the Swift API (Gw) over gw's C ABI (module CGw), with the native library
// prebuilt as binary targets, so no Rust toolchain is needed. Written by gw's \`make dist\`
// (scripts/dist/swift-tree.sh in https://github.com/gw-dev/gw); do not edit.
import PackageDescription

let package = Package(
    name: "Gw",
    platforms: [.macOS(.v13), .iOS(.v16), .macCatalyst(.v16)],
    products: [
        .library(name: "Gw", targets: ["Gw"]),
    ],
    targets: [
        .target(
            name: "Gw",
            dependencies: [
                .target(name: "CGwLinux", condition: .when(platforms: [.linux])),$apple_dep
            ],
            swiftSettings: [.swiftLanguageMode(.v6), .enableUpcomingFeature("ExistentialAny")],
            linkerSettings: [
                .linkedLibrary("pthread", .when(platforms: [.linux])),
                .linkedLibrary("dl", .when(platforms: [.linux])),
                .linkedLibrary("m", .when(platforms: [.linux])),
                .linkedFramework("Security", .when(platforms: [.macOS, .iOS, .macCatalyst])),
                .linkedFramework("CoreFoundation", .when(platforms: [.macOS, .iOS, .macCatalyst])),
            ]),
        // SE-0482 static-library artifact bundle: libgw.a for x86_64 and aarch64 Linux
        // (glibc >= 2.17), with gw.h and the module map of CGw.
        .binaryTarget(
            name: "CGwLinux",
            url: "$base_url/CGwLinux.artifactbundle.zip",
            checksum: "$linux_sum"),$apple_target
    ]
)
SWIFT
printf '.build/\n.swiftpm/\n' >"$out/.gitignore"
cat >"$out/README.md" <<MD
# gw-swift $version

The Swift binding of [gw](https://github.com/gw-dev/gw), a client library for generative-model
gateways, as a Swift package whose native library comes prebuilt (no Rust toolchain needed).
This repository is written by gw's release (\`make dist\`); issues and sources live in gw's.

\`\`\`swift
dependencies: [.package(url: "https://github.com/gw-dev/gw-swift", from: "$version")],
// in the target: .product(name: "Gw", package: "gw-swift")
\`\`\`

Platforms: Linux x86_64 and aarch64 (glibc >= 2.17; \`CGwLinux.artifactbundle.zip\`, SwiftPM 6.2
or later) and, where the release carries \`CGw.xcframework.zip\`, macOS 13, iOS 16 and Mac
Catalyst 16. SwiftPM downloads every binary target of the manifest, whatever the platform.
Licenses: MIT OR Apache-2.0; THIRD-PARTY-NOTICES.txt lists what the native library contains.
MD
# The manifest a dependency may use: no unsafeFlags, environment or #filePath.
if grep -nE 'unsafeFlags|ProcessInfo|environment|#filePath|import Foundation' "$out/Package.swift" >&2; then
    say "$out/Package.swift has what a remote dependency's manifest must not"
    exit 1
fi
say "$out: CGwLinux $linux_sum${xcframework_zip:+, CGw $apple_sum}"
