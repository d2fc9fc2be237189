//! The Rust runner of spec/vectors (format: spec/vectors/README.md), over `leaseq::blocking`.

use std::collections::HashMap;
use std::time::Duration;

use leaseq::blocking::{Client, Queue};
use leaseq::{
    Backoff, FailOutcome, Flow, Item, Job, Lease, OnDependencyFailure, QueueConfig, Retry, State,
    Wait,
};
use leaseq::{Missed, Schedule, ScheduleInfo};
use leaseq_harness::vectors::{check_state, data_bytes, data_json, flush, raw, same};
use leaseq_harness::RedisServer;
use serde_json::{json, Value as Json};

fn lease_json(lease: Option<Lease>) -> Json {
    lease.map_or(Json::Null, |l| {
        let mut out =
            json!({"id": data_json(l.id_bytes()), "data": data_json(l.data()), "count": l.count()});
        // `name` only for an item that has one (spec/vectors/README.md, "A lease").
        if let Some(n) = l.name() {
            out["name"] = Json::from(n);
        }
        out
    })
}

fn str_field<'a>(step: &'a Json, name: &str) -> Result<&'a str, String> {
    step[name]
        .as_str()
        .ok_or_else(|| format!("step needs string `{name}`"))
}

fn ms(step: &Json, name: &str) -> Result<Duration, String> {
    step[name]
        .as_u64()
        .map(Duration::from_millis)
        .ok_or_else(|| format!("step needs number `{name}`"))
}

/// A completion as a batch step holds it: the lease, and the result with its keep time.
type OwnedCompletion = (Lease, Option<(Vec<u8>, Option<Duration>)>);

/// The core's borrowed completions of owned ones.
fn borrow_completions(owned: &[OwnedCompletion]) -> Vec<leaseq::Completion<'_>> {
    owned
        .iter()
        .map(|(lease, result)| {
            (
                lease,
                result.as_ref().map(|(r, keep)| (r.as_slice(), *keep)),
            )
        })
        .collect()
}

fn opt_ms(step: &Json, name: &str) -> Option<Duration> {
    step[name].as_u64().map(Duration::from_millis)
}

fn backoff(value: &Json) -> Result<Option<Backoff>, String> {
    if value.is_null() {
        return Ok(None);
    }
    if let Some(ms) = value["fixed_ms"].as_u64() {
        return Ok(Some(Backoff::fixed(Duration::from_millis(ms))));
    }
    let exp = value["exp_ms"]
        .as_array()
        .ok_or("backoff needs fixed_ms or exp_ms")?;
    let at = |i: usize| exp.get(i).and_then(Json::as_u64).map(Duration::from_millis);
    let (Some(base), Some(cap)) = (at(0), at(1)) else {
        return Err("exp_ms needs [base, cap]".into());
    };
    Ok(Some(Backoff::Exponential {
        base,
        cap,
        jitter: value["jitter"].as_bool().unwrap_or(true),
    }))
}

/// An item with the options a step names (spec/vectors/README.md, "Item options").
fn item(step: &Json) -> Result<Result<Item, leaseq::Error>, String> {
    let id = str_field(step, "id")?;
    let mut item = match Item::with_id(id, data_bytes(&step["data"])?) {
        Ok(item) => item,
        Err(e) => return Ok(Err(e)),
    };
    if let Some(d) = opt_ms(step, "delay_ms") {
        item = item.delay(d);
    }
    if let Some(p) = step["priority"].as_i64() {
        item = item.priority(p as i32);
    }
    if let Some(m) = step["max_attempts"].as_u64() {
        item = item.max_attempts(m as u32);
    }
    if let Some(b) = backoff(&step["backoff"])? {
        item = item.backoff(b);
    }
    if let Some(d) = opt_ms(step, "expires_after_ms") {
        item = item.expires_after(d);
    }
    if let Some(d) = opt_ms(step, "keep_result_ms") {
        item = item.keep_result_for(d);
    }
    if let Some(g) = step["group"].as_str() {
        item = item.group(g);
    }
    if let Some(n) = step["name"].as_str() {
        item = item.name(n);
    }
    if let Some(deps) = step["depends_on"].as_array() {
        item = item.depends_on(deps.iter().filter_map(Json::as_str));
    }
    if let Some(p) = step["on_dependency_failure"].as_str() {
        match OnDependencyFailure::parse(p) {
            Ok(p) => item = item.on_dependency_failure(p),
            Err(e) => return Ok(Err(e)),
        }
    }
    Ok(Ok(item))
}

