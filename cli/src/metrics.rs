//! Prometheus metrics: per-queue counts by state, completed/failed/dead/expired totals and the
//! age of the oldest waiting item, encoded by the `prometheus-client` crate (OpenMetrics text).
//!
//! Redis keeps per-minute counters for the last hour, not lifetime totals, so the `_total`
//! counters are kept here: the first scrape of a queue starts them at the last hour's sums, and
//! every later scrape adds what each minute gained since it was last read. They restart with the
//! exporter, as Prometheus expects of counters.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::AtomicU64;
use std::sync::Mutex;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::{Registry, Unit};

/// The content type of [`Exporter::render`]'s text.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct QueueState {
    queue: String,
    state: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct QueueLabel {
    queue: String,
}

/// Completed, failed, dead, expired.
type Four = [u64; 4];

/// One queue's running totals and what each minute of the window was when last read.
#[derive(Default)]
struct Totals {
    total: Four,
    seen: BTreeMap<u64, Four>,
}

impl Totals {
    /// Adds what the window's minutes (oldest first, the last one current at `now_ms`) gained
    /// since the last observation.
    fn observe(&mut self, now_ms: u64, minutes: &[Four]) {
        let now_minute = now_ms / 60_000;
        let len = minutes.len() as u64;
        for (i, &now) in minutes.iter().enumerate() {
            let Some(minute) = (now_minute + 1 + i as u64).checked_sub(len) else {
                continue;
            };
            let before = self.seen.get(&minute).copied().unwrap_or_default();
            for k in 0..4 {
                self.total[k] += now[k].saturating_sub(before[k]);
            }
            self.seen.insert(minute, now);
        }
        // Only the window's minutes can still change.
        let oldest = (now_minute + 1).saturating_sub(len);
        self.seen.retain(|&minute, _| minute >= oldest);
    }
}

/// Renders the metrics of a set of queues; keeps the counters between scrapes.
#[derive(Default)]
pub struct Exporter {
    totals: Mutex<HashMap<String, Totals>>,
}

impl Exporter {
    /// Reads `queues` (every queue found when empty) and renders them in the OpenMetrics text
    /// format. One stats round trip per queue, plus the discovery scan.
    pub async fn render(
        &self,
        client: &leaseq::Client,
        queues: &[String],
    ) -> leaseq::Result<String> {
        let prefixes = if queues.is_empty() {
            client.queues("").await?
        } else {
            queues.to_vec()
        };
        let mut read = Vec::with_capacity(prefixes.len());
        for prefix in prefixes {
            let stats = client.queue(&prefix)?.stats().await?;
            read.push((prefix, stats));
        }
        let mut registry = Registry::default();
        let jobs = Family::<QueueState, Gauge>::default();
        registry.register(
            "leaseq_jobs",
            "Items per state (processing: ids held by redis-work-queue clients)",
            jobs.clone(),
        );
        let oldest = Family::<QueueLabel, Gauge<f64, AtomicU64>>::default();
        registry.register_with_unit(
            "leaseq_oldest_waiting_age",
            "Age of the oldest waiting item (absent when unknown or nothing waits)",
            Unit::Seconds,
            oldest.clone(),
        );
        let names = [
            ("leaseq_completed", "Items completed"),
            ("leaseq_failed", "Failed attempts"),
            ("leaseq_dead", "Items that went dead"),
            (
                "leaseq_lease_expiries",
                "Leases that expired without their holder reporting",
            ),
        ];
        let counters: Vec<Family<QueueLabel, Counter>> = names
            .iter()
            .map(|(name, help)| {
                let family = Family::<QueueLabel, Counter>::default();
                registry.register(*name, *help, family.clone());
                family
            })
            .collect();
        let mut totals = self.totals.lock().unwrap_or_else(|e| e.into_inner());
        for (prefix, stats) in &read {
            let state = |s: &str| QueueState {
                queue: prefix.clone(),
                state: s.to_owned(),
            };
            jobs.get_or_create(&state("waiting"))
                .set(stats.waiting as i64);
            jobs.get_or_create(&state("delayed"))
                .set(stats.delayed as i64);
            jobs.get_or_create(&state("leased"))
                .set(stats.leased as i64);
            jobs.get_or_create(&state("dead")).set(stats.dead as i64);
            jobs.get_or_create(&state("processing"))
                .set(stats.processing as i64);
            let label = QueueLabel {
                queue: prefix.clone(),
            };
            if let Some(age) = stats.oldest_waiting {
                oldest.get_or_create(&label).set(age.as_secs_f64());
            }
            let Some(minutes) = &stats.minutes else {
                continue;
            };
            let t = totals.entry(prefix.clone()).or_default();
            let minutes: Vec<Four> = minutes
                .iter()
                .map(|m| [m.completed, m.failed, m.dead, m.expired])
                .collect();
            t.observe(stats.now, &minutes);
            for (family, total) in counters.iter().zip(t.total) {
                family.get_or_create(&label).inc_by(total);
            }
        }
        drop(totals);
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &registry)
            .expect("writing to a String cannot fail");
        Ok(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn totals_count_each_minute_once() {
        let mut t = Totals::default();
        // Minute 100 is current: 2 completed so far; minute 99 had 3.
        t.observe(100 * 60_000, &[[3, 0, 0, 0], [2, 1, 0, 0]]);
        assert_eq!(t.total, [5, 1, 0, 0]);
        // Read again within minute 100: it grew by 4.
        t.observe(100 * 60_000 + 5, &[[3, 0, 0, 0], [6, 1, 0, 0]]);
        assert_eq!(t.total, [9, 1, 0, 0]);
        // Minute 101: 99 left the window, 100 is complete, 101 has 1 expiry.
        t.observe(101 * 60_000, &[[6, 1, 0, 0], [0, 0, 0, 1]]);
        assert_eq!(t.total, [9, 1, 0, 1]);
        assert!(!t.seen.contains_key(&99));
    }
}
