//! Dependencies and flows (spec/PROTOCOL.md 5.24): an item that waits for others to complete,
//! a parent added with its children in one call, and what a blocked item waits for.

use std::collections::HashSet;

use redis::Value;

use crate::error::{Error, Result};
use crate::item::{validate_id_bytes, Item, OnDependencyFailure};
use crate::policy::MAX_PAGE;
use crate::queue::Queue;
use crate::reply::{array, bytes, int, text, unexpected};
use crate::scripts;

/// An item and the items it waits for, each of which may have children of its own
/// ([`Queue::add_flow`], BullMQ's FlowProducer): the children run first, then their parent,
/// which can read their results ([`Queue::dependency_results`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Flow {
    item: Item,
    children: Vec<Flow>,
}

impl Flow {
    /// A flow of `item` alone; add children with [`Flow::child`].
    pub fn new(item: Item) -> Flow {
        Flow {
            item,
            children: Vec::new(),
        }
    }

    /// Adds a child (an item, or a flow of its own): `item` waits for it.
    pub fn child(mut self, child: impl Into<Flow>) -> Flow {
        self.children.push(child.into());
        self
    }

    /// The item at the top of this flow.
    pub fn item(&self) -> &Item {
        &self.item
    }

    /// Its children.
    pub fn children(&self) -> &[Flow] {
        &self.children
    }

    /// The items in the order they are added (children before their parent), each parent
    /// given its children's ids as dependencies; `None` as soon as there are more than `max`.
    /// Iterative, so that a flow nested however deep (a chain built by a binding) cannot
    /// overflow the stack: at most `max + 1` flows are on the way down at once.
    fn flatten(&self, max: usize) -> Option<Vec<Item>> {
        let mut out = Vec::new();
        // Each flow on the way down, with the index of its next child to visit.
        let mut path: Vec<(&Flow, usize)> = vec![(self, 0)];
        while let Some(top) = path.last_mut() {
            let node: &Flow = top.0;
            if top.1 < node.children.len() {
                let child = &node.children[top.1];
                top.1 += 1;
                path.push((child, 0));
                if path.len() > max + 1 {
                    return None;
                }
                continue;
            }
            path.pop();
            let mut deps = node.item.dependencies().to_vec();
            deps.extend(node.children.iter().map(|c| c.item.id().to_owned()));
            let mut item = node.item.clone();
            if !deps.is_empty() {
                item = item.depends_on(deps);
            }
            out.push(item);
            if out.len() > max {
                return None;
            }
        }
        Some(out)
    }
}

impl Drop for Flow {
    /// Drops the children one level at a time, never recursively: a flow nested however deep
    /// cannot overflow the stack.
    fn drop(&mut self) {
        let mut rest = std::mem::take(&mut self.children);
        while let Some(mut flow) = rest.pop() {
            rest.append(&mut flow.children);
        }
    }
}

impl From<Item> for Flow {
    fn from(item: Item) -> Flow {
        Flow::new(item)
    }
}

/// What one item waits for and what waits for it ([`Queue::dependencies`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Dependencies {
    /// The ids it was added to wait for, in order.
    pub depends_on: Vec<String>,
    /// Its policy when a dependency dies or is cancelled; `None` without dependencies.
    pub on_dependency_failure: Option<OnDependencyFailure>,
    /// Those it still waits for (while it is blocked).
    pub pending: Vec<String>,
    /// How many blocked items wait for it.
    pub dependants_count: u64,
    /// Up to 100 of them.
    pub dependants: Vec<String>,
}

/// The items of the flow of `parent` and `children` in the order they are added (children
/// before their parent, each parent depending on its children besides its own dependencies),
/// refused (argument `children`) past 1000 items or with an id twice.
pub(crate) fn flow_items(parent: &Item, children: &[Flow]) -> Result<Vec<Item>> {
    let flow = Flow {
        item: parent.clone(),
        children: children.to_vec(),
    };
    let Some(items) = flow.flatten(MAX_PAGE) else {
        return Err(Error::invalid(
            "children",
            format!(
                "a flow of more than {MAX_PAGE} items; at most {MAX_PAGE} are added in one call"
            ),
        ));
    };
    let mut seen = HashSet::new();
    for item in &items {
        if !seen.insert(item.id()) {
            return Err(Error::invalid(
                "children",
                format!("id `{}` appears twice in the flow", item.id()),
            ));
        }
    }
    Ok(items)
}

