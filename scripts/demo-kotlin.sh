#!/usr/bin/env bash
# make demo, Kotlin part: installs the binding into ~/.m2 and runs bindings/kotlin/examples
# (Kotlin), then the Java quick start (examples/java, plain javac) against GW_BASE_URL /
# GW_API_KEY (set by scripts/demo.sh: the mock or a real gateway).
# Skipped with a note when Maven or a JDK is missing (scripts/ci/install-maven.sh adds them).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/maven-reach.sh

if ! command -v mvn >/dev/null || ! command -v javac >/dev/null; then
    echo "demo-kotlin: skipped (no mvn/javac; scripts/ci/install-maven.sh installs them)"
    exit 0
fi
: "${GW_BASE_URL:?GW_BASE_URL must be set (scripts/demo.sh sets it)}"
if why="$(maven_unreachable)"; then
    echo
    echo "demo-kotlin: skipped ($why)"
    exit 0
fi

# Maven 3.8 (its Jansi 2) writes a colour reset, ESC[0m, before and after its output even in
# batch mode and into a pipe: the programs' lines would show a stray `[0m`. Without the reset
# (jansi.noreset) Maven prints only what the programs print; java-quickstart.sh inherits it.
export MAVEN_OPTS="${MAVEN_OPTS:+$MAVEN_OPTS }-Djansi.noreset=true"

echo
echo "== bindings/kotlin/examples (QuickStart.kt)"
mvn -B -q -f bindings/kotlin/pom.xml install -DskipTests </dev/null
mvn -B -q -f bindings/kotlin/examples/pom.xml compile exec:java \
    -Djna.library.path="$PWD/target/release" </dev/null

echo
echo "== bindings/kotlin/examples/java/QuickStart.java (javac)"
scripts/java-quickstart.sh
