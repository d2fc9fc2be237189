//! Looking without touching: `queues`, `stats`, `ls`, `get`.

use std::time::Duration;

use super::partitions;
use crate::fail::{queue_must_exist, Fail, Outcome};
use crate::output::{self, age, bold, time};
use crate::view::{preview, EntryView, MinuteView, StatsView, PREVIEW_BYTES};

/// `leaseq queues`.
///
/// A partitioned queue is listed once, by its base (with its partition count in the text),
/// whether or not its partitions hold keys, as `stats` shows it.
pub async fn queues(client: &leaseq::Client, starting_with: &str, json: bool) -> Outcome {
    let found = partitions::logical(client, client.queues(starting_with).await?).await?;
    if json {
        let names: Vec<&str> = found.iter().map(|(q, _)| q.as_str()).collect();
        output::json(&names);
    } else if found.is_empty() {
        tell!("no queue found (a queue is found by its keys; a drained one leaves none after an hour)");
    } else {
        for (q, p) in found {
            match p {
                Some(p) => say!("{q}  ({} partitions)", p.count()),
                None => say!("{q}"),
            }
        }
    }
    Ok(())
}

/// `leaseq stats`: one queue, or every queue found; again every 2 s with `--watch`.
pub async fn stats(
    client: &leaseq::Client,
    queue: Option<&str>,
    watch: bool,
    json: bool,
) -> Outcome {
    loop {
        let prefixes = match queue {
            Some(q) => vec![q.to_owned()],
            None => client.queues("").await?,
        };
        let listed = partitions::logical(client, prefixes).await?;
        let mut views = Vec::with_capacity(listed.len());
        // All zeros: an empty queue, or no queue at all (a typo)? Asked once, not while
        // watching (a queue may appear), and one more round trip only then. No queue: the
        // JSON still gives the zeros (a script reads the exit code), the table only the error.
        let mut missing = Ok(());
        for (prefix, p) in &listed {
            let q = client.queue(prefix)?;
            let view = partitions::stats_view(&q, prefix, p.as_ref()).await?;
            if queue.is_some() && !watch && view.is_idle() {
                match queue_must_exist(&q, prefix).await {
                    Err(Fail::NoQueue(m)) => missing = Err(Fail::NoQueue(m)),
                    other => other?,
                }
            }
            views.push(view);
        }
        if json {
            if queue.is_some() && !watch {
                output::json(&views[0]);
            } else {
                output::json(&views);
            }
        } else if missing.is_err() {
            return missing;
        } else {
            if watch && output::colour() {
                let _ = std::io::Write::write_all(&mut std::io::stdout(), b"\x1b[2J\x1b[H");
            }
            // A partitioned queue's row, then each partition's.
            let rows: Vec<Vec<String>> = views
                .iter()
                .flat_map(|v| std::iter::once(v).chain(v.partitions.iter().flatten()))
                .map(|v| {
                    // Counters off: say so, never a zero that reads as an idle queue.
                    let counted = |f: fn(&MinuteView) -> u64| match (last_60s(v, f), &v.last_hour) {
                        (Some(m), Some(h)) => format!("{m}/{}", f(h)),
                        _ => "off".to_owned(),
                    };
                    vec![
                        v.queue.clone(),
                        v.waiting.to_string(),
                        v.delayed.to_string(),
                        v.leased.to_string(),
                        v.dead.to_string(),
                        v.blocked.to_string(),
                        v.processing.to_string(),
                        age(v.oldest_waiting_seconds),
                        counted(|m| m.completed),
                        counted(|m| m.failed),
                        counted(|m| m.dead),
                        counted(|m| m.expired),
                        paused_cell(v),
                        match v.capacity {
                            Some(c) => format!("{}/{c}", v.held()),
                            None => "-".to_owned(),
                        },
                        rate_limit(v),
                    ]
                })
                .collect();
            output::table(
                &[
                    "QUEUE",
                    "WAITING",
                    "DELAYED",
                    "LEASED",
                    "DEAD",
                    "BLOCKED",
                    "PROCESSING",
                    "OLDEST",
                    "DONE min/h",
                    "FAILED min/h",
                    "DIED min/h",
                    "EXPIRED min/h",
                    "PAUSED",
                    "CAPACITY",
                    "RATE LIMIT",
                ],
                &rows,
            );
            if views.is_empty() {
                tell!("no queue found");
            }
            if let Some(note) = counters_off_note(&views) {
                tell!("{note}");
            }
            if let Some(note) = paused_note(&views) {
                tell!("{note}");
            }
        }
        if !watch {
            return missing;
        }
        if output::closed() {
            // The reader went away (a pipe into `head`, say).
            return Ok(());
        }
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_secs(2)) => {}
            _ = tokio::signal::ctrl_c() => return Ok(()),
        }
    }
}

