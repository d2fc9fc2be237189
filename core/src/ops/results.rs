//! Kept results: read one, or wait for it server-side (spec/PROTOCOL.md, 5.11).

use std::time::{Duration, Instant};

use redis::Value;

use crate::error::{Error, Result};
use crate::item::validate_id;
use crate::job::JobResult;
use crate::queue::Queue;

use super::inspect::parse_result;
use super::wait::WAIT_SLICE;

impl Queue {
    /// The result kept for item `id`, if it completed with one and the result has not expired.
    /// One round trip.
    pub async fn result(&self, id: &str) -> Result<Option<JobResult>> {
        validate_id(id)?;
        let key = format!("{}{id}", self.keys().result_family);
        let value: Value = self
            .query(redis::cmd("LRANGE").arg(&key).arg(0).arg(2))
            .await?;
        parse_result(value)
    }

    /// Waits up to `timeout` for item `id`'s result, server-side (a BLMOVE rotation on the
    /// result key, on a connection of its own: no polling). `None` when the timeout passes
    /// first. The item must be completed with a result; a failed or cancelled item gives none.
    pub async fn wait_result(&self, id: &str, timeout: Duration) -> Result<Option<JobResult>> {
        validate_id(id)?;
        let deadline = Instant::now()
            .checked_add(timeout)
            .ok_or_else(|| Error::invalid("timeout", "is too long"))?;
        let key = format!("{}{id}", self.keys().result_family);
        loop {
            if let Some(result) = self.result(id).await? {
                return Ok(Some(result));
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(None);
            }
            let slice = left.min(WAIT_SLICE);
            let mut conn = self
                .client()
                .connections()
                .take_waiter()
                .await
                .map_err(|e| self.map_err(e))?;
            let mut cmd = redis::cmd("BLMOVE");
            cmd.arg(&key)
                .arg(&key)
                .arg("RIGHT")
                .arg("RIGHT")
                .arg(format!("{:.3}", slice.as_secs_f64().max(0.001)));
            let mut closed = self.client().closed_signal();
            tokio::select! {
                reply = tokio::time::timeout(slice + Duration::from_secs(5), cmd.query_async::<Value>(&mut conn)) => {
                    match reply {
                        Ok(Ok(_)) => self.client().connections().return_waiter(conn),
                        Ok(Err(e)) => return Err(self.map_err(e)),
                        Err(_) => {}
                    }
                }
                _ = closed.wait_for(|c| *c) => return Err(Error::Closed),
            }
        }
    }
}
