#!/usr/bin/env bash
# What of the Android packaging can be checked without an NDK (run by test-kotlin after the
# JUnit suite; expects bindings/kotlin compiled): build-android.sh passes the 16 KB page flag
# for every ABI and builds with the platform verifier; the alignment check accepts a library
# linked with it and refuses one linked with 4 KB pages; GwAndroid's native method, the JNI
# function of src/android/jni_init.rs and the symbol the packaging checks for are one name,
# and their statuses agree; a library without that symbol is refused; the AAR assembled from
# stand-in libraries has the layout, manifest, R8 rules, classes and POM (JNA and
# rustls-platform-verifier's Kotlin component) an Android build expects, and at its root the
# licenses of the Android build's crates (refused without them). Not a test on a device.
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
grep -q "cargo ndk .* build .*--features platform-verifier" <<<"$plan" \
    || { echo "android: build-android.sh does not build with the feature platform-verifier:"$'\n'"$plan" >&2; exit 1; }
grep -q "check-jni $work/jni/arm64-v8a/libgw.so $work/jni/x86_64/libgw.so" <<<"$plan" \
    || { echo "android: build-android.sh does not check the built libraries export GwAndroid's entry point" >&2; exit 1; }
notices_step="build-notices.sh --strict --out $work/notices --features platform-verifier aarch64-linux-android x86_64-linux-android"
grep -q -- "$notices_step" <<<"$plan" \
    || { echo "android: build-android.sh does not write the ABIs' notices ($notices_step):"$'\n'"$plan" >&2; exit 1; }
grep -q "assemble $work/jni bindings/kotlin/target/classes $work/x.aar $work/notices" <<<"$plan" \
    || { echo "android: build-android.sh does not put the notices in the AAR:"$'\n'"$plan" >&2; exit 1; }

# One name on three sides: the native method javac/kotlinc compiled, the Rust function, and
# what android_aar.py looks for in the built libraries; the same statuses on both sides.
jni_entry="$(python3 - bindings/kotlin/target/classes <<'PY'
import re, subprocess, sys
sys.path.insert(0, "scripts/lib")
import android_aar
out = subprocess.run(["javap", "-p", "-cp", sys.argv[1], "dev.gw.GwAndroid"], check=True,
                     capture_output=True, text=True).stdout
natives = [l.strip() for l in out.splitlines() if " native " in l]
shape = [re.fullmatch(r"private static (?:final )?native int (\w+)\(java\.lang\.Object\);", n) for n in natives]
assert len(shape) == 1 and shape[0], \
    f"GwAndroid's native methods changed: {natives} (update src/android/jni_init.rs and this check)"
cls = re.search(r"class (\S+)", out).group(1)
mangle = lambda s: s.replace("_", "_1").replace(".", "_")
from_kotlin = f"Java_{mangle(cls)}_{mangle(shape[0].group(1))}"
rust = open("src/android/jni_init.rs").read()
from_rust = re.findall(r'#\[no_mangle\]\s*pub extern "system" fn (\w+)<\'local>\(\s*'
                       r'env: EnvUnowned<\'local>,\s*_class: JClass<\'local>,\s*'
                       r'context: JObject<\'local>,\s*\) -> jint', rust)
assert from_rust == [from_kotlin], \
    f"the JNI function of src/android/jni_init.rs (env, class, context) -> jint is {from_rust}, GwAndroid needs {from_kotlin}"
assert android_aar.JNI_ENTRY == from_kotlin, f"android_aar.py checks for {android_aar.JNI_ENTRY}, not {from_kotlin}"
kotlin_status = dict(re.findall(r"private const val (INIT_\w+) = (\d+)", open("bindings/kotlin/src/main/kotlin/dev/gw/GwAndroid.kt").read()))
rust_status = dict(re.findall(r"pub\(crate\) const (INIT_\w+): jint = (\d+);", rust))
assert kotlin_status and kotlin_status == rust_status, f"statuses differ: Kotlin {kotlin_status}, Rust {rust_status}"
print(from_kotlin)
PY
)"
echo "android: JNI entry point $jni_entry agrees (Kotlin class, Rust, packaging check, statuses)"

