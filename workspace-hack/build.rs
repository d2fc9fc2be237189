// A build script, so that Cargo takes the [build-dependencies] of Cargo.toml into account (the
// features of build scripts' and proc macros' dependencies, unified the same way).
fn main() {}