/// The footnote of a `stats` table whose `off` columns need explaining: which queues keep no
/// counters, and the command that turns them on.
fn counters_off_note(views: &[StatsView]) -> Option<String> {
    let off: Vec<&str> = views
        .iter()
        .filter(|v| !v.counters)
        .map(|v| v.queue.as_str())
        .collect();
    let queue = match off.as_slice() {
        [] => return None,
        [one] => output::shell_word(one),
        _ => "QUEUE".to_owned(),
    };
    Some(format!(
        "counters off for: {}; turn on with `leaseq config set -q {queue} --stats on`",
        off.join(", ")
    ))
}

/// The RATE LIMIT cell of `stats`: the limit (`1000/1s`, `-` for none) and, while leases are
/// held off (by the limit or by `leaseq hold`), for how long: `1000/1s, limited for 420ms`.
fn rate_limit(v: &StatsView) -> String {
    let limit = v.rate_limit.map(|r| r.to_string());
    let limited = v.rate_limited_for_ms.map(|ms| {
        format!(
            "limited for {}",
            humantime::format_duration(Duration::from_millis(ms))
        )
    });
    match (limit, limited) {
        (Some(l), Some(t)) => format!("{l}, {t}"),
        (Some(l), None) => l,
        (None, Some(t)) => t,
        (None, None) => "-".to_owned(),
    }
}

/// The footnote of a `stats` table with paused queues: which, and the command that resumes them.
fn paused_note(views: &[StatsView]) -> Option<String> {
    // A partitioned queue's partitions paused one by one count too (its own row says `k/P`);
    // a queue paused whole is named alone.
    let paused: Vec<&str> = views
        .iter()
        .flat_map(|v| {
            let parts = if v.paused {
                None
            } else {
                v.partitions.as_ref()
            };
            std::iter::once(v).chain(parts.into_iter().flatten())
        })
        .filter(|v| v.paused)
        .map(|v| v.queue.as_str())
        .collect();
    let queue = match paused.as_slice() {
        [] => return None,
        [one] => output::shell_word(one),
        _ => "QUEUE".to_owned(),
    };
    Some(format!(
        "paused (nothing is leased): {}; resume with `leaseq resume -q {queue}`",
        paused.join(", ")
    ))
}

/// The PAUSED cell: `paused`, `no`, or for a partitioned queue some of whose partitions are
/// paused, how many of them (`2/6`).
fn paused_cell(v: &StatsView) -> String {
    let some = v.partitions.iter().flatten().filter(|p| p.paused).count();
    match (v.paused, some, &v.partitions) {
        (true, _, _) => "paused".to_owned(),
        (false, 0, _) | (false, _, None) => "no".to_owned(),
        (false, k, Some(all)) => format!("{k}/{}", all.len()),
    }
}

/// A counter over the last 60 seconds, from the per-minute counters (`None` while they are
/// off): the current minute so far, and the share of the previous minute still within the last
/// 60 s (the previous minute's count times the part of it not yet 60 s ago). The current
/// minute alone would read 0 just after each minute begins.
fn last_60s(v: &StatsView, f: fn(&MinuteView) -> u64) -> Option<u64> {
    let minutes = v.minutes.as_ref()?;
    let current = minutes.last().map_or(0, f);
    let previous = minutes.len().checked_sub(2).map_or(0, |i| f(&minutes[i]));
    Some(sliding_minute(current, previous, v.now))
}

/// `current` (this minute so far) plus `previous` (the minute before) times the part of the
/// previous minute that is less than 60 s before `now_ms`.
fn sliding_minute(current: u64, previous: u64, now_ms: u64) -> u64 {
    let into = (now_ms % 60_000) as f64 / 60_000.0;
    current + (previous as f64 * (1.0 - into)).round() as u64
}

