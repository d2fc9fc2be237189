//! No code: a dependency of every workspace member but the published core (`leaseq`), which
//! asks for each third-party crate with the union of the features any member needs (generated
//! by `cargo hakari generate`, see .config/hakari.toml). So `cargo test`, the CLI's tests, the
//! Python and Node addons and the harness resolve the same features and share one build of
//! tokio, redis, the core and the rest, instead of rebuilding them for each suite.
