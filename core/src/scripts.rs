//! The protocol's Lua scripts (spec/scripts). A script's text is the helper files its first
//! line names (`--! include: keys time ...`, from spec/scripts/lib/), each followed by a newline,
//! then the script's own file (spec/PROTOCOL.md, 4.1).

use std::sync::LazyLock;

use redis::Script;

/// The helpers in spec/scripts/lib/, by name.
const LIB: [(&str, &str); 12] = [
    ("keys", include_str!("../../spec/scripts/lib/keys.lua")),
    ("time", include_str!("../../spec/scripts/lib/time.lua")),
    ("config", include_str!("../../spec/scripts/lib/config.lua")),
    ("rate", include_str!("../../spec/scripts/lib/rate.lua")),
    (
        "waiting",
        include_str!("../../spec/scripts/lib/waiting.lua"),
    ),
    ("jobs", include_str!("../../spec/scripts/lib/jobs.lua")),
    (
        "outcome",
        include_str!("../../spec/scripts/lib/outcome.lua"),
    ),
    ("finish", include_str!("../../spec/scripts/lib/finish.lua")),
    ("lease", include_str!("../../spec/scripts/lib/lease.lua")),
    ("window", include_str!("../../spec/scripts/lib/window.lua")),
    ("renew", include_str!("../../spec/scripts/lib/renew.lua")),
    ("fail", include_str!("../../spec/scripts/lib/fail.lua")),
];

/// The full text of a script whose own file is `body`.
pub(crate) fn compose(body: &str) -> String {
    let first = body.lines().next().unwrap_or_default();
    let names = first
        .strip_prefix("--! include:")
        .unwrap_or_else(|| panic!("script does not start with `--! include:`: {first}"));
    let mut text = String::new();
    for name in names.split_whitespace() {
        let (_, helper) = LIB
            .iter()
            .find(|(n, _)| *n == name)
            .unwrap_or_else(|| panic!("unknown script helper `{name}`"));
        text.push_str(helper);
        text.push('\n');
    }
    text.push_str(body);
    text
}

macro_rules! scripts {
    ($($name:ident => $file:literal),* $(,)?) => {
        $(
            pub(crate) static $name: LazyLock<Script> = LazyLock::new(|| {
                Script::new(&compose(include_str!(concat!("../../spec/scripts/", $file))))
            });
        )*
        /// Every script, by file name (for tests and the conformance tools).
        #[allow(dead_code)]
        pub(crate) fn all() -> Vec<(&'static str, &'static Script)> {
            vec![$(($file, &*$name)),*]
        }
    };
}

scripts! {
    ADD => "add.lua",
    LEASE => "lease.lua",
    COMPLETE => "complete.lua",
    COMPLETE_AND_LEASE => "complete_and_lease.lua",
    RENEW => "renew.lua",
    FAIL => "fail.lua",
    RELEASE => "release.lua",
    PROGRESS => "progress.lua",
    CANCEL => "cancel.lua",
    GET => "get.lua",
    LIST => "list.lua",
    COUNT => "count.lua",
    STATS => "stats.lua",
    DEAD => "dead.lua",
    CLEAN => "clean.lua",
    SNAPSHOT => "snapshot.lua",
    DEEP_CHECK => "deep_check.lua",
    DEEP_UNMARK => "deep_unmark.lua",
    DEEP_REQUEUE => "deep_requeue.lua",
    COMPLETE_BATCH => "complete_batch.lua",
    COMPLETE_AND_LEASE_BATCH => "complete_and_lease_batch.lua",
    RENEW_BATCH => "renew_batch.lua",
    FAIL_BATCH => "fail_batch.lua",
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_script_composes_with_known_helpers() {
        for (file, script) in all() {
            assert_eq!(script.get_hash().len(), 40, "{file}");
        }
        let text = compose(include_str!("../../spec/scripts/complete.lua"));
        assert!(text.starts_with(LIB[0].1), "keys first");
        assert!(text.contains("local function complete_item"));
        assert!(
            !text.contains("local function lease_items"),
            "only what it includes"
        );
    }
}
