//! Routing (spec/PROTOCOL.md 5.25): which partition an item, an id or a flow goes to.

use crate::error::{Error, Result};
use crate::item::Item;

/// 64-bit FNV-1a of `bytes`: the routing hash every client computes the same way.
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

/// The partition of routing key `key` among `count`.
pub(crate) fn of_key(key: &[u8], count: usize) -> usize {
    (fnv1a(key) % count as u64) as usize
}

/// The routing key of `item`: its group, else its first dependency, else its id.
pub(crate) fn key_of(item: &Item) -> &[u8] {
    if let Some(group) = item.group_name() {
        return group.as_bytes();
    }
    match item.dependencies().first() {
        Some(dep) => dep.as_bytes(),
        None => item.id().as_bytes(),
    }
}

/// The partition of `item`, refusing (argument `depends_on`) a dependency that routes
/// elsewhere: dependencies are resolved within one partition.
pub(crate) fn checked(item: &Item, count: usize) -> Result<usize> {
    let at = of_key(key_of(item), count);
    if let Some(dep) = item
        .dependencies()
        .iter()
        .find(|d| of_key(d.as_bytes(), count) != at)
    {
        return Err(Error::invalid(
            "depends_on",
            format!(
                "item `{}` goes to partition {at} but its dependency `{dep}` to partition {}; \
                 dependencies must share a partition (add a flow, or add to one partition)",
                item.id(),
                of_key(dep.as_bytes(), count)
            ),
        ));
    }
    Ok(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_matches_its_reference_values() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn a_group_wins_over_the_id_and_one_partition_takes_all() {
        let a = Item::with_id("a", b"".to_vec()).unwrap().group("g");
        let b = Item::with_id("b", b"".to_vec()).unwrap().group("g");
        assert_eq!(key_of(&a), b"g");
        assert_eq!(checked(&a, 7).unwrap(), checked(&b, 7).unwrap());
        assert_eq!(checked(&Item::new(b"x".to_vec()), 1).unwrap(), 0);
    }

    #[test]
    fn a_dependency_in_another_partition_is_refused() {
        let ids: Vec<String> = (0..64).map(|i| format!("id{i}")).collect();
        let (x, y) = (
            &ids[0],
            ids.iter()
                .find(|d| of_key(d.as_bytes(), 4) != of_key(ids[0].as_bytes(), 4))
                .unwrap(),
        );
        let ok = Item::new(b"".to_vec()).depends_on([x.as_str()]);
        assert_eq!(checked(&ok, 4).unwrap(), of_key(x.as_bytes(), 4));
        let bad = Item::new(b"".to_vec()).depends_on([x.as_str(), y.as_str()]);
        let e = checked(&bad, 4).unwrap_err();
        assert!(matches!(
            e,
            Error::InvalidArgument {
                argument: "depends_on",
                ..
            }
        ));
    }
}
