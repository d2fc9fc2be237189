//! `leaseq schedules`: a queue's recurring jobs (spec/PROTOCOL.md 5.23): list them with their
//! next fire times, add or change one, remove one, fire the due ones once.

use crate::args::{ScheduleCommand, SchedulesArgs};
use crate::fail::{Fail, Outcome};
use crate::output;
use crate::view::iso_utc;

/// The schedule as JSON (the CLI's `--json` and the dashboard's API).
pub fn schedule_json(s: &leaseq::ScheduleInfo) -> serde_json::Value {
    let (kind, spec, tz, missed) = match &s.schedule {
        Some(sched) => {
            let (kind, spec) = match sched.when() {
                leaseq::Every::Cron(expr) => ("cron", serde_json::json!(expr)),
                leaseq::Every::Period(p) => ("every", serde_json::json!(p.as_millis() as u64)),
                _ => ("unknown", serde_json::Value::Null),
            };
            (
                kind,
                spec,
                sched.time_zone().map(str::to_owned),
                Some(sched.missed_policy().to_wire()),
            )
        }
        None => ("unknown", serde_json::Value::Null, None, None),
    };
    serde_json::json!({
        "name": s.name,
        "kind": kind,
        "cron": if kind == "cron" { spec.clone() } else { serde_json::Value::Null },
        "every_ms": if kind == "every" { spec } else { serde_json::Value::Null },
        "tz": tz,
        "missed": missed,
        "version": s.version,
        "next_ms": s.next,
        "fired": s.fired,
        "skipped": s.skipped,
        "last_tick_ms": s.last_tick,
        "created_ms": s.created,
        "updated_ms": s.updated,
    })
}

/// Runs `leaseq schedules [add|rm|fire]`.
pub async fn schedules(client: &leaseq::Client, args: SchedulesArgs) -> Outcome {
    let Some(prefix) = args.queue.clone() else {
        return Err(Fail::Usage(
            "the following required argument was not provided: --queue <PREFIX>".into(),
        ));
    };
    // A partitioned queue's schedules live in its partition 0 (spec 5.25), and fire there.
    let queue = super::partitions::Target::open(client, &prefix)
        .await?
        .schedules_queue()
        .clone();
    let json = args.json;
    match args.command {
        None => list(&queue, &prefix, json).await,
        Some(ScheduleCommand::Add {
            name,
            cron,
            tz,
            every,
            data,
            missed,
            priority,
            item_name,
        }) => {
            let mut schedule = match (cron, every) {
                (Some(expr), _) => leaseq::Schedule::cron(expr),
                (None, Some(every)) => leaseq::Schedule::every(every),
                (None, None) => return Err(Fail::Usage("give --cron or --every".into())),
            };
            if let Some(tz) = tz {
                schedule = schedule.tz(tz);
            }
            let mut item = leaseq::Item::new(data.into_bytes());
            if let Some(p) = priority {
                item = item.priority(p);
            }
            if let Some(n) = item_name {
                item = item.name(n);
            }
            schedule = schedule
                .item(item)
                .missed(leaseq::Missed::from_wire(&missed)?);
            let new = queue.upsert_schedule(&name, &schedule).await?;
            if json {
                output::json(&serde_json::json!({"name": name, "new": new}));
            } else {
                say!("{} {name}", if new { "added" } else { "changed" });
            }
            Ok(())
        }
        Some(ScheduleCommand::Rm { name }) => {
            let removed = queue.remove_schedule(&name).await?;
            if json {
                output::json(&serde_json::json!({"name": name, "removed": removed}));
            }
            if !removed {
                return Err(Fail::NotFound(format!(
                    "no schedule `{name}` in `{prefix}`"
                )));
            }
            if !json {
                say!("removed {name}");
            }
            Ok(())
        }
        Some(ScheduleCommand::Fire) => {
            let r = queue.fire_due_schedules().await?;
            if json {
                output::json(&serde_json::json!({
                    "due": r.due,
                    "fired": r.fired,
                    "skipped": r.skipped,
                    "lost_races": r.lost_races,
                }));
            } else {
                say!(
                    "{} due, {} fired, {} missed ticks skipped",
                    r.due,
                    r.fired,
                    r.skipped
                );
            }
            Ok(())
        }
    }
}

/// Every schedule (pages of 1000, at most 10,000), by next fire time, of `queue`: the queue
/// named `prefix`, or its partition that keeps the schedules.
async fn list(queue: &leaseq::Queue, prefix: &str, json: bool) -> Outcome {
    let mut all = Vec::new();
    let mut now = 0;
    loop {
        let page = queue.schedules(all.len(), 1000).await?;
        now = now.max(page.now);
        let n = page.schedules.len();
        all.extend(page.schedules);
        if n < 1000 {
            break;
        }
    }
    if json {
        let list: Vec<_> = all.iter().map(schedule_json).collect();
        output::json(&serde_json::json!({"now_ms": now, "schedules": list}));
        return Ok(());
    }
    if all.is_empty() {
        tell!("no schedule in `{prefix}`");
        return Ok(());
    }
    let rows: Vec<Vec<String>> = all
        .iter()
        .map(|s| {
            let j = schedule_json(s);
            let when = match (j["cron"].as_str(), j["every_ms"].as_u64()) {
                (Some(c), _) => match j["tz"].as_str() {
                    Some(tz) => format!("{c} ({tz})"),
                    None => c.to_owned(),
                },
                (None, Some(ms)) => format!("every {}", output::age(Some(ms as f64 / 1000.0))),
                _ => "?".into(),
            };
            let next = s.next.map_or("-".into(), |n| {
                format!(
                    "{} (in {})",
                    iso_utc(n),
                    output::age(Some(n.saturating_sub(now) as f64 / 1000.0))
                )
            });
            vec![
                s.name.clone(),
                when,
                next,
                j["missed"].as_str().unwrap_or("-").to_owned(),
                s.fired.to_string(),
                s.skipped.to_string(),
                s.last_tick.map_or("-".into(), iso_utc),
            ]
        })
        .collect();
    output::table(
        &[
            "SCHEDULE",
            "WHEN",
            "NEXT",
            "MISSED",
            "FIRED",
            "SKIPPED",
            "LAST TICK",
        ],
        &rows,
    );
    Ok(())
}
