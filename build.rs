//! Regenerates include/gw.h from the `extern "C"` surface on every build, so
//! the checked-in header can never drift from the code (CI fails on a diff).

use std::path::PathBuf;

fn main() {
    let crate_dir =
        PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=cbindgen.toml");
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml"))
        .expect("cbindgen.toml is valid");
    let header = crate_dir.join("include").join("gw.h");
    match cbindgen::Builder::new()
        .with_crate(&crate_dir)
        .with_config(config)
        .generate()
    {
        // write_to_file leaves the file untouched when the text is the same.
        Ok(bindings) => {
            bindings.write_to_file(header);
        }
        Err(e) => panic!("cbindgen could not generate include/gw.h: {e}"),
    }
}
