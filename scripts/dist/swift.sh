#!/usr/bin/env bash
# scripts/dist/swift.sh: the Swift package of a release (SwiftPM by URL over binary targets, the
# bdk-swift / matrix-rust-components-swift pattern), after scripts/dist/natives.sh and
# scripts/dist/notices.py, from the natives they built (libgw is not built again):
#   target/dist/CGwLinux.artifactbundle.zip   release asset: an SE-0482 static-library artifact
#       bundle, CGwLinux.artifactbundle/ with info.json (schema 1.0, type staticLibrary), one
#       variant per triple (x86_64-unknown-linux-gnu, aarch64-unknown-linux-gnu:
#       <triple>/libgw.a, the dist archives with only gw_* global), the headers shared by both
#       under include/CGw/ (gw.h and a module map of module CGw) and the licenses. Zipped
#       reproducibly (sorted entries, fixed dates), so the same natives give the same checksum.
#   target/dist/swift/   the tagged tree of the package's own repository (gw-swift), written by
#       scripts/dist/swift-tree.sh: Package.swift with the binary targets by URL and checksum,
#       Sources/Gw copied from bindings/swift/Sources/Gw, the licenses, a README.
# The URLs are GW_SWIFT_RELEASE_URL/<asset>; default https://github.com/gw-dev/gw/releases/download/v<version>,
# the release page of the tag vX.Y.Z (.github/workflows/release.yml).
# GW_SWIFT_XCFRAMEWORK_ZIP=<path to CGw.xcframework.zip>, built on macOS by
# scripts/build-xcframework.sh, adds the Apple binary target (its checksum from that zip). Without
# it (any Linux machine) the tree's manifest has the Linux target only and this script says so:
# such a tree is not the release's, which needs both.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/dist/lib.sh

say() { echo "dist-swift: $*" >&2; }
version="$(gw_version)"
base_url="${GW_SWIFT_RELEASE_URL:-https://github.com/gw-dev/gw/releases/download/v$version}"
bundle_name=CGwLinux.artifactbundle
stage="target/dist/swift-stage"
bundle="$stage/$bundle_name"
zip_out="target/dist/$bundle_name.zip"
require_notices swift

