//! Counts by item name (spec/PROTOCOL.md, 5.12): how many jobs of each name completed, failed
//! and died in the last hour, from the per-minute counters (kept only while the queue's
//! counters are on).

use redis::Value;

use crate::error::Result;
use crate::queue::Queue;
use crate::reply::{array, int, text, unexpected};
use crate::scripts;

/// The last hour's counts of one item name ([`Queue::counts_by_name`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct NameCounts {
    /// The name ([`crate::Item::name`]).
    pub name: String,
    /// Jobs of this name completed in the last 60 minutes.
    pub completed: u64,
    /// Failed attempts of this name (retried or not).
    pub failed: u64,
    /// Jobs of this name that went to the dead letters.
    pub dead: u64,
}

impl Queue {
    /// For each item name met in the last 60 minutes, how many of its jobs completed, failed
    /// and died, by name. `None` while the queue's counters are off
    /// ([`crate::QueueConfig::stats`]): nothing is counted then. Each minute counts at most
    /// 300 name-and-outcome pairs (a queue whose items carry unbounded names keeps its totals,
    /// not a count for every name), and at most 1000 names are returned. One round trip.
    pub async fn counts_by_name(&self) -> Result<Option<Vec<NameCounts>>> {
        const OP: &str = "counts_by_name";
        let inv = self.invocation(&scripts::NAMES);
        let value: Value = self.invoke(&inv).await?;
        let mut parts = array(OP, value)?.into_iter();
        let counting = parts.next().map(|v| int(OP, &v)).transpose()?;
        if counting != Some(1) {
            return Ok(None);
        }
        let parts: Vec<Value> = parts.collect();
        if !parts.len().is_multiple_of(4) {
            return Err(unexpected(OP, &Value::Array(parts)));
        }
        let mut out = Vec::with_capacity(parts.len() / 4);
        for row in parts.chunks(4) {
            let n = |i: usize| int(OP, &row[i]).map(|v| v.max(0) as u64);
            out.push(NameCounts {
                name: text(OP, row[0].clone())?.unwrap_or_default(),
                completed: n(1)?,
                failed: n(2)?,
                dead: n(3)?,
            });
        }
        Ok(Some(out))
    }
}
