//! Every Redis key of a queue, built in one place from the queue prefix.

use crate::error::{Error, Result};

/// The longest prefix accepted, in bytes.
pub const MAX_PREFIX_LEN: usize = 1024;

/// The keys of one queue. The first four are redis-work-queue's layout; the rest are leaseq's
/// own and live under the same prefix (spec/PROTOCOL.md, "Keys").
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct QueueKeys {
    /// Shared with every lease of the queue ([`crate::Lease`]).
    pub prefix: std::sync::Arc<str>,
    /// `<prefix>:queue`: waiting ids of priority 0
    pub queue: String,
    /// `<prefix>:processing`: ids redis-work-queue clients took
    pub processing: String,
    /// `<prefix>:item:` (a family: append an id)
    pub item_family: String,
    /// `<prefix>:job:` (a family: append an id)
    pub job_family: String,
    /// `<prefix>:result:` (a family: append an id)
    pub result_family: String,
    /// `<prefix>:prios`: the priority levels in use
    pub prios: String,
    /// `<prefix>:config`: the queue's stored defaults
    pub config: String,
    /// `<prefix>:wake`: set while a waiter should look at the priority lists
    pub wake: String,
    /// `<prefix>:paused`: present while the queue is paused (spec/PROTOCOL.md, 5.17)
    pub paused: String,
    /// `<prefix>:room`: one element while a bounded queue made room (spec/PROTOCOL.md, 5.18)
    pub room: String,
    /// `<prefix>:lease_count`: protocol v1's lease counts (deep clean removes stale ones)
    pub lease_count: String,
    /// `<prefix>:events`: the event stream, while the queue's events are on (spec/PROTOCOL.md 14)
    pub events: String,
    /// `<prefix>:cleaning`, redis-work-queue's cleaner journal (read and emptied by deep clean)
    pub cleaning: String,
    /// `<prefix>:workers`: the runner registry, runner id -> expiry (spec/PROTOCOL.md, 13.2)
    pub workers: String,
    /// `<prefix>:worker:` (a family: append a runner id): a runner's JSON description
    pub worker_family: String,
    /// `<prefix>:lock:housekeeping`: the id of the runner doing the queue's housekeeping
    pub housekeeping_lock: String,
    /// `<prefix>:dead`: the dead letters, id -> time of death (spec/PROTOCOL.md 5.13)
    pub dead: String,
    /// The two keys every function call declares (spec/PROTOCOL.md, 4.2): `<prefix>:lease:` and
    /// `<prefix>:item:`, family prefixes that never exist as keys.
    script_keys: [String; 2],
}

/// The families of per-item (or per-level, per-minute) keys: `<prefix>:<family>:<suffix>`. A
/// prefix may not nest under another queue's family (spec/PROTOCOL.md, 2.2).
pub(crate) const FAMILIES: [&str; 13] = [
    "item",
    "lease",
    "job",
    "data",
    "prio",
    "result",
    "rate",
    "deep_clean",
    "group",
    "group_rate",
    // P:cron:<name>, a schedule (spec/PROTOCOL.md 5.23).
    "cron",
    "deps",
    "dependants",
];

impl QueueKeys {
    /// Validates `prefix` and builds the keys. In Cluster mode the prefix must carry a hash tag,
    /// so that every key of the queue lands in one slot.
    pub fn new(prefix: &str, cluster: bool) -> Result<QueueKeys> {
        validate_prefix(prefix, cluster)?;
        let key = |suffix: &str| format!("{prefix}:{suffix}");
        let script_keys = [key("lease:"), key("item:")];
        Ok(QueueKeys {
            prefix: prefix.into(),
            queue: key("queue"),
            processing: key("processing"),
            item_family: key("item:"),
            job_family: key("job:"),
            result_family: key("result:"),
            prios: key("prios"),
            config: key("config"),
            wake: key("wake"),
            paused: key("paused"),
            room: key("room"),
            lease_count: key("lease_count"),
            cleaning: key("cleaning"),
            events: key("events"),
            workers: key("workers"),
            worker_family: key("worker:"),
            housekeeping_lock: key("lock:housekeeping"),
            dead: key("dead"),
            script_keys,
        })
    }

