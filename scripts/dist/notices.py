#!/usr/bin/env python3
"""scripts/dist/notices.py OUT_DIR UNITS.jsonl...: the license files every artifact of a release
carries, written to OUT_DIR:

  LICENSE-APACHE, LICENSE-MIT   gw's own (the checkout's)
  THIRD-PARTY-NOTICES.txt       every other crate compiled into libgw.so / libgw.a, std's own
                                crates included (-Zbuild-std): name, version, license
                                expression, repository and the license texts it ships

UNITS are the JSON messages cargo printed building the natives (scripts/dist/natives.sh writes
target/dist/natives/<platform>/cargo-units.jsonl): the crates come from what was compiled for
the target, not from a dependency list, so a crate a feature pulls in is never missed and a
build script's or proc macro's host-only crates are never listed. The MIT and Apache licenses
ask that their notice go with every copy, binaries included; pkg.go.dev shows a module's docs
only when its root holds a license it recognizes (LICENSE-APACHE and LICENSE-MIT are two).

scripts/dist/notices.py --tree OUT_DIR TREE.txt METADATA.json SYSROOT: the same files for a
`make build` or the Android AAR (scripts/build-notices.sh), whose std comes prebuilt with the toolchain: the crates
are the lines of TREE.txt (`cargo tree -e normal,no-proc-macro --format '{p}'` for the targets),
found in METADATA.json (`cargo metadata`), and std is described by the toolchain's own
COPYRIGHT-library.html under SYSROOT/share/doc/rust, copied beside the notices.
"""
import hashlib
import json
import os
import shutil
import sys
import tomllib

# Built by -Zbuild-std as members of the sysroot, but linked into nothing gw ships: gw's
# libraries unwind (panic_unwind) and use no proc_macro API at run time.
NOT_LINKED = {"proc_macro", "panic_abort"}
LICENSE_PREFIXES = ("LICEN", "COPYING", "COPYRIGHT", "NOTICE", "UNLICENSE")


def target_units(units_path):
    """The manifest folders of the library crates compiled for the target: those whose
    artifacts lie in the same folder tree as gw's own library (host units do not)."""
    artifacts = []
    with open(units_path, encoding="utf-8") as units:
        for line in units:
            line = line.strip()
            if not line.startswith("{"):
                continue
            message = json.loads(line)
            if message.get("reason") == "compiler-artifact":
                artifacts.append(message)
    gw = [a for a in artifacts if a["target"]["name"] == "gw" and
          {"cdylib", "staticlib"} & set(a["target"]["kind"])]
    if not gw:
        sys.exit(f"notices: {units_path} holds no gw cdylib/staticlib artifact")
    target_dir = os.path.dirname(gw[0]["filenames"][0])
    folders = set()
    for artifact in artifacts:
        kinds = set(artifact["target"]["kind"])
        if kinds & {"custom-build", "proc-macro", "bin"} or artifact["target"]["name"] in NOT_LINKED:
            continue
        if not any(f.startswith(target_dir + os.sep) for f in artifact["filenames"]):
            continue
        folder = os.path.dirname(artifact["manifest_path"])
        if artifact["target"]["name"] != "gw":
            folders.add(folder)
    return folders


def license_files(folder):
    """The crate's own license files; else those of the nearest workspace above it that has
    some (std's crates: the Rust source's COPYRIGHT)."""
    while True:
        names = sorted(n for n in os.listdir(folder)
                       if n.upper().startswith(LICENSE_PREFIXES) and os.path.isfile(os.path.join(folder, n)))
        if names:
            return [os.path.join(folder, n) for n in names]
        parent = os.path.dirname(folder)
        if parent == folder or not os.path.isfile(os.path.join(parent, "Cargo.toml")):
            return []
        folder = parent


def package_field(folder, manifest, field):
    """A [package] field, following `field.workspace = true` up to the workspace's value."""
    value = manifest.get("package", {}).get(field)
    while isinstance(value, dict) and value.get("workspace"):
        folder = os.path.dirname(folder)
        path = os.path.join(folder, "Cargo.toml")
        if folder == os.path.dirname(folder):
            return None
        if os.path.isfile(path):
            with open(path, "rb") as f:
                workspace = tomllib.load(f).get("workspace", {})
            if "package" in workspace and field in workspace["package"]:
                value = workspace["package"][field]
    return value


def crate(folder):
    with open(os.path.join(folder, "Cargo.toml"), "rb") as f:
        manifest = tomllib.load(f)
    name = manifest["package"]["name"]
    files = license_files(folder)
    return {
        "name": name,
        "version": package_field(folder, manifest, "version") or "?",
        "license": package_field(folder, manifest, "license")
        or (f"see {package_field(folder, manifest, 'license-file')}" if package_field(folder, manifest, "license-file") else None),
        "repository": package_field(folder, manifest, "repository") or "",
        "files": files,
        # std's crates (version 0.0.0 or a placeholder) take the Rust source's COPYRIGHT.
        "std": "/library/" in folder and any(os.path.basename(f) == "COPYRIGHT" for f in files),
    }


