#!/usr/bin/env python3
"""Assembles gw-kotlin's Android library (AAR) and its POM, and checks 16 KB ELF alignment.

  android_aar.py check-align LIB.so...           exit 1 naming each library whose LOAD
                                                 segments are aligned below 16 KB
  android_aar.py check-jni LIB.so...             exit 1 naming each library that does not
                                                 export GwAndroid.init's JNI entry point
  android_aar.py assemble JNILIBS CLASSES OUT.aar NOTICES
        JNILIBS  <abi>/libgw.so folders (scripts/build-android.sh's output)
        CLASSES  bindings/kotlin/target/classes (mvn compile)
        OUT.aar  the AAR; OUT.pom beside it (JNA as its AAR, coroutines, serialization, and
                 rustls-platform-verifier's Kotlin component as its AAR)
        NOTICES  the licenses for the AAR's root (scripts/build-notices.sh for the ABIs)

Stdlib only, so it runs wherever the build scripts do. Why 16 KB: Google Play requires
native libraries of apps targeting Android 15+ to load on devices with 16 KB pages, i.e.
every PT_LOAD segment aligned to at least 16384 bytes.
"""
import io
import re
import struct
import sys
import zipfile
from pathlib import Path

PAGE_16K = 16384
ABIS = {"arm64-v8a", "armeabi-v7a", "x86_64", "x86"}
HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
KOTLIN = ROOT / "bindings" / "kotlin"
# rustls-platform-verifier's Kotlin component (org.rustls.platformverifier.*, which libgw calls
# through JNI to ask Android's trust manager): an AAR published outside Maven Central, in
# the crate's GitHub repository, at the version of rustls-platform-verifier-android in Cargo.lock (its
# README: any other version may crash at run time).
VERIFIER_GROUP, VERIFIER_ARTIFACT, VERIFIER_CRATE = "rustls", "rustls-platform-verifier", "rustls-platform-verifier-android"
VERIFIER_REPOSITORY = "https://github.com/rustls/rustls-platform-verifier/raw/maven-archive/android-release-support/maven/"


def elf(path):
    """An ELF file's bytes, whether it is 64-bit, and its byte order for struct."""
    data = Path(path).read_bytes()
    if data[:4] != b"\x7fELF":
        raise ValueError(f"{path}: not an ELF file")
    return data, data[4] == 2, "<" if data[5] == 1 else ">"


def load_alignments(path):
    """The p_align of every PT_LOAD segment of an ELF file (32 or 64-bit, either endian)."""
    data, is64, end = elf(path)
    if is64:
        phoff, = struct.unpack_from(end + "Q", data, 0x20)
        phentsize, phnum = struct.unpack_from(end + "HH", data, 0x36)
    else:
        phoff, = struct.unpack_from(end + "I", data, 0x1C)
        phentsize, phnum = struct.unpack_from(end + "HH", data, 0x2A)
    aligns = []
    for i in range(phnum):
        off = phoff + i * phentsize
        p_type, = struct.unpack_from(end + "I", data, off)
        if p_type != 1:  # PT_LOAD
            continue
        align, = struct.unpack_from(end + ("Q" if is64 else "I"), data, off + (0x30 if is64 else 0x1C))
        aligns.append(align)
    return aligns


# GwAndroid's `private static native int nativeInit(Object)` as JNI names it; the function of
# src/android/jni_init.rs. scripts/test-android-package.sh checks all three agree.
JNI_ENTRY = "Java_dev_gw_GwAndroid_nativeInit"


