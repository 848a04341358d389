// swift-tools-version:6.0
//
// The Swift binding of gw: a C module over include/gw.h (CGw) and the Swift API (Gw).
//
// Linking (read when the manifest is evaluated; `rm -rf .build` after changing them):
//   default             the static archive <repo>/target/release/libgw.a (`make build`), so a
//                       program carries gw inside and needs no libgw.so at run time.
//   GW_LIB_DIR=/dir     the same, with libgw.a from /dir (e.g. a cross-built one).
//   GW_SWIFT_LINK=dynamic
//                       -lgw from the linker's search path plus GW_LIB_DIR when set: an
//                       installed gw (`make install`; GW_LIB_DIR="$(pkg-config
//                       --variable=libdir gw)"). The program then needs libgw.so at run time.
import PackageDescription
import Foundation

let packageDir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
let repoRoot = packageDir.deletingLastPathComponent().deletingLastPathComponent()
let environment = ProcessInfo.processInfo.environment
let libDir = environment["GW_LIB_DIR"] ?? repoRoot.appendingPathComponent("target/release").path

let gwLinking: [LinkerSetting]
if environment["GW_SWIFT_LINK"] == "dynamic" {
    gwLinking = (environment["GW_LIB_DIR"].map { [LinkerSetting.unsafeFlags(["-L\($0)", "-Xlinker", "-rpath", "-Xlinker", $0])] } ?? [])
        + [.linkedLibrary("gw")]
} else {
    // The archive by path, so a libgw.so beside it is never picked instead. Rust's std needs
    // pthread, dl and m on Linux; on Apple platforms it needs Security and CoreFoundation
    // (for tlsVerifier .platform).
    gwLinking = [
        .unsafeFlags(["\(libDir)/libgw.a"]),
        .linkedLibrary("pthread", .when(platforms: [.linux, .android])),
        .linkedLibrary("dl", .when(platforms: [.linux, .android])),
        .linkedLibrary("m", .when(platforms: [.linux, .android])),
        .linkedFramework("Security", .when(platforms: [.macOS, .iOS])),
        .linkedFramework("CoreFoundation", .when(platforms: [.macOS, .iOS])),
    ]
}

let strict: [SwiftSetting] = [.swiftLanguageMode(.v6), .enableUpcomingFeature("ExistentialAny")]

let package = Package(
    name: "Gw",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "Gw", targets: ["Gw"]),
        .executable(name: "gw-swift-example", targets: ["GwExample"]),
        .executable(name: "gw-swift-bench", targets: ["GwBench"]),
    ],
    targets: [
        .target(name: "CGw", path: "Sources/CGw", linkerSettings: gwLinking),
        .target(name: "Gw", dependencies: ["CGw"], swiftSettings: strict),
        .executableTarget(name: "GwExample", dependencies: ["Gw"], swiftSettings: strict),
        .executableTarget(name: "GwBench", dependencies: ["Gw", "CGw"], swiftSettings: strict),
        .testTarget(name: "GwTests", dependencies: ["Gw", "CGw"], swiftSettings: strict),
    ]
)
