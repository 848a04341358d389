#!/usr/bin/env bash
# make test-rust: the Rust suites (unit, integration against the in-process gw-mock, doc
# tests), then the TLS tests again with the OS trust store (feature platform-verifier).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --workspace
cargo test --features platform-verifier --test tls