/// The schedule a step names (spec/vectors/README.md, "Schedules"): `cron` (with `tz`) or
/// `every_ms`, `missed`, and the item's `data` and options (`item_name` for its name).
fn schedule(step: &Json) -> Result<Result<Schedule, leaseq::Error>, String> {
    let mut s = match (step["cron"].as_str(), step["every_ms"].as_u64()) {
        (Some(expr), _) => Schedule::cron(expr),
        (None, Some(ms)) => Schedule::every(Duration::from_millis(ms)),
        _ => return Err("upsert_schedule needs `cron` or `every_ms`".into()),
    };
    if let Some(tz) = step["tz"].as_str() {
        s = s.tz(tz);
    }
    if let Some(m) = step["missed"].as_str() {
        s = match Missed::from_wire(m) {
            Ok(m) => s.missed(m),
            Err(e) => return Ok(Err(e)),
        };
    }
    let mut fields = step.clone();
    fields["id"] = Json::from("template");
    fields["name"] = step["item_name"].clone();
    if fields["data"].is_null() {
        fields["data"] = Json::from("");
    }
    Ok(item(&fields)?.map(|i| s.item(i)))
}

fn schedule_json(info: Option<ScheduleInfo>) -> Json {
    let Some(info) = info else {
        return Json::Null;
    };
    let (missed, data) = info
        .schedule
        .as_ref()
        .map_or((Json::Null, Json::Null), |s| {
            (
                Json::from(s.missed_policy().to_wire()),
                data_json(s.template().data()),
            )
        });
    json!({
        "version": info.version,
        "next": info.next,
        "fired": info.fired,
        "skipped": info.skipped,
        "last_tick": info.last_tick,
        "missed": missed,
        "data": data,
    })
}

/// A flow of an `add_flow` step: an item object with an optional `children` list of flows.
fn flow(step: &Json) -> Result<Result<Flow, leaseq::Error>, String> {
    let mut flow = match item(step)? {
        Ok(i) => Flow::new(i),
        Err(e) => return Ok(Err(e)),
    };
    for child in step["children"].as_array().into_iter().flatten() {
        match self::flow(child)? {
            Ok(c) => flow = flow.child(c),
            Err(e) => return Ok(Err(e)),
        }
    }
    Ok(Ok(flow))
}

fn state_arg(step: &Json) -> Result<Result<State, leaseq::Error>, String> {
    Ok(State::parse(str_field(step, "state")?))
}

/// An event entry as the vectors write it (spec/vectors/README.md, "An event"): its kind, item
/// and attempt, and `name`, `error`, `reason`, `state` when it has them (`inc`, `due` and the
/// id are random or the clock's: never compared).
fn event_json(e: &leaseq::QueueEvent) -> Json {
    let mut out = json!({"event": e.event, "id": e.job_id, "attempt": e.attempt});
    for (field, value) in [
        ("name", &e.name),
        ("error", &e.error),
        ("reason", &e.reason),
    ] {
        if let Some(v) = value {
            out[field] = json!(v);
        }
    }
    for (field, value) in &e.extra {
        if field == "state" {
            out["state"] = json!(value);
        }
    }
    out
}

