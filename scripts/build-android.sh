#!/usr/bin/env bash
# Builds libgw.so for Android ABIs with cargo-ndk, 16 KB page aligned, and optionally the AAR:
#   scripts/build-android.sh [--dry-run] [--aar OUT.aar] [OUT_DIR] [ABI...]
# OUT_DIR (the <abi>/libgw.so folders, an app's jniLibs) defaults to build/android/jniLibs;
# ABIs default to arm64-v8a armeabi-v7a x86_64. --aar also compiles bindings/kotlin and
# assembles gw-kotlin's AAR (classes.jar, jni/<abi>/libgw.so, AndroidManifest.xml, R8 rules
# as proguard.txt, the licenses: scripts/build-notices.sh) and OUT.pom beside it (JNA and rustls-platform-verifier's Kotlin component
# as AARs): scripts/lib/android_aar.py.
# libgw is built with the feature platform-verifier: "tls_verifier": "platform" then uses
# Android's trust store once the app calls GwAndroid.init(context) (src/android/).
# Needs the Android NDK (ANDROID_NDK_HOME, or ANDROID_HOME/ndk/<version>) and installs
# cargo-ndk and the rustup targets when missing. Not run by CI: no NDK here, and Android is
# not tested on a device by this project (see bindings/kotlin/README.md); test-kotlin checks
# the alignment check and the AAR's structure with stand-in libraries.
# --dry-run prints what would run without needing the NDK.
set -euo pipefail
cd "$(dirname "$0")/.."

dry=0
aar=""
while [ $# -gt 0 ]; do
    case "$1" in
        --dry-run) dry=1; shift ;;
        --aar) aar="${2:?--aar needs a file name}"; shift 2 ;;
        *) break ;;
    esac
done
out="${1:-build/android/jniLibs}"
shift || true
abis=("$@")
[ "${#abis[@]}" -gt 0 ] || abis=(arm64-v8a armeabi-v7a x86_64)

target_of() {
    case "$1" in
        arm64-v8a) echo aarch64-linux-android ;;
        armeabi-v7a) echo armv7-linux-androideabi ;;
        x86_64) echo x86_64-linux-android ;;
        x86) echo i686-linux-android ;;
        *) echo "build-android: unknown ABI $1 (arm64-v8a, armeabi-v7a, x86_64, x86)" >&2; exit 2 ;;
    esac
}

run() {
    echo "+ $*"
    [ "$dry" = 1 ] || "$@"
}

targets=()
ndk_args=()
for abi in "${abis[@]}"; do
    targets+=("$(target_of "$abi")")
    ndk_args+=(-t "$abi")
done

if [ "$dry" = 0 ]; then
    if [ -z "${ANDROID_NDK_HOME:-}" ] && [ -z "${ANDROID_NDK_ROOT:-}" ] && [ ! -d "${ANDROID_HOME:-/nonexistent}/ndk" ]; then
        echo "build-android: no Android NDK (set ANDROID_NDK_HOME)" >&2
        exit 1
    fi
    command -v cargo-ndk >/dev/null || run cargo install cargo-ndk
fi
run rustup target add "${targets[@]}"
# 16 KB pages: Google Play requires apps targeting Android 15+ to ship native libraries whose
# LOAD segments are 16 KB aligned (NDK r28+ does it by default; older NDKs need the flag).
# RUSTFLAGS with --target reaches only the Android artifacts, not build scripts.
export RUSTFLAGS="${RUSTFLAGS:+$RUSTFLAGS }-C link-arg=-Wl,-z,max-page-size=16384"
echo "+ RUSTFLAGS=\"$RUSTFLAGS\""
# -p gw: only the library, not the mock gateway of the workspace. --platform: the minimum
# API level the .so links against (24 = Android 7; set it to the app's minSdk).
# --features platform-verifier: the system trust store, and the JNI entry point of
# GwAndroid.init that gives it the app's Context.
run cargo ndk "${ndk_args[@]}" --platform 24 -o "$out" build --release -p gw --features platform-verifier
libs=()
for abi in "${abis[@]}"; do libs+=("$out/$abi/libgw.so"); done
run python3 scripts/lib/android_aar.py check-align "${libs[@]}"
# GwAndroid.init binds to this symbol by name: a build without src/android/ would fail there.
run python3 scripts/lib/android_aar.py check-jni "${libs[@]}"

if [ -n "$aar" ]; then
    run mvn -B -q -f bindings/kotlin/pom.xml compile
    # The licenses of what these libraries were built from, for the AAR's root.
    notices="$(dirname "$out")/notices"
    run scripts/build-notices.sh --strict --out "$notices" --features platform-verifier "${targets[@]}"
    run python3 scripts/lib/android_aar.py assemble "$out" bindings/kotlin/target/classes "$aar" "$notices"
fi
[ "$dry" = 1 ] || ls -R "$out"
