#!/usr/bin/env bash
# What of the Android packaging can be checked without an NDK (run by test-kotlin after the
# JUnit suite; expects bindings/kotlin compiled): build-android.sh passes the 16 KB page flag
# for every ABI; the alignment check accepts a library linked with it and refuses one linked
# with 4 KB pages; the AAR assembled from stand-in libraries has the layout, manifest, R8
# rules, classes and POM an Android build expects. Not a test on a device.
set -euo pipefail
cd "$(dirname "$0")/.."

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
aar_py=scripts/lib/android_aar.py

plan="$(scripts/build-android.sh --dry-run --aar "$work/x.aar" "$work/jni" arm64-v8a x86_64)"
grep -q 'RUSTFLAGS=".*-Wl,-z,max-page-size=16384' <<<"$plan" \
    || { echo "android: build-android.sh does not pass the 16 KB page flag:"$'\n'"$plan" >&2; exit 1; }
grep -q "check-align $work/jni/arm64-v8a/libgw.so $work/jni/x86_64/libgw.so" <<<"$plan" \
    || { echo "android: build-android.sh does not check the built libraries' alignment" >&2; exit 1; }

# Stand-ins for the NDK's output: host libraries linked with 16 KB and with 4 KB pages.
echo 'int gw_stand_in(void) { return 1; }' >"$work/stand_in.c"
cc -shared -fPIC -Wl,-z,max-page-size=16384 -o "$work/aligned.so" "$work/stand_in.c"
cc -shared -fPIC -Wl,-z,max-page-size=4096 -Wl,-z,common-page-size=4096 -o "$work/small.so" "$work/stand_in.c"
python3 "$aar_py" check-align "$work/aligned.so"
if python3 "$aar_py" check-align "$work/small.so" 2>"$work/why"; then
    echo "android: the alignment check accepted a library with 4 KB pages" >&2; exit 1
fi
grep -q "below 16 KB" "$work/why" || { echo "android: unclear refusal: $(cat "$work/why")" >&2; exit 1; }

mkdir -p "$work/jni/arm64-v8a" "$work/jni/x86_64" "$work/bad/arm64-v8a"
cp "$work/aligned.so" "$work/jni/arm64-v8a/libgw.so"
cp "$work/aligned.so" "$work/jni/x86_64/libgw.so"
cp "$work/small.so" "$work/bad/arm64-v8a/libgw.so"
if python3 "$aar_py" assemble "$work/bad" bindings/kotlin/target/classes "$work/bad.aar" 2>"$work/why"; then
    echo "android: an AAR was assembled around a library with 4 KB pages" >&2; exit 1
fi
python3 "$aar_py" assemble "$work/jni" bindings/kotlin/target/classes "$work/gw.aar"

python3 - "$work/gw.aar" "$work/gw.pom" <<'PY'
import io, sys, zipfile, xml.etree.ElementTree as ET
aar = zipfile.ZipFile(sys.argv[1])
names = set(aar.namelist())
want = {"AndroidManifest.xml", "classes.jar", "proguard.txt", "R.txt",
        "jni/arm64-v8a/libgw.so", "jni/x86_64/libgw.so"}
assert want <= names, f"missing from the AAR: {want - names}"
for n in ("jni/arm64-v8a/libgw.so", "jni/x86_64/libgw.so"):
    assert aar.getinfo(n).compress_type == zipfile.ZIP_STORED, f"{n} is compressed"
manifest = ET.fromstring(aar.read("AndroidManifest.xml"))
assert manifest.get("package") == "dev.gw", manifest.attrib
perms = [e.get("{http://schemas.android.com/apk/res/android}name") for e in manifest.iter("uses-permission")]
assert "android.permission.INTERNET" in perms, perms
rules = aar.read("proguard.txt").decode()
for keep in ("-keep class com.sun.jna.** { *; }", "-keep class dev.gw.internal.GwNative { *; }",
             "-keep class dev.gw.internal.GwNative$* { *; }"):
    assert keep in rules, f"proguard.txt lacks {keep}"
jar = zipfile.ZipFile(io.BytesIO(aar.read("classes.jar")))
classes = set(jar.namelist())
for c in ("dev/gw/GwClient.class", "dev/gw/internal/GwNative.class", "dev/gw/GwBlocking.class",
          "dev/gw/internal/GwNative$LogCallback.class"):
    assert c in classes, f"classes.jar lacks {c}"
assert any(n.endswith(".kotlin_module") for n in classes), "classes.jar lacks the Kotlin module file"
assert not any(n.endswith((".so", ".dylib", ".dll")) for n in classes), "classes.jar carries a native library"
ns = {"m": "http://maven.apache.org/POM/4.0.0"}
pom = ET.parse(sys.argv[2]).getroot()
assert pom.findtext("m:packaging", namespaces=ns) == "aar"
deps = {d.findtext("m:artifactId", namespaces=ns): d.findtext("m:type", namespaces=ns)
        for d in pom.iterfind("m:dependencies/m:dependency", ns)}
assert deps.get("jna") == "aar", f"JNA is not an AAR dependency: {deps}"
assert "kotlinx-coroutines-core-jvm" in deps and "kotlinx-serialization-json-jvm" in deps, deps
print(f"android: AAR layout, manifest, R8 rules, {len(classes)} classes.jar entries and POM checked")
PY
