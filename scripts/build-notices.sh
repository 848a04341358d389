#!/usr/bin/env bash
# The licenses that go with a libgw built from source, into one folder: gw's own,
# THIRD-PARTY-NOTICES.txt (every crate linked into libgw for the targets, from `cargo tree`
# without build-only and proc-macro crates, with the license texts each ships) and
# RUST-STD-COPYRIGHT.html (the toolchain's list of its std's licenses).
#   scripts/build-notices.sh [--strict] [--out DIR] [--features F] [TRIPLE...]
# Without arguments (`make build`'s last step): the host's build into target/release/notices,
# which scripts/install.sh puts in share/doc/gw. scripts/build-android.sh: the Android ABIs'
# triples with --features platform-verifier, for the AAR. `make dist` writes the release
# artifacts' notices its own way (scripts/dist/notices.py, from what cargo compiled).
# A failure (cargo cannot resolve offline, no python3) warns and leaves no notices, so a
# plain build stays usable (scripts/install.sh then refuses); with --strict it fails.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo="${CARGO:-cargo}"
strict=0
out=target/release/notices
features=()
while [ $# -gt 0 ]; do
    case "$1" in
        --strict) strict=1; shift ;;
        --out) out="${2:?--out needs a folder}"; shift 2 ;;
        --features) features=(--features "${2:?--features needs a list}"); shift 2 ;;
        *) break ;;
    esac
done
triples=("$@")
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
rm -rf "$out"

warn() {
    echo "build-notices: $1; no third-party notices in $out" >&2
    [ "$strict" = 0 ] || exit 1
    echo "build-notices: (make install needs them)" >&2
    exit 0
}

command -v python3 >/dev/null || warn "python3 is missing"
if [ "${#triples[@]}" = 0 ]; then
    triples=("$(rustc -vV | sed -n 's/^host: //p')")
    [ -n "${triples[0]}" ] || warn "rustc -vV names no host"
fi
tree_targets=() platforms=()
for triple in "${triples[@]}"; do
    tree_targets+=(--target "$triple")
    platforms+=(--filter-platform "$triple")
done
$cargo tree -q -p gw -e normal,no-proc-macro "${features[@]}" "${tree_targets[@]}" --prefix none \
    --format '{p}' >"$work/tree.txt" || warn "cargo tree failed"
$cargo metadata -q --format-version 1 "${features[@]}" "${platforms[@]}" >"$work/metadata.json" ||
    warn "cargo metadata failed"
python3 scripts/dist/notices.py --tree "$out" "$work/tree.txt" "$work/metadata.json" \
    "$(rustc --print sysroot)" || warn "scripts/dist/notices.py failed"