impl Queue {
    /// Adds `parent` and its `children` (items, or flows with children of their own) in one
    /// script call: the children first, then the parent, blocked until every child completes
    /// (each child likewise waits for its own children). Returns how many items were added (an
    /// id that exists is not added again, and its item counts as the dependency). At most 1000
    /// items in all, with distinct ids (argument `children`), each checked as `add` checks it;
    /// nothing is sent when one is refused. One round trip.
    pub async fn add_flow(&self, parent: &Item, children: &[Flow]) -> Result<usize> {
        self.add_batch(&flow_items(parent, children)?).await
    }

    /// What item `id` waits for (its dependencies, those still pending) and how many blocked
    /// items wait for it. An id with neither gives empty lists. One round trip.
    pub async fn dependencies(&self, id: impl AsRef<[u8]>) -> Result<Dependencies> {
        let id = id.as_ref();
        validate_id_bytes(id)?;
        let mut inv = self.invocation(&scripts::DEPENDENCIES);
        inv.arg("info").arg(id);
        let value: Value = self.invoke(&inv).await?;
        const OP: &str = "dependencies";
        let [deps, policy, pending, count, some] = <[Value; 5]>::try_from(array(OP, value)?)
            .map_err(|v| unexpected(OP, &Value::Array(v)))?;
        let ids = |v: Value| -> Result<Vec<String>> {
            array(OP, v)?
                .into_iter()
                .map(|x| Ok(text(OP, x)?.unwrap_or_default()))
                .collect()
        };
        let policy = text(OP, policy)?.unwrap_or_default();
        Ok(Dependencies {
            depends_on: ids(deps)?,
            on_dependency_failure: (!policy.is_empty())
                .then(|| OnDependencyFailure::parse(&policy))
                .transpose()?,
            pending: ids(pending)?,
            dependants_count: int(OP, &count)?.max(0) as u64,
            dependants: ids(some)?,
        })
    }

    /// The kept results of the items `id` was added to wait for, in order: `(dependency id,
    /// result)`, the result `None` when none is kept (completed without one, expired, or not
    /// completed). A parent of a flow reads its children's results so, once they completed. One
    /// round trip.
    pub async fn dependency_results(
        &self,
        id: impl AsRef<[u8]>,
    ) -> Result<Vec<(String, Option<Vec<u8>>)>> {
        let id = id.as_ref();
        validate_id_bytes(id)?;
        let mut inv = self.invocation(&scripts::DEPENDENCIES);
        inv.arg("results").arg(id);
        let value: Value = self.invoke(&inv).await?;
        const OP: &str = "dependency_results";
        let mut out = Vec::new();
        let mut flat = array(OP, value)?.into_iter();
        while let (Some(dep), Some(result)) = (flat.next(), flat.next()) {
            out.push((text(OP, dep)?.unwrap_or_default(), bytes(OP, result)?));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(id: &str) -> Item {
        Item::with_id(id, b"x".to_vec()).unwrap()
    }

    #[test]
    fn children_come_before_their_parent_which_waits_for_them() {
        let flow = Flow::new(item("p"))
            .child(Flow::new(item("a")).child(item("a1")))
            .child(item("b"));
        let items = flow.flatten(1000).unwrap();
        let ids: Vec<&str> = items.iter().map(Item::id).collect();
        assert_eq!(ids, ["a1", "a", "b", "p"]);
        assert_eq!(items[1].dependencies(), ["a1"]);
        assert_eq!(items[3].dependencies(), ["a", "b"]);
        assert!(flow.flatten(3).is_none(), "four items, three at most");
    }

    /// A chain far deeper than the bound is refused without walking it all, and dropped
    /// without recursion: neither overflows the stack.
    #[test]
    fn a_flow_nested_deeper_than_the_stack_is_refused_and_dropped() {
        let mut flow = Flow::new(item("leaf"));
        for i in 0..200_000 {
            flow = Flow::new(item(&format!("n{i}"))).child(flow);
        }
        assert!(flow.flatten(MAX_PAGE).is_none());
        drop(flow);
    }
}
