//! Kept results: read one, or wait for it server-side (spec/PROTOCOL.md, 5.11).

use std::time::{Duration, Instant};

use redis::Value;

use crate::error::{Error, ErrorCode, Result};
use crate::item::validate_id_bytes;
use crate::job::JobResult;
use crate::lease::Wait;
use crate::queue::Queue;

use super::inspect::parse_result;
use super::wait::WAIT_SLICE;

/// Over maxmemory, where BLMOVE is refused: how long a result wait pauses between reads.
const OOM_PAUSE: Duration = Duration::from_secs(1);

impl Queue {
    /// The result kept for item `id`, if it completed with one and the result has not expired.
    /// The id is bytes (`&str` works too). One round trip.
    pub async fn result(&self, id: impl AsRef<[u8]>) -> Result<Option<JobResult>> {
        let id = id.as_ref();
        validate_id_bytes(id)?;
        self.read_result(&self.result_key(id)).await
    }

    /// Waits for item `id`'s result, server-side (a BLMOVE rotation on the result key, on a
    /// connection of its own: no polling). `wait` is a [`Wait`] or a [`Duration`]:
    /// [`Wait::Timeout`] (or a duration) waits up to that long, [`Wait::Forever`] until the
    /// result comes or the client is closed ([`Error::Closed`]), [`Wait::No`] (or a zero
    /// duration) only reads it. `None` when the wait ends first. The item must be completed
    /// with a result; a failed or cancelled item gives none.
    pub async fn wait_result(
        &self,
        id: impl AsRef<[u8]>,
        wait: impl Into<Wait>,
    ) -> Result<Option<JobResult>> {
        let id = id.as_ref();
        validate_id_bytes(id)?;
        let deadline = match wait.into() {
            Wait::No => Some(Instant::now()),
            Wait::Timeout(d) => Some(
                Instant::now()
                    .checked_add(d)
                    .ok_or_else(|| Error::invalid("timeout", "is too long"))?,
            ),
            Wait::Forever => None,
        };
        let key = self.result_key(id);
        loop {
            if let Some(result) = self.read_result(&key).await? {
                return Ok(Some(result));
            }
            let slice = match deadline {
                Some(deadline) => {
                    let left = deadline.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return Ok(None);
                    }
                    left.min(WAIT_SLICE)
                }
                None => WAIT_SLICE,
            };
            let mut conn = self
                .handle()
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
            let mut closed = self.handle().closed_signal();
            let mut refused = false;
            tokio::select! {
                reply = tokio::time::timeout(slice + Duration::from_secs(5), cmd.query_async::<Value>(&mut conn)) => {
                    match reply {
                        Ok(Ok(_)) => self.handle().connections().return_waiter(conn),
                        Ok(Err(e)) => match self.map_err(e) {
                            // Over maxmemory Redis refuses BLMOVE: read again after a pause
                            // (no result can be written meanwhile either).
                            e if e.code() == ErrorCode::OutOfMemory => {
                                self.handle().connections().return_waiter(conn);
                                refused = true;
                            }
                            e => return Err(e),
                        },
                        Err(_) => {}
                    }
                }
                _ = closed.wait_for(|c| *c) => return Err(Error::Closed),
            }
            if refused {
                tokio::time::sleep(slice.min(OOM_PAUSE)).await;
            }
        }
    }

    /// `P:result:<id>`, the id's bytes as they are.
    fn result_key(&self, id: &[u8]) -> Vec<u8> {
        let mut key = self.keys().result_family.as_bytes().to_vec();
        key.extend_from_slice(id);
        key
    }

    async fn read_result(&self, key: &[u8]) -> Result<Option<JobResult>> {
        let value: Value = self
            .query(redis::cmd("LRANGE").arg(key).arg(0).arg(2))
            .await?;
        parse_result(value)
    }
}
