//! Adding items: one, unique, or a batch (spec/PROTOCOL.md, 5.1 to 5.3).

use std::time::Duration;

use redis::Value;

use crate::conn::{Deadline, Schedule, Waiter};
use crate::error::{Error, Result};
use crate::item::Item;
use crate::lease::Wait;
use crate::queue::{new_token, Queue};
use crate::reply::unexpected;
use crate::scripts;

/// How many items one add script call carries; a larger batch becomes several calls sent in one
/// pipeline (still one round trip), so that no single call holds Redis for long.
const ADD_CHUNK: usize = 1000;

/// The longest single wait for room in a bounded queue: room made by something other than a
/// lease (a cancel, a purge, a capacity raised) is seen at most this late (spec/PROTOCOL.md 5.18).
const ROOM_SLICE: Duration = Duration::from_secs(1);

impl Queue {
    /// Adds `item` unless an item with its id exists (waiting, delayed, leased or dead).
    /// Returns whether it was added. Storing the data and queueing the id happen in one script,
    /// so no crash leaves one without the other. One round trip.
    pub async fn add(&self, item: &Item) -> Result<bool> {
        Ok(self.add_chunks("add", std::slice::from_ref(item)).await? == 1)
    }

    /// Adds `item` without checking whether its id exists: the caller guarantees a fresh id (a
    /// random UUID from [`Item::new`] is). Adding an existing id overwrites its data and queues
    /// it twice. One round trip.
    pub async fn add_unique(&self, item: &Item) -> Result<()> {
        self.add_chunks("unique", std::slice::from_ref(item))
            .await
            .map(drop)
    }

    /// Adds every item whose id does not exist yet, as [`Queue::add`] would, each with its own
    /// options, and returns how many were added. One round trip for the whole batch; each item
    /// is added atomically. An id repeated in the batch is added once, with its first item. An
    /// empty batch sends nothing.
    pub async fn add_batch(&self, items: &[Item]) -> Result<usize> {
        self.add_chunks("add", items).await
    }

    /// [`Queue::add`] that waits for room when the queue is bounded
    /// ([`QueueConfig::capacity`](crate::QueueConfig)) and full: up to `wait`, then
    /// [`Error::Full`]. The wait is server-side (a `BLMOVE` on `P:room`, which a lease sets
    /// when it makes room), in slices of at most one second. Without a capacity this is
    /// [`Queue::add`].
    pub async fn add_wait(&self, item: &Item, wait: Wait) -> Result<bool> {
        Ok(self.add_waiting(std::slice::from_ref(item), wait).await? == 1)
    }

    /// [`Queue::add_batch`] that waits for room for the whole batch, as [`Queue::add_wait`]
    /// does. A batch of up to 1000 items is added whole or not at all.
    pub async fn add_batch_wait(&self, items: &[Item], wait: Wait) -> Result<usize> {
        self.add_waiting(items, wait).await
    }

    async fn add_waiting(&self, items: &[Item], wait: Wait) -> Result<usize> {
        let deadline = Deadline::of(wait)?;
        let mut waiter = Waiter::new(self.handle(), self.prefix(), deadline, Schedule::WAIT);
        let mut added = 0;
        loop {
            // A batch of more than 1000 items is several calls: one refused for want of room
            // after others added theirs is sent again whole; ids already added are skipped.
            let (n, full) = self.add_calls("add", items).await?;
            added += n;
            let Some(full) = full else {
                return Ok(added);
            };
            let left = match deadline.left() {
                Some(left) if left.is_zero() => return Err(full),
                left => left,
            };
            let slice = left.map_or(ROOM_SLICE, |l| l.min(ROOM_SLICE));
            match waiter
                .until_any(self.keys().room.as_bytes(), None, Some(slice))
                .await
            {
                Ok(()) => waiter.worked(),
                Err(e) if e.is_retryable() && !deadline.passed() => waiter.pause().await?,
                Err(e) => return Err(e),
            }
        }
    }

    async fn add_chunks(&self, mode: &str, items: &[Item]) -> Result<usize> {
        match self.add_calls(mode, items).await? {
            (_, Some(full)) => Err(full),
            (added, None) => Ok(added),
        }
    }

    /// One item without options (the common single add): one `plain` call sent as a command,
    /// not a pipeline of one (5.1); what [`Queue::add_calls`] returns for it.
    async fn add_one_plain(&self, mode: &str, item: &Item) -> Result<(usize, Option<Error>)> {
        let [id, data] = item.wire_plain()?;
        let compact = if mode == "add" {
            "plain"
        } else {
            "unique_plain"
        };
        let mut inv = self.invocation(&scripts::ADD);
        inv.arg(compact)
            .arg(format!("{}.0", new_token()))
            .arg("0")
            .arg(id)
            .arg(data);
        match self.invoke::<i64>(&inv).await {
            Ok(n) => Ok((n as usize, None)),
            Err(e @ Error::Full(_)) => Ok((0, Some(e))),
            Err(e) => Err(e),
        }
    }

