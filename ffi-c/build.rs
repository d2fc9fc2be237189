//! Generates the C header from the sources with cbindgen into `$OUT_DIR/leaseq.h`. The copy in
//! `include/` is the committed one; a test fails when the two differ (`make -C ffi-c header`
//! refreshes it). The build never writes into the source tree.
//!
//! With `LEASEQ_SONAME` set (scripts/dist.sh sets `libleaseq.so.<major>` for the release tarball),
//! the shared library records that soname, so programs linked against it load the versioned
//! file. Builds for the tests leave it unset: they link and run against target/'s plain
//! `libleaseq.so`, which a recorded soname would make them look for under another name.

use std::path::PathBuf;

fn main() {
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=cbindgen.toml");
    println!("cargo:rerun-if-env-changed=LEASEQ_SONAME");
    if let Some(soname) = std::env::var("LEASEQ_SONAME")
        .ok()
        .filter(|s| !s.is_empty())
    {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,{soname}");
    }
    let config =
        cbindgen::Config::from_file(dir.join("cbindgen.toml")).expect("read cbindgen.toml");
    // Parsing the source files directly (not the crate through `cargo metadata`) keeps the
    // build script from calling cargo.
    cbindgen::Builder::new()
        .with_config(config)
        .with_src(dir.join("src/lib.rs"))
        .generate()
        .expect("generate the C header")
        .write_to_file(out.join("leaseq.h"));
}
