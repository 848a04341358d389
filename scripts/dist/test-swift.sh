#!/usr/bin/env bash
# test-dist, Swift part (run by scripts/test-dist.sh, which set PATH without cargo/rustc,
# GW_BASE_URL/GW_API_KEY of a running gw-mock and GW_DIST_WORK): the Swift package of make dist
# installed as a user installs it, by URL at a tag:
#   - the release assets on a local HTTPS server (python3's http.server, 127.0.0.1, a certificate
#     of a test CA made here with openssl): target/dist/CGwLinux.artifactbundle.zip as make dist
#     wrote it, and a stand-in CGw.xcframework.zip (SwiftPM downloads and checks every binary
#     target, Apple's too, even on Linux; no XCFramework can be built here).
#   - the package tree (scripts/dist/swift-tree.sh, as make dist writes target/dist/swift, with
#     the server's URL), a git repository tagged <version>; its Sources/Gw must equal
#     target/dist/swift's.
#   - a fresh consumer package (HOME of its own: no SwiftPM cache) with
#     .package(url: "file://.../gw-swift", from: "<version>"): SwiftPM clones the tag, downloads
#     the bundle and checks its checksum; then swift build, and the program chats with gw-mock.
#   - the same with a tree whose Linux checksum is wrong: resolving must fail, for that reason;
#     and, as a control, without the test CA: SwiftPM must refuse the server's certificate.
#   - swift package experimental-audit-binary-artifact on the bundle (x86_64, the host).
#   - aarch64: the variant's archive holds only aarch64 objects (llvm-objdump -f / file); building
#     for aarch64 needs a Swift cross SDK that is not here: untested.
# The test CA: SwiftPM on Linux downloads with FoundationNetworking (libcurl), which on Linux
# reads no variable for its CA file (URLSessionCertificateAuthorityInfoFile is Android-only) and
# takes the first of a fixed list, /etc/ssl/certs/ca-certificates.crt. So the resolve runs in a
# private mount namespace (unshare --mount; --map-root-user when not root) where that path is
# bind-mounted to a copy of the system bundle plus the test CA: the system trust store is never
# written and no other process sees the CA. Without a Swift toolchain, or where no mount
# namespace can be made, the part says SKIPPED with the reason.
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$PWD"
dist_part=swift
source scripts/dist/lib.sh
source scripts/lib/server-process.sh

say() { echo "test-dist[swift]: $*"; }
skip() { say "SKIPPED: $*"; [ -z "${GW_DIST_SKIPS:-}" ] || echo "swift: $*" >>"$GW_DIST_SKIPS"; exit 0; }

SWIFT="${SWIFT:-$(command -v swift || echo /opt/swift/usr/bin/swift)}"
[ -x "$SWIFT" ] || skip "no Swift toolchain (swift on PATH or /opt/swift; Debian packages none)"
swift_dir="$(dirname "$SWIFT")"
ca_path=/etc/ssl/certs/ca-certificates.crt
ns=(unshare --mount)
[ "$(id -u)" = 0 ] || ns+=(--map-root-user)
"${ns[@]}" true 2>/dev/null ||
    skip "no private mount namespace (${ns[*]} failed): the test CA cannot be trusted without writing the system trust store"
[ -f "$ca_path" ] || skip "$ca_path is missing: FoundationNetworking's CA file here is elsewhere"
for tool in openssl git unzip python3; do
    command -v "$tool" >/dev/null || fail "$tool is not installed"
done

version="$(gw_version)"
zip="$root/target/dist/CGwLinux.artifactbundle.zip"
if [ ! -f "$zip" ] || [ ! -f target/dist/swift/Package.swift ]; then
    fail "make dist wrote no Swift package (scripts/dist/swift.sh)"
fi
work="$GW_DIST_WORK/swift"
rm -rf "$work"
mkdir -p "$work/pki" "$work/www" "$work/stub/CGw.xcframework"

# The bundle: its checksum as SwiftPM computes it is sha256sum's; the two variants' archives.
sum="$(cd "$(dirname "$zip")" && "$SWIFT" package compute-checksum "$(basename "$zip")")"
[ "$sum" = "$(sha256sum "$zip" | cut -d' ' -f1)" ] || fail "compute-checksum $sum differs from sha256sum"
unzip -q "$zip" -d "$work/bundle"
bundle="$work/bundle/CGwLinux.artifactbundle"
for f in info.json include/CGw/gw.h include/CGw/module.modulemap x86_64-unknown-linux-gnu/libgw.a \
    aarch64-unknown-linux-gnu/libgw.a; do
    [ -f "$bundle/$f" ] || fail "the bundle lacks $f"
