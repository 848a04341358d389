#!/usr/bin/env bash
# scripts/run-suite.sh SUITE COMMAND...: runs one suite of `make test` and records how it
# ended in build/test-results/SUITE (passed, failed, or skipped with its reason) for
# scripts/test-summary.sh. A skip (exit 77 through skip_suite, scripts/lib/suite.sh) exits 0
# so that make goes on; a failure keeps its status.
set -uo pipefail
cd "$(dirname "$0")/.."

suite="$1"
shift
results=build/test-results
mkdir -p "$results"
export GW_SUITE="$suite" GW_SUITE_SKIP_FILE="$PWD/$results/$suite.skip"
rm -f "$GW_SUITE_SKIP_FILE" "$results/$suite"

start=$SECONDS
"$@"
status=$?
took=$((SECONDS - start))
if [ "$status" -eq 77 ] && [ -s "$GW_SUITE_SKIP_FILE" ]; then
    echo "skipped: $(head -n 1 "$GW_SUITE_SKIP_FILE")" >"$results/$suite"
    exit 0
elif [ "$status" -eq 0 ]; then
    echo "passed in ${took}s" >"$results/$suite"
else
    echo "failed (exit $status) after ${took}s" >"$results/$suite"
fi
exit "$status"
