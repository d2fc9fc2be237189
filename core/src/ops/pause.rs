//! Pausing and resuming a queue (spec/PROTOCOL.md, 5.17), and holding its leases off for a
//! while when a handler was rate limited (5.19).

use std::time::Duration;

use crate::error::Result;
use crate::policy;
use crate::queue::Queue;
use crate::scripts;

impl Queue {
    /// Pauses the queue: leases (of every client, in every language) take nothing from it until
    /// [`Queue::resume`]; adds, completes, renews and fails go on, and what is leased runs to
    /// its end. Waiting items of priority 0 move to a list that redis-work-queue clients do not
    /// read (`P:held`), so they take nothing either. The pause is stored in Redis: it outlives
    /// every client and a restart. Returns whether the queue was running. One round trip.
    pub async fn pause(&self) -> Result<bool> {
        self.set_paused(true).await
    }

    /// Resumes a paused queue: waiting leases and runners wake at once (no polling), and the
    /// items held during the pause are leased first, in their order. Returns whether the queue
    /// was paused. One round trip.
    pub async fn resume(&self) -> Result<bool> {
        self.set_paused(false).await
    }

    /// Whether the queue is paused. One round trip (also in [`Queue::stats`]).
    pub async fn is_paused(&self) -> Result<bool> {
        let n: i64 = self
            .query(redis::cmd("EXISTS").arg(&self.keys().paused))
            .await?;
        Ok(n == 1)
    }

    /// Holds the queue's leases off for `duration` (more than 0, at most one day): a handler
    /// was told "rate limited" (an API answered 429). Every client's leases get nothing until
    /// then, runners sleep through it without asking the server, and nothing else changes.
    /// A longer hold already in place is kept. Returns how long leases are held off. One round
    /// trip.
    pub async fn rate_limit(&self, duration: Duration) -> Result<Duration> {
        let ms = policy::validate_hold(duration)?;
        let mut inv = self.invocation(&scripts::HOLD);
        inv.arg(ms.to_string());
        let held: i64 = self.invoke(&inv).await?;
        Ok(Duration::from_millis(held.max(0) as u64))
    }

    async fn set_paused(&self, paused: bool) -> Result<bool> {
        let mut inv = self.invocation(&scripts::PAUSE);
        inv.arg(if paused { "1" } else { "0" });
        let changed: i64 = self.invoke(&inv).await?;
        Ok(changed == 1)
    }
}
