#!/usr/bin/env bash
# The Kotlin suite (bindings/kotlin): JUnit 5 through Maven (Kotlin and Java tests), against
# target/release/libgw.so and the gw-mock binary, which the tests start (and stop) themselves.
# Then, against one gw-mock: the README's Java snippet compiled by plain javac and run
# (scripts/java-quickstart.sh), and apps on Kotlin 1.9 and 2.0 (bindings/kotlin/consumers)
# compiled against the installed jar and run; the Android packaging checks that need no NDK
# (scripts/test-android-package.sh). Expects `make build`.
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
[ "$status" = 0 ] || exit "$status"

source scripts/lib/mock.sh
start_mock
export GW_BASE_URL="$MOCK_URL" GW_API_KEY=sk-test
echo "test-kotlin: the README's Java snippet through javac"
scripts/java-quickstart.sh --check

# The consumers take gw-kotlin from ~/.m2, as an app would.
mvn -B -q "${offline[@]}" -f bindings/kotlin/pom.xml install -DskipTests </dev/null
for consumer in kotlin-1.9 kotlin-2.0; do
    echo "test-kotlin: an app on ${consumer/-/ } (bindings/kotlin/consumers/$consumer)"
    mvn -B -q "${offline[@]}" -f "bindings/kotlin/consumers/$consumer/pom.xml" compile exec:java \
        -Djna.library.path="$lib" </dev/null
done

echo "test-kotlin: Android packaging (no NDK: structure only)"
scripts/test-android-package.sh