fn job_json(job: Option<Job>) -> Json {
    let Some(job) = job else {
        return Json::Null;
    };
    let (error, error_type) = match job.error {
        Some((e, t)) => (Json::from(e), Json::from(t)),
        None => (Json::Null, Json::Null),
    };
    let mut out = json!({
        "state": job.state.as_str(),
        "data": data_json(&job.data),
        "attempts": job.attempts,
        "error": error,
        "error_type": error_type,
        "reason": job.dead_reason,
        "progress": job.progress.map(|p| data_json(&p)),
        "priority": job.priority,
        "result": job.result.map(|r| data_json(&r.data)),
    });
    // `group` only for an item that has one (spec/vectors/README.md, "A job").
    if let Some(g) = job.group {
        out["group"] = Json::from(g);
    }
    if let Some(n) = job.name {
        out["name"] = Json::from(n);
    }
    // `trace` only for an item that has one (spec/vectors/README.md, "A job").
    if let Some(t) = job.trace {
        out["trace"] = Json::from(t);
    }
    // `depends_on` only for an item added with dependencies (spec/vectors/README.md, "A job").
    if !job.depends_on.is_empty() {
        out["depends_on"] = Json::from(job.depends_on);
    }
    out
}

struct Runner<'a> {
    url: &'a str,
    prefix: String,
    queue: Queue,
    client: &'a Client,
    leases: HashMap<String, Lease>,
}

