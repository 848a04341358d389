#!/usr/bin/env bash
# scripts/test-summary.sh SUITE...: the closing lines of `make test`, from what
# scripts/run-suite.sh recorded: one line per suite, then one line naming the suites that
# passed, were skipped (and why, above) and failed. A suite with no record did not run (its
# tool install or the build failed first). Exits 1 when any suite failed or did not run.
set -uo pipefail
cd "$(dirname "$0")/.."

passed=() skipped=() failed=()
echo
echo "make test, suite by suite:"
for suite in "$@"; do
    record="$(cat "build/test-results/$suite" 2>/dev/null || echo "did not run")"
    printf '  %-13s %s\n' "$suite" "$record"
    case "$record" in
        passed*) passed+=("$suite") ;;
        skipped*) skipped+=("$suite") ;;
        *) failed+=("$suite") ;;
    esac
done
list() { if [ "$#" -gt 0 ]; then echo "$*"; else echo "none"; fi; }
echo "make test: passed $(list "${passed[@]}"); skipped $(list "${skipped[@]}"); failed $(list "${failed[@]}")"
[ "${#failed[@]}" -eq 0 ]
