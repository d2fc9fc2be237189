//! Routing (spec/PROTOCOL.md 5.25): which partition an item, an id or a flow goes to.

use std::collections::{HashMap, HashSet};

use futures_util::future::try_join_all;

use super::Partitioned;
use crate::error::{Error, Result};
use crate::item::Item;
use crate::queue::Queue;

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

/// The routing key of `item` when nothing is looked up ([`crate::Partitioned::partition_of`]):
/// its group, else its first dependency, else its id.
pub(crate) fn key_of(item: &Item) -> &[u8] {
    if let Some(group) = item.group_name() {
        return group.as_bytes();
    }
    match item.dependencies().first() {
        Some(dep) => dep.as_bytes(),
        None => item.id().as_bytes(),
    }
}

/// Where each of `items` goes (spec/PROTOCOL.md 5.25, "Dependencies and flows"), given
/// `located`, the partitions where each id of [`to_locate`] was found: an item without a group
/// whose own id exists already goes where it is (its add is then a no-op, as a retried add
/// is); else its group's partition, else its dependencies', else its first dependency's id's,
/// else its id's. Refuses (argument `depends_on`) an item whose dependencies are in two
/// partitions, or in another than its group's, and a dependency found in two partitions.
pub(crate) fn route_all(
    items: &[Item],
    located: &HashMap<&str, Vec<usize>>,
    count: usize,
) -> Result<Vec<usize>> {
    let mut earlier: HashMap<&str, usize> = HashMap::new();
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        let at = match existing(item, located) {
            Some(at) => at,
            None => by_dependencies(item, &earlier, located, count)?,
        };
        earlier.entry(item.id()).or_insert(at);
        out.push(at);
    }
    Ok(out)
}

/// Where an item that routes by its dependencies (no group) already is, if anywhere: routing
/// by live state must not put a retried add's item in a second partition.
fn existing(item: &Item, located: &HashMap<&str, Vec<usize>>) -> Option<usize> {
    if item.group_name().is_some() || item.dependencies().is_empty() {
        return None;
    }
    located.get(item.id()).and_then(|at| at.first().copied())
}

/// An item's partition by its group, else its dependencies (earlier items of the call, or
/// where they were found), else its first dependency's id, else its id.
fn by_dependencies(
    item: &Item,
    earlier: &HashMap<&str, usize>,
    located: &HashMap<&str, Vec<usize>>,
    count: usize,
) -> Result<usize> {
    // The partition a dependency holds the item to, and which dependency.
    let mut held: Option<(usize, &str)> = None;
    for dep in item.dependencies() {
        let at = match (earlier.get(dep.as_str()), located.get(dep.as_str())) {
            (Some(&at), _) => at,
            (None, Some(found)) => match found.as_slice() {
                [] => continue,
                [at] => *at,
                [a, b, ..] => {
                    return Err(Error::invalid(
                        "depends_on",
                        format!(
                            "`{dep}` is an item of partition {a} and of partition {b}: a \
                             dependency must name one item"
                        ),
                    ))
                }
            },
            (None, None) => continue,
        };
        match held {
            Some((other, first)) if other != at => {
                return Err(Error::invalid(
                    "depends_on",
                    format!(
                        "item `{}` depends on `{first}`, in partition {other}, and on `{dep}`, \
                         in partition {at}; dependencies must share a partition (add them as \
                         one flow, or in one group, or to one partition); nothing was written",
                        item.id()
                    ),
                ))
            }
            _ => held = Some((at, dep.as_str())),
        }
    }
    let at = match (item.group_name(), held) {
        (Some(group), _) => of_key(group.as_bytes(), count),
        (None, Some((at, _))) => at,
        (None, None) => of_key(key_of(item), count),
    };
    if let Some((other, dep)) = held.filter(|&(other, _)| other != at) {
        return Err(Error::invalid(
            "depends_on",
            format!(
                "item `{}` goes to partition {at}, its group's, but its dependency `{dep}` is in \
                 partition {other}; dependencies must share a partition (add a flow, or add to \
                 one partition); nothing was written",
                item.id()
            ),
        ));
    }
    Ok(at)
}

/// The ids of `items` to look up: each distinct dependency that is no earlier item of the call
/// (an earlier item's partition is known), and the own id of each item routed by its
/// dependencies (no group), which a retried add finds where it is.
pub(crate) fn to_locate(items: &[Item]) -> Vec<&str> {
    let mut earlier: HashSet<&str> = HashSet::new();
    let mut wanted: Vec<&str> = Vec::new();
    let mut listed: HashSet<&str> = HashSet::new();
    for item in items {
        if item.group_name().is_none()
            && !item.dependencies().is_empty()
            && listed.insert(item.id())
        {
            wanted.push(item.id());
        }
        for dep in item.dependencies() {
            if !earlier.contains(dep.as_str()) && listed.insert(dep.as_str()) {
                wanted.push(dep);
            }
        }
        earlier.insert(item.id());
    }
    wanted
}

