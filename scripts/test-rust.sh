#!/usr/bin/env bash
# make test-rust: the Rust suites (unit, integration against the in-process gw-mock, doc
# tests), then with the feature platform-verifier: the TLS tests with the OS trust store, and
# the Android JNI glue (src/android/) as an Android build compiles it.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --workspace
cargo test --features platform-verifier --test tls --test android_jni_glue
