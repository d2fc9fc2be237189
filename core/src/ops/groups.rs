//! Groups: pausing, resuming and limiting one group of a queue, and reading it
//! (spec/PROTOCOL.md, 5.20). Items join a group with [`crate::Item::group`].

use std::time::Duration;

use redis::Value;

use crate::error::Result;
use crate::item::validate_group;
use crate::job::GroupInfo;
use crate::policy;
use crate::queue::Queue;
use crate::reply::{array, int, unexpected};
use crate::scripts;

impl Queue {
    /// Pauses one group: its items are not leased until [`Queue::resume_group`]; the rest of
    /// the queue goes on. Returns whether it was running. One round trip.
    pub async fn pause_group(&self, group: &str) -> Result<bool> {
        Ok(self.group_call("pause", group, None).await? == Value::Int(1))
    }

    /// Resumes a paused group. Returns whether it was paused. One round trip.
    pub async fn resume_group(&self, group: &str) -> Result<bool> {
        Ok(self.group_call("resume", group, None).await? == Value::Int(1))
    }

    /// Sets how many items of `group` may be leased at once (1 to 1000), or, with `None`,
    /// removes its own limit so that the queue's `group_concurrency` applies. One round trip.
    pub async fn set_group_limit(&self, group: &str, limit: Option<u32>) -> Result<()> {
        if let Some(n) = limit {
            policy::validate_group_limit("limit", n)?;
        }
        let limit = limit.map(|n| n.to_string()).unwrap_or_default();
        self.group_call("limit", group, Some(&limit))
            .await
            .map(drop)
    }

    /// Holds one group's leases off for `duration` (more than 0, at most one day): a handler
    /// working for that group (a customer, a tenant) was told "rate limited" by an API that
    /// limits per key. The queue's other groups and ungrouped items go on; the group's items
    /// wait, in their order, until the hold ends. A longer hold already in place is kept.
    /// Returns how long the group is held off. One round trip (spec/PROTOCOL.md 5.21).
    pub async fn rate_limit_group(&self, group: &str, duration: Duration) -> Result<Duration> {
        let ms = policy::validate_hold(duration)?.to_string();
        let held = int(
            "rate_limit_group",
            &self.group_call("hold", group, Some(&ms)).await?,
        )?;
        Ok(Duration::from_millis(held.max(0) as u64))
    }

    /// One group: its waiting and leased items, its limit, whether it is paused, and how long
    /// it waits for its rate limit's window. One round trip.
    pub async fn group(&self, group: &str) -> Result<GroupInfo> {
        const OP: &str = "group";
        let parts = array(OP, self.group_call("info", group, None).await?)?;
        let [waiting, leased, limit, paused, limited_for] =
            <[Value; 5]>::try_from(parts).map_err(|p| unexpected(OP, &Value::Array(p)))?;
        let n = |v: &Value| int(OP, v).map(|n| n.max(0) as u64);
        let limited_for = int(OP, &limited_for)?;
        Ok(GroupInfo {
            waiting: n(&waiting)?,
            leased: n(&leased)?,
            limit: n(&limit)?,
            paused: n(&paused)? == 1,
            rate_limited_for: (limited_for >= 0).then(|| Duration::from_millis(limited_for as u64)),
        })
    }

    async fn group_call(&self, action: &str, group: &str, arg: Option<&str>) -> Result<Value> {
        validate_group(group)?;
        let mut inv = self.invocation(&scripts::GROUP);
        inv.arg(action).arg(group);
        if let Some(arg) = arg {
            inv.arg(arg);
        }
        self.invoke(&inv).await
    }
}