# Stand-ins for the NDK's output: host libraries linked with 16 KB and with 4 KB pages,
# exporting GwAndroid's entry point, and one (16 KB) without it.
echo "int gw_stand_in(void) { return 1; } int $jni_entry(void *e, void *c, void *o) { return 0; }" >"$work/stand_in.c"
echo 'int gw_stand_in(void) { return 1; }' >"$work/no_jni.c"
cc -shared -fPIC -Wl,-z,max-page-size=16384 -o "$work/aligned.so" "$work/stand_in.c"
cc -shared -fPIC -Wl,-z,max-page-size=4096 -Wl,-z,common-page-size=4096 -o "$work/small.so" "$work/stand_in.c"
cc -shared -fPIC -Wl,-z,max-page-size=16384 -o "$work/no_jni.so" "$work/no_jni.c"
python3 "$aar_py" check-align "$work/aligned.so"
if python3 "$aar_py" check-align "$work/small.so" 2>"$work/why"; then
    echo "android: the alignment check accepted a library with 4 KB pages" >&2; exit 1
fi
grep -q "below 16 KB" "$work/why" || { echo "android: unclear refusal: $(cat "$work/why")" >&2; exit 1; }
python3 "$aar_py" check-jni "$work/aligned.so"
# armeabi-v7a's libraries are 32-bit ELF: the same checks on 32-bit stand-ins (x86's -m32
# needs no 32-bit libc with -nostdlib).
if cc -m32 -shared -fPIC -nostdlib -Wl,-z,max-page-size=16384 -o "$work/aligned32.so" "$work/stand_in.c" 2>/dev/null \
    && cc -m32 -shared -fPIC -nostdlib -Wl,-z,max-page-size=16384 -o "$work/no_jni32.so" "$work/no_jni.c" 2>/dev/null; then
    python3 "$aar_py" check-align "$work/aligned32.so"
    python3 "$aar_py" check-jni "$work/aligned32.so"
    if python3 "$aar_py" check-jni "$work/no_jni32.so" 2>/dev/null; then
        echo "android: the JNI check accepted a 32-bit library without $jni_entry" >&2; exit 1
    fi
else
    echo "android: note: cc cannot build 32-bit stand-ins here; the 32-bit ELF checks did not run"
fi
for lib in "$work/no_jni.so" target/release/libgw.so; do
    if python3 "$aar_py" check-jni "$lib" 2>"$work/why"; then
        echo "android: the JNI check accepted $lib, which lacks $jni_entry" >&2; exit 1
    fi
    grep -q "does not export $jni_entry" "$work/why" || { echo "android: unclear refusal: $(cat "$work/why")" >&2; exit 1; }
done

mkdir -p "$work/jni/arm64-v8a" "$work/jni/x86_64" "$work/bad/arm64-v8a"
cp "$work/aligned.so" "$work/jni/arm64-v8a/libgw.so"
cp "$work/aligned.so" "$work/jni/x86_64/libgw.so"
cp "$work/small.so" "$work/bad/arm64-v8a/libgw.so"
if python3 "$aar_py" assemble "$work/bad" bindings/kotlin/target/classes "$work/bad.aar" "$work/notices" 2>"$work/why"; then
    echo "android: an AAR was assembled around a library with 4 KB pages" >&2; exit 1
fi
cp "$work/no_jni.so" "$work/bad/arm64-v8a/libgw.so"
if python3 "$aar_py" assemble "$work/bad" bindings/kotlin/target/classes "$work/bad.aar" "$work/notices" 2>"$work/why"; then
    echo "android: an AAR was assembled around a library without $jni_entry" >&2; exit 1
fi
mkdir -p "$work/no_notices"
if python3 "$aar_py" assemble "$work/jni" bindings/kotlin/target/classes "$work/bad.aar" "$work/no_notices" 2>"$work/why"; then
    echo "android: an AAR was assembled without the license files" >&2; exit 1
fi
grep -q "THIRD-PARTY-NOTICES.txt" "$work/why" || { echo "android: unclear refusal: $(cat "$work/why")" >&2; exit 1; }
# The notices build-android.sh writes for these ABIs (cargo resolves them without the NDK).
scripts/build-notices.sh --strict --out "$work/notices" --features platform-verifier \
    aarch64-linux-android x86_64-linux-android 2>/dev/null
python3 "$aar_py" assemble "$work/jni" bindings/kotlin/target/classes "$work/gw.aar" "$work/notices"

python3 - "$work/gw.aar" "$work/gw.pom" <<'PY'
import io, re, sys, zipfile, xml.etree.ElementTree as ET
aar = zipfile.ZipFile(sys.argv[1])
names = set(aar.namelist())
want = {"AndroidManifest.xml", "classes.jar", "proguard.txt", "R.txt",
        "jni/arm64-v8a/libgw.so", "jni/x86_64/libgw.so"}
