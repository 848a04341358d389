# Sourced by a test suite's script. skip_suite WHY ends the suite as skipped: it prints one
# line `SKIPPED <suite>: WHY` and exits 77, which scripts/run-suite.sh records as a skip (and
# `make test` goes on). Only for a toolchain or registry this machine cannot have: a failed
# install of something it offers is an error (scripts/ci/install-tools.sh).

skip_suite() {
    local suite="${GW_SUITE:-$(basename "$0" .sh)}"
    echo "SKIPPED $suite: $*"
    [ -z "${GW_SUITE_SKIP_FILE:-}" ] || echo "$*" >"$GW_SUITE_SKIP_FILE"
    exit 77
}