    /// The queue's fixed keys (not its key families), whose `EXISTS` says whether the queue
    /// exists (spec/PROTOCOL.md, 5.12).
    pub fn fixed(&self) -> Vec<String> {
        [
            "queue",
            "processing",
            "delayed",
            "leased",
            "dead",
            "prios",
            "config",
            "held",
            "paused",
            "wake",
            "room",
            "limit",
            "ready",
            "group_waiting",
            "group_active",
            "group_limit",
            "group_paused",
            "group_wait",
            "group_seq",
            "workers",
            "lock:housekeeping",
            "cron",
            "lease_count",
            "cleaning",
            "blocked",
            "settled",
            "events",
            // A partitioned queue's layout under its base (spec/PROTOCOL.md 5.25).
            "partitions",
        ]
        .iter()
        .map(|suffix| format!("{}:{suffix}", self.prefix))
        .collect()
    }

    /// The two keys every function call declares first, in protocol order.
    pub fn script_keys(&self) -> &[String; 2] {
        &self.script_keys
    }

    /// Fresh names for one deep clean's temporary sets: (snapshot, suspects).
    pub fn deep_clean_sets(&self) -> (String, String) {
        let snapshot = format!("{}:deep_clean:{}", self.prefix, uuid::Uuid::new_v4());
        let suspects = format!("{snapshot}:suspects");
        (snapshot, suspects)
    }

    /// The SCAN pattern matching every key of one family of this queue and no other key.
    pub fn family_scan_pattern(&self, family: &str) -> String {
        format!("{}*", escape_glob(&format!("{}:{family}:", self.prefix)))
    }
}

/// Checks a queue prefix as [`crate::Client::queue`] does (INVALID_ARGUMENT naming `prefix`):
/// 1 to [`MAX_PREFIX_LEN`] bytes, no control characters, and in Cluster mode (`cluster`) a
/// `{hash tag}`.
pub fn validate_prefix(prefix: &str, cluster: bool) -> Result<()> {
    if prefix.is_empty() {
        return Err(Error::invalid("prefix", "must not be empty"));
    }
    if prefix.len() > MAX_PREFIX_LEN {
        return Err(Error::invalid(
            "prefix",
            format!(
                "is {} bytes, at most {MAX_PREFIX_LEN} are allowed",
                prefix.len()
            ),
        ));
    }
    if prefix.chars().any(char::is_control) {
        return Err(Error::invalid(
            "prefix",
            "must not contain control characters",
        ));
    }
    let nested = format!("{prefix}:");
    for family in FAMILIES {
        let pattern = format!(":{family}:");
        if nested.find(&pattern).is_some_and(|at| at > 0) {
            return Err(Error::invalid(
                "prefix",
                format!(
                    "`{prefix}` contains `{}`, so its keys would fall inside the `{family}` keys \
                     of queue `{}`; choose a prefix without `:{family}:` in it",
                    pattern.trim_end_matches(':'),
                    &prefix[..nested.find(&pattern).unwrap_or(0)]
                ),
            ));
        }
    }
    if cluster && hash_tag(prefix).is_none() {
        return Err(Error::invalid(
            "prefix",
            format!(
                "{}; in Redis Cluster a queue prefix must contain one, e.g. `{}`, so that all \
                 its keys share a slot",
                no_tag(prefix),
                with_tag(prefix)
            ),
        ));
    }
    Ok(())
}

/// Why `prefix` has no hash tag ([`hash_tag`] is `None`), said of it.
pub(crate) fn no_tag(prefix: &str) -> String {
    let why = match prefix.find('{') {
        None => "no `{`",
        Some(open) => match prefix[open + 1..].find('}') {
            None => "no `}` after its first `{`",
            // (Called when there is no tag: the first `{` is closed at once.)
            Some(_) => "an empty one (`{}`), which Redis Cluster ignores",
        },
    };
    format!("`{prefix}` has no hash tag: {why}")
}

