#!/usr/bin/env bash
# `make conformance`: the corpus in conformance/ run by every binding's runner this machine
# can run, each through its own public API against one gw-mock. Each runner writes
# build/conformance/<language>.tsv (case, pass|fail|skip, why); this prints one line per
# language, `conformance <language>: P passed, F failed, S skipped`, then a table of the
# cases that failed anywhere. A language whose toolchain is absent says so and counts every
# case as skipped; a runner that breaks counts every case as failed. Then scripts/parity.py
# --check: a verb missing in a binding, or a stale table in docs/testing.md, fails it too. Expects
# `make build`.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/mock.sh

out=build/conformance
rm -rf "$out"
mkdir -p "$out"
repo="$PWD"
start_mock
export GW_TEST_BASE_URL="$MOCK_URL" GW_MOCK_URL="$MOCK_URL"
export GW_MOCK_BIN="$repo/target/release/gw-mock"
export GW_CONFORMANCE_DIR="$repo/conformance" GW_CONFORMANCE_OUT="$repo/$out"

# absent[LANGUAGE]: why that language's runner cannot run here.
declare -A absent=()

# Writes rust.tsv (the Rust API) and rust-exchange.tsv (the exchange's C ABI, fed in pieces).
run_rust() {
    cargo test -q --test conformance -- --nocapture
}

