//! Regenerates include/gw.h from the `extern "C"` surface on every build, so
//! the checked-in header can never drift from the code (CI fails on a diff),
//! and gives libgw.so its SONAME.
//!
//! cbindgen writes the declarations; headergen/ then makes the text C89-clean
//! and adds nullability (see the modules for why and how).

use std::path::{Path, PathBuf};

#[path = "headergen/c89.rs"]
mod c89;
#[path = "headergen/nullability.rs"]
mod nullability;

fn main() {
    let crate_dir =
        PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=cbindgen.toml");
    set_soname();

    match generate_header(&crate_dir) {
        Ok(text) => write_if_changed(&crate_dir.join("include").join("gw.h"), &text),
        Err(e) => {
            eprintln!(
                "\ninclude/gw.h cannot be generated:\n{e}\n\nFor a pointer without a row, add one to \
                 RULES in headergen/nullability.rs: Nullable if callers may pass NULL (or gw may \
                 hand one out), Nonnull otherwise.\n"
            );
            std::process::exit(1);
        }
    }
}

/// `libgw.so.0`: programs record the major version, so a later incompatible
/// libgw.so.1 can sit beside it. Only ELF linkers take -soname.
fn set_soname() {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() != Ok("linux") {
        return;
    }
    let soname = format!("libgw.so.{}", env!("CARGO_PKG_VERSION_MAJOR"));
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,{soname}");
    link_soname_in_profile_dir(&soname);
}

/// A program linked with -Ltarget/release -lgw records the SONAME and looks for
/// that file at run time: give it one beside libgw.so, as an installed tree
/// has. OUT_DIR is <profile dir>/build/gw-<hash>/out.
#[cfg(unix)]
fn link_soname_in_profile_dir(soname: &str) {
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let Some(profile_dir) = out_dir.ancestors().nth(3) else {
        return;
    };
    let link = profile_dir.join(soname);
    if link.symlink_metadata().is_err() {
        if let Err(e) = std::os::unix::fs::symlink("libgw.so", &link) {
            println!("cargo:warning=could not create {}: {e}", link.display());
        }
    }
}

#[cfg(not(unix))]
fn link_soname_in_profile_dir(_soname: &str) {}

fn generate_header(crate_dir: &Path) -> Result<String, String> {
    let mut config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml"))
        .map_err(|e| format!("cbindgen.toml: {e}"))?;
    // A mark after every `*`, for nullability::annotate to replace.
    config.pointer.nullable_attribute = Some(nullability::MARK.to_string());
    config.pointer.non_null_attribute = Some(nullability::MARK.to_string());
    config.after_includes = Some(version_macros() + "\n" + nullability::PROLOGUE);
    let bindings = cbindgen::Builder::new()
        .with_crate(crate_dir)
        .with_config(config)
        .generate()
        .map_err(|e| format!("cbindgen: {e}"))?;
    let mut raw = Vec::new();
    bindings.write(&mut raw);
    let raw = String::from_utf8(raw).map_err(|e| format!("cbindgen wrote non-UTF-8: {e}"))?;

    let text = nullability::annotate(&c89::block_comments_only(&raw))?;
    // The nullability region closes inside the include guard.
    let guard_end = text
        .rfind("#endif  /* GW_H */")
        .ok_or("no `#endif  /* GW_H */` at the end of cbindgen's output")?;
    Ok(format!(
        "{}{}\n{}",
        &text[..guard_end],
        nullability::EPILOGUE,
        &text[guard_end..]
    ))
}

/// The header's version, as numbers and (like LIBCURL_VERSION_NUM) as one
/// number 0xXXYYZZ that preprocessor conditions can compare.
fn version_macros() -> String {
    let part = |s: &str| -> u32 { s.parse().expect("cargo gives numeric version parts") };
    let (major, minor, patch) = (
        part(env!("CARGO_PKG_VERSION_MAJOR")),
        part(env!("CARGO_PKG_VERSION_MINOR")),
        part(env!("CARGO_PKG_VERSION_PATCH")),
    );
    assert!(
        minor <= 0xff && patch <= 0xff,
        "GW_VERSION_NUM has one byte for the minor and patch numbers"
    );
    format!(
        "\n/*\n * The version of this header; gw_version() gives the library's.\n \
         * GW_VERSION_NUM is 0xXXYYZZ (major, minor, patch, a byte each), so\n \
         * `#if GW_VERSION_NUM >= 0x000200` or GW_VERSION_AT_LEAST(0, 2, 0) selects\n \
         * code by version at compile time.\n */\n\
         #define GW_VERSION_MAJOR {major}\n#define GW_VERSION_MINOR {minor}\n\
         #define GW_VERSION_PATCH {patch}\n#define GW_VERSION_STRING \"{major}.{minor}.{patch}\"\n\
         #define GW_VERSION_NUM 0x{num:06x}\n\
         #define GW_VERSION_AT_LEAST(x, y, z) \\\n  \
         (GW_VERSION_NUM >= (((x) << 16) | ((y) << 8) | (z)))\n",
        num = (major << 16) | (minor << 8) | patch,
    )
}

/// Leaves the file (and its mtime) alone when the text is the same.
fn write_if_changed(path: &Path, text: &str) {
    if std::fs::read_to_string(path).ok().as_deref() == Some(text) {
        return;
    }
    std::fs::write(path, text).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
}