/// A prefix like `prefix` with a hash tag: its text without braces, braced (`{}jobs` gives
/// `{jobs}`); `{queue}` when nothing is left.
pub(crate) fn with_tag(prefix: &str) -> String {
    let text: String = prefix.chars().filter(|c| *c != '{' && *c != '}').collect();
    if text.is_empty() {
        "{queue}".to_owned()
    } else {
        format!("{{{text}}}")
    }
}

/// The hash tag Redis Cluster would use for a key starting with `prefix`, if any: the text
/// between the first `{` and the first `}` after it, when not empty.
pub(crate) fn hash_tag(prefix: &str) -> Option<&str> {
    let open = prefix.find('{')?;
    let rest = &prefix[open + 1..];
    let close = rest.find('}')?;
    (close > 0).then(|| &rest[..close])
}

/// Escapes the glob metacharacters of Redis' MATCH (`* ? [ ] \`), so `text` matches itself only.
pub(crate) fn escape_glob(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_matches_redis_work_queue() {
        let k = QueueKeys::new("jobs", false).unwrap();
        assert_eq!(k.queue, "jobs:queue");
        assert_eq!(k.processing, "jobs:processing");
        assert_eq!(k.script_keys(), &["jobs:lease:", "jobs:item:"]);
        assert_eq!(k.item_family, "jobs:item:");
        assert_eq!(k.lease_count, "jobs:lease_count");
    }

    #[test]
    fn scan_pattern_escapes_globs() {
        let k = QueueKeys::new(r"jobs[1]*?\", false).unwrap();
        assert_eq!(k.family_scan_pattern("item"), r"jobs\[1\]\*\?\\:item:*");
    }

    #[test]
    fn hash_tags_follow_cluster_rules() {
        assert_eq!(hash_tag("{a}b"), Some("a"));
        assert_eq!(hash_tag("x{a}{b}"), Some("a"));
        assert_eq!(hash_tag("{}a"), None);
        assert_eq!(hash_tag("a{b"), None);
        assert_eq!(hash_tag("a}b{c}"), Some("c"));
    }

    #[test]
    fn a_prefix_without_a_tag_is_told_why_and_given_one_that_works() {
        for (prefix, why, suggested) in [
            ("jobs", "no `{`", "{jobs}"),
            ("{}jobs", "an empty one", "{jobs}"),
            ("a{b", "no `}`", "{ab}"),
            ("{}", "an empty one", "{queue}"),
        ] {
            let err = QueueKeys::new(prefix, true).unwrap_err().to_string();
            assert!(
                err.contains(why) && err.contains(suggested),
                "{prefix}: {err}"
            );
            assert!(hash_tag(&with_tag(prefix)).is_some(), "{prefix}");
        }
    }

    #[test]
    fn bad_prefixes_are_refused_naming_the_argument() {
        for (prefix, cluster) in [("", false), ("a\nb", false), ("plain", true)] {
            let err = QueueKeys::new(prefix, cluster).unwrap_err();
            assert!(
                matches!(
                    err,
                    Error::InvalidArgument {
                        argument: "prefix",
                        ..
                    }
                ),
                "{prefix:?}: {err}"
            );
        }
        let long = "x".repeat(MAX_PREFIX_LEN + 1);
        assert!(QueueKeys::new(&long, false).is_err());
        assert!(QueueKeys::new("{tag}jobs", true).is_ok());
    }

    #[test]
    fn prefixes_nested_in_a_family_are_refused() {
        for prefix in [
            "jobs:item",
            "jobs:item:x",
            "a:b:lease:c",
            "{t}:job",
            "x:deep_clean",
        ] {
            let err = QueueKeys::new(prefix, false).unwrap_err();
            assert!(err.to_string().contains("prefix"), "{prefix}: {err}");
        }
        for prefix in ["item", "jobs:items", "jobs:item-x", "lease:x", "a:jobs:b"] {
            assert!(QueueKeys::new(prefix, false).is_ok(), "{prefix}");
        }
    }
}
