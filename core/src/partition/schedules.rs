//! The logical queue's recurring jobs (spec/PROTOCOL.md 5.25, "Reading the logical queue"):
//! they live in partition 0, whose runners fire them and where their items are added.

use super::{route, Partitioned};
use crate::error::{Error, Result};
use crate::ops::{FireReport, Schedule, ScheduleInfo, SchedulePage};

impl Partitioned {
    /// [`crate::Queue::upsert_schedule`] in partition 0, where the queue's schedules live:
    /// stores the recurring job `name`, new or replacing the one of that name; whether it is
    /// new. Its items are added to partition 0, so an item with a group whose partition is
    /// another is refused (argument `group`, nothing written): a group's items all live in its
    /// partition. One round trip.
    pub async fn upsert_schedule(&self, name: &str, schedule: &Schedule) -> Result<bool> {
        if let Some(group) = schedule.template().group_name() {
            let home = route::of_key(group.as_bytes(), self.count());
            if home != 0 {
                return Err(Error::invalid(
                    "group",
                    format!(
                        "schedule `{name}` adds items of group `{group}`, which lives in \
                         partition {home}, but a schedule's items are added to partition 0, \
                         where the queue's schedules live; a group's items must share its \
                         partition (choose a group of partition 0: `partition_of` tells, or \
                         none)"
                    ),
                ));
            }
        }
        self.schedules_queue().upsert_schedule(name, schedule).await
    }

    /// [`crate::Queue::remove_schedule`] in partition 0: whether there was one. One round trip.
    pub async fn remove_schedule(&self, name: &str) -> Result<bool> {
        self.schedules_queue().remove_schedule(name).await
    }

    /// [`crate::Queue::get_schedule`] in partition 0. One round trip.
    pub async fn get_schedule(&self, name: &str) -> Result<Option<ScheduleInfo>> {
        self.schedules_queue().get_schedule(name).await
    }

    /// [`crate::Queue::schedules`] in partition 0: `count` (1 to 1000) schedules from position
    /// `start`, by next fire time. One round trip.
    pub async fn schedules(&self, start: usize, count: usize) -> Result<SchedulePage> {
        self.schedules_queue().schedules(start, count).await
    }

    /// [`crate::Queue::fire_due_schedules`] in partition 0, as a runner over the queue does:
    /// for a process without a runner.
    pub async fn fire_due_schedules(&self) -> Result<FireReport> {
        self.schedules_queue().fire_due_schedules().await
    }
}
