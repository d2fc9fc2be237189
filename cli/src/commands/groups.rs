//! `leaseq group`: one group of a queue, shown, paused, resumed and limited. Groups are looked up
//! by name: the protocol keeps no list of them (spec/PROTOCOL.md, 5.20). On a partitioned
//! queue's base, each acts in the group's partition, which holds all its items (5.25).

use std::time::Duration;

use crate::commands::partitions::Target;
use crate::fail::{Fail, Outcome};
use crate::output::{self, bold};
use crate::view::{preview, GroupView};

/// `leaseq group -q P NAME`: its waiting and leased items, its limit, whether it is paused,
/// and how long it is still rate limited.
pub async fn show(client: &leaseq::Client, queue: &str, name: &str, json: bool) -> Outcome {
    let target = Target::open(client, queue).await?;
    let view = GroupView::read(target.group_queue(name), queue, name).await?;
    print(&view, json);
    Ok(())
}

/// `leaseq group pause` (`paused`) and `leaseq group resume` (`!paused`): prints what
/// changed, or that nothing had to.
pub async fn set(
    client: &leaseq::Client,
    queue: &str,
    name: &str,
    paused: bool,
    json: bool,
) -> Outcome {
    let target = Target::open(client, queue).await?;
    let q = target.group_queue(name);
    let changed = if paused {
        q.pause_group(name).await?
    } else {
        q.resume_group(name).await?
    };
    if json {
        output::json(&serde_json::json!({
            "queue": queue,
            "group": name,
            "paused": paused,
            "changed": changed,
        }));
        return Ok(());
    }
    let shown = preview(name.as_bytes(), 256);
    match (paused, changed) {
        (true, true) => say!(
            "{queue}: group {shown} paused; none of its items is leased until `leaseq group \
             resume -q {} {}`",
            output::shell_word(queue),
            output::shell_word(name)
        ),
        (false, true) => say!("{queue}: group {shown} resumed; its items are leased again"),
        (true, false) => say!("{queue}: group {shown} already paused; nothing changed"),
        (false, false) => say!("{queue}: group {shown} not paused; nothing changed"),
    }
    Ok(())
}

/// `leaseq group limit -q P NAME N|none`: the group's own limit set (checked by the core) or
/// removed; then the group as it is.
pub async fn limit(
    client: &leaseq::Client,
    queue: &str,
    name: &str,
    limit: Option<u32>,
    json: bool,
) -> Outcome {
    let target = Target::open(client, queue).await?;
    let q = target.group_queue(name);
    q.set_group_limit(name, limit)
        .await
        .map_err(|err| match &err {
            leaseq::Error::InvalidArgument { argument, .. } if *argument == "limit" => Fail::Usage(
                format!("{err}; write a number from 1 to 1000, or `none`; nothing was written"),
            ),
            _ => err.into(),
        })?;
    let view = GroupView::read(q, queue, name).await?;
    print(&view, json);
    Ok(())
}

fn print(view: &GroupView, json: bool) {
    if json {
        output::json(view);
        return;
    }
    let mut fields: Vec<(&str, String)> = vec![
        ("queue", view.queue.clone()),
        ("group", preview(view.group.as_bytes(), 256)),
        ("waiting", view.waiting.to_string()),
        (
            "leased",
            format!("{} of {} at once", view.leased, view.limit),
        ),
        (
            "state",
            if view.paused { "paused" } else { "running" }.to_owned(),
        ),
        (
            "rate",
            match view.rate_limited_for_ms {
                Some(ms) => format!(
                    "limited for {}",
                    humantime::format_duration(Duration::from_millis(ms))
                ),
                None => "not limited".to_owned(),
            },
        ),
    ];
    if let Some(partition) = &view.partition {
        fields.insert(1, ("in", format!("partition {partition}")));
    }
    for (name, value) in fields {
        say!("{}  {value}", bold(&format!("{name:>8}")));
    }
    if view.paused {
        tell!(
            "paused (none of its items is leased): resume with `leaseq group resume -q {} {}`",
            output::shell_word(&view.queue),
            output::shell_word(&view.group)
        );
    }
}