done
same_notices "test-dist[swift]: the bundle" "$bundle"
cmp -s "$bundle/include/CGw/gw.h" include/gw.h || fail "the bundle's gw.h differs from include/gw.h"
# Each variant's archive holds objects of its own architecture only.
objdump_bin="$swift_dir/llvm-objdump"
[ -x "$objdump_bin" ] || objdump_bin="$(command -v llvm-objdump || true)"
for pair in "x86_64:x86[-_]64" aarch64:aarch64; do
    arch="${pair%%:*}" want="${pair#*:}"
    archive="$bundle/$arch-unknown-linux-gnu/libgw.a"
    if [ -n "$objdump_bin" ]; then
        formats="$("$objdump_bin" -f "$archive" | sed -n 's/^architecture: *\([^,]*\).*/\1/p' | sort | uniq -c)"
    else
        formats="$(cd "$work" && rm -rf ar && mkdir ar && cd ar && ar x "$archive" && file -b ./* | cut -d, -f2 | sort | uniq -c)"
    fi
    lines="$(grep -c . <<<"$formats")"
    if [ "$lines" != 1 ] || ! grep -qi -- "$want" <<<"$formats"; then
        echo "$formats"
        fail "$arch variant: not only $want objects"
    fi
    say "$arch variant: $(stat -c %s "$archive") bytes,$(tr -s ' ' <<<"$formats")"
done
say "bundle $(stat -c %s "$zip") bytes zipped, checksum $sum"

say "experimental-audit-binary-artifact (x86_64-unknown-linux-gnu)"
audit_log="$work/audit.log"
if (cd "$work" && "$SWIFT" package experimental-audit-binary-artifact "$zip") >"$audit_log" 2>&1; then
    tail -n 1 "$audit_log"
elif grep -q "Unknown subcommand\|unknown subcommand\|Unexpected argument" "$audit_log"; then
    say "SKIPPED audit: this SwiftPM has no experimental-audit-binary-artifact ($(head -n 1 "$audit_log"))"
else
    cat "$audit_log" >&2
    fail "experimental-audit-binary-artifact failed"
fi

# make dist's own manifest (release URLs) evaluates, and its binary target is the bundle's, by URL.
cp -R target/dist/swift "$work/dist-tree"
"$SWIFT" package --package-path "$work/dist-tree" dump-package >"$work/dist-tree.json" ||
    fail "target/dist/swift/Package.swift does not evaluate"
python3 - "$work/dist-tree.json" "$sum" <<'PY' || fail "target/dist/swift/Package.swift lacks the Linux binary target"
import json, sys
targets = {t["name"]: t for t in json.load(open(sys.argv[1]))["targets"]}
linux = targets["CGwLinux"]
assert linux["type"] == "binary" and linux["url"].endswith("/CGwLinux.artifactbundle.zip"), linux
assert linux["checksum"] == sys.argv[2], linux["checksum"]
print(f"test-dist[swift]: make dist's manifest: CGwLinux at {linux['url']}")
PY

# The test CA and the server's certificate (127.0.0.1), valid for a day.
(
    cd "$work/pki"
    openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=gw test-dist CA" \
        -addext basicConstraints=critical,CA:true -addext keyUsage=critical,keyCertSign,cRLSign \
        -keyout ca.key -out ca.pem 2>/dev/null
    openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" -keyout server.key -out server.csr 2>/dev/null
    printf 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:false\nextendedKeyUsage=serverAuth\n' >server.ext
    openssl x509 -req -days 1 -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial \
        -extfile server.ext -out server.pem 2>/dev/null
    cat "$ca_path" ca.pem >trust.pem
)
# The stand-in XCFramework: only its download and checksum happen on Linux.
cat >"$work/stub/CGw.xcframework/Info.plist" <<'PLIST'
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
    <key>AvailableLibraries</key>
    <array/>
    <key>CFBundlePackageType</key>
    <string>XFWK</string>
    <key>XCFrameworkFormatVersion</key>
    <string>1.0</string>
</dict>
</plist>
PLIST
(cd "$work/stub" && python3 -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1], "w"); z.write("CGw.xcframework"); z.write("CGw.xcframework/Info.plist")' "$work/www/CGw.xcframework.zip")
cp "$zip" "$work/www/"
cat >"$work/serve.py" <<'PY'
import functools, http.server, ssl, sys
root, cert, key, log = sys.argv[1:5]
sys.stderr = open(log, "a", buffering=1)  # the request log, out of the suite's output
handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=root)
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(cert, key)
server.socket = context.wrap_socket(server.socket, server_side=True)
print(f"https://127.0.0.1:{server.server_address[1]}", flush=True)
server.serve_forever()
PY
start_server_process "https server" python3 "$work/serve.py" "$work/www" "$work/pki/server.pem" "$work/pki/server.key" \
    "$work/server.log"
assets_url="$SERVER_LINE"
say "release assets at $assets_url (test CA $work/pki/ca.pem)"

# The tagged trees: the release's (make dist's, with the server's URL) and one whose Linux
# checksum is wrong (the right one with its first hex digit changed).
tree() { # tree DIR: a gw-swift repository in DIR, tagged $version
    git -C "$1" init -q
    git -C "$1" add -A
    git -C "$1" -c user.name=gw-test -c user.email=test@gw.invalid commit -qm "gw-swift $version"
    git -C "$1" tag "$version"
}
scripts/dist/swift-tree.sh "$work/good/gw-swift" "$assets_url" "$work/www/CGwLinux.artifactbundle.zip" \
    "$work/www/CGw.xcframework.zip"
