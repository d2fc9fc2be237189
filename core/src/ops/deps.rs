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
    /// given its children's ids as dependencies.
    fn flatten(&self, out: &mut Vec<Item>) {
        let mut ids = Vec::with_capacity(self.children.len());
        for child in &self.children {
            child.flatten(out);
            ids.push(child.item.id().to_owned());
        }
        let mut deps = self.item.dependencies().to_vec();
        deps.extend(ids);
        let mut item = self.item.clone();
        if !deps.is_empty() {
            item = item.depends_on(deps);
        }
        out.push(item);
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

impl Queue {
    /// Adds `parent` and its `children` (items, or flows with children of their own) in one
    /// script call: the children first, then the parent, blocked until every child completes
    /// (each child likewise waits for its own children). Returns how many items were added (an
    /// id that exists is not added again, and its item counts as the dependency). At most 1000
    /// items in all, with distinct ids (argument `children`), each checked as `add` checks it;
    /// nothing is sent when one is refused. One round trip.
    pub async fn add_flow(&self, parent: &Item, children: &[Flow]) -> Result<usize> {
        let flow = Flow {
            item: parent.clone(),
            children: children.to_vec(),
        };
        let mut items = Vec::new();
        flow.flatten(&mut items);
        if items.len() > MAX_PAGE {
            return Err(Error::invalid(
                "children",
                format!(
                    "a flow of {} items; at most {MAX_PAGE} are added in one call",
                    items.len()
                ),
            ));
        }
        let mut seen = HashSet::new();
        for item in &items {
            if !seen.insert(item.id()) {
                return Err(Error::invalid(
                    "children",
                    format!("id `{}` appears twice in the flow", item.id()),
                ));
            }
        }
        self.add_batch(&items).await
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
