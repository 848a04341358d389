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

echo
echo "== bindings/kotlin/examples (QuickStart.kt)"
mvn -B -q -f bindings/kotlin/pom.xml install -DskipTests </dev/null
mvn -B -q -f bindings/kotlin/examples/pom.xml compile exec:java \
    -Djna.library.path="$PWD/target/release" </dev/null

echo
echo "== bindings/kotlin/examples/java/QuickStart.java (javac)"
scripts/java-quickstart.sh
