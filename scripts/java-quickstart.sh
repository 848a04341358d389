#!/usr/bin/env bash
# Compiles bindings/kotlin/examples/java/QuickStart.java with plain javac (no build tool,
# only the binding's classes and its runtime dependencies on the classpath) and runs it
# against GW_BASE_URL / GW_API_KEY. Expects `mvn compile` (or test) of bindings/kotlin done.
# --check: also asserts what it printed (the mock echoes "Echo: Hello from Java" each time).
set -euo pipefail
cd "$(dirname "$0")/.."
: "${GW_BASE_URL:?GW_BASE_URL must be set}"

out=build/java-quickstart
mkdir -p "$out"
offline=()
[ "${GW_MAVEN_OFFLINE:-0}" = 1 ] && offline=(-o)
mvn -B -q "${offline[@]}" -f bindings/kotlin/pom.xml dependency:build-classpath \
    -Dmdep.includeScope=runtime -Dmdep.outputFile="$PWD/$out/classpath" </dev/null
cp="$PWD/bindings/kotlin/target/classes:$(cat "$out/classpath")"
javac -Xlint:all -Werror -d "$out" -cp "$cp" bindings/kotlin/examples/java/QuickStart.java
printed="$(java -cp "$out:$cp" -Djna.library.path="$PWD/target/release" QuickStart)"
echo "$printed"
if [ "${1:-}" = "--check" ]; then
    want=$'Echo: Hello from Java\nEcho: Hello from JavaEcho: Hello from Java\nEcho: Hello from Java'
    [ "$printed" = "$want" ] || { echo "java-quickstart: unexpected output (want: $want)" >&2; exit 1; }
    echo "java-quickstart: the README's Java snippet compiled with javac and ran as written"
fi
