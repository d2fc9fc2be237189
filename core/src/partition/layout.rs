//! The layout of a partitioned queue (spec/PROTOCOL.md 5.25): the partitions' prefixes, each
//! with a hash tag of its own in its share of the slot space, and the meta key that stores them.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::keys::validate_prefix;
use crate::server::key_slot;

/// The most partitions one logical queue may have: a runner serves every partition and waits
/// on each of them (spec/PROTOCOL.md 13.3 and 5.25).
pub const MAX_PARTITIONS: usize = 64;

/// The version of the stored layout this client writes and reads.
pub(crate) const LAYOUT_VERSION: u32 = 1;

/// Redis Cluster's slot count.
const SLOTS: u32 = 16384;

/// The stored layout, `B:partitions`'s JSON value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Layout {
    pub version: u32,
    pub count: usize,
    pub prefixes: Vec<String>,
}

/// The meta key of base `base`.
pub(crate) fn meta_key(base: &str) -> String {
    format!("{base}:partitions")
}

/// Refuses a partition count outside 1..=[`MAX_PARTITIONS`] (argument `partitions`).
pub(crate) fn validate_count(count: usize) -> Result<()> {
    if !(1..=MAX_PARTITIONS).contains(&count) {
        return Err(Error::invalid(
            "partitions",
            format!("is {count}; a queue has 1 to {MAX_PARTITIONS} partitions"),
        ));
    }
    Ok(())
}

/// Where the hash tag of `base` is: (index of `{`, index of the `}` closing it).
fn tag_bounds(base: &str) -> Option<(usize, usize)> {
    let open = base.find('{')?;
    let close = open + 1 + base[open + 1..].find('}')?;
    (close > open + 1).then_some((open, close))
}

/// The slots partition `i` of `count` may take: the middle half of its share
/// `[round(i·16384/count), round((i+1)·16384/count))`, as a half-open range.
pub(crate) fn slot_window(i: usize, count: usize) -> (u16, u16) {
    // round half up of j * SLOTS / count, in integers
    let edge = |j: usize| -> u32 { (2 * j as u32 * SLOTS + count as u32) / (2 * count as u32) };
    let (a, b) = (edge(i), edge(i + 1));
    let quarter = (b - a) / 4;
    ((a + quarter) as u16, (b - quarter) as u16)
}

/// The prefixes of the `count` partitions of `base` (spec/PROTOCOL.md 5.25). `count` = 1 is the
/// base itself; more need a hash tag in the base (argument `prefix`).
pub(crate) fn prefixes(base: &str, count: usize, cluster: bool) -> Result<Vec<String>> {
    validate_prefix(base, cluster)?;
    validate_count(count)?;
    if count == 1 {
        return Ok(vec![base.to_owned()]);
    }
    let Some((open, close)) = tag_bounds(base) else {
        return Err(Error::invalid(
            "prefix",
            format!(
                "{}; a queue of several partitions needs one (e.g. `{}`), whose text each \
                 partition extends to a slot of its own",
                crate::keys::no_tag(base),
                crate::keys::with_tag(base)
            ),
        ));
    };
    let tag = &base[open + 1..close];
    let mut out = Vec::with_capacity(count);
    for i in 0..count {
        let (lo, hi) = slot_window(i, count);
        let salt = (0u64..)
            .find(|s| {
                let slot = key_slot(format!("{tag}~{i}~{s}").as_bytes());
                (lo..hi).contains(&slot)
            })
            .unwrap_or(0);
        let prefix = format!(
            "{}{{{tag}~{i}~{salt}}}{}",
            &base[..open],
            &base[close + 1..]
        );
        validate_prefix(&prefix, cluster)?;
        out.push(prefix);
    }
    Ok(out)
}

impl Layout {
    /// The layout of `count` partitions of `base`.
    pub fn new(base: &str, count: usize, cluster: bool) -> Result<Layout> {
        Ok(Layout {
            version: LAYOUT_VERSION,
            count,
            prefixes: prefixes(base, count, cluster)?,
        })
    }

    /// Reads a stored layout, refusing one this client cannot use (argument `partitions`).
    pub fn parse(base: &str, text: &[u8], cluster: bool) -> Result<Layout> {
        let bad =
            |why: String| Error::invalid("partitions", format!("`{}` holds {why}", meta_key(base)));
        let layout: Layout =
            serde_json::from_slice(text).map_err(|e| bad(format!("no partition layout ({e})")))?;
        if layout.version != LAYOUT_VERSION {
            return Err(bad(format!(
                "a layout of version {}, which this client does not know",
                layout.version
            )));
        }
        if validate_count(layout.count).is_err() || layout.prefixes.len() != layout.count {
            return Err(bad(format!(
                "{} partitions with {} prefixes",
                layout.count,
                layout.prefixes.len()
            )));
        }
        for prefix in &layout.prefixes {
            validate_prefix(prefix, cluster)?;
        }
        Ok(layout)
    }

    /// The JSON text stored in the meta key.
    pub fn to_text(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_partition_is_the_base_itself() {
        assert_eq!(prefixes("jobs", 1, false).unwrap(), ["jobs"]);
    }

    #[test]
    fn partitions_extend_the_tag_and_land_in_their_share() {
        let p = prefixes("jobs:{eu}:x", 3, true).unwrap();
        for (i, prefix) in p.iter().enumerate() {
            assert!(prefix.starts_with(&format!("jobs:{{eu~{i}~")), "{prefix}");
            assert!(prefix.ends_with("}:x"), "{prefix}");
            let slot = key_slot(prefix.as_bytes());
            // redis-cli's three primaries: 0..5461, 5461..10923, 10923..16384
            let share = [(0, 5461), (5461, 10923), (10923, 16384)][i];
            assert!(
                (share.0..share.1).contains(&slot),
                "{prefix} in slot {slot}"
            );
        }
    }

    #[test]
    fn windows_cover_equal_shares_like_redis_cli() {
        assert_eq!(slot_window(0, 3), (1365, 4096));
        assert_eq!(slot_window(1, 3), (6826, 9558));
        assert_eq!(slot_window(2, 3), (12288, 15019));
        for p in [2, 5, 6, 7, 64] {
            for i in 0..p {
                let (lo, hi) = slot_window(i, p);
                assert!(lo < hi && u32::from(hi) <= SLOTS, "{i} of {p}");
            }
        }
    }

    #[test]
    fn bad_counts_and_untagged_bases_are_refused() {
        for n in [0, MAX_PARTITIONS + 1] {
            let e = prefixes("{q}", n, false).unwrap_err();
            assert!(matches!(
                e,
                Error::InvalidArgument {
                    argument: "partitions",
                    ..
                }
            ));
        }
        let e = prefixes("jobs", 2, false).unwrap_err();
        assert!(matches!(
            e,
            Error::InvalidArgument {
                argument: "prefix",
                ..
            }
        ));
    }

    #[test]
    fn a_stored_layout_reads_back_and_a_strange_one_is_refused() {
        let layout = Layout::new("{q}", 4, true).unwrap();
        assert_eq!(
            Layout::parse("{q}", layout.to_text().as_bytes(), true).unwrap(),
            layout
        );
        for text in [
            r#"{"version":2,"count":1,"prefixes":["{q}"]}"#,
            r#"{"version":1,"count":2,"prefixes":["{q}"]}"#,
            "junk",
        ] {
            let e = Layout::parse("{q}", text.as_bytes(), true).unwrap_err();
            assert!(
                matches!(
                    e,
                    Error::InvalidArgument {
                        argument: "partitions",
                        ..
                    }
                ),
                "{text}"
            );
        }
    }
}