/// `leaseq ls STATE` and `leaseq dead ls`.
pub async fn ls(
    client: &leaseq::Client,
    queue: &str,
    state: leaseq::State,
    start: usize,
    limit: usize,
    json: bool,
) -> Outcome {
    let q = client.queue(queue)?;
    let target = partitions::Target::open(client, queue).await?;
    let entries = target.list(state, start, limit).await?;
    if entries.is_empty() {
        queue_must_exist(&q, queue).await?;
    }
    let views: Vec<EntryView> = entries.iter().map(|e| target.entry_view(e)).collect();
    if json {
        output::json(&views);
        // On standard error, as for the table: a short or empty page is not always the end.
        if target.more_after(state, start + limit).await? {
            tell!("(more follow: --start {})", start + limit);
        }
        return Ok(());
    }
    let at = match state {
        leaseq::State::Delayed => "DUE",
        leaseq::State::Leased => "LEASE ENDS",
        leaseq::State::Dead => "DIED",
        leaseq::State::Done => "FINISHED",
        _ => "AT",
    };
    // On a partitioned queue's base, where each item lives.
    let partitioned = views.iter().any(|v| v.partition.is_some());
    let rows: Vec<Vec<String>> = views
        .iter()
        .map(|v| {
            let mut row = vec![preview(v.id.as_bytes(), 80)];
            if partitioned {
                row.push(v.partition.clone().unwrap_or_default());
            }
            row.extend([
                v.name
                    .as_deref()
                    .map_or("-".into(), |n| preview(n.as_bytes(), 40)),
                time(v.at),
                v.attempts.to_string(),
                v.error_type.clone().unwrap_or_default(),
                preview(v.error.as_deref().unwrap_or("").as_bytes(), 60),
            ]);
            if state == leaseq::State::Dead {
                row.push(preview(v.reason.as_deref().unwrap_or("").as_bytes(), 60));
            }
            row
        })
        .collect();
    let mut headers = vec!["ID"];
    if partitioned {
        headers.push("PARTITION");
    }
    headers.extend(["NAME", at, "ATTEMPTS", "ERROR TYPE", "ERROR"]);
    if state == leaseq::State::Dead {
        // Why each died: an expiry or a dependency's death has no error of its own.
        headers.push("REASON");
    }
    output::table(&headers, &rows);
    let more = target.more_after(state, start + limit).await?;
    // The whole of the waiting lists listed: say what `stats` counts that `ls` does not show.
    if state == leaseq::State::Waiting && start == 0 && !more {
        let counted = target.count(state).await?;
        if counted > views.len() as u64 {
            tell!(
                "({} more counted as waiting: items waiting in groups, which `leaseq group \
                 NAME` shows, and ids of cancelled or finished items until a lease drops them)",
                counted - views.len() as u64
            );
        }
    }
    if more {
        tell!("(more follow: --start {})", start + limit);
    }
    Ok(())
}

/// `leaseq get ID`.
pub async fn get(client: &leaseq::Client, queue: &str, id: &str, json: bool) -> Outcome {
    let q = client.queue(queue)?;
    let target = partitions::Target::open(client, queue).await?;
    let Some(job) = target.get(id).await? else {
        queue_must_exist(&q, queue).await?;
        return Err(Fail::NotFound(format!(
            "no item `{id}` in queue `{queue}` (it never existed, or completed without a kept \
             result, or was cancelled or purged)"
        )));
    };
    let view = target.job_view(&job);
    if json {
        output::json(&view);
        return Ok(());
    }
    let attempts = match view.max_attempts {
        Some(m) => format!("{} of {m}", view.attempts),
        None => view.attempts.to_string(),
    };
    let mut fields: Vec<(&str, String)> = vec![
        ("id", preview(view.id.as_bytes(), 512)),
        ("state", view.state.clone()),
        ("attempts", attempts),
        (
            "priority",
            // A done item's record is gone with its priority; its kept result does not say.
            if view.data_kept {
                view.priority.to_string()
            } else {
                "- (not kept once the item completed)".into()
            },
        ),
        (
            "name",
            view.name
                .as_deref()
                .map_or("-".into(), |n| preview(n.as_bytes(), 256)),
        ),
        (
            "group",
            view.group
                .as_deref()
                .map_or("-".into(), |g| preview(g.as_bytes(), 256)),
        ),
        (
            "added",
            match view.added_at {
                Some(_) => time(view.added_at),
                None if !view.data_kept => "- (not recorded: added without options)".into(),
                None => time(None),
            },
        ),
        ("due", time(view.due_at)),
        ("leased", time(view.leased_at)),
        ("lease ends", time(view.lease_expires_at)),
        ("finished", time(view.finished_at)),
        (
            "error",
            match (&view.error_type, &view.error) {
                (Some(t), Some(e)) if !t.is_empty() => format!("{t}: {e}"),
                (_, Some(e)) => e.clone(),
                _ => "-".into(),
            },
        ),
        (
            "dead because",
            view.dead_reason.clone().unwrap_or("-".into()),
        ),
        ("cancelled", view.cancelled.to_string()),
        ("progress", view.progress.clone().unwrap_or("-".into())),
        ("result", view.result.clone().unwrap_or("-".into())),
        (
            "depends on",
            match &view.on_dependency_failure {
                Some(p) => format!(
                    "{} (if one fails: {p}; `leaseq tree` shows them)",
                    preview(view.depends_on.join(", ").as_bytes(), PREVIEW_BYTES)
                ),
                None => "-".into(),
            },
        ),
        (
            "data",
            if view.data_kept {
                format!("({} bytes) {}", view.data_len, view.data_preview)
            } else {
                "- (not kept once the item completed; its result is)".into()
            },
        ),
    ];
    // On a partitioned queue's base: where the item lives, after its id.
    if let Some(partition) = &view.partition {
        fields.insert(1, ("partition", preview(partition.as_bytes(), 512)));
    }
    for (name, value) in fields {
        say!("{}  {value}", bold(&format!("{name:>12}")));
    }
    // The last failure's trace, a line per line (each escaped as the fields are).
    if let Some(trace) = &view.trace {
        say!("{}", bold(&format!("{:>12}", "trace")));
        for line in trace.lines() {
            say!("    {}", preview(line.as_bytes(), PREVIEW_BYTES));
        }
    }
    Ok(())
}