diff -r target/dist/swift/Sources "$work/good/gw-swift/Sources" >/dev/null ||
    fail "make dist's Sources differ from the tree's"
diff -r bindings/swift/Sources/Gw "$work/good/gw-swift/Sources/Gw" >/dev/null ||
    fail "the tree's Sources/Gw differ from bindings/swift/Sources/Gw"
cp -R "$work/good" "$work/bad"
first="${sum:0:1}"
wrong="$([ "$first" = 0 ] && echo 1 || echo 0)${sum:1}"
sed -i "s/$sum/$wrong/" "$work/bad/gw-swift/Package.swift"
grep -q "$wrong" "$work/bad/gw-swift/Package.swift" || fail "could not write the wrong checksum"
tree "$work/good/gw-swift"
tree "$work/bad/gw-swift"

consumer() { # consumer DIR TREE: a fresh package depending on TREE by URL at the tag
    mkdir -p "$1/Sources/App" "$1/home"
    cat >"$1/Package.swift" <<SWIFT
// swift-tools-version:6.2
import PackageDescription

let package = Package(
    name: "App",
    dependencies: [.package(url: "file://$2", from: "$version")],
    targets: [.executableTarget(name: "App", dependencies: [.product(name: "Gw", package: "gw-swift")])]
)
SWIFT
    cat >"$1/Sources/App/main.swift" <<'SWIFT'
import Gw

let client = try GwClient()  // GW_BASE_URL and GW_API_KEY from the environment
let answer = try await client.chat(ChatRequest(model: "gpt-test", messages: [.user("hello from SwiftPM")]))
print("chat: \(answer.text ?? "")")
SWIFT
}
# resolve DIR: swift package resolve as a user, the test CA trusted in this process only.
resolve() {
    # shellcheck disable=SC2016 # expanded by the inner sh, from its arguments
    HOME="$1/home" "${ns[@]}" sh -c 'mount --bind "$1" "$2" && exec "$3" package --package-path "$4" resolve' \
        resolve "$work/pki/trust.pem" "$ca_path" "$SWIFT" "$1"
}

# The control: without the test CA, SwiftPM refuses the server (so the trust below is needed).
consumer "$work/app-untrusted" "$work/good/gw-swift"
if HOME="$work/app-untrusted/home" "$SWIFT" package --package-path "$work/app-untrusted" resolve \
    >"$work/app-untrusted/resolve.log" 2>&1; then
    fail "SwiftPM downloaded from the test server without trusting its CA"
fi
grep -q "SSL certificate problem" "$work/app-untrusted/resolve.log" ||
    { cat "$work/app-untrusted/resolve.log"; fail "the untrusted resolve failed, but not on the certificate"; }
say "without the test CA: SSL certificate problem (as it should)"

say "a consumer of gw-swift $version by URL (file://$work/good/gw-swift)"
consumer "$work/app" "$work/good/gw-swift"
resolve "$work/app" 2>&1 | sed 's/^/  /' || fail "swift package resolve failed"
grep -q '"identity" : "gw-swift"' "$work/app/Package.resolved" || fail "Package.resolved does not pin gw-swift"
grep -q "\"version\" : \"$version\"" "$work/app/Package.resolved" || fail "gw-swift is not at $version"
[ -f "$work/app/.build/artifacts/gw-swift/CGwLinux/CGwLinux.artifactbundle/info.json" ] ||
    fail "the artifact bundle was not downloaded into .build/artifacts"
say "swift build (debug)"
HOME="$work/app/home" "$SWIFT" build --package-path "$work/app" >"$work/app/build.log" 2>&1 ||
    { cat "$work/app/build.log"; fail "swift build failed"; }
tail -n 1 "$work/app/build.log" | sed 's/^/  /'
out="$("$work/app/.build/debug/App")"
echo "  $out"
[ "$out" = "chat: Echo: hello from SwiftPM" ] || fail "unexpected output from the consumer"
if readelf -d "$work/app/.build/debug/App" | grep -q 'libgw\.so'; then
    fail "the consumer needs libgw.so: the static archive was not linked"
fi

say "the same with a wrong checksum in the manifest"
consumer "$work/app-bad" "$work/bad/gw-swift"
bad_log="$work/app-bad/resolve.log"
if resolve "$work/app-bad" >"$bad_log" 2>&1; then
    cat "$bad_log"
    fail "resolving with a wrong checksum succeeded"
fi
msg="$(grep -m 1 "checksum of downloaded artifact of binary target 'CGwLinux'" "$bad_log" || true)"
if [ -z "$msg" ] || ! grep -qF "does not match checksum specified by the manifest ($wrong)" <<<"$msg"; then
    cat "$bad_log"
    fail "resolve failed, but not for the checksum"
fi
echo "  $msg"
[ ! -e "$work/app-bad/.build/artifacts/gw-swift/CGwLinux/CGwLinux.artifactbundle" ] ||
    fail "the artifact with the wrong checksum was kept"
say "aarch64: variant checked by its objects only; building for aarch64 needs a Swift cross SDK (untested)"
