#!/usr/bin/env bash
# `make build`, last step: target/release/notices/ holds the licenses `make install` puts in
# share/doc/gw: gw's own, THIRD-PARTY-NOTICES.txt (every crate linked into libgw for this
# machine, from `cargo tree` without build-only and proc-macro crates, with the license texts
# each ships) and RUST-STD-COPYRIGHT.html (the toolchain's list of its std's licenses).
# `make dist` writes the release artifacts' notices its own way (scripts/dist/notices.py).
# A failure here (cargo cannot resolve offline, no python3) warns and leaves no notices:
# the build stays usable, and scripts/install.sh refuses to install without them.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo="${CARGO:-cargo}"
out=target/release/notices
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
rm -rf "$out"

warn() {
    echo "build-notices: $1; no third-party notices in $out (make install needs them)" >&2
    exit 0
}

command -v python3 >/dev/null || warn "python3 is missing"
host="$(rustc -vV | sed -n 's/^host: //p')"
[ -n "$host" ] || warn "rustc -vV names no host"
$cargo tree -q -p gw -e normal,no-proc-macro --target "$host" --prefix none --format '{p}' \
    >"$work/tree.txt" || warn "cargo tree failed"
$cargo metadata -q --format-version 1 --filter-platform "$host" >"$work/metadata.json" ||
    warn "cargo metadata failed"
python3 scripts/dist/notices.py --tree "$out" "$work/tree.txt" "$work/metadata.json" \
    "$(rustc --print sysroot)" || warn "scripts/dist/notices.py failed"