def dynamic_symbols(path):
    """Names of the defined global/weak symbols of an ELF file's .dynsym (what dlsym finds)."""
    data, is64, end = elf(path)
    if is64:
        shoff, = struct.unpack_from(end + "Q", data, 0x28)
        shentsize, shnum = struct.unpack_from(end + "HH", data, 0x3A)
    else:
        shoff, = struct.unpack_from(end + "I", data, 0x20)
        shentsize, shnum = struct.unpack_from(end + "HH", data, 0x2E)
    sections = []
    for i in range(shnum):
        off = shoff + i * shentsize
        if is64:
            _, sh_type, _, _, sh_offset, sh_size, sh_link, _, _, sh_entsize = struct.unpack_from(end + "IIQQQQIIQQ", data, off)
        else:
            _, sh_type, _, _, sh_offset, sh_size, sh_link, _, _, sh_entsize = struct.unpack_from(end + "IIIIIIIIII", data, off)
        sections.append((sh_type, sh_offset, sh_size, sh_link, sh_entsize))
    names = set()
    for sh_type, offset, size, link, entsize in sections:
        if sh_type != 11 or not entsize:  # SHT_DYNSYM
            continue
        str_off = sections[link][1]
        for k in range(1, size // entsize):  # entry 0 is the null symbol
            sym = offset + k * entsize
            if is64:
                st_name, st_info, _, st_shndx = struct.unpack_from(end + "IBBH", data, sym)
            else:
                st_name, = struct.unpack_from(end + "I", data, sym)
                st_info, _, st_shndx = struct.unpack_from(end + "BBH", data, sym + 12)
            if st_shndx == 0 or (st_info >> 4) not in (1, 2):  # undefined, or not GLOBAL/WEAK
                continue
            names.add(data[str_off + st_name:data.index(b"\0", str_off + st_name)].decode())
    return names


def lacks_jni_entry(path):
    """None when the library exports JNI_ENTRY, else a sentence saying what is wrong."""
    if JNI_ENTRY in dynamic_symbols(path):
        return None
    return (f"{path}: does not export {JNI_ENTRY} (GwAndroid.init would fail): build it for Android "
            "with scripts/build-android.sh (src/android/ is compiled for target_os android only)")


def misaligned(path):
    """None when every LOAD segment is 16 KB aligned, else a sentence saying what is wrong."""
    aligns = load_alignments(path)
    if not aligns:
        return f"{path}: no LOAD segment"
    low = [a for a in aligns if a < PAGE_16K]
    if low:
        return (f"{path}: LOAD segments aligned to {min(low)} bytes, below 16 KB "
                "(link with -Wl,-z,max-page-size=16384; scripts/build-android.sh does)")
    return None


def pom_versions():
    """The binding's version and its dependencies' from bindings/kotlin/pom.xml."""
    pom = (KOTLIN / "pom.xml").read_text()
    props = dict(re.findall(r"<([\w.]+)>([^<]+)</\1>", pom.split("<dependencies>")[0]))
    version = re.search(r"<artifactId>gw-kotlin</artifactId>\s*<version>([^<]+)</version>", pom).group(1)
    return version, props


def locked_version(crate, lock=ROOT / "Cargo.lock"):
    """The version of `crate` in Cargo.lock (the one cargo builds libgw with)."""
    for block in Path(lock).read_text().split("[[package]]"):
        if re.search(rf'^name = "{re.escape(crate)}"$', block, re.M):
            return re.search(r'^version = "([^"]+)"$', block, re.M).group(1)
    raise SystemExit(f"android_aar: {crate} is not in {lock} (is the feature platform-verifier gone?)")


def aar_pom(version, props, verifier_version):
    deps = [
        ("net.java.dev.jna", "jna", props["jna.version"], "aar"),
        (VERIFIER_GROUP, VERIFIER_ARTIFACT, verifier_version, "aar"),
        ("org.jetbrains.kotlin", "kotlin-stdlib", props["kotlin.stdlib.version"], None),
        ("org.jetbrains.kotlinx", "kotlinx-coroutines-core-jvm", props["coroutines.version"], None),
        ("org.jetbrains.kotlinx", "kotlinx-serialization-json-jvm", props["serialization.version"], None),
    ]
    lines = "".join(
        f"""    <dependency>
      <groupId>{g}</groupId>
      <artifactId>{a}</artifactId>
      <version>{v}</version>
{f"      <type>{t}</type>" + chr(10) if t else ""}      <scope>compile</scope>
    </dependency>
""" for g, a, v, t in deps)
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<!-- gw-kotlin for Android: the same classes as gw-kotlin, libgw.so per ABI, and JNA as its
     AAR (libjnidispatch.so for Android ABIs) instead of the desktop jar. {VERIFIER_GROUP}:{VERIFIER_ARTIFACT}
     is the Kotlin component of the TLS platform verifier libgw is built with (GwAndroid.init);
     it is not on Maven Central: Gradle ignores the repository below, so the app's build lists it
     (bindings/kotlin/README.md, "Android"). -->
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>dev.gw</groupId>
  <artifactId>gw-kotlin-android</artifactId>
  <version>{version}</version>
  <packaging>aar</packaging>
  <repositories>
    <repository>
      <id>rustls-platform-verifier</id>
      <url>{VERIFIER_REPOSITORY}</url>
    </repository>
  </repositories>
  <dependencies>
{lines}  </dependencies>
</project>
"""


def classes_jar(classes_dir):
    """classes.jar's entries: the binding's classes and Kotlin module files, no native library."""
    root = Path(classes_dir)
    if not (root / "dev" / "gw" / "GwClient.class").is_file():
        raise SystemExit(f"android_aar: {root} holds no compiled binding (run mvn compile in bindings/kotlin)")
    for f in sorted(root.rglob("*")):
        rel = f.relative_to(root).as_posix()
        if f.is_file() and (rel.startswith("dev/") or (rel.startswith("META-INF/") and rel.endswith(".kotlin_module"))):
            yield rel, f.read_bytes()


# The license files at the AAR's root (scripts/build-notices.sh writes them): the AAR is the
# copy of libgw.so that gets distributed, and MIT and Apache-2.0 ask to go with every copy.
NOTICE_FILES = ("LICENSE-APACHE", "LICENSE-MIT", "THIRD-PARTY-NOTICES.txt", "RUST-STD-COPYRIGHT.html")


def assemble(jnilibs, classes_dir, out, notices_dir):
    notices = Path(notices_dir)
    missing = [n for n in NOTICE_FILES if not (notices / n).is_file()]
    if missing:
        raise SystemExit(f"android_aar: {notices} lacks {', '.join(missing)} (scripts/build-notices.sh)")
    jni = Path(jnilibs)
    libs = sorted(p for p in jni.glob("*/libgw.so"))
    if not libs:
        raise SystemExit(f"android_aar: no <abi>/libgw.so under {jni}")
    problems = [f"{p}: unknown ABI folder {p.parent.name}" for p in libs if p.parent.name not in ABIS]
    problems += [m for m in map(misaligned, libs) if m]
    problems += [m for m in map(lacks_jni_entry, libs) if m]
    if problems:
        raise SystemExit("android_aar: " + "\n".join(problems))
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    here = KOTLIN / "android"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as jar:
        for name, data in classes_jar(classes_dir):
            jar.writestr(name, data)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as aar:
        aar.write(here / "AndroidManifest.xml", "AndroidManifest.xml")
        aar.writestr("classes.jar", buf.getvalue())
        aar.write(here / "consumer-rules.pro", "proguard.txt")
        aar.writestr("R.txt", "")
        for name in NOTICE_FILES:
            aar.write(notices / name, name)
        for lib in libs:
            # Stored, not deflated: the app's packager then keeps it page-aligned and uncompressed.
            aar.write(lib, f"jni/{lib.parent.name}/libgw.so", compress_type=zipfile.ZIP_STORED)
    version, props = pom_versions()
    verifier = locked_version(VERIFIER_CRATE)
    out.with_suffix(".pom").write_text(aar_pom(version, props, verifier))
    print(f"android_aar: {out} ({', '.join(p.parent.name for p in libs)}) and {out.with_suffix('.pom')}")
    print(f"android_aar: the app's build must list the Maven repository of "
          f"{VERIFIER_GROUP}:{VERIFIER_ARTIFACT}:{verifier} (not on Maven Central): {VERIFIER_REPOSITORY}")


def main(argv):
    if len(argv) >= 2 and argv[0] == "check-align":
        bad = [m for m in map(misaligned, argv[1:]) if m]
        for m in bad:
            print(m, file=sys.stderr)
        return 1 if bad else 0
    if len(argv) >= 2 and argv[0] == "check-jni":
        bad = [m for m in map(lacks_jni_entry, argv[1:]) if m]
        for m in bad:
            print(m, file=sys.stderr)
        return 1 if bad else 0
    if len(argv) == 5 and argv[0] == "assemble":
        assemble(*argv[1:])
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