impl Runner<'_> {
    fn lease_named(&self, step: &Json) -> Result<Lease, String> {
        let name = str_field(step, "lease")?;
        self.leases
            .get(name)
            .cloned()
            .ok_or_else(|| format!("no lease named `{name}`"))
    }

    /// A batch step's `completions`: each `{"lease", "result" (optional), "keep_result_ms"
    /// (optional)}`, as owned leases and results for [`borrow_completions`].
    fn completions(&self, step: &Json) -> Result<Vec<OwnedCompletion>, String> {
        let list = step["completions"]
            .as_array()
            .ok_or("step needs a list `completions`")?;
        list.iter()
            .map(|c| {
                let result = match c.get("result") {
                    Some(r) => Some((data_bytes(r)?, opt_ms(c, "keep_result_ms"))),
                    None => None,
                };
                Ok((self.lease_named(c)?, result))
            })
            .collect()
    }

    fn keep(&mut self, step: &Json, lease: &Option<Lease>) {
        if let (Some(name), Some(lease)) = (step["as"].as_str(), lease) {
            self.leases.insert(name.to_owned(), lease.clone());
        }
    }

    fn wait(step: &Json) -> Wait {
        match step.get("timeout_ms").and_then(Json::as_u64) {
            None | Some(0) => Wait::No,
            Some(t) => Wait::Timeout(Duration::from_millis(t)),
        }
    }

    /// Runs a step: Ok(Some(result)) for an operation, Ok(None) for a step with no result.
    fn step(&mut self, step: &Json) -> Result<Option<Result<Json, leaseq::Error>>, String> {
        let q = self.queue.clone();
        let op = str_field(step, "do")?;
        let result: Result<Json, leaseq::Error> = match op {
            "add" => item(step)?.and_then(|i| q.add(&i)).map(Json::from),
            "add_unique" => item(step)?
                .and_then(|i| q.add_unique(&i))
                .map(|()| Json::Null),
            "add_batch" => {
                let mut items = Vec::new();
                let mut refused = None;
                for entry in step["items"].as_array().ok_or("add_batch needs `items`")? {
                    match item(entry)? {
                        Ok(i) => items.push(i),
                        Err(e) => refused = refused.or(Some(e)),
                    }
                }
                match refused {
                    Some(e) => Err(e),
                    None => q.add_batch(&items).map(Json::from),
                }
            }
            "add_flow" => {
                let parent = item(&step["parent"])?;
                let mut children = Vec::new();
                let mut refused = None;
                for entry in step["children"]
                    .as_array()
                    .ok_or("add_flow needs `children`")?
                {
                    match flow(entry)? {
                        Ok(c) => children.push(c),
                        Err(e) => refused = refused.or(Some(e)),
                    }
                }
                match (parent, refused) {
                    (Err(e), _) | (_, Some(e)) => Err(e),
                    (Ok(p), None) => q.add_flow(&p, &children).map(Json::from),
                }
            }
            "dependencies" => q.dependencies(str_field(step, "id")?).map(|d| {
                let mut pending = d.pending;
                pending.sort();
                json!({"depends_on": d.depends_on, "pending": pending,
                       "dependants": d.dependants_count,
                       "on_dependency_failure": d.on_dependency_failure.map(|p| p.as_str())})
            }),
            "dependency_results" => q.dependency_results(str_field(step, "id")?).map(|r| {
                Json::Array(
                    r.into_iter()
                        .map(|(id, res)| json!([id, res.map(|d| data_json(&d))]))
                        .collect(),
                )
            }),
            "lease" => {
                let got = q.lease(ms(step, "ttl_ms")?, Self::wait(step));
                if let Ok(lease) = &got {
                    self.keep(step, lease);
                }
                got.map(lease_json)
            }
            "lease_batch" => {
                let n = step["n"].as_u64().ok_or("lease_batch needs `n`")? as usize;
                let got = q.lease_batch(n, ms(step, "ttl_ms")?, Self::wait(step));
                if let (Ok(leases), Some(names)) = (&got, step["as"].as_array()) {
                    for (lease, name) in leases.iter().zip(names) {
                        if let Some(name) = name.as_str() {
                            self.leases.insert(name.to_owned(), lease.clone());
                        }
                    }
                }
                got.map(|leases| {
                    Json::Array(leases.into_iter().map(|l| lease_json(Some(l))).collect())
                })
            }
            "complete" => {
                let lease = self.lease_named(step)?;
                if step.get("result").is_some() {
                    q.complete_with_result(
                        &lease,
                        Some(data_bytes(&step["result"])?.as_slice()),
                        opt_ms(step, "keep_result_ms"),
                    )
                    .map(Json::from)
                } else {
                    q.complete(&lease).map(Json::from)
                }
            }
            "complete_batch" => {
                let owned = self.completions(step)?;
                let list = borrow_completions(&owned);
                q.complete_batch(&list).map(Json::from)
            }
            "complete_and_lease_batch" => {
                let owned = self.completions(step)?;
                let list = borrow_completions(&owned);
                let n = step["n"]
                    .as_u64()
                    .ok_or("complete_and_lease_batch needs `n`")? as usize;
                let got = q.complete_and_lease_batch(&list, n, ms(step, "ttl_ms")?);
                if let (Ok((_, leases)), Some(names)) = (&got, step["as"].as_array()) {
                    for (lease, name) in leases.iter().zip(names) {
                        if let Some(name) = name.as_str() {
                            self.leases.insert(name.to_owned(), lease.clone());
                        }
                    }
                }
                got.map(|(completed, leases)| {
                    let leases: Vec<Json> =
                        leases.into_iter().map(|l| lease_json(Some(l))).collect();
                    json!({"completed": completed, "leases": leases})
                })
            }
            "renew_outcome" => q
                .renew_outcome(&self.lease_named(step)?, ms(step, "ttl_ms")?)
                .map(|o| Json::from(o.as_str())),
            "fail" => {
                let retry = match &step["retry"] {
                    Json::Null => Retry::Default,
                    Json::String(s) if s == "default" => Retry::Default,
                    Json::String(s) if s == "never" => Retry::Never,
                    other => Retry::After(Duration::from_millis(
                        other["after_ms"]
                            .as_u64()
                            .ok_or("retry must be default, never or {after_ms}")?,
                    )),
                };
                q.fail_with_trace(
                    &self.lease_named(step)?,
                    str_field(step, "error")?,
                    step["error_type"].as_str().unwrap_or(""),
                    retry,
                    step["trace"].as_str(),
                )
                .map(|outcome| match outcome {
                    FailOutcome::Retrying(_) => json!("retrying"),
                    FailOutcome::Dead => json!("dead"),
                    FailOutcome::NotHeld(o) => json!(o.as_str()),
                    _ => json!("?"),
                })
            }
            "release" => q
                .release(&self.lease_named(step)?, opt_ms(step, "delay_ms"))
                .map(Json::from),
            "progress" => q
                .progress(&self.lease_named(step)?, &data_bytes(&step["value"])?)
                .map(Json::from),
            "result" => q.result(str_field(step, "id")?).map(|r| {
                r.map_or(
                    Json::Null,
                    |r| json!({"data": data_json(&r.data), "attempts": r.attempts}),
                )
            }),
            "get" => q.get(str_field(step, "id")?).map(job_json),
            "list" => state_arg(step)?.and_then(|state| {
                let start = step["start"].as_u64().unwrap_or(0) as usize;
                let count = step["count"].as_u64().unwrap_or(100) as usize;
                q.list(state, start, count).map(|entries| {
                    Json::Array(
                        entries
                            .into_iter()
                            .map(|e| {
                                let mut entry = json!({"id": e.id, "attempts": e.attempts,
                                       "error": e.error.map(|(m, _)| m)});
                                // Why a dead item died: named only when there is a reason.
                                if let Some(reason) = e.reason {
                                    entry["reason"] = Json::from(reason);
                                }
                                entry
                            })
                            .collect(),
                    )
                })
            }),
            "count" => state_arg(step)?.and_then(|state| q.count(state).map(Json::from)),
            "find" => state_arg(step)?.and_then(|state| {
                let start = step["start"].as_u64().unwrap_or(0) as usize;
                let count = step["count"].as_u64().unwrap_or(100) as usize;
                q.find(
                    state,
                    step["name"].as_str(),
                    step["error_type"].as_str(),
                    start,
                    count,
                )
                .map(|f| {
                    json!({
                        "ids": f.entries.iter().map(|e| data_json(&e.id_bytes)).collect::<Vec<_>>(),
                        "next": f.next,
                        "examined": f.examined,
                    })
                })
            }),
            "promote" => q.promote(str_field(step, "id")?).map(Json::from),
            "upsert_schedule" => match schedule(step)? {
                Ok(s) => q
                    .upsert_schedule(str_field(step, "name")?, &s)
                    .map(Json::from),
                Err(e) => Err(e),
            },
            "remove_schedule" => q.remove_schedule(str_field(step, "name")?).map(Json::from),
            "get_schedule" => q.get_schedule(str_field(step, "name")?).map(schedule_json),
            "schedules" => q
                .schedules(
                    step["start"].as_u64().unwrap_or(0) as usize,
                    step["count"].as_u64().unwrap_or(100) as usize,
                )
                .map(|p| {
                    let names: Vec<&str> = p.schedules.iter().map(|s| s.name.as_str()).collect();
                    json!({"total": p.total, "names": names})
                }),
            "fire_due_schedules" => q
                .fire_due_schedules()
                .map(|r| json!({"fired": r.fired, "skipped": r.skipped})),
            "cancel" => q
                .cancel(str_field(step, "id")?)
                .map(|s| s.map_or(Json::Null, |s| json!(s.as_str()))),
            "dead_requeue" => {
                let ids: Vec<&str> = step["ids"]
                    .as_array()
                    .ok_or("dead_requeue needs `ids`")?
                    .iter()
                    .filter_map(Json::as_str)
                    .collect();
                q.dead_requeue(&ids).map(Json::from)
            }
            "dead_requeue_each" => {
                let ids: Vec<&str> = step["ids"]
                    .as_array()
                    .ok_or("dead_requeue_each needs `ids`")?
                    .iter()
                    .filter_map(Json::as_str)
                    .collect();
                q.dead_requeue_each(&ids).map(Json::from)
            }
            "exists" => q.exists().map(Json::from),
            "dead_requeue_oldest" => q.dead_requeue_oldest(step["n"].as_u64()).map(Json::from),
            "dead_purge" => q.dead_purge(step["n"].as_u64()).map(Json::from),
            "set_config" => {
                let mut config = QueueConfig::new();
                if let Some(m) = step["max_attempts"].as_u64() {
                    config = config.max_attempts(m as u32);
                }
                if let Some(p) = step["priority"].as_i64() {
                    config = config.priority(p as i32);
                }
                if let Some(b) = backoff(&step["backoff"])? {
                    config = config.backoff(b);
                }
                if let Some(d) = opt_ms(step, "expires_after_ms") {
                    config = config.expires_after(d);
                }
                if let Some(d) = opt_ms(step, "keep_result_ms") {
                    config = config.keep_result_for(d);
                }
                if let Some(n) = step["dead_max_count"].as_u64() {
                    config = config.dead_max_count(n);
                }
                if let Some(d) = opt_ms(step, "dead_max_age_ms") {
                    config = config.dead_max_age(d);
                }
                if let Some(on) = step["stats"].as_bool() {
                    config = config.stats(on);
                }
                if let Some(n) = step["capacity"].as_u64() {
                    config = config.capacity(n);
                }
                if let Some(n) = step["group_concurrency"].as_u64() {
                    config = config.group_concurrency(n as u32);
                }
                if let Some(on) = step["events"].as_bool() {
                    config = config.events(on);
                }
                if let Some(n) = step["events_max_len"].as_u64() {
                    config = config.events_max_len(n);
                }
                q.set_config(&config).map(|()| Json::Null)
            }
            "read_events" => q
                .read_events(Some(step["after"].as_str().unwrap_or("0-0")), 1000)
                .map(|page| Json::Array(page.events.iter().map(event_json).collect())),
            "counts_by_name" => q.counts_by_name().map(|counts| {
                counts.map_or(Json::Null, |rows| {
                    rows.into_iter()
                        .map(|c| {
                            json!({"name": c.name, "completed": c.completed,
                                   "failed": c.failed, "dead": c.dead})
                        })
                        .collect()
                })
            }),
            "stats" => q.stats().map(|s| {
                let hour = s.last_hour();
                json!({"waiting": s.waiting, "delayed": s.delayed, "leased": s.leased,
                       "dead": s.dead, "completed": hour.map(|h| h.completed),
                       "failed": hour.map(|h| h.failed)})
            }),
            "complete_and_lease" => {
                let lease = self.lease_named(step)?;
                let got = if step.get("result").is_some() {
                    q.complete_and_lease_with_result(
                        &lease,
                        Some(data_bytes(&step["result"])?.as_slice()),
                        opt_ms(step, "keep_result_ms"),
                        ms(step, "ttl_ms")?,
                    )
                } else {
                    q.complete_and_lease(&lease, ms(step, "ttl_ms")?)
                };
                if let Ok((_, next)) = &got {
                    self.keep(step, next);
                }
                got.map(
                    |(completed, next)| json!({"completed": completed, "next": lease_json(next)}),
                )
            }
            "pause" => q.pause().map(Json::from),
            "resume" => q.resume().map(Json::from),
            "is_paused" => q.is_paused().map(Json::from),
            "pause_group" => q.pause_group(str_field(step, "group")?).map(Json::from),
            "resume_group" => q.resume_group(str_field(step, "group")?).map(Json::from),
            "set_group_limit" => {
                let limit = step["limit"].as_u64().map(|n| n as u32);
                q.set_group_limit(str_field(step, "group")?, limit)
                    .map(|()| Json::Null)
            }
            "rate_limit_group" => q
                .rate_limit_group(str_field(step, "group")?, ms(step, "ms")?)
                .map(|d| Json::from(d.as_millis() as u64)),
            "group" => q.group(str_field(step, "group")?).map(|g| {
                json!({"waiting": g.waiting, "leased": g.leased, "limit": g.limit,
                       "paused": g.paused})
            }),
            "renew" => q
                .renew(&self.lease_named(step)?, ms(step, "ttl_ms")?)
                .map(Json::from),
            "light_clean" | "deep_clean" => {
                let report = if op == "light_clean" {
                    q.light_clean()
                } else {
                    q.deep_clean()
                };
                report.map(|r| json!({"requeued": r.requeued, "removed": r.removed}))
            }
            "queue_len" => q.queue_len().map(Json::from),
            "processing_len" => q.processing_len().map(Json::from),
            "open_queue" => self
                .client
                .queue(str_field(step, "prefix")?)
                .map(|_| Json::Null),
            "raw" => {
                raw(
                    self.url,
                    &self.prefix,
                    step["command"].as_array().ok_or("raw needs `command`")?,
                )?;
                return Ok(None);
            }
            "sleep_ms" => {
                std::thread::sleep(ms(step, "ms")?);
                return Ok(None);
            }
            "state" => {
                let prefix = step["prefix"].as_str().unwrap_or(&self.prefix);
                check_state(self.url, prefix, &step["expect"])?;
                return Ok(None);
            }
            other => return Err(format!("unknown step `{other}`")),
        };
        Ok(Some(result))
    }
}

