//! `leaseq events`: a queue's event stream (spec/PROTOCOL.md 14), or every partition's of a
//! partitioned queue, one page or followed.

use std::io::Write;

use leaseq::{EventsFrom, QueueEvent};

use crate::args::EventsArgs;
use crate::commands::partitions::Target;
use crate::fail::Outcome;
use crate::output;
use crate::view::EventView;

/// `leaseq events -q P`: the entries after `--after` (default: the oldest kept), at most
/// `--limit`; with `--follow`, then every entry as it comes (from now without `--after`),
/// until Ctrl-C. On a partitioned queue's base, every partition's entries, each naming its
/// partition, and `--after` a position (an id per partition, joined by `,`) or one id.
pub async fn events(client: &leaseq::Client, args: &EventsArgs) -> Outcome {
    let queue = &args.queue.queue;
    let target = Target::open(client, queue).await?;
    let first = &target.queues()[0];
    if !args.follow {
        if let Target::Plain(q) = &target {
            return page(q, args).await;
        }
    }
    // (`set_config` sets every partition alike: partition 0 tells.)
    warn_if_off(queue, first.read_events(None, 1).await?.on);
    let from = match (&args.after, args.follow) {
        (Some(id), _) => EventsFrom::After(id.clone()),
        (None, true) => EventsFrom::Now,
        (None, false) => EventsFrom::After("0-0".to_owned()),
    };
    let mut follower = match &target {
        Target::Plain(q) => q.events(from).await?,
        Target::Partitioned(p) => p.events(from).await?,
    };
    if !args.follow {
        return partitioned_page(&mut follower, args).await;
    }
    loop {
        let next = tokio::select! {
            next = follower.next() => next?,
            _ = tokio::signal::ctrl_c() => {
                // Where a later run goes on from, missing nothing still kept.
                if let Some(position) = follower.position() {
                    tell!(
                        "(resume: leaseq events -q {} --follow --after {})",
                        output::shell_word(queue),
                        output::shell_word(position)
                    );
                }
                return Ok(());
            }
        };
        if args.json.json {
            // One JSON object a line, as they come.
            let line = serde_json::to_string(&EventView::from(&next)).unwrap_or_default();
            say!("{line}");
        } else {
            print_line(&next);
        }
        if std::io::stdout().flush().is_err() || output::closed() {
            // The reader went away (a pipe into `head`, say).
            return Ok(());
        }
    }
}

/// One page of queue `q`'s stream: `{events, last, on}` in JSON.
async fn page(q: &leaseq::Queue, args: &EventsArgs) -> Outcome {
    let queue = &args.queue.queue;
    let after = args.after.as_deref().unwrap_or("0-0");
    let page = q.read_events(Some(after), usize::from(args.limit)).await?;
    warn_if_off(queue, page.on);
    if args.json.json {
        let events: Vec<EventView> = page.events.iter().map(EventView::from).collect();
        output::json(&serde_json::json!({
            "events": events,
            "last": page.last,
            "on": page.on,
        }));
    } else {
        for e in &page.events {
            print_line(e);
        }
        if page.events.len() == usize::from(args.limit) {
            if let Some(last) = page.events.last() {
                more(queue, &last.id);
            }
        }
    }
    Ok(())
}

/// One page of a partitioned queue's streams: what its follower has now, up to `--limit`;
/// `{events, position}` in JSON, `position` being where to go on (`--after`).
async fn partitioned_page(follower: &mut leaseq::Events, args: &EventsArgs) -> Outcome {
    let mut events = Vec::new();
    while events.len() < usize::from(args.limit) {
        match follower.next_now().await? {
            Some(e) => events.push(e),
            None => break,
        }
    }
    let position = follower.position().map(str::to_owned);
    if args.json.json {
        let views: Vec<EventView> = events.iter().map(EventView::from).collect();
        output::json(&serde_json::json!({
            "events": views,
            "position": position,
        }));
    } else {
        for e in &events {
            print_line(e);
        }
        if let (true, Some(position)) = (events.len() == usize::from(args.limit), position) {
            more(&args.queue.queue, &position);
        }
    }
    Ok(())
}

/// Says how to read the next page: after `position`.
fn more(queue: &str, position: &str) {
    tell!(
        "(more: leaseq events -q {} --after {})",
        output::shell_word(queue),
        output::shell_word(position)
    );
}

fn warn_if_off(queue: &str, on: bool) {
    if !on {
        tell!(
            "leaseq: events are off for this queue: nothing new is recorded \
             (`leaseq config set -q {} --events on`)",
            output::shell_word(queue)
        );
    }
}

/// `2026-01-02 03:04:05  1767323045000-0  completed  order-1  attempt 1  name=ship ...` (a
/// partitioned queue's: `p<i>` after the id).
fn print_line(e: &QueueEvent) {
    let partition = e.partition.map_or(String::new(), |p| format!("  p{p}"));
    let mut line = format!(
        "{}  {}{partition}  {}  {}  attempt {}",
        output::time(Some(e.time_ms)),
        e.id,
        e.event,
        escape(&e.job_id),
        e.attempt
    );
    let extra = [
        ("name", e.name.clone()),
        ("due", e.due.map(|d| output::time(Some(d)))),
        ("reason", e.reason.clone()),
        ("error", e.error.clone()),
    ];
    for (field, value) in extra {
        if let Some(v) = value {
            line.push_str(&format!("  {field}={}", escape(&v)));
        }
    }
    for (field, value) in &e.extra {
        line.push_str(&format!("  {field}={}", escape(value)));
    }
    say!("{line}");
}

/// Control characters of a value (an id or an error written by anyone) shown escaped, so that
/// one entry is one line and no value can steer the terminal.
fn escape(text: &str) -> String {
    text.chars()
        .flat_map(char::escape_default)
        .collect::<String>()
}
