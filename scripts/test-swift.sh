#!/usr/bin/env bash
# The Swift suite (bindings/swift): `swift test` (Swift Testing) against ONE gw-mock started
# here and passed to every run as GW_MOCK_URL, three times: plain (Swift warnings are errors),
# under AddressSanitizer (with LeakSanitizer) and under ThreadSanitizer, each in a scratch
# directory of its own so reruns are incremental. Then the README's quick start, literally: a
# fresh `swift package init` outside the repository that depends on bindings/swift by path,
# run against the same mock. Ends with one summary line per run. Expects `make build`.
#
#   GW_SWIFT_SANITIZERS   runs besides the plain one (default "address thread"; "" for none)
#   GW_SWIFT_QUICKSTART   0 skips the quick-start check
#   SWIFT                 the swift driver (default: swift on PATH, else /opt/swift/usr/bin/swift)
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
lib="$root/target/release"
pkg="$root/bindings/swift"

for f in "$lib/libgw.a" "$lib/gw-mock"; do
    [ -e "$f" ] || { echo "test-swift: $f is missing; run make build" >&2; exit 1; }
done
source scripts/lib/suite.sh
SWIFT="${SWIFT:-$(command -v swift || echo /opt/swift/usr/bin/swift)}"
# Debian packages no Swift toolchain: where none is installed the suite cannot run here.
[ -x "$SWIFT" ] || skip_suite "no Swift toolchain (swift on PATH or /opt/swift; Debian packages none)"
sanitizers="${GW_SWIFT_SANITIZERS-address thread}"

source scripts/lib/mock.sh
start_mock
export GW_MOCK_URL="$MOCK_URL"
echo "test-swift: $("$SWIFT" --version 2>/dev/null | head -n 1); gw-mock at $GW_MOCK_URL"

# SwiftPM does not track libgw.a (it is a linker flag): relink when its digest changed.
relink_if_libgw_changed() {
    local scratch="$1" digest stamp
    digest="$(sha256sum "$lib/libgw.a" | cut -d' ' -f1)"
    stamp="$scratch/libgw.sha256"
    if [ -d "$scratch" ] && [ "$(cat "$stamp" 2>/dev/null)" != "$digest" ]; then
        find "$scratch" -maxdepth 3 \( -name '*.xctest' -o -name 'gw-swift-*' \) -prune -exec rm -rf {} +
    fi
    mkdir -p "$scratch"
    echo "$digest" >"$stamp"
}

summary=()
failed=0
total_start=$SECONDS

# run NAME SCRATCH [swift test flags...]: builds (warnings as errors) and runs the tests.
run() {
    local name="$1" scratch="$2" log start status=ok counts
    shift 2
    log="$(mktemp)"
    start=$SECONDS
    relink_if_libgw_changed "$scratch"
    echo "test-swift: [$name] swift test $*"
    if ! (cd "$pkg" && "$SWIFT" build --build-tests --scratch-path "$scratch" -Xswiftc -warnings-as-errors "$@" \
            && "$SWIFT" test --skip-build --disable-xctest --scratch-path "$scratch" "$@") >"$log" 2>&1; then
        status=FAILED
        failed=1
    fi
    # The figures the tests print (cancellation latencies, starvation check), then failures.
    grep -E '^gw-swift ' "$log" | sed "s/^/test-swift: [$name] /" || true
    grep -E '✘|ERROR: (Address|Thread|Leak)Sanitizer|SUMMARY: |error:' "$log" | grep -v 'ld.gold' | head -n 40 || true
    if [ "$status" = FAILED ] && ! grep -q 'Test run with' "$log"; then tail -n 40 "$log"; fi
    counts="$(grep -Eo 'Test run with [0-9]+ tests?.*(passed|failed).*' "$log" | tail -n 1 || true)"
    [ -n "$counts" ] || counts="no test run"
    summary+=("$(printf '%-11s %-7s %4ss  %s' "$name" "$status" "$((SECONDS - start))" "$counts")")
    rm -f "$log"
}

run plain "$pkg/.build/plain"
# libcurl's per-task leak under FoundationNetworking's URLSession (the URLSession transport's
# tests), and only that: see the file.
export LSAN_OPTIONS="suppressions=$pkg/Tests/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
for s in $sanitizers; do
    run "$s" "$pkg/.build/$s" --sanitize="$s"
done

# The README's quick start: a package outside the repository, depending on this one by path.
if [ "${GW_SWIFT_QUICKSTART:-1}" != 0 ]; then
    start=$SECONDS
    qs="${TMPDIR:-/tmp}/gw-swift-quickstart"
    mkdir -p "$qs"
    status=ok
    if ! (
        cd "$qs"
        rm -rf Package.swift Sources
        "$SWIFT" package init --type executable --name Quickstart >/dev/null
        rm -f Sources/Quickstart/*.swift  # the generated @main file; the README's main.swift replaces it
        cat >Package.swift <<SWIFT
// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Quickstart",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [.package(path: "$pkg")],
    targets: [
        .executableTarget(name: "Quickstart", dependencies: [.product(name: "Gw", package: "swift")]),
    ]
)
SWIFT
        cat >Sources/Quickstart/main.swift <<'SWIFT'
import Gw

let client = try GwClient()  // GW_BASE_URL and GW_API_KEY from the environment
let answer = try await client.chat(ChatRequest(model: "gpt-test", messages: [.user("Hello from Swift")]))
print(answer.text ?? "")
for try await event in client.chatStream(ChatRequest(model: "gpt-test", messages: [.user("and streamed")])) {
    print(event.textDelta ?? "", terminator: "")
}
print()
SWIFT
        out="$(GW_BASE_URL="$GW_MOCK_URL" GW_API_KEY=sk-test "$SWIFT" run -Xswiftc -warnings-as-errors 2>&1)" \
            || { echo "$out" | tail -n 30; exit 1; }
        echo "$out" | grep -q '^Echo: Hello from Swift$' && echo "$out" | grep -q '^Echo: and streamed$' \
            || { echo "$out" | tail -n 30; exit 1; }
    ); then
        status=FAILED
        failed=1
    fi
    summary+=("$(printf '%-11s %-7s %4ss  %s' quickstart "$status" "$((SECONDS - start))" "swift package init + .package(path:) + swift run")")
fi

echo
for line in "${summary[@]}"; do echo "test-swift: $line"; done
echo "test-swift: $([ "$failed" = 0 ] && echo passed || echo FAILED) in $((SECONDS - total_start)) s"
exit "$failed"