assert want <= names, f"missing from the AAR: {want - names}"
licenses = {"LICENSE-APACHE", "LICENSE-MIT", "THIRD-PARTY-NOTICES.txt", "RUST-STD-COPYRIGHT.html"}
assert licenses <= names, f"license files missing from the AAR: {licenses - names}"
notices = aar.read("THIRD-PARTY-NOTICES.txt").decode()
# The Android build's own crates (the platform verifier and JNI), not the host's.
for crate in ("ureq", "rustls", "rustls-platform-verifier", "jni"):
    assert re.search(rf"^  {re.escape(crate)} \S+: ", notices, re.M), f"the AAR's notices lack {crate}"
for n in ("jni/arm64-v8a/libgw.so", "jni/x86_64/libgw.so"):
    assert aar.getinfo(n).compress_type == zipfile.ZIP_STORED, f"{n} is compressed"
manifest = ET.fromstring(aar.read("AndroidManifest.xml"))
assert manifest.get("package") == "dev.gw", manifest.attrib
perms = [e.get("{http://schemas.android.com/apk/res/android}name") for e in manifest.iter("uses-permission")]
assert "android.permission.INTERNET" in perms, perms
rules = aar.read("proguard.txt").decode()
for keep in ("-keep class com.sun.jna.** { *; }", "-keep class dev.gw.internal.GwNative { *; }",
             "-keep class dev.gw.internal.GwNative$* { *; }", "-keep class dev.gw.GwAndroid { *; }",
             "-keep, includedescriptorclasses class org.rustls.platformverifier.** { *; }"):
    assert keep in rules, f"proguard.txt lacks {keep}"
jar = zipfile.ZipFile(io.BytesIO(aar.read("classes.jar")))
classes = set(jar.namelist())
for c in ("dev/gw/GwClient.class", "dev/gw/internal/GwNative.class", "dev/gw/GwBlocking.class",
          "dev/gw/internal/GwNative$LogCallback.class", "dev/gw/GwAndroid.class"):
    assert c in classes, f"classes.jar lacks {c}"
assert any(n.endswith(".kotlin_module") for n in classes), "classes.jar lacks the Kotlin module file"
assert not any(n.endswith((".so", ".dylib", ".dll")) for n in classes), "classes.jar carries a native library"
ns = {"m": "http://maven.apache.org/POM/4.0.0"}
pom = ET.parse(sys.argv[2]).getroot()
assert pom.findtext("m:packaging", namespaces=ns) == "aar"
dep = lambda d, f: d.findtext("m:" + f, namespaces=ns)
deps = {dep(d, "artifactId"): dep(d, "type") for d in pom.iterfind("m:dependencies/m:dependency", ns)}
assert deps.get("jna") == "aar", f"JNA is not an AAR dependency: {deps}"
assert "kotlinx-coroutines-core-jvm" in deps and "kotlinx-serialization-json-jvm" in deps, deps
# rustls-platform-verifier's Kotlin component: the AAR at exactly the version of the crate
# rustls-platform-verifier-android that Cargo.lock pairs with the rustls-platform-verifier
# libgw is built with (that crate exists only to carry this version).
lock = open("Cargo.lock").read().split("[[package]]")
version_of = lambda name: next(re.search(r'^version = "([^"]+)"$', b, re.M).group(1)
                               for b in lock if re.search(rf'^name = "{name}"$', b, re.M))
verifier = next(b for b in lock if re.search(r'^name = "rustls-platform-verifier"$', b, re.M))
assert '"rustls-platform-verifier-android"' in verifier, "rustls-platform-verifier no longer depends on -android"
want = ("rustls", "rustls-platform-verifier", version_of("rustls-platform-verifier-android"), "aar")
found = [(dep(d, "groupId"), dep(d, "artifactId"), dep(d, "version"), dep(d, "type"))
         for d in pom.iterfind("m:dependencies/m:dependency", ns) if dep(d, "groupId") == "rustls"]
assert found == [want], f"the POM's rustls-platform-verifier dependency is {found}, want {want}"
repos = [r.findtext("m:url", namespaces=ns) for r in pom.iterfind("m:repositories/m:repository", ns)]
assert any("rustls-platform-verifier" in (u or "") for u in repos), f"no repository for the verifier's AAR: {repos}"
print(f"android: AAR layout, manifest, R8 rules, {len(classes)} classes.jar entries and POM "
      f"(rustls:rustls-platform-verifier:{want[2]}) checked")
PY