fn run_case(url: &str, client: &Client, case: &Json) -> Result<(), String> {
    flush(url)?;
    let prefix = case["prefix"].as_str().unwrap_or("{v}").to_owned();
    let queue = client.queue(&prefix).map_err(|e| e.to_string())?;
    let mut runner = Runner {
        url,
        prefix,
        queue,
        client,
        leases: HashMap::new(),
    };
    for (index, step) in case["steps"]
        .as_array()
        .ok_or("case needs `steps`")?
        .iter()
        .enumerate()
    {
        let at = |msg: String| {
            format!(
                "step {index} ({}): {msg}",
                step["do"].as_str().unwrap_or("?")
            )
        };
        let Some(result) = runner.step(step).map_err(at)? else {
            continue;
        };
        match (step.get("expect_error"), result) {
            (Some(code), Err(e)) if code.as_str() == Some(e.code().as_str()) => {
                // `expect_error_names`: the error's message names this argument or key.
                if let Some(name) = step.get("expect_error_names").and_then(Json::as_str) {
                    if !e.to_string().contains(name) {
                        return Err(at(format!("expected an error naming `{name}`, got {e}")));
                    }
                }
            }
            (Some(code), other) => return Err(at(format!("expected error {code}, got {other:?}"))),
            (None, Err(e)) => return Err(at(format!("unexpected error {}: {e}", e.code()))),
            (None, Ok(got)) => {
                let want = step.get("expect").unwrap_or(&Json::Null);
                if !same(want, &got).map_err(at)? {
                    return Err(at(format!("expected {want}, got {got}")));
                }
            }
        }
    }
    Ok(())
}

