//! `leaseq config`: a queue's stored configuration (`P:config`), shown, set and reset.

use std::time::Duration;

use leaseq::QueueConfig;

use super::partitions::Target;
use crate::args::ConfigSetArgs;
use crate::fail::{Fail, Outcome};
use crate::output;
use crate::view::{BackoffView, ConfigView, SettingsView};

/// `leaseq config -q P`: what is stored, and what applies; on a partitioned queue's base, each
/// partition's (`--json`: `{"queue": base, "partitions": [...]}`).
pub async fn show(client: &leaseq::Client, queue: &str, json: bool) -> Outcome {
    let p = match Target::open(client, queue).await? {
        Target::Plain(q) => {
            print(&ConfigView::new(queue, &q.config().await?), json);
            return Ok(());
        }
        Target::Partitioned(p) => p,
    };
    let mut views = Vec::with_capacity(p.count());
    for part in p.partitions() {
        views.push(ConfigView::new(part.prefix(), &part.config().await?));
    }
    if json {
        output::json(&serde_json::json!({ "queue": queue, "partitions": views }));
        return Ok(());
    }
    // Set through the base, every partition holds the same: shown once.
    let settings = |v: &ConfigView| {
        serde_json::to_value((&v.stored, &v.effective)).unwrap_or(serde_json::Value::Null)
    };
    let first = settings(&views[0]);
    if views.iter().all(|v| settings(v) == first) {
        say!("every partition of {queue} ({}):", views.len());
        print(&views[0], false);
        return Ok(());
    }
    for (i, view) in views.iter().enumerate() {
        say!("partition {i}: {}", view.queue);
        print(view, false);
    }
    Ok(())
}

/// `leaseq config set`: the settings given, checked by the core before anything is written;
/// then what results.
pub async fn set(client: &leaseq::Client, args: &ConfigSetArgs) -> Outcome {
    let mut config = QueueConfig::new();
    if let Some(s) = args.stats {
        config = config.stats(s.on());
    }
    if let Some(m) = args.max_attempts {
        config = config.max_attempts(m);
    }
    if let Some(p) = args.priority {
        config = config.priority(p);
    }
    if let Some(b) = args.backoff {
        config = config.backoff(b);
    }
    if let Some(d) = args.expires_after {
        config = config.expires_after(d);
    }
    if let Some(d) = args.keep_result_for {
        config = config.keep_result_for(d);
    }
    if let Some(n) = args.dead_max_count {
        config = config.dead_max_count(n);
    }
    if let Some(d) = args.dead_max_age {
        config = config.dead_max_age(d);
    }
    if let Some(n) = args.capacity {
        config = config.capacity(n);
    }
    if let Some(r) = args.rate_limit {
        config = config.rate_limit(r);
    }
    if let Some(n) = args.group_concurrency {
        config = config.group_concurrency(n);
    }
    if let Some(r) = args.group_rate_limit {
        config = config.group_rate_limit(r);
    }
    if let Some(s) = args.events {
        config = config.events(s.on());
    }
    if let Some(n) = args.events_max_len {
        config = config.events_max_len(n);
    }
    if let Some(d) = args.events_max_age {
        config = config.events_max_age(d);
    }
    let queue = &args.queue.queue;
    // A partitioned queue's base: every partition (spec 5.25).
    let target = Target::open(client, queue).await?;
    let new = target.is_new().await?;
    target.set_config(&config).await.map_err(name_the_option)?;
    if new {
        Target::note_new(queue, "its configuration is stored");
    }
    show(client, queue, args.json.json).await
}

/// `leaseq config reset`: the stored configuration removed; then what applies.
pub async fn reset(client: &leaseq::Client, queue: &str, json: bool) -> Outcome {
    Target::open(client, queue).await?.reset_config().await?;
    show(client, queue, json).await
}

/// A value the core refused, named as the option that gave it (`keep_result_for` is
/// `--keep-result-for`).
fn name_the_option(err: leaseq::Error) -> Fail {
    match &err {
        leaseq::Error::InvalidArgument { argument, .. } => Fail::Usage(format!(
            "--{}: {err}; nothing was written",
            argument.replace('_', "-")
        )),
        _ => err.into(),
    }
}

fn print(view: &ConfigView, json: bool) {
    if json {
        output::json(view);
        return;
    }
    let (s, e) = (&view.stored, &view.effective);
    let rows: Vec<Vec<String>> = rows(s)
        .into_iter()
        .zip(rows(e))
        .map(|((name, stored), (_, applies))| {
            // What a setting with no value means: items never expire, the queue has no bound or limit.
            let none = match name {
                "capacity" | "rate-limit" | "group-rate-limit" => "none",
                _ => "never",
            };
            let applies = match stored {
                Some(_) => applies.unwrap_or_default(),
                None => format!("{} (default)", applies.unwrap_or(none.into())),
            };
            vec![name.to_owned(), stored.unwrap_or("-".into()), applies]
        })
        .collect();
    output::table(&["SETTING", "STORED", "APPLIES"], &rows);
}

/// Each setting, named as `config set` names it, as text (`None`: not set).
fn rows(s: &SettingsView) -> Vec<(&'static str, Option<String>)> {
    let d = |ms: u64| humantime::format_duration(Duration::from_millis(ms)).to_string();
    vec![
        (
            "stats",
            s.stats.map(|on| if on { "on" } else { "off" }.to_owned()),
        ),
        ("max-attempts", s.max_attempts.map(|m| m.to_string())),
        ("priority", s.priority.map(|p| p.to_string())),
        (
            "backoff",
            s.backoff.map(|b| match b {
                BackoffView::Fixed { delay_ms } => format!("fixed:{}", d(delay_ms)),
                BackoffView::Exponential {
                    base_ms,
                    cap_ms,
                    jitter,
                } => format!(
                    "exp:{}:{}{}",
                    d(base_ms),
                    d(cap_ms),
                    if jitter { "" } else { ":no-jitter" }
                ),
            }),
        ),
        ("expires-after", s.expires_after_ms.map(d)),
        ("keep-result-for", s.keep_result_for_ms.map(d)),
        ("dead-max-count", s.dead_max_count.map(|n| n.to_string())),
        ("dead-max-age", s.dead_max_age_ms.map(d)),
        ("capacity", s.capacity.map(|n| n.to_string())),
        ("rate-limit", s.rate_limit.map(|r| r.to_string())),
        (
            "group-concurrency",
            s.group_concurrency.map(|n| n.to_string()),
        ),
        (
            "group-rate-limit",
            s.group_rate_limit.map(|r| r.to_string()),
        ),
        (
            "events",
            s.events.map(|on| if on { "on" } else { "off" }.to_owned()),
        ),
        ("events-max-len", s.events_max_len.map(|n| n.to_string())),
        ("events-max-age", s.events_max_age_ms.map(d)),
    ]
}
