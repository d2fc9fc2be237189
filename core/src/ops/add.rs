//! Adding items: one, unique, or a batch (spec/PROTOCOL.md, 5.1 to 5.3).

use redis::Value;

use crate::error::{Error, Result};
use crate::item::Item;
use crate::queue::{new_token, Queue};
use crate::reply::unexpected;
use crate::scripts;

/// How many items one add script call carries; a larger batch becomes several calls sent in one
/// pipeline (still one round trip), so that no single call holds Redis for long.
const ADD_CHUNK: usize = 1000;

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
    /// is added atomically. An empty batch sends nothing.
    pub async fn add_batch(&self, items: &[Item]) -> Result<usize> {
        self.add_chunks("add", items).await
    }

    async fn add_chunks(&self, mode: &str, items: &[Item]) -> Result<usize> {
        let single = items.len() == 1;
        let mut wires = Vec::with_capacity(items.len());
        for item in items {
            wires.push(item.wire().map_err(|e| match e {
                Error::InvalidArgument { argument, reason } if !single => Error::invalid(
                    "items",
                    format!("item `{}`: {argument} {reason}", item.id()),
                ),
                other => other,
            })?);
        }
        if wires.is_empty() {
            return Ok(0);
        }
        let chunks: Vec<&[[Vec<u8>; 9]]> = wires.chunks(ADD_CHUNK).collect();
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
                inv.arg(mode).arg(format!("{incarnation}.{i}"));
                for wire in chunks[i] {
                    for value in wire {
                        inv.arg(value.as_slice());
                    }
                }
                pipe.add_command(inv.cmd());
            }
            let replies: Vec<Value> = pipe
                .query_async(&mut conn)
                .await
                .map_err(|e| self.map_err(e))?;
            let mut refused = Vec::new();
            for (&i, reply) in pending.iter().zip(replies) {
                match reply {
                    Value::Int(n) => added += n,
                    Value::ServerError(e)
                        if attempt == 0
                            && scripts::is_missing_function(Some(e.code()), e.details()) =>
                    {
                        refused.push(i)
                    }
                    Value::ServerError(e) => {
                        return Err(self.map_err(redis::RedisError::from(e)));
                    }
                    other => return Err(unexpected("add", &other)),
                }
            }
            if refused.is_empty() {
                break;
            }
            self.load_library(&mut conn).await?;
            pending = refused;
        }
        Ok(added as usize)
    }
}