/// The distinct dependencies of the items of a flow (as [`crate::ops::deps::flow_items`]
/// gives them) on items outside it, in order.
pub(crate) fn outside_flow(items: &[Item]) -> Vec<&str> {
    let members: HashSet<&str> = items.iter().map(Item::id).collect();
    let mut listed: HashSet<&str> = HashSet::new();
    items
        .iter()
        .flat_map(|item| item.dependencies())
        .map(String::as_str)
        .filter(|dep| !members.contains(dep) && listed.insert(dep))
        .collect()
}

/// Refuses (argument `group`) a flow going to partition `at` when one of its `items` has a
/// group that lives in another partition: the group's order, limit and pause hold only while
/// all its items are in one partition (spec/PROTOCOL.md 5.25, "Routing").
pub(crate) fn check_flow_groups(items: &[Item], at: usize, count: usize) -> Result<()> {
    for item in items {
        if let Some(group) = item.group_name() {
            let home = of_key(group.as_bytes(), count);
            if home != at {
                return Err(Error::invalid(
                    "group",
                    format!(
                        "item `{}` of the flow has group `{group}`, which lives in partition \
                         {home}, but the flow goes to partition {at}, its root's; a group's \
                         items must share its partition (give the flow's items the root's group, \
                         or none)",
                        item.id()
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Refuses (argument `depends_on`) a flow going to partition `at` when one of its dependencies
/// outside it, `outside`, was located in another partition (`located`): there it would count
/// as complete (spec/PROTOCOL.md 5.24). One found nowhere constrains nothing.
pub(crate) fn check_flow(
    outside: &[&str],
    located: &HashMap<&str, Vec<usize>>,
    at: usize,
) -> Result<()> {
    for dep in outside {
        if let Some(&other) = located
            .get(dep)
            .and_then(|found| found.iter().find(|&&p| p != at))
        {
            return Err(Error::invalid(
                "depends_on",
                format!(
                    "the flow goes to partition {at}, its root's, but its dependency `{dep}` is \
                     in partition {other}; a flow's dependencies outside it must be in its \
                     partition (give the root a group that routes there, or add to one \
                     partition)"
                ),
            ));
        }
    }
    Ok(())
}

impl Partitioned {
    /// The partitions each of `ids` is in (ascending), looked up in every partition at once
    /// (one round trip to each: a pipeline of `EXISTS P:job:<id> P:item:<id> P:data:<id>
    /// P:result:<id>`, read-only); an id in no partition is left out.
    pub(crate) async fn locate<'a>(&self, ids: &[&'a str]) -> Result<HashMap<&'a str, Vec<usize>>> {
        if ids.is_empty() {
            return Ok(HashMap::new());
        }
        let bytes: Vec<&[u8]> = ids.iter().map(|id| id.as_bytes()).collect();
        let found = try_join_all(self.partitions.iter().map(|q| exists_each(q, &bytes))).await?;
        let mut at: HashMap<&'a str, Vec<usize>> = HashMap::new();
        for (partition, found) in found.into_iter().enumerate() {
            for (&id, here) in ids.iter().zip(found) {
                if here {
                    at.entry(id).or_default().push(partition);
                }
            }
        }
        Ok(at)
    }

    /// The partitions that hold item `id` (any bytes), in any state [`Partitioned::locate`]
    /// finds, ascending: one round trip to every partition at once.
    pub(crate) async fn holding(&self, id: &[u8]) -> Result<Vec<usize>> {
        let ids = [id];
        let found = try_join_all(self.partitions.iter().map(|q| exists_each(q, &ids))).await?;
        Ok(found
            .into_iter()
            .enumerate()
            .filter(|(_, here)| here.first() == Some(&true))
            .map(|(i, _)| i)
            .collect())
    }
}

/// Whether an item of each of `ids` is in queue `q` (waiting, delayed, leased, blocked or
/// dead: its record, data or item key exists; or completed with its result kept, which its
/// dependants read there). One round trip.
async fn exists_each(q: &Queue, ids: &[&[u8]]) -> Result<Vec<bool>> {
    let prefix = q.prefix();
    let key =
        |family: &str, id: &[u8]| [prefix.as_bytes(), b":", family.as_bytes(), b":", id].concat();
    let mut pipe = redis::pipe();
    for id in ids {
        pipe.cmd("EXISTS")
            .arg(key("job", id))
            .arg(key("item", id))
            .arg(key("data", id))
            .arg(key("result", id));
    }
    let mut conn = q.conn()?;
    let counts: Vec<i64> = pipe
        .query_async(&mut conn)
        .await
        .map_err(|e| q.map_err(e))?;
    Ok(counts.into_iter().map(|n| n > 0).collect())
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

    fn item(id: &str) -> Item {
        Item::with_id(id, b"".to_vec()).unwrap()
    }

    #[test]
    fn a_group_wins_over_the_id_and_one_partition_takes_all() {
        let items = [item("a").group("g"), item("b").group("g")];
        let at = route_all(&items, &HashMap::new(), 7).unwrap();
        assert_eq!(at[0], at[1]);
        assert_eq!(at[0], of_key(b"g", 7));
        assert_eq!(route_all(&[item("x")], &HashMap::new(), 1).unwrap(), [0]);
    }

    #[test]
    fn an_item_follows_its_dependencies_where_they_are() {
        // A dependency located in partition 2 takes the item there, whatever its id's hash.
        let located = HashMap::from([("d", vec![2])]);
        let at = route_all(&[item("x").depends_on(["d"])], &located, 4).unwrap();
        assert_eq!(at, [2]);
        // Not located anywhere (finished, or never added): by the first dependency's id.
        let at = route_all(&[item("x").depends_on(["e"])], &HashMap::new(), 4).unwrap();
        assert_eq!(at, [of_key(b"e", 4)]);
        // An earlier item of the call, grouped: where its group put it.
        let items = [item("p").group("g"), item("c").depends_on(["p"])];
        let at = route_all(&items, &HashMap::new(), 4).unwrap();
        assert_eq!(at, [of_key(b"g", 4), of_key(b"g", 4)]);
        // (Only `c` itself is looked up: a retry of it finds where it is.)
        assert_eq!(to_locate(&items), ["c"]);
        // A later item of the call is looked up (the add refuses the order itself).
        let items = [item("c").depends_on(["p"]), item("p").group("g")];
        assert_eq!(to_locate(&items), ["c", "p"]);
        // An item routed by its dependencies that exists already stays where it is: a retry
        // after its dependency finished is a no-op, not a second copy.
        let located = HashMap::from([("x", vec![3])]);
        let at = route_all(&[item("x").depends_on(["gone"])], &located, 4).unwrap();
        assert_eq!(at, [3]);
    }

    #[test]
    fn a_flow_checks_only_its_dependencies_outside_it() {
        let items = [
            item("c1").depends_on(["ext", "c0"]),
            item("c0"),
            item("root").depends_on(["c1", "c0", "ext", "ext2"]),
        ];
        assert_eq!(outside_flow(&items), ["ext", "ext2"]);
        let located = HashMap::from([("ext", vec![1]), ("ext2", vec![1, 2])]);
        assert!(check_flow(&["ext"], &located, 1).is_ok());
        let e = check_flow(&["ext", "ext2"], &located, 1).unwrap_err();
        assert!(e.to_string().contains("`ext2` is in partition 2"), "{e}");
        assert!(check_flow(&["ext"], &located, 0).is_err());
        assert!(check_flow(&["nowhere"], &located, 0).is_ok());
    }

    #[test]
    fn dependencies_in_two_partitions_or_off_the_group_are_refused() {
        let located = HashMap::from([("a", vec![0]), ("b", vec![1]), ("twice", vec![0, 2])]);
        let twice = item("x").depends_on(["twice"]);
        let e = route_all(&[twice], &located, 4).unwrap_err();
        assert!(matches!(
            e,
            Error::InvalidArgument {
                argument: "depends_on",
                ..
            }
        ));
        let both = item("x").depends_on(["a", "b"]);
        let e = route_all(&[both], &located, 4).unwrap_err();
        assert!(matches!(
            e,
            Error::InvalidArgument {
                argument: "depends_on",
                ..
            }
        ));
        let group = (0..64)
            .map(|g| format!("g{g}"))
            .find(|g| of_key(g.as_bytes(), 4) != 0)
            .unwrap();
        let off = item("x").group(group.as_str()).depends_on(["a"]);
        let e = route_all(&[off], &located, 4).unwrap_err();
        assert!(matches!(
            e,
            Error::InvalidArgument {
                argument: "depends_on",
                ..
            }
        ));
        // A dependency nowhere does not hold a grouped item back.
        let free = item("x").group(group.as_str()).depends_on(["gone"]);
        assert_eq!(
            route_all(&[free], &located, 4).unwrap(),
            [of_key(group.as_bytes(), 4)]
        );
    }
}
