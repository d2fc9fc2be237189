//! Conformance vectors for the Rust core: see `tests/conformance.rs` and spec/vectors/README.md.