# The C runner's sources, with examples/exchange's event loop (its --exchange mode).
runner_c=(-Iinclude -Iexamples/exchange conformance/runners/c/*.c examples/exchange/gw_loop.c
    examples/exchange/gwl_*.c -Ltarget/release -lgw -Wl,-rpath,"$repo/target/release"
    -lcjson -lpthread -lz)

# Under valgrind, as the C suite runs: a leak or a memory error fails the language.
run_c() {
    cc -std=c11 -Wall -Wextra -Werror -O1 -g "${runner_c[@]}" -o "$out/runner-c" || return
    local status=0
    valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect,possible \
        --show-leak-kinds=definite,indirect,possible --error-exitcode=9 \
        --suppressions=tests/c/valgrind.supp \
        "$out/runner-c" conformance "$out/c.tsv" || status=$?
    if [ "$status" -eq 9 ]; then
        echo "conformance c: valgrind found a leak or a memory error (above)"
        rm -f "$out/c.tsv"   # every case then counts as failed
    fi
    return "$status"
}

# Every call an exchange driven by gw_loop on one thread (examples/exchange), no blocking gw
# call. Under AddressSanitizer (leaks included) and UBSan: the C suite already runs the loop
# under valgrind, and this way the run takes seconds.
run_c-exchange() {
    cc -std=c11 -Wall -Wextra -Werror -O1 -g -fsanitize=address,undefined \
        -fno-sanitize-recover=undefined -fno-omit-frame-pointer "${runner_c[@]}" \
        -o "$out/runner-c-exchange" &&
        "$out/runner-c-exchange" --exchange conformance "$out/c-exchange.tsv"
}

run_cpp() {
    "${CXX:-g++}" -std=c++17 -Wall -Wextra -Werror -g -O1 -fsanitize=address,undefined \
        -Iinclude -Ibindings/cpp/include -pthread conformance/runners/cpp/runner.cpp \
        -o "$out/runner-cpp" -Ltarget/release -lgw -Wl,-rpath,"$repo/target/release" &&
        "$out/runner-cpp" conformance "$out/cpp.tsv"
}

run_go() {
    local go_dir stamp
    go_dir="$(scripts/ci/install-go.sh --which)" || return
    # As in scripts/test-go.sh: the go command hashes neither libgw.a nor gw.h, so a stamp
    # of both in CGO_CFLAGS makes a rebuilt library relink the test binary.
    stamp="$(cat target/release/libgw.a include/gw.h | sha256sum | cut -c1-16)"
    (cd bindings/go &&
        CGO_CFLAGS="${CGO_CFLAGS:--O2 -g} -DGW_BUILD_STAMP=$stamp" PATH="$go_dir:$PATH" \
            go test -count=1 -v -run '^TestConformance$' ./...)
}

# Kotlin and Java: JUnit through Maven (bindings/kotlin), as scripts/test-kotlin.sh runs it;
# the runners read GW_CONFORMANCE_DIR and skip without it. GW_MAVEN_OFFLINE=1 adds -o.
maven_offline=()
[ "${GW_MAVEN_OFFLINE:-0}" != 1 ] || maven_offline=(-o)

jvm_runner() {
    local lib="$repo/target/release"
    mvn -B -q "${maven_offline[@]}" -f bindings/kotlin/pom.xml "$@" \
        -Dgw.library.path="$lib" -Dgw.mock="$lib/gw-mock" </dev/null
}

run_kotlin() {
    jvm_runner test -Dtest=ConformanceTest
}

# When the Kotlin run got as far as its TSV, it compiled the tests: the Java runner runs on
# those classes (surefire:test) instead of compiling them again (~1.5 min on 2 cores).
run_java() {
    if [ -e "$out/kotlin.tsv" ]; then
        jvm_runner surefire:test -Dtest=ConformanceJavaTest
    else
        jvm_runner test -Dtest=ConformanceJavaTest
    fi
}

# Swift: the GwTests suite's Conformance test (bindings/swift/Tests/GwTests/ConformanceTests.swift)
# in the plain scratch directory scripts/test-swift.sh uses, so either builds on the other's.
# swift-urlsession: the same runner through the URLSession transport, on the same build.
SWIFT="${SWIFT:-$(command -v swift || echo /opt/swift/usr/bin/swift)}"
swift_corpus() {
    local scratch="$repo/bindings/swift/.build/plain" digest
    # SwiftPM does not track libgw.a (a linker flag): relink when its digest changed.
    digest="$(sha256sum target/release/libgw.a | cut -d' ' -f1)"
    if [ -d "$scratch" ] && [ "$(cat "$scratch/libgw.sha256" 2>/dev/null)" != "$digest" ]; then
        find "$scratch" -maxdepth 3 \( -name '*.xctest' -o -name 'gw-swift-*' \) -prune -exec rm -rf {} +
    fi
    mkdir -p "$scratch" && echo "$digest" >"$scratch/libgw.sha256"
    (cd bindings/swift &&
        "$SWIFT" build --build-tests --scratch-path "$scratch" -Xswiftc -warnings-as-errors &&
        "$SWIFT" test --skip-build --disable-xctest --scratch-path "$scratch" --filter "Conformance/$1\\(")
}
run_swift() { swift_corpus corpus; }
run_swift-urlsession() { swift_corpus urlSessionCorpus; }
if [ ! -x "$SWIFT" ]; then
    absent[swift]="no Swift toolchain (swift on PATH or /opt/swift; Debian packages none)"
    absent[swift-urlsession]="${absent[swift]}"
fi

go_status=0
scripts/ci/install-go.sh --which >/dev/null 2>&1 || go_status=$?
[ "$go_status" -ne 77 ] || absent[go]="needs Go >= 1.23: none installed, none from apt or PyPI (scripts/ci/install-go.sh)"
# The Go runner writes go.tsv (gw's built-in transport) and go-nethttp.tsv (net/http).
[ -z "${absent[go]:-}" ] || absent[go-nethttp]="${absent[go]}"

jvm_absent=""
if ! command -v mvn >/dev/null; then
    jvm_absent="mvn is not installed (scripts/ci/install-maven.sh)"
elif [ "${GW_MAVEN_OFFLINE:-0}" != 1 ]; then
    source scripts/lib/maven-reach.sh
    jvm_absent="$(maven_unreachable)" || jvm_absent=""
fi
if [ -n "$jvm_absent" ]; then
    absent[kotlin]="$jvm_absent"
    absent[java]="$jvm_absent"
fi

for language in rust c c-exchange cpp go kotlin java swift swift-urlsession; do
    [ -z "${absent[$language]:-}" ] || continue
    echo "== conformance $language"
    "run_$language" >"$out/$language.log" 2>&1
    echo "exit $?" >>"$out/$language.log"
    # Maven -q leaves terminal reset codes in front of the first line the tests print.
    sed 's/\x1b\[[0-9;]*m//g' "$out/$language.log" | grep -E '^conformance [a-z-]+ FAIL ' | head -n 40
done

stop_mock
python3 - "$out" "${!absent[@]}" <<'PY'
import json, os, sys
out, absent = sys.argv[1], set(sys.argv[2:])
cases = []
for root, _, files in os.walk("conformance/cases"):
    for f in files:
        if f.endswith(".json"):
            cases.append(os.path.relpath(os.path.join(root, f), "conformance/cases")[:-5])
cases.sort()
languages = ["rust", "rust-exchange", "c", "c-exchange", "cpp", "go", "go-nethttp", "kotlin", "java", "swift", "swift-urlsession"]
results, failed_any = {}, False
for lang in languages:
    path = os.path.join(out, lang + ".tsv")
    got = {}
    if os.path.exists(path):
        for line in open(path, encoding="utf-8"):
            name, word, *_ = line.rstrip("\n").split("\t") + [""]
            got[name] = word
    if lang in absent:
        got = {c: "skip" for c in cases}
    else:
        # A case the runner never reported (it crashed, or missed a file) is a failure.
        got = {c: got.get(c, "fail") for c in cases}
    results[lang] = got
    p = sum(w == "pass" for w in got.values())
    f = sum(w == "fail" for w in got.values())
    s = sum(w == "skip" for w in got.values())
    failed_any |= f > 0
    print(f"conformance {lang}: {p} passed, {f} failed, {s} skipped")
bad = [c for c in cases if any(results[l][c] == "fail" for l in languages)]
if bad:
    width = max(len(c) for c in bad)
    cols = [max(6, len(l)) for l in languages]
    print("\n" + "case".ljust(width) + "  " + "  ".join(l.ljust(w) for l, w in zip(languages, cols)))
    for c in bad:
        print(c.ljust(width) + "  " + "  ".join(results[l][c].ljust(w) for l, w in zip(languages, cols)))
sys.exit(1 if failed_any else 0)
PY
status=$?
for language in "${!absent[@]}"; do echo "conformance $language skipped: ${absent[$language]}"; done
# Parity: every verb of the corpus (and the API's others) in every binding's public API, and
# the generated table in docs/testing.md up to date (scripts/parity.py).
python3 scripts/parity.py --check || status=1
exit "$status"
