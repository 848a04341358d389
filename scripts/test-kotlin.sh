#!/usr/bin/env bash
# The Kotlin suite (bindings/kotlin): JUnit 5 through Maven, against target/release/libgw.so
# and the gw-mock binary, which the tests start (and stop) themselves. Expects `make build`.
# GW_MAVEN_OFFLINE=1 adds -o (works once ~/.m2 holds the dependencies: any earlier run).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/suite.sh
source scripts/lib/maven-reach.sh

lib="$PWD/target/release"
for f in "$lib/libgw.so" "$lib/gw-mock"; do
    [ -e "$f" ] || { echo "test-kotlin: $f is missing; run make build" >&2; exit 1; }
done
command -v mvn >/dev/null || { echo "test-kotlin: mvn is not installed (scripts/ci/install-maven.sh)" >&2; exit 1; }

offline=()
if [ "${GW_MAVEN_OFFLINE:-0}" = 1 ]; then
    offline=(-o)
elif why="$(maven_unreachable)"; then
    skip_suite "$why"
fi

echo "test-kotlin: mvn test (bindings/kotlin)"
rm -rf bindings/kotlin/target/surefire-reports
status=0
mvn -B -q "${offline[@]}" -f bindings/kotlin/pom.xml test \
    -Dgw.library.path="$lib" -Dgw.mock="$lib/gw-mock" </dev/null || status=$?
# -q hides Surefire's totals: print them from its reports, failed or not (after a newline:
# Maven -q leaves terminal reset codes without one).
echo
python3 - bindings/kotlin/target/surefire-reports <<'PY' 2>/dev/null || true
import glob, sys, xml.etree.ElementTree as ET
t = f = e = s = 0
for p in glob.glob(sys.argv[1] + "/TEST-*.xml"):
    r = ET.parse(p).getroot()
    t += int(r.get("tests")); f += int(r.get("failures")); e += int(r.get("errors")); s += int(r.get("skipped"))
print(f"Tests run: {t}, Failures: {f}, Errors: {e}, Skipped: {s}")
print(f"test-kotlin: {t - f - e - s} passed, {f + e} failed")
PY
exit "$status"
