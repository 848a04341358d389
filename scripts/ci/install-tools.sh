#!/usr/bin/env bash
# Installs what `make test` and `make demo` need and this machine can get, saying what it
# installs; does nothing for what is already there. Run by the Makefile before any suite or
# the demo (target `tools`), and so by .ci/run through `make test`.
#   - Debian packages: valgrind, pkg-config, make, cc, git (install-base below), clang
#     (test-header), GoogleTest, CMake and g++ (test-cpp, test-install, the C++ demo), Maven and
#     a JDK (test-kotlin).
#   - rustfmt and clippy (rustup components), for test-fmt and test-clippy.
#   - Go >= 1.23 where apt offers one. When none can be had, that is not an error here:
#     test-go then says SKIPPED with the reason (scripts/lib/suite.sh).
# A failed install of something the machine offers is an error: the suite is never skipped.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/apt.sh

say() { echo "install-tools: $*"; }

# Commands the suites call directly, keyed by the Debian package that brings them.
missing=()
for pair in valgrind:valgrind pkg-config:pkg-config make:make cc:gcc git:git python3:python3 \
    xz:xz-utils; do
    command -v "${pair%%:*}" >/dev/null || missing+=("${pair#*:}")
done
# cJSON: the C conformance runner reads the corpus with it.
[ -f /usr/include/cjson/cJSON.h ] || missing+=(libcjson-dev)
# zlib: the example event loop (examples/exchange, built into the C suite) inflates gzip answers.
[ -f /usr/include/zlib.h ] || missing+=(zlib1g-dev)
if [ "${#missing[@]}" -gt 0 ]; then
    say "installing ${missing[*]}"
    apt_install "${missing[@]}"
fi

if command -v rustup >/dev/null; then
    for pair in fmt:rustfmt clippy:clippy; do
        if ! cargo "${pair%%:*}" --version >/dev/null 2>&1; then
            say "rustup component add ${pair#*:}"
            rustup component add "${pair#*:}" </dev/null
        fi
    done
fi

scripts/ci/install-clang.sh
scripts/ci/install-gtest.sh
scripts/ci/install-maven.sh
status=0
scripts/ci/install-go.sh || status=$?
# 77: no Go >= 1.23 can be had here; test-go and the Go demo say so when they run.
[ "$status" -eq 0 ] || [ "$status" -eq 77 ] || exit "$status"