rm -rf "$stage"
mkdir -p "$bundle/include/CGw"
install -m 0644 include/gw.h "$bundle/include/CGw/gw.h"
# No `link "gw"`: SwiftPM links the variant's archive itself; an autolink of -lgw could pick
# another libgw (an installed libgw.so) from the linker's search path.
cat >"$bundle/include/CGw/module.modulemap" <<'MAP'
module CGw {
    header "gw.h"
    export *
}
MAP
for f in $notice_files; do install -m 0644 "$notices_dir/$f" "$bundle/"; done
# prune_undefined ARCHIVE BINUTILS_PREFIX: drops from ARCHIVE's symbol tables the undefined
# symbols that no relocation names. The dist archive is one object linked with --gc-sections
# (scripts/localize-static.sh): the code of std it dropped (process spawning, the file system,
# sockets) leaves the names it called behind, undefined and unused (x86_64: 90 of 180, among them
# pidfd_spawnp and pidfd_getpid of glibc 2.39). No linker needs them, but SwiftPM's
# experimental-audit-binary-artifact reads every undefined symbol as one the binary needs and
# fails on those the host's libc lacks. The code is unchanged.
prune_undefined() {
    local archive="$1" prefix="$2" tmp
    tmp="$(mktemp -d)"
    (cd "$tmp" && "${prefix}ar" x "$OLDPWD/$archive")
    "${prefix}objdump" -r "$tmp"/*.o | awk 'NF == 3 && $1 ~ /^[0-9a-f]+$/ { v = $3; sub(/[-+]0x[0-9a-f]+$/, "", v); print v }' |
        sort -u >"$tmp/used"
    "${prefix}nm" -u "$archive" | awk 'NF { print $NF }' | grep -v ':$' | sort -u >"$tmp/undefined"
    comm -23 "$tmp/undefined" "$tmp/used" >"$tmp/unused"
    [ ! -s "$tmp/unused" ] || "${prefix}objcopy" --strip-symbols="$tmp/unused" "$archive"
    say "$archive: $(grep -c . "$tmp/unused" || true) of $(grep -c . "$tmp/undefined") undefined symbols unused, dropped"
    rm -rf "$tmp"
}
variants=()
for platform in linux-x86_64 linux-aarch64; do
    archive="target/dist/natives/$platform/libgw.a"
    [ -f "$archive" ] || { say "$archive is missing (scripts/dist/natives.sh)"; exit 1; }
    arch="${platform#linux-}"
    triple="$arch-unknown-linux-gnu"
    mkdir -p "$bundle/$triple"
    install -m 0644 "$archive" "$bundle/$triple/libgw.a"
    prefix=""
    [ "$arch" = x86_64 ] || prefix="$arch-linux-gnu-"
    prune_undefined "$bundle/$triple/libgw.a" "$prefix"
    variants+=("$triple")
done
python3 - "$bundle/info.json" "$version" "${variants[@]}" <<'PY'
import json, sys
out, version, triples = sys.argv[1], sys.argv[2], sys.argv[3:]
info = {
    "schemaVersion": "1.0",
    "artifacts": {
        "CGwLinux": {
            "type": "staticLibrary",
            "version": version,
            "variants": [
                {
                    "path": f"{t}/libgw.a",
                    "supportedTriples": [t],
                    "staticLibraryMetadata": {
                        "headerPaths": ["include"],
                        "moduleMapPath": "include/CGw/module.modulemap",
                    },
                }
                for t in triples
            ],
        }
    },
}
with open(out, "w", encoding="utf-8") as f:
    json.dump(info, f, indent=2)
    f.write("\n")
PY
# Reproducible: entries sorted, every date 1980-01-01, modes 0644/0755, no extra fields.
python3 - "$bundle" "$zip_out" <<'PY'
import os, sys, zipfile
src, out = sys.argv[1], sys.argv[2]
base = os.path.dirname(src)
when = (1980, 1, 1, 0, 0, 0)
with zipfile.ZipFile(out + ".tmp", "w") as z:
    for root, dirs, files in os.walk(src):
        dirs.sort()
        rel = os.path.relpath(root, base)
        d = zipfile.ZipInfo(rel + "/", when)
        d.external_attr = (0o40755 << 16) | 0x10
        z.writestr(d, b"")
        for name in sorted(files):
            e = zipfile.ZipInfo(f"{rel}/{name}", when)
            e.external_attr = 0o100644 << 16
            e.compress_type = zipfile.ZIP_DEFLATED
            with open(os.path.join(root, name), "rb") as f:
                z.writestr(e, f.read(), compresslevel=9)
os.replace(out + ".tmp", out)
PY

xcframework=()
if [ -n "${GW_SWIFT_XCFRAMEWORK_ZIP:-}" ]; then
    xcframework=("$GW_SWIFT_XCFRAMEWORK_ZIP")
else
    say "no GW_SWIFT_XCFRAMEWORK_ZIP (CGw.xcframework.zip, built on macOS by scripts/build-xcframework.sh):" \
        "target/dist/swift/Package.swift has the Linux binary target only, not a release tree"
fi
scripts/dist/swift-tree.sh target/dist/swift "$base_url" "$zip_out" "${xcframework[@]}"
say "$zip_out $(stat -c %s "$zip_out") bytes (libgw.a: x86_64 $(stat -c %s "$bundle/x86_64-unknown-linux-gnu/libgw.a")," \
    "aarch64 $(stat -c %s "$bundle/aarch64-unknown-linux-gnu/libgw.a") bytes); target/dist/swift/ for $base_url"
rm -rf "$stage"
