//! Prometheus metrics: per-queue counts by state, the age of the oldest waiting item, whether the
//! queue is paused, its capacity when it is bounded, its rate limit when it has one and how long
//! leases are held off, whether it keeps counters, and
//! completed/failed/dead/expired totals for those that do, and for them the last hour's jobs
//! by item name (completed, failed, dead), encoded by the `prometheus-client` crate (OpenMetrics
//! text).
//!
//! Redis keeps per-minute counters for the last hour, not lifetime totals, and only for queues
//! whose configuration turns them on (`P:config stats`, off by default). So the `_total`
//! counters are kept here: the first scrape of a counting queue starts them at the last hour's
//! sums, and every later scrape adds what each minute gained since it was last read. They
//! restart with the exporter, as Prometheus expects of counters. A queue that does not count
//! has `leaseq_counters_enabled 0` and no `_total` series, never totals stuck at zero.

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

/// A partition of a partitioned queue (spec/PROTOCOL.md 5.25): `queue` is the partition's
/// prefix (the label of its own series), `base` the queue it is part of, `partition` its index.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct PartitionLabel {
    queue: String,
    base: String,
    partition: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct NameOutcome {
    queue: String,
    name: String,
    outcome: String,
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

/// What the exporter needs of one queue's [`leaseq::Stats`].
struct Figures {
    queue: String,
    /// waiting, delayed, leased, dead, processing, blocked.
    jobs: [u64; 6],
    /// Recurring jobs stored.
    schedules: u64,
    oldest_waiting: Option<f64>,
    now: u64,
    /// `None` while the queue's counters are off.
    minutes: Option<Vec<Four>>,
    paused: bool,
    /// `None` when the queue is not bounded.
    capacity: Option<u64>,
    /// `None` when the queue has no rate limit.
    rate_limit: Option<leaseq::RateLimit>,
    /// How long leases are held off, in seconds (0 while they are not).
    rate_limited_for: f64,
    /// The last hour by item name ([`leaseq::Queue::counts_by_name`]); empty while the
    /// counters are off.
    by_name: Vec<leaseq::NameCounts>,
}

/// A label value as the text format writes it: `prometheus-client` writes label values as
/// they are, and a queue prefix or an item name may hold `"` or `\\` (names and prefixes hold
/// no control character, so no line break).
fn label_value(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"")
}

impl Figures {
    fn new(
        queue: String,
        s: &leaseq::Stats,
        config: &leaseq::QueueConfig,
        by_name: Option<Vec<leaseq::NameCounts>>,
    ) -> Figures {
        let by_name = by_name
            .unwrap_or_default()
            .into_iter()
            .map(|mut c| {
                c.name = label_value(&c.name);
                c
            })
            .collect();
        Figures {
            queue: label_value(&queue),
            jobs: [
                s.waiting,
                s.delayed,
                s.leased,
                s.dead,
                s.processing,
                s.blocked,
            ],
            schedules: s.schedules,
            oldest_waiting: s.oldest_waiting.map(|d| d.as_secs_f64()),
            now: s.now,
            minutes: s.minutes.as_ref().map(|m| {
                m.iter()
                    .map(|m| [m.completed, m.failed, m.dead, m.expired])
                    .collect()
            }),
            paused: s.paused,
            capacity: s.capacity,
            rate_limit: config.rate_limit,
            rate_limited_for: s.rate_limited_for.map_or(0.0, |d| d.as_secs_f64()),
            by_name,
        }
    }
}

const STATES: [&str; 6] = [
    "waiting",
    "delayed",
    "leased",
    "dead",
    "processing",
    "blocked",
];