    /// Sends the add calls of `items`; returns how many were added and, when a call was refused
    /// because the queue is full, that error (the other calls of the batch have run).
    async fn add_calls(&self, mode: &str, items: &[Item]) -> Result<(usize, Option<Error>)> {
        let single = items.len() == 1;
        if let [item] = items {
            if item.is_plain() {
                return self.add_one_plain(mode, item).await;
            }
        }
        let in_batch = |item: &Item, e| in_batch(item, e, single);
        // Items without options take the compact `plain` modes, id and data only (5.1).
        let plain = items.iter().all(Item::is_plain);
        // Items with dependencies take the `_deps` modes: 13 values per item (5.24).
        let deps = items.iter().any(Item::has_dependencies);
        // Items with options that all share them (the groups aside) take the `shared` modes:
        // the options once per call, then id and data (and group) per item (5.1).
        let shared = if mode == "add" && !plain && !deps {
            shared_form(items)
        } else {
            None
        };
        let mut wires: Vec<Vec<Vec<u8>>> = Vec::new();
        // The shared modes' option values (wire values 2 to 10 of the first item, which stand
        // for every item's; the group `''` when each item has its own).
        let mut options: Vec<Vec<u8>> = Vec::new();
        if plain {
            for item in items {
                item.wire_plain().map_err(|e| in_batch(item, e))?;
            }
        } else if let Some(shared) = shared {
            let first = &items[0];
            options = first.wire().map_err(|e| in_batch(first, e))?[2..].to_vec();
            if shared == Shared::OwnGroup {
                options[WIRE_GROUP - 2].clear();
            }
            for item in items {
                item.validate_shared().map_err(|e| in_batch(item, e))?;
            }
        } else {
            wires.reserve(items.len());
            for item in items {
                let mut wire = item.wire().map_err(|e| in_batch(item, e))?.to_vec();
                if deps {
                    wire.extend(item.wire_dependencies().map_err(|e| in_batch(item, e))?);
                }
                wires.push(wire);
            }
        }
        if deps {
            check_dependency_order(items)?;
        }
        if items.is_empty() {
            return Ok((0, None));
        }
        // A `plain` call's ids are distinct (5.1): a repeated id is dropped here, its first
        // item kept, as the script would keep it.
        let kept: Vec<&Item> = if plain && mode == "add" {
            let mut seen = std::collections::HashSet::with_capacity(items.len());
            items.iter().filter(|item| seen.insert(item.id())).collect()
        } else {
            items.iter().collect()
        };
        let items = kept.as_slice();
        let mode = match (plain, deps, mode, shared) {
            (true, _, "add", _) => "plain".to_owned(),
            (true, _, _, _) => format!("{mode}_plain"),
            (false, true, _, _) => format!("{mode}_deps"),
            (false, false, _, Some(Shared::All)) => "shared".to_owned(),
            (false, false, _, Some(Shared::OwnGroup)) => "shared_group".to_owned(),
            (false, false, _, None) => mode.to_owned(),
        };
        let chunks: Vec<std::ops::Range<usize>> = (0..items.len())
            .step_by(ADD_CHUNK)
            .map(|start| start..(start + ADD_CHUNK).min(items.len()))
            .collect();
        let incarnation = new_token();
        let mut conn = self.conn()?;
        let mut added = 0i64;
        let mut pending: Vec<usize> = (0..chunks.len()).collect();
        // At most twice: a chunk refused because the server lacks the function library (Redis
        // restarted or flushed it) was not run, so it is sent again after loading the library;
        // others are not resent.
        for attempt in 0..2 {
            let mut pipe = redis::pipe();
            pipe.ignore_errors();
            for &i in &pending {
                let mut inv = self.invocation(&scripts::ADD);
                // How many items the calls after this one carry: a bounded queue wants room
                // for the whole batch in the first call (spec/PROTOCOL.md 5.18).
                let later = items.len() - chunks[i].end;
                inv.arg(mode.as_str())
                    .arg(format!("{incarnation}.{i}"))
                    .arg(later.to_string());
                // Each item's values go straight into the command: copied once, not kept
                // in the invocation first.
                let mut cmd = inv.cmd();
                let chunk = &items[chunks[i].clone()];
                if plain {
                    // The chunk's ids, then their data (5.1).
                    for item in chunk {
                        cmd.arg(item.id().as_bytes());
                    }
                    for item in chunk {
                        cmd.arg(item.data());
                    }
                } else if let Some(shared) = shared {
                    for value in &options {
                        cmd.arg(value.as_slice());
                    }
                    for item in chunk {
                        cmd.arg(item.id().as_bytes()).arg(item.data());
                        if shared == Shared::OwnGroup {
                            cmd.arg(item.group_name().unwrap_or_default().as_bytes());
                        }
                    }
                } else {
                    for wire in &wires[chunks[i].clone()] {
                        for value in wire.iter() {
                            cmd.arg(value.as_slice());
                        }
                    }
                }
                pipe.add_command(cmd);
            }
            let replies: Vec<Value> = pipe
                .query_async(&mut conn)
                .await
                .map_err(|e| self.map_err(e))?;
            let mut refused = Vec::new();
            let mut full = None;
            for (&i, reply) in pending.iter().zip(replies) {
                match reply {
                    Value::Int(n) => added += n,
                    Value::ServerError(e)
                        if attempt == 0
                            && scripts::is_missing_function(Some(e.code()), e.details()) =>
                    {
                        refused.push(i)
                    }
                    Value::ServerError(e) => match self.map_err(redis::RedisError::from(e)) {
                        e @ Error::Full(_) => full = full.or(Some(e)),
                        e => return Err(e),
                    },
                    other => return Err(unexpected("add", &other)),
                }
            }
            if full.is_some() || refused.is_empty() {
                return Ok((added as usize, full));
            }
            self.load_library(&mut conn).await?;
            pending = refused;
        }
        Ok((added as usize, None))
    }
}

