//! `leaseq events`: a queue's event stream (spec/PROTOCOL.md 14), one page or followed.

use std::io::Write;

use leaseq::{EventsFrom, QueueEvent};

use crate::args::EventsArgs;
use crate::fail::Outcome;
use crate::output;
use crate::view::EventView;

/// `leaseq events -q P`: the entries after `--after` (default: the oldest kept), at most
/// `--limit`; with `--follow`, then every entry as it comes (from now without `--after`),
/// until Ctrl-C.
pub async fn events(client: &leaseq::Client, args: &EventsArgs) -> Outcome {
    let queue = &args.queue.queue;
    let q = client.queue(queue)?;
    let json = args.json.json;
    if !args.follow {
        let after = args.after.as_deref().unwrap_or("0-0");
        let page = q.read_events(Some(after), usize::from(args.limit)).await?;
        warn_if_off(queue, page.on);
        if json {
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
                    eprintln!(
                        "(more: leaseq events -q {} --after {})",
                        output::shell_word(queue),
                        last.id
                    );
                }
            }
        }
        return Ok(());
    }
    let from = match &args.after {
        Some(id) => EventsFrom::After(id.clone()),
        None => EventsFrom::Now,
    };
    warn_if_off(queue, q.read_events(None, 1).await?.on);
    let mut follower = q.events(from).await?;
    loop {
        let next = tokio::select! {
            next = follower.next() => next?,
            _ = tokio::signal::ctrl_c() => return Ok(()),
        };
        if json {
            // One JSON object a line, as they come.
            let mut out = std::io::stdout().lock();
            let _ = serde_json::to_writer(&mut out, &EventView::from(&next));
            let _ = writeln!(out);
            let _ = out.flush();
        } else {
            print_line(&next);
            let _ = std::io::stdout().flush();
        }
    }
}

fn warn_if_off(queue: &str, on: bool) {
    if !on {
        eprintln!(
            "leaseq: events are off for this queue: nothing new is recorded \
             (`leaseq config set -q {} --events on`)",
            output::shell_word(queue)
        );
    }
}

/// `2026-01-02 03:04:05  1767323045000-0  completed  order-1  attempt 1  name=ship ...`
fn print_line(e: &QueueEvent) {
    let mut line = format!(
        "{}  {}  {}  {}  attempt {}",
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
    println!("{line}");
}

/// Control characters of a value (an id or an error written by anyone) shown escaped, so that
/// one entry is one line and no value can steer the terminal.
fn escape(text: &str) -> String {
    text.chars()
        .flat_map(char::escape_default)
        .collect::<String>()
}