impl Exporter {
    /// Reads `queues` (every queue found when empty) and renders them in the OpenMetrics text
    /// format. Per queue its stats, its configuration (the rate limit) and its counts by name,
    /// plus the discovery scan.
    pub async fn render(
        &self,
        client: &leaseq::Client,
        queues: &[String],
    ) -> leaseq::Result<String> {
        let found = if queues.is_empty() {
            client.queues("").await?
        } else {
            queues.to_vec()
        };
        // A partitioned queue's series are its partitions', each joined to it by
        // `leaseq_partition` (spec/PROTOCOL.md 5.25).
        let mut prefixes = Vec::with_capacity(found.len());
        let mut partitions = Vec::new();
        for (prefix, p) in crate::commands::partitions::logical(client, found).await? {
            let Some(p) = p else {
                prefixes.push(prefix);
                continue;
            };
            for (i, part) in p.partitions().iter().enumerate() {
                partitions.push(PartitionLabel {
                    queue: part.prefix().to_owned(),
                    base: prefix.clone(),
                    partition: i.to_string(),
                });
                prefixes.push(part.prefix().to_owned());
            }
        }
        let mut read = Vec::with_capacity(prefixes.len());
        for prefix in prefixes {
            let queue = client.queue(&prefix)?;
            let (stats, config, by_name) =
                tokio::try_join!(queue.stats(), queue.config(), queue.counts_by_name())?;
            read.push(Figures::new(prefix, &stats, &config, by_name));
        }
        Ok(self.encode_with(&read, &partitions))
    }

    /// The text of the figures read; the totals of the queues that count move on.
    #[cfg(test)]
    fn encode(&self, read: &[Figures]) -> String {
        self.encode_with(read, &[])
    }

