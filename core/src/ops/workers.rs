//! The runner registry, `P:workers` (spec/PROTOCOL.md, 2.1): reserved, and written by no version
//! yet. Tools ask whether it exists so that they can say so rather than show made-up workers.

use crate::error::Result;
use crate::queue::Queue;

impl Queue {
    /// Whether the reserved runner-registry key `P:workers` exists. No leaseq version writes it
    /// yet, so `true` means a newer version (or something else) did, in a format this version
    /// does not read. One round trip (`EXISTS`).
    pub async fn runner_registry_exists(&self) -> Result<bool> {
        let n: i64 = self
            .query(redis::cmd("EXISTS").arg(&self.keys().workers))
            .await?;
        Ok(n > 0)
    }
}