/// The README gives the number of conformance cases: it must be the suite's, never a number
/// written once by hand and left behind as cases are added.
#[test]
fn the_readme_counts_the_cases_the_suite_runs() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../spec/vectors");
    let mut cases = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|x| x == "json") {
            let doc: Json = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            cases += doc["cases"].as_array().unwrap().len();
        }
    }
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    let said: Vec<usize> = readme
        .split(" shared conformance cases")
        .zip(readme.split(" shared conformance cases").skip(1))
        .filter_map(|(before, _)| before.rsplit(' ').next()?.parse().ok())
        .collect();
    assert_eq!(
        said,
        [cases],
        "README.md must say `{cases} shared conformance cases` (the cases of spec/vectors/*.json)"
    );
}

#[test]
fn every_vector_passes_in_rust() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../spec/vectors");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let server = RedisServer::start();
    let client = Client::connect(&server.url()).unwrap();
    let (mut passed, mut failures) = (0, Vec::new());
    for file in &files {
        let doc: Json = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
        assert_eq!(doc["version"], 2, "{}", file.display());
        for case in doc["cases"].as_array().unwrap() {
            match run_case(&server.url(), &client, case) {
                Ok(()) => passed += 1,
                Err(e) => failures.push(format!("rust: {}: {e}", case["name"])),
            }
        }
    }
    assert!(
        passed >= 40 || !failures.is_empty(),
        "only {passed} cases found"
    );
    assert!(
        failures.is_empty(),
        "{} passed, {} failed:\n{}",
        passed,
        failures.len(),
        failures.join("\n")
    );
    println!("rust vectors: {passed} passed, 0 failed");
}
