//! The protocol's Lua scripts (spec/scripts), each sent as `lib.lua` + newline + its own file.

use std::sync::LazyLock;

use redis::Script;

const LIB: &str = include_str!("../../spec/scripts/lib.lua");

macro_rules! script {
    ($name:ident, $file:literal) => {
        pub(crate) static $name: LazyLock<Script> = LazyLock::new(|| {
            Script::new(&format!(
                "{LIB}\n{}",
                include_str!(concat!("../../spec/scripts/", $file))
            ))
        });
    };
}

script!(ADD, "add.lua");
script!(ADD_UNIQUE, "add_unique.lua");
script!(LEASE, "lease.lua");
script!(COMPLETE, "complete.lua");
script!(COMPLETE_AND_LEASE, "complete_and_lease.lua");
script!(RENEW, "renew.lua");
script!(LIGHT_CLEAN, "light_clean.lua");
script!(SNAPSHOT, "snapshot.lua");
script!(DEEP_CHECK, "deep_check.lua");
script!(DEEP_UNMARK, "deep_unmark.lua");
script!(DEEP_REQUEUE, "deep_requeue.lua");
