//! The logical queue's event follower (spec/PROTOCOL.md 5.25, "Events"): every partition's
//! stream followed at once, one position per partition.

use futures_util::future::try_join_all;

use super::Partitioned;
use crate::error::{Error, Result};
use crate::ops::events::{validate_event_id, Stream};
use crate::ops::{Events, EventsFrom};

impl Partitioned {
    /// Follows every partition's event stream at once, from `from`: [`Events::next`] yields
    /// each partition's entries in their order, each naming its partition
    /// ([`crate::QueueEvent::partition`]); across partitions, the earliest of those read first,
    /// with no order beyond that. It waits server-side on every partition's stream at once (an
    /// `XREAD BLOCK` per partition, each on a connection of its own, kept between calls) and
    /// rides through outages as [`crate::Queue::events`] does.
    ///
    /// Its [`Events::position`] holds one entry id per partition, joined by `,` (a queue of one
    /// partition: one id, as its queue's follower gives): give it back
    /// as `EventsFrom::After(position)` to resume. A single id is taken for every partition
    /// (`0-0`: every entry still kept; `<ms>`: what came after that time, a partition whose
    /// last entry is earlier starting at it, one with no entry yet at `0-0`; refused when later
    /// than the last entry of every partition that has one). A position of another count of
    /// ids, or any id
    /// that is no event id, is refused sending nothing; an id of a position later than its
    /// partition's last entry after the reads (INVALID_ARGUMENT naming `after` for each). One
    /// round trip to each partition, at once.
    pub async fn events(&self, from: EventsFrom) -> Result<Events> {
        let (afters, clamp) = match from {
            EventsFrom::Now => (vec![None; self.partitions.len()], false),
            EventsFrom::After(position) => self.parse_position(&position)?,
        };
        let given = afters[0].clone().unwrap_or_default();
        let started = try_join_all(
            self.partitions
                .iter()
                .zip(afters)
                .enumerate()
                .map(|(i, (q, after))| Stream::start(q, after, Some(i), clamp)),
        )
        .await?;
        // A time later than every partition's last entry (a partition with none says nothing):
        // taken as "from now", it would skip what comes before that time, so it is refused.
        let judged: Vec<bool> = started.iter().filter_map(|(_, clamped)| *clamped).collect();
        if clamp && !judged.is_empty() && judged.iter().all(|&clamped| clamped) {
            return Err(Error::invalid(
                "after",
                format!("`{given}` is later than every partition's last event"),
            ));
        }
        let streams = started.into_iter().map(|(stream, _)| stream).collect();
        Ok(Events::of(&self.base, streams, true))
    }

    /// The ids of a follower's position, one per partition (a single id: the same for each, and
    /// `true`: a partition whose last entry is earlier starts there).
    fn parse_position(&self, position: &str) -> Result<(Vec<Option<String>>, bool)> {
        let ids: Vec<&str> = position.split(',').collect();
        let n = self.partitions.len();
        if ids.len() != 1 && ids.len() != n {
            return Err(Error::invalid(
                "after",
                format!(
                    "has {} event ids; a position of this queue has {n}, one per partition (as \
                     its follower's position gives), or one for every partition",
                    ids.len()
                ),
            ));
        }
        let ids = ids
            .into_iter()
            .map(|id| validate_event_id(id).map(Some))
            .collect::<Result<Vec<_>>>()?;
        Ok(if ids.len() == n {
            (ids, false)
        } else {
            (vec![ids[0].clone(); n], n > 1)
        })
    }
}
