#!/usr/bin/env bash
# test-dist, JVM part (run by scripts/test-dist.sh, which set PATH, GW_BASE_URL and
# GW_DIST_WORK): tests/dist/jvm/kotlin and tests/dist/jvm/java, each a user's project copied to
# a fresh folder, resolve dev.gw:gw-kotlin from target/dist/maven (file://) with a local
# repository of their own that starts empty: gw is never installed into it, and its
# _remote.repositories must name the dist folder. Other artifacts come from ~/.m2 (read as a
# file:// repository, so nothing is downloaded twice) or Maven Central. Each program runs with
# no jna.library.path and no LD_LIBRARY_PATH, then again with a stale libgw.so (another
# version) on LD_LIBRARY_PATH, which must not be loaded.
set -euo pipefail
cd "$(dirname "$0")/../.."
dist_part=jvm
source scripts/dist/lib.sh

version="$(gw_version)"
dist_repo="$PWD/target/dist/maven"
work="$GW_DIST_WORK/jvm"
local_repo="$work/m2-local"
mkdir -p "$work/stale" "$local_repo"
unset LD_LIBRARY_PATH JAVA_TOOL_OPTIONS

cat >"$work/settings.xml" <<XML
<settings>
  <localRepository>$local_repo</localRepository>
  <profiles>
    <profile>
      <id>gw-dist</id>
      <repositories>
        <repository><id>gw-dist</id><url>file://$dist_repo</url></repository>
        <repository><id>m2-cache</id><url>file://$HOME/.m2/repository</url></repository>
      </repositories>
      <pluginRepositories>
        <pluginRepository><id>m2-cache</id><url>file://$HOME/.m2/repository</url></pluginRepository>
      </pluginRepositories>
    </profile>
  </profiles>
  <activeProfiles><activeProfile>gw-dist</activeProfile></activeProfiles>
</settings>
XML
cc -Wall -Wextra -Werror -shared -fPIC -Wl,-soname,libgw.so.0 tests/dist/jvm/stale-libgw.c -o "$work/stale/libgw.so"
ln -s libgw.so "$work/stale/libgw.so.0"

for lang in kotlin java; do
    project="$work/$lang"
    cp -r "tests/dist/jvm/$lang" "$project"
    main=MainKt
    [ "$lang" = kotlin ] || main=Main
    mvn -B -q -s "$work/settings.xml" -f "$project/pom.xml" -Dgw.version="$version" compile \
        org.apache.maven.plugins:maven-dependency-plugin:3.8.1:build-classpath \
        -Dmdep.outputFile="$project/classpath.txt" </dev/null
    origin="$local_repo/dev/gw/gw-kotlin/$version/_remote.repositories"
    grep -q "gw-kotlin-$version.jar>gw-dist=" "$origin" || { cat "$origin"; fail "$lang: gw-kotlin did not come from target/dist/maven"; }
    # The jar as resolved carries gw's licenses and the natives' notices in META-INF/.
    rm -rf "$project/jar-meta-inf"
    python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2], [n for n in zipfile.ZipFile(sys.argv[1]).namelist() if n.startswith("META-INF/")])' \
        "$local_repo/dev/gw/gw-kotlin/$version/gw-kotlin-$version.jar" "$project/jar-meta-inf"
    same_notices "test-dist[jvm]: $lang, the resolved jar" "$project/jar-meta-inf/META-INF"
    cp_line="$project/target/classes:$(cat "$project/classpath.txt")"
    echo "test-dist[jvm]: $lang, no library path"
    java -cp "$cp_line" "$main" "$version"
    echo "test-dist[jvm]: $lang, a stale libgw.so on LD_LIBRARY_PATH"
    rm -f "$work/stale-mark"
    GW_STALE_MARK="$work/stale-mark" LD_LIBRARY_PATH="$work/stale" java -cp "$cp_line" "$main" "$version"
    [ ! -e "$work/stale-mark" ] || fail "$lang: the stale libgw.so on LD_LIBRARY_PATH was loaded"
done
# The checks above can fail: the stale copy, when loaded, leaves its mark and fails gw-kotlin's
# version check.
rm -f "$work/stale-mark"
if GW_STALE_MARK="$work/stale-mark" java -cp "$work/java/target/classes:$(cat "$work/java/classpath.txt")" \
    -Dgw.library="$work/stale/libgw.so" Main "$version" >"$work/stale.log" 2>&1; then
    fail "the stale libgw.so given as gw.library passed the version check"
fi
grep -q "is gw 0.0.1-stale, but this binding (gw-kotlin) is $version" "$work/stale.log" ||
    { cat "$work/stale.log"; fail "loading the stale libgw.so did not fail with the version message"; }
[ -e "$work/stale-mark" ] || fail "the stale libgw.so leaves no mark when loaded"
echo "test-dist[jvm]: passed"
