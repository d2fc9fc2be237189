//! Every Redis key of a queue, built in one place from the queue prefix.

use crate::error::{Error, Result};

/// The longest prefix accepted, in bytes.
pub const MAX_PREFIX_LEN: usize = 1024;

/// The keys of one queue. The first four are redis-work-queue's layout; the rest are leaseq's
/// own and live under the same prefix (spec/PROTOCOL.md, "Keys").
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct QueueKeys {
    pub prefix: String,
    /// `<prefix>:queue`
    pub queue: String,
    /// `<prefix>:processing`
    pub processing: String,
    /// `<prefix>:lease_count`
    pub lease_count: String,
    /// `<prefix>:lease:` (a family: append an id)
    pub lease_family: String,
    /// `<prefix>:item:` (a family: append an id)
    pub item_family: String,
    /// `<prefix>:cleaning`, redis-work-queue's cleaner journal (read and emptied by deep clean)
    pub cleaning: String,
}

impl QueueKeys {
    /// Validates `prefix` and builds the keys. In Cluster mode the prefix must carry a hash tag,
    /// so that every key of the queue lands in one slot.
    pub fn new(prefix: &str, cluster: bool) -> Result<QueueKeys> {
        validate_prefix(prefix, cluster)?;
        Ok(QueueKeys {
            prefix: prefix.to_owned(),
            queue: format!("{prefix}:queue"),
            processing: format!("{prefix}:processing"),
            lease_count: format!("{prefix}:lease_count"),
            lease_family: format!("{prefix}:lease:"),
            item_family: format!("{prefix}:item:"),
            cleaning: format!("{prefix}:cleaning"),
        })
    }

    /// The five keys every script receives first, in protocol order.
    pub fn script_keys(&self) -> [&str; 5] {
        [
            &self.queue,
            &self.processing,
            &self.lease_count,
            &self.lease_family,
            &self.item_family,
        ]
    }

    /// Fresh names for one deep clean's temporary sets: (snapshot, suspects).
    pub fn deep_clean_sets(&self) -> (String, String) {
        let snapshot = format!("{}:deep_clean:{}", self.prefix, uuid::Uuid::new_v4());
        let suspects = format!("{snapshot}:suspects");
        (snapshot, suspects)
    }

    /// The SCAN pattern matching every item key of this queue and no other key.
    pub fn item_scan_pattern(&self) -> String {
        format!("{}*", escape_glob(&self.item_family))
    }
}

fn validate_prefix(prefix: &str, cluster: bool) -> Result<()> {
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
    if cluster && hash_tag(prefix).is_none() {
        return Err(Error::invalid(
            "prefix",
            format!(
                "`{prefix}` has no hash tag; in Redis Cluster a queue prefix must contain one, \
                 e.g. `{{{prefix}}}`, so that all its keys share a slot"
            ),
        ));
    }
    Ok(())
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
        assert_eq!(k.lease_family, "jobs:lease:");
        assert_eq!(k.item_family, "jobs:item:");
        assert_eq!(k.lease_count, "jobs:lease_count");
    }

    #[test]
    fn scan_pattern_escapes_globs() {
        let k = QueueKeys::new(r"jobs[1]*?\", false).unwrap();
        assert_eq!(k.item_scan_pattern(), r"jobs\[1\]\*\?\\:item:*");
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
}