    /// [`Exporter::encode`], and one `leaseq_partition` series per partition shown.
    fn encode_with(&self, read: &[Figures], partitions: &[PartitionLabel]) -> String {
        let mut registry = Registry::default();
        let info = Family::<PartitionLabel, Gauge>::default();
        registry.register(
            "leaseq_partition",
            "1 for each partition of a partitioned queue: `queue` (the partition's prefix, as in the other series) is partition `partition` of `base`",
            info.clone(),
        );
        for label in partitions {
            info.get_or_create(label).set(1);
        }
        let jobs = Family::<QueueState, Gauge>::default();
        registry.register(
            "leaseq_jobs",
            "Items per state (processing: ids held by redis-work-queue clients; blocked: items waiting for their dependencies)",
            jobs.clone(),
        );
        let schedules = Family::<QueueLabel, Gauge>::default();
        registry.register(
            "leaseq_schedules",
            "Recurring jobs stored in the queue (`leaseq schedules`)",
            schedules.clone(),
        );
        let oldest = Family::<QueueLabel, Gauge<f64, AtomicU64>>::default();
        registry.register_with_unit(
            "leaseq_oldest_waiting_age",
            "Age of the oldest waiting item (absent when unknown or nothing waits)",
            Unit::Seconds,
            oldest.clone(),
        );
        let paused = Family::<QueueLabel, Gauge>::default();
        registry.register(
            "leaseq_paused",
            "1 while the queue is paused (`leaseq pause`: nothing is leased from it, adds go on), \
             else 0",
            paused.clone(),
        );
        let capacity = Family::<QueueLabel, Gauge>::default();
        registry.register(
            "leaseq_capacity",
            "The most items the queue holds waiting or delayed (`leaseq config set --capacity \
             N`); absent for a queue with no bound",
            capacity.clone(),
        );
        let limited = Family::<QueueLabel, Gauge<f64, AtomicU64>>::default();
        registry.register_with_unit(
            "leaseq_rate_limited",
            "While leases are held off, by the rate limit or a hold (`leaseq hold`), the time \
             left; 0 while they are not",
            Unit::Seconds,
            limited.clone(),
        );
        let rate_max = Family::<QueueLabel, Gauge>::default();
        registry.register(
            "leaseq_rate_limit_max",
            "Leases allowed per window of leaseq_rate_limit_window_seconds (`leaseq config set \
             --rate-limit MAX/DURATION`); absent for a queue with no rate limit",
            rate_max.clone(),
        );
        let rate_window = Family::<QueueLabel, Gauge<f64, AtomicU64>>::default();
        registry.register_with_unit(
            "leaseq_rate_limit_window",
            "The window of the rate limit; absent for a queue with no rate limit",
            Unit::Seconds,
            rate_window.clone(),
        );
        let enabled = Family::<QueueLabel, Gauge>::default();
        registry.register(
            "leaseq_counters_enabled",
            "1 when the queue keeps per-minute counters (`leaseq config set -q QUEUE --stats \
             on`), 0 when they are off (the default): leaseq_completed_total, \
             leaseq_failed_total, leaseq_dead_total and leaseq_lease_expiries_total are then \
             absent for the queue, since nothing counts them",
            enabled.clone(),
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
                let help = format!(
                    "{help}; only for queues whose counters are on (leaseq_counters_enabled)"
                );
                registry.register(*name, help, family.clone());
                family
            })
            .collect();
        let by_name = Family::<NameOutcome, Gauge>::default();
        registry.register(
            "leaseq_jobs_by_name_last_hour",
            "Jobs of each item name (`leaseq add --name`) that completed, failed an attempt or \
             went dead in the last 60 minutes (outcome completed, failed, dead), from the \
             per-minute counters; only for queues whose counters are on",
            by_name.clone(),
        );
        let mut totals = self.totals.lock().unwrap_or_else(|e| e.into_inner());
        for f in read {
            for (state, n) in STATES.iter().zip(f.jobs) {
                let label = QueueState {
                    queue: f.queue.clone(),
                    state: (*state).to_owned(),
                };
                jobs.get_or_create(&label).set(n as i64);
            }
            let label = QueueLabel {
                queue: f.queue.clone(),
            };
            if let Some(age) = f.oldest_waiting {
                oldest.get_or_create(&label).set(age);
            }
            paused.get_or_create(&label).set(i64::from(f.paused));
            // At most 10,000 (spec 5.23), well inside an i64.
            schedules
                .get_or_create(&label)
                .set(i64::try_from(f.schedules).unwrap_or(i64::MAX));
            if let Some(c) = f.capacity {
                // The protocol bounds a capacity at 2^53, well inside an i64.
                capacity
                    .get_or_create(&label)
                    .set(i64::try_from(c).unwrap_or(i64::MAX));
            }
            limited.get_or_create(&label).set(f.rate_limited_for);
            if let Some(r) = f.rate_limit {
                // The protocol bounds max at 10^9.
                rate_max
                    .get_or_create(&label)
                    .set(i64::try_from(r.max).unwrap_or(i64::MAX));
                rate_window.get_or_create(&label).set(r.per.as_secs_f64());
            }
            enabled
                .get_or_create(&label)
                .set(i64::from(f.minutes.is_some()));
            for c in &f.by_name {
                for (outcome, n) in [
                    ("completed", c.completed),
                    ("failed", c.failed),
                    ("dead", c.dead),
                ] {
                    let label = NameOutcome {
                        queue: f.queue.clone(),
                        name: c.name.clone(),
                        outcome: outcome.to_owned(),
                    };
                    by_name
                        .get_or_create(&label)
                        .set(i64::try_from(n).unwrap_or(i64::MAX));
                }
            }
            // Off: no total at all, rather than a total that stops and reads as an idle queue.
            let Some(minutes) = &f.minutes else {
                continue;
            };
            let t = totals.entry(f.queue.clone()).or_default();
            t.observe(f.now, minutes);
            for (family, total) in counters.iter().zip(t.total) {
                family.get_or_create(&label).inc_by(total);
            }
        }
        drop(totals);
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &registry)
            .expect("writing to a String cannot fail");
        text
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn figures(queue: &str, minutes: Option<Vec<Four>>) -> Figures {
        Figures {
            queue: queue.to_owned(),
            jobs: [3, 0, 1, 2, 0, 0],
            schedules: 0,
            oldest_waiting: Some(1.5),
            now: 100 * 60_000,
            minutes,
            paused: false,
            capacity: None,
            rate_limit: None,
            rate_limited_for: 0.0,
            by_name: Vec::new(),
        }
    }

    /// The value of the sample `name{labels}`, if the text has it.
    fn sample(text: &str, name_and_labels: &str) -> Option<f64> {
        text.lines().find_map(|l| {
            let (key, value) = l.rsplit_once(' ')?;
            (key == name_and_labels).then(|| value.parse().unwrap())
        })
    }

    #[test]
    fn queues_that_do_not_count_have_no_totals_and_say_so() {
        let exporter = Exporter::default();
        let text = exporter.encode(&[
            figures("on", Some(vec![[3, 1, 0, 0], [2, 0, 1, 4]])),
            figures("off", None),
        ]);
        assert_eq!(
            sample(&text, r#"leaseq_counters_enabled{queue="on"}"#),
            Some(1.0),
            "{text}"
        );
        assert_eq!(
            sample(&text, r#"leaseq_counters_enabled{queue="off"}"#),
            Some(0.0),
            "{text}"
        );
        assert_eq!(
            sample(&text, r#"leaseq_completed_total{queue="on"}"#),
            Some(5.0)
        );
        assert_eq!(
            sample(&text, r#"leaseq_failed_total{queue="on"}"#),
            Some(1.0)
        );
        assert_eq!(sample(&text, r#"leaseq_dead_total{queue="on"}"#), Some(1.0));
        assert_eq!(
            sample(&text, r#"leaseq_lease_expiries_total{queue="on"}"#),
            Some(4.0)
        );
        // The queue that does not count has its counts per state, and no total at all.
        assert_eq!(
            sample(&text, r#"leaseq_jobs{queue="off",state="dead"}"#),
            Some(2.0)
        );
        assert!(!text.contains(r#"_total{queue="off"}"#), "{text}");
        let help = text
            .lines()
            .find(|l| l.starts_with("# HELP leaseq_counters_enabled "))
            .unwrap();
        assert!(
            help.contains("--stats on") && help.contains("leaseq_completed_total"),
            "{help}"
        );
        // Turned on later, the queue's totals start with what its counters hold.
        let text = exporter.encode(&[figures("off", Some(vec![[0, 0, 0, 0], [0, 2, 0, 0]]))]);
        assert_eq!(
            sample(&text, r#"leaseq_counters_enabled{queue="off"}"#),
            Some(1.0)
        );
        assert_eq!(
            sample(&text, r#"leaseq_failed_total{queue="off"}"#),
            Some(2.0)
        );
    }

    #[test]
    fn paused_is_0_or_1_and_capacity_only_when_bounded() {
        let exporter = Exporter::default();
        let bounded = Figures {
            paused: true,
            capacity: Some(1000),
            ..figures("bounded", None)
        };
        let text = exporter.encode(&[bounded, figures("free", None)]);
        assert_eq!(
            sample(&text, r#"leaseq_paused{queue="bounded"}"#),
            Some(1.0),
            "{text}"
        );
        assert_eq!(
            sample(&text, r#"leaseq_paused{queue="free"}"#),
            Some(0.0),
            "{text}"
        );
        assert_eq!(
            sample(&text, r#"leaseq_capacity{queue="bounded"}"#),
            Some(1000.0),
            "{text}"
        );
        assert!(!text.contains(r#"leaseq_capacity{queue="free"}"#), "{text}");
        for name in ["leaseq_paused", "leaseq_capacity"] {
            assert!(
                text.contains(&format!("# TYPE {name} gauge\n")),
                "{name}: {text}"
            );
            assert!(text.contains(&format!("# HELP {name} ")), "{name}: {text}");
        }
    }

    #[test]
    fn rate_limited_is_always_there_and_the_limit_only_when_set() {
        let exporter = Exporter::default();
        let limited = Figures {
            rate_limit: Some(leaseq::RateLimit::new(1000, Duration::from_millis(1500))),
            rate_limited_for: 0.42,
            ..figures("limited", None)
        };
        let text = exporter.encode(&[limited, figures("free", None)]);
        for (series, value) in [
            (r#"leaseq_rate_limited_seconds{queue="limited"}"#, 0.42),
            (r#"leaseq_rate_limited_seconds{queue="free"}"#, 0.0),
            (r#"leaseq_rate_limit_max{queue="limited"}"#, 1000.0),
            (r#"leaseq_rate_limit_window_seconds{queue="limited"}"#, 1.5),
        ] {
            assert_eq!(sample(&text, series), Some(value), "{series}: {text}");
        }
        assert!(
            !text.contains(r#"leaseq_rate_limit_max{queue="free"}"#),
            "{text}"
        );
        assert!(
            !text.contains(r#"leaseq_rate_limit_window_seconds{queue="free"}"#),
            "{text}"
        );
        for name in [
            "leaseq_rate_limited_seconds",
            "leaseq_rate_limit_max",
            "leaseq_rate_limit_window_seconds",
        ] {
            assert!(
                text.contains(&format!("# TYPE {name} gauge\n")),
                "{name}: {text}"
            );
            assert!(text.contains(&format!("# HELP {name} ")), "{name}: {text}");
        }
    }

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
