#!/usr/bin/env bash
# Builds libgw.so for Android ABIs with cargo-ndk into an app's jniLibs folder:
#   scripts/build-android.sh [OUT_DIR] [ABI...]
# OUT_DIR defaults to build/android/jniLibs; ABIs default to arm64-v8a armeabi-v7a x86_64.
# Needs the Android NDK (ANDROID_NDK_HOME, or ANDROID_HOME/ndk/<version>) and installs
# cargo-ndk and the rustup targets when missing. Not run by CI: no NDK here, and Android is
# not tested by this project (see bindings/kotlin/README.md).
# --dry-run prints what would run without needing the NDK.
set -euo pipefail
cd "$(dirname "$0")/.."

dry=0
if [ "${1:-}" = "--dry-run" ]; then dry=1; shift; fi
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
# -p gw: only the library, not the mock gateway of the workspace. --platform: the minimum
# API level the .so links against (24 = Android 7; set it to the app's minSdk).
run cargo ndk "${ndk_args[@]}" --platform 24 -o "$out" build --release -p gw
[ "$dry" = 1 ] || ls -R "$out"
