//! The server-side wait of a blocking lease (spec/PROTOCOL.md, 6): block until something may
//! be leasable, without taking it, so that no cleaner ever sees a half-taken item.

use std::time::Duration;

use redis::Value;

use crate::conn::Conn;
use crate::error::{Cause, Error, Result};
use crate::queue::Queue;

/// The longest single BLMOVE of a blocking lease; a longer wait is several, back to back.
pub(crate) const WAIT_SLICE: Duration = Duration::from_secs(10);
/// How long past a BLMOVE's own timeout the client waits for its answer.
const WAIT_GRACE: Duration = Duration::from_secs(5);

impl Queue {
    /// Blocks until `P:queue` or `P:wake` holds an element (or `timeout` passes): a
    /// `BLMOVE key key RIGHT RIGHT` on each, on two connections of their own, rotates the last
    /// element onto itself. `P:queue` wakes for items of priority 0 whoever added them;
    /// `P:wake` for leaseq's other levels. One BLMOVE waits at most [`WAIT_SLICE`], and the
    /// client gives it [`WAIT_GRACE`] more before it calls the connection dead, so a silently
    /// broken connection (no RST) is noticed. The connection that did not answer is dropped,
    /// which ends its BLMOVE server-side.
    pub(crate) async fn wait_for_item(&self, timeout: Option<Duration>) -> Result<()> {
        let mut closed = self.handle().closed_signal();
        if *closed.borrow() {
            return Err(Error::Closed);
        }
        let connections = self.handle().connections();
        let slice = timeout.map_or(WAIT_SLICE, |d| d.min(WAIT_SLICE));
        let queue_conn = connections
            .take_waiter()
            .await
            .map_err(|e| self.map_err(e))?;
        let wake_conn = connections
            .take_waiter()
            .await
            .map_err(|e| self.map_err(e))?;
        let queue_wait = self.blmove(queue_conn, &self.keys().queue, slice);
        let wake_wait = self.blmove(wake_conn, &self.keys().wake, slice);
        tokio::select! {
            (reply, conn) = queue_wait => {
                reply?;
                connections.return_waiter(conn);
                Ok(())
            }
            (reply, conn) = wake_wait => {
                reply?;
                connections.return_waiter(conn);
                Ok(())
            }
            // Dropping the connections with their BLMOVEs pending ends the waits server-side.
            _ = closed.wait_for(|c| *c) => Err(Error::Closed),
        }
    }

    /// One BLMOVE rotation on `conn`, which it hands back for reuse.
    async fn blmove(&self, mut conn: Conn, key: &str, slice: Duration) -> (Result<()>, Conn) {
        let seconds = slice.as_secs_f64().max(0.001);
        let mut cmd = redis::cmd("BLMOVE");
        cmd.arg(key)
            .arg(key)
            .arg("RIGHT")
            .arg("RIGHT")
            .arg(format!("{seconds:.3}"));
        let reply = tokio::time::timeout(slice + WAIT_GRACE, cmd.query_async::<Value>(&mut conn));
        let result = match reply.await {
            Ok(reply) => reply.map(drop).map_err(|e| self.map_err(e)),
            Err(_) => Err(Error::Timeout(Cause::io(
                "blocking wait got no answer",
                None,
            ))),
        };
        (result, conn)
    }
}