/// Where an item's group is among its 11 wire values (`Item::wire`).
const WIRE_GROUP: usize = 9;

/// The `shared` modes of add.lua (spec/PROTOCOL.md 5.1): every item's options given once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shared {
    /// Every option the same, the group too: mode `shared`, id and data per item.
    All,
    /// Every option the same but the group, which every item has: mode `shared_group`, id,
    /// data and group per item.
    OwnGroup,
}

/// Whether the items share their options (the group aside, [`Item::shares_options_with`]), and
/// how: with their group too, or with a group of their own each; `None` when their options
/// differ otherwise, or some but not all have a group (the 11-value form).
fn shared_form(items: &[Item]) -> Option<Shared> {
    let first = items.first()?;
    if !items.iter().all(|item| item.shares_options_with(first)) {
        return None;
    }
    if items
        .iter()
        .all(|item| item.group_name() == first.group_name())
    {
        Some(Shared::All)
    } else if items.iter().all(|item| item.group_name().is_some()) {
        Some(Shared::OwnGroup)
    } else {
        None
    }
}

/// Refuses (argument `depends_on`, before anything is sent) a dependency on an item that comes
/// later in the same call: dependencies within one call come first, which also rules out a
/// cycle (an item added before cannot depend on one added after it). A refused item of a
/// batch is named.
pub(crate) fn check_dependency_order(items: &[Item]) -> Result<()> {
    let position: std::collections::HashMap<&str, usize> = items
        .iter()
        .enumerate()
        .map(|(i, item)| (item.id(), i))
        .collect();
    for (i, item) in items.iter().enumerate() {
        for dep in item.dependencies() {
            if position.get(dep.as_str()).is_some_and(|&j| j > i) {
                return Err(Error::invalid(
                    "depends_on",
                    format!(
                        "item `{}` depends on `{dep}`, which comes later in the same call: a \
                         dependency comes first (an item cannot wait for one added after it, so \
                         no cycle can form)",
                        item.id()
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// A refusal of `item`, one of a batch (unless `single`): named `items`, the item's id and the
/// argument in the reason, so that the caller knows which item.
pub(crate) fn in_batch(item: &Item, e: Error, single: bool) -> Error {
    match e {
        Error::InvalidArgument { argument, reason } if !single => Error::invalid(
            "items",
            format!("item `{}`: {argument} {reason}", item.id()),
        ),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn shared_form_takes_the_options_once_only_when_every_item_has_them() {
        let item = |id: &str| Item::with_id(id, "x").unwrap();
        let delayed = |id: &str| item(id).delay(Duration::from_secs(60));
        assert_eq!(
            shared_form(&[delayed("a"), delayed("b")]),
            Some(Shared::All)
        );

        let grouped = |id: &str, g: &str| delayed(id).group(g);
        let own = [grouped("a", "g1"), grouped("b", "g2")];
        assert_eq!(shared_form(&own), Some(Shared::OwnGroup));
        let same_group = [grouped("a", "g1"), grouped("b", "g1")];
        assert_eq!(shared_form(&same_group), Some(Shared::All));

        // One item without the group, or another option different: the 11-value form.
        let some_grouped = [grouped("a", "g1"), delayed("b")];
        assert_eq!(shared_form(&some_grouped), None);
        let other_delay = [delayed("a"), item("b").delay(Duration::from_secs(61))];
        assert_eq!(shared_form(&other_delay), None);
        assert_eq!(shared_form(&[delayed("a"), delayed("b").name("n")]), None);
        assert_eq!(
            shared_form(&[delayed("a"), delayed("b").max_attempts(2)]),
            None
        );
        assert_eq!(shared_form(&[]), None);
    }
}
