//! A partitioned queue's groups (spec/PROTOCOL.md 5.20, 5.25): every item of a group lives in
//! the group's partition, so each group call goes there alone.

use std::time::Duration;

use super::{route, Partitioned};
use crate::error::Result;
use crate::job::GroupInfo;
use crate::queue::Queue;

impl Partitioned {
    /// The partition where group `group`'s items live (its name's hash, spec/PROTOCOL.md 5.25,
    /// "Routing"), as a queue: where the group calls below go. Sends nothing.
    pub fn group_partition(&self, group: &str) -> &Queue {
        &self.partitions[route::of_key(group.as_bytes(), self.count())]
    }

    /// Pauses group `group` in its partition ([`Queue::pause_group`]): the rest of the logical
    /// queue goes on. Returns whether it was running. One round trip.
    pub async fn pause_group(&self, group: &str) -> Result<bool> {
        self.group_partition(group).pause_group(group).await
    }

    /// Resumes group `group` in its partition ([`Queue::resume_group`]). Returns whether it
    /// was paused. One round trip.
    pub async fn resume_group(&self, group: &str) -> Result<bool> {
        self.group_partition(group).resume_group(group).await
    }

    /// Sets group `group`'s limit in its partition ([`Queue::set_group_limit`]: 1 to 1000, or
    /// `None` for the queue's `group_concurrency`). One round trip.
    pub async fn set_group_limit(&self, group: &str, limit: Option<u32>) -> Result<()> {
        self.group_partition(group)
            .set_group_limit(group, limit)
            .await
    }

    /// Holds group `group`'s leases off for `duration` in its partition
    /// ([`Queue::rate_limit_group`]); returns how long it is held off. One round trip.
    pub async fn rate_limit_group(&self, group: &str, duration: Duration) -> Result<Duration> {
        self.group_partition(group)
            .rate_limit_group(group, duration)
            .await
    }

    /// Group `group` as its partition knows it ([`Queue::group`]): all of it. One round trip.
    pub async fn group(&self, group: &str) -> Result<GroupInfo> {
        self.group_partition(group).group(group).await
    }
}
