#!/usr/bin/env bash
# scripts/dist/maven.sh: target/dist/maven/, a Maven repository folder holding dev.gw:gw-kotlin
# as a release publishes it (after scripts/dist/natives.sh):
#   gw-kotlin-<v>.jar          the binding, plus libgw.so under JNA's resource prefixes
#                              (linux-x86-64/, linux-aarch64/), which GwNative loads first, and
#                              META-INF/{LICENSE-APACHE,LICENSE-MIT,THIRD-PARTY-NOTICES.txt}
#   gw-kotlin-<v>-sources.jar  the Kotlin sources (with their KDoc)
#   gw-kotlin-<v>-javadoc.jar  the binding's README as index.html. Not generated API docs:
#                              Dokka would add a heavy plugin and minutes to every release
#                              build; the KDoc is in the sources jar, which IDEs show.
#   the POM (description, licenses, scm, developers), maven-metadata.xml, checksums.
# Maven builds a copy of bindings/kotlin under target/dist, so the checkout's own
# bindings/kotlin/target (test-kotlin's, which must load target/release) never holds natives;
# nothing is installed into the local repository (~/.m2).
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/dist/lib.sh

repo="$PWD/target/dist/maven"
stage="$PWD/target/dist/maven-stage"
rm -rf "$repo" "$stage"
mkdir -p "$stage/natives" "$stage/javadoc" "$stage/project" "$stage/notices"
require_notices maven
for f in $notice_files; do cp "$notices_dir/$f" "$stage/notices/"; done
for triple in $dist_platforms; do
    IFS=: read -r platform _ jna_prefix <<<"$triple"
    so="target/dist/natives/$platform/libgw.so"
    [ -f "$so" ] || { echo "maven: $so is missing (scripts/dist/natives.sh)" >&2; exit 1; }
    mkdir -p "$stage/natives/$jna_prefix"
    cp "$so" "$stage/natives/$jna_prefix/libgw.so"
done
python3 - bindings/kotlin/README.md "$stage/javadoc/index.html" <<'PY'
import html, sys
text = open(sys.argv[1], encoding="utf-8").read()
with open(sys.argv[2], "w", encoding="utf-8") as out:
    out.write("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>gw-kotlin</title></head><body>\n"
              "<p>gw-kotlin: the API documentation is the KDoc in the -sources jar; the guide follows.</p>\n"
              "<pre>" + html.escape(text) + "</pre>\n</body></html>\n")
PY
cp -r bindings/kotlin/pom.xml bindings/kotlin/src "$stage/project/"

echo "maven: building dev.gw:gw-kotlin:$(gw_version) into $repo" >&2
mvn -B -q -Pdist -f "$stage/project/pom.xml" deploy \
    -Dmaven.test.skip=true -Dmaven.install.skip=true \
    -Dgw.natives.dir="$stage/natives" -Dgw.notices.dir="$stage/notices" -Dgw.javadoc.dir="$stage/javadoc" \
    -DaltDeploymentRepository="gw-dist::file://$repo" </dev/null
jar="$repo/dev/gw/gw-kotlin/$(gw_version)/gw-kotlin-$(gw_version).jar"
python3 - "$jar" <<'PY'
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
missing = [p for p in ("linux-x86-64/libgw.so", "linux-aarch64/libgw.so", "dev/gw/gw-kotlin.properties",
                       "META-INF/LICENSE-APACHE", "META-INF/LICENSE-MIT", "META-INF/THIRD-PARTY-NOTICES.txt")
           if p not in names]
if missing:
    sys.exit(f"maven: {sys.argv[1]} lacks {', '.join(missing)}")
PY
rm -rf "$stage"
echo "maven: $(cd "$repo" && find . -name '*.jar' -printf '%p %s bytes\n')" >&2