/// The most items `leaseq tree` looks up (two round trips each; on a partitioned queue's base
/// up to four, each id's own partition first, then the others).
const TREE_MAX: usize = 200;

/// One item of `leaseq tree`: its state, what it waits for, and its dependencies' own trees.
#[derive(Debug, serde::Serialize)]
pub struct TreeNode {
    /// The id.
    pub id: String,
    /// Its state, or `gone` (completed without a kept result, purged, or never added).
    pub state: String,
    /// The dependencies it still waits for.
    pub pending: Vec<String>,
    /// How many blocked items wait for it.
    pub dependants: u64,
    /// Its dependencies, in the order it was added with them (not looked up past the bound).
    pub children: Vec<TreeNode>,
}

/// `leaseq tree ID`: what an item waits for, down to the items that wait for nothing.
pub async fn tree(client: &leaseq::Client, queue: &str, id: &str, json: bool) -> Outcome {
    // A partitioned queue's base: each item where it lives (spec 5.25).
    let q = partitions::Target::open(client, queue).await?;
    if q.get(id).await?.is_none() && q.dependencies(id).await?.depends_on.is_empty() {
        q.must_exist(queue).await?;
        return Err(Fail::NotFound(format!(
            "no item `{id}` in queue `{queue}` (it never existed, or completed without a kept \
             result, or was cancelled or purged)"
        )));
    }
    let mut budget = TREE_MAX;
    let root = tree_node(&q, id, &mut budget).await?;
    if json {
        output::json(&root);
        return Ok(());
    }
    let mut lines = Vec::new();
    tree_lines(&root, "", "", &mut lines);
    for line in lines {
        say!("{line}");
    }
    if budget == 0 {
        tell!("(only the first {TREE_MAX} items are shown)");
    }
    Ok(())
}

/// Looks `id` up, then its dependencies, depth first, while `budget` lasts.
async fn tree_node(q: &partitions::Target, id: &str, budget: &mut usize) -> Result<TreeNode, Fail> {
    *budget = budget.saturating_sub(1);
    let state = q
        .get(id)
        .await?
        .map_or("gone".to_owned(), |j| j.state.to_string());
    let deps = q.dependencies(id).await?;
    let mut children = Vec::new();
    for dep in &deps.depends_on {
        if *budget == 0 {
            break;
        }
        children.push(Box::pin(tree_node(q, dep, budget)).await?);
    }
    Ok(TreeNode {
        id: id.to_owned(),
        state,
        pending: deps.pending,
        dependants: deps.dependants_count,
        children,
    })
}

/// The text lines of a tree: each id (escaped) and its state, its dependencies below it.
fn tree_lines(node: &TreeNode, first: &str, rest: &str, out: &mut Vec<String>) {
    let waits = if node.pending.is_empty() {
        String::new()
    } else {
        format!("  (waits for {})", node.pending.len())
    };
    out.push(format!(
        "{first}{}  {}{waits}",
        preview(node.id.as_bytes(), 80),
        node.state
    ));
    for (i, child) in node.children.iter().enumerate() {
        let last = i + 1 == node.children.len();
        let (head, tail) = if last {
            ("└─ ", "   ")
        } else {
            ("├─ ", "│  ")
        };
        tree_lines(
            child,
            &format!("{rest}{head}"),
            &format!("{rest}{tail}"),
            out,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::sliding_minute;

    #[test]
    fn the_last_60_seconds_take_their_share_of_the_previous_minute() {
        // Just after a minute began: nearly all of the previous one, not a zero.
        assert_eq!(sliding_minute(0, 600, 120_000), 600);
        assert_eq!(sliding_minute(2, 600, 120_000 + 100), 601);
        // Halfway: half of it; at the end of the minute, none of it.
        assert_eq!(sliding_minute(300, 600, 150_000), 600);
        assert_eq!(sliding_minute(590, 600, 179_999), 590);
    }
}