def tree_folders(tree_path, metadata_path):
    """The manifest folders of the crates TREE.txt names ("name vX.Y.Z", gw's own line aside),
    looked up in cargo's metadata."""
    with open(metadata_path, encoding="utf-8") as f:
        packages = json.load(f)["packages"]
    by_name_version = {(p["name"], p["version"]): p for p in packages}
    folders = set()
    with open(tree_path, encoding="utf-8") as tree:
        for line in tree:
            fields = line.split()
            if len(fields) < 2 or fields[0] == "gw" or not fields[1].startswith("v"):
                continue
            package = by_name_version.get((fields[0], fields[1][1:]))
            if package is None:
                sys.exit(f"notices: {fields[0]} {fields[1]} of {tree_path} is not in {metadata_path}")
            folders.add(os.path.dirname(package["manifest_path"]))
    return folders


def prebuilt_std(sysroot):
    """Rust's std as the toolchain ships it prebuilt: the toolchain's own list of the licenses
    of the library's code (COPYRIGHT-library.html)."""
    copyright_file = os.path.join(sysroot, "share", "doc", "rust", "COPYRIGHT-library.html")
    if not os.path.isfile(copyright_file):
        sys.exit(f"notices: {copyright_file} is missing (the toolchain's list of std's licenses)")
    return copyright_file


def main():
    args = sys.argv[1:]
    if args[:1] == ["--tree"]:
        if len(args) != 5:
            sys.exit("usage: notices.py --tree OUT_DIR TREE.txt METADATA.json SYSROOT")
        out_dir, tree_path, metadata_path, sysroot = args[1:]
        folders = tree_folders(tree_path, metadata_path)
        std_copyright = prebuilt_std(sysroot)
        intro = ("The gw native libraries that come with this file (libgw.so, and libgw.a where there\n"
                 "is one) contain code from the crates below, each under the license it names, and\n"
                 "Rust's standard library (MIT OR Apache-2.0, with the third-party code listed in\n"
                 "RUST-STD-COPYRIGHT.html beside this file, the toolchain's COPYRIGHT-library.html).\n"
                 "gw itself is MIT OR Apache-2.0: LICENSE-MIT and LICENSE-APACHE beside this file.\n\n")
    else:
        if len(args) < 2:
            sys.exit("usage: notices.py OUT_DIR UNITS.jsonl... | notices.py --tree OUT_DIR TREE.txt METADATA.json SYSROOT")
        out_dir, units = args[0], args[1:]
        folders = set()
        for path in units:
            folders |= target_units(path)
        std_copyright = None
        intro = ("gw's libraries (libgw.so, libgw.a, and the Go module's and the jar's copies of them)\n"
                 "contain code from the crates below, each under the license it names. gw itself is\n"
                 "MIT OR Apache-2.0: LICENSE-MIT and LICENSE-APACHE beside this file.\n\n")
    crates = sorted((crate(f) for f in folders), key=lambda c: (c["name"], c["version"]))
    write_notices(out_dir, crates, intro)
    if std_copyright:
        shutil.copyfile(std_copyright, os.path.join(out_dir, "RUST-STD-COPYRIGHT.html"))


def write_notices(out_dir, crates, intro):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    unlicensed = [c["name"] for c in crates if not c["license"]]
    textless = [c["name"] for c in crates if not c["files"]]
    if unlicensed:
        sys.exit(f"notices: no license declared by {', '.join(unlicensed)}")

    os.makedirs(out_dir, exist_ok=True)
    for name in ("LICENSE-APACHE", "LICENSE-MIT"):
        shutil.copyfile(os.path.join(root, name), os.path.join(out_dir, name))
    # The same text (Apache-2.0, most often) is written once and referred to after that.
    first_seen = {}
    with open(os.path.join(out_dir, "THIRD-PARTY-NOTICES.txt"), "w", encoding="utf-8") as out:
        out.write(intro)
        out.write("Contents:\n")
        for c in crates:
            out.write(f"  {c['name']} {c['version']}: {c['license']}\n")
        for c in crates:
            out.write("\n" + "=" * 78 + "\n")
            out.write(f"{c['name']} {c['version']}\nLicense: {c['license']}\n")
            if c["std"]:
                out.write("Part of the Rust standard library, built from the Rust toolchain's source.\n")
            if c["repository"]:
                out.write(f"Repository: {c['repository']}\n")
            if not c["files"]:
                out.write("(The crate ships no license file: its license is the expression above.)\n")
            for path in c["files"]:
                with open(path, encoding="utf-8", errors="replace") as f:
                    text = f.read().strip("\n")
                digest = hashlib.sha256(text.encode()).hexdigest()
                label = f"{c['name']} {c['version']}, {os.path.basename(path)}"
                out.write("\n--- " + os.path.basename(path) + " ---\n")
                if digest in first_seen:
                    out.write(f"(The same text as {first_seen[digest]}, above.)\n")
                else:
                    first_seen[digest] = label
                    out.write(text + "\n")
    listed = ", ".join(c["name"] for c in crates)
    print(f"notices: {len(crates)} crates in {out_dir}/THIRD-PARTY-NOTICES.txt: {listed}", file=sys.stderr)
    if textless:
        print(f"notices: no license file shipped by {', '.join(textless)} (expression only)", file=sys.stderr)


if __name__ == "__main__":
    main()
