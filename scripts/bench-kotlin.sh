#!/usr/bin/env bash
# Timing comparison of the Kotlin binding with openai-java against one gw-mock
# (bindings/kotlin/bench). Prints a Markdown table; asserts nothing; not part of make test.
# Expects `make build`. CALLS=N changes the number of chat calls per round (default 2000).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/mock.sh

start_mock
echo "bench-kotlin: gw-mock at $MOCK_URL"
mvn -B -q -f bindings/kotlin/pom.xml install -DskipTests </dev/null
mvn -B -q -f bindings/kotlin/bench/pom.xml compile exec:java \
    -Djna.library.path="$PWD/target/release" -Dexec.args="$MOCK_URL ${CALLS:-2000}" </dev/null
