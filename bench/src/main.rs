//! The Rust workloads of `make bench`: leaseq (the core crate) and crates.io `redis-work-queue`
//! 0.3, run one at a time by `bench/driver.py`.
//!
//! Protocol with the driver (the same for the Python, Node and C runners):
//! 1. the runner connects and prepares its workload (prefilled items, leases held, ...), then
//!    prints `{"ready": true}` on one line;
//! 2. the driver resets the server's statistics and writes one line (`go`) on stdin;
//! 3. the runner runs the measured part only and prints `{"result": {...}}` on one line;
//! 4. the driver reads the server's statistics and closes stdin; the runner exits.
//!
//! Usage: `leaseq-bench --client leaseq|leaseq-v1|rwq --workload NAME --url URL --prefix P --n N
//!         [--workers W] [--inflight K] [--batch B] [--gap-ms G] [--payload BYTES] [--orphans K]
//!         [--delayed K] [--sleep-ms S] [--duration-ms D] [--groups G] [--partitions P]
//!         [--runtime multi|one|current]`
//!
//! `--runtime`: the tokio runtime every client's workload runs on: `multi` (the default,
//! `#[tokio::main]`'s: a worker thread per CPU), `one` (multi-thread with one worker, as the
//! bindings' runtime) or `current` (current-thread: all on the main thread). On a machine that
//! Redis shares, which is fastest differs from client to client (bench/README.md).
//!
//! `--busy K` (leaseq, `lease_complete`): first K items in group `busy`, whose first item is
//! leased and held to the end (workload `groups_busy`, Tarantool's busy `utube` case).
//! `--groups G` (leaseq, workload `lease_complete`): the prefilled items are grouped (spec
//! 5.20), item i in group `g{i % G}`: G = 10,000 with 100,000 items gives 10,000 groups of 10,
//! G = 1 one group of them all (workloads `groups_10k` and `group_one`, issue 25).
//!
//! Workload `runner`: the runner (leaseq's `Worker`, or a peer's loop) at concurrency `--workers`
//! drains `--n` prefilled items with a handler that sleeps `--sleep-ms` (0: a no-op). With
//! `--duration-ms D` (leaseq only) it stops D ms after `go` instead, whatever is left, and
//! reports what it completed: several runners then share one queue (workload `rate_limit`).
//!
//! Workload `partitioned_runner` (leaseq only; issue 27): `--partitions P`, a partitioned queue
//! of P partitions at base `--prefix` (spec/PROTOCOL.md 5.25), prefilled with `--n` items
//! through the partitioned add_batch (1,000 per call), drained by `Worker::partitioned` at
//! concurrency `--workers` with a no-op handler. `--url` may list a cluster's nodes separated
//! by commas. The result names each partition's prefix and how many items it held, so the
//! driver can tell the items each cluster node served.
//!
//! Workload `follow_latency` (leaseq only; issue 26): with the queue's events on, the time from a
//! complete to a follower of the event stream handing over its `completed` entry, item by item.
//!
//! `leaseq-v1` is protocol v1's scripts (bench/v1/, as of the commit before the job lifecycle)
//! run through redis-rs, for `add_single` and `lease_complete`: the baseline that protocol v2's
//! cost per plain item is held to, measured in the same run.

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::stream::{self, StreamExt};
use serde_json::{json, Value};

type BoxError = Box<dyn std::error::Error + Send + Sync>;
type Res<T> = Result<T, BoxError>;

/// Lease time for items a workload holds: long enough never to expire during a run.
const LONG_TTL: Duration = Duration::from_secs(3600);
/// Lease time of a worker's items: what a typical worker would use.
const WORK_TTL: Duration = Duration::from_secs(30);
/// How many setup calls run at once (setup is not measured; it only needs to be quick).
const SETUP_CONCURRENCY: usize = 64;

#[derive(Clone, Debug)]
struct Args {
    client: String,
    workload: String,
    url: String,
    prefix: String,
    n: usize,
    workers: usize,
    inflight: usize,
    batch: usize,
    gap_ms: u64,
    payload: usize,
    orphans: usize,
    delayed: usize,
    sleep_ms: u64,
    duration_ms: u64,
    /// Groups the prefilled items are spread over (`g{i % groups}`); 0: no groups.
    groups: usize,
    /// Items of one more group, `busy`, added first, whose first item is leased and held for
    /// the whole run: a busy group of that size beside the measured ones (Tarantool's busy
    /// `utube` case); 0: none.
    busy: usize,
    /// Partitions of the queue (workload `partitioned_runner`).
    partitions: usize,
    /// The option every item of `add_batch` carries (issue 27): `delay` (an hour), `priority`
    /// (5), `group` (`g{i % 100}`), or `` for plain items.
    options: String,
    /// The tokio runtime the client runs on: `multi` (`#[tokio::main]`'s, a worker per CPU),
    /// `one` (multi-thread, one worker: what the bindings run on) or `current` (current-thread:
    /// everything on the main thread, as Node's and asyncio's event loops).
    runtime: String,
}

fn parse_args() -> Res<Args> {
    let mut map: HashMap<String, String> = HashMap::new();
    let mut it = std::env::args().skip(1);
    while let Some(key) = it.next() {
        let key = key
            .strip_prefix("--")
            .ok_or_else(|| format!("unexpected argument {key}"))?
            .to_owned();
        let value = it.next().ok_or_else(|| format!("--{key} needs a value"))?;
        map.insert(key, value);
    }
    let get = |k: &str| {
        map.get(k)
            .cloned()
            .ok_or_else(|| format!("--{k} is required"))
    };
    let num = |k: &str, d: usize| -> Res<usize> {
        Ok(map.get(k).map(|v| v.parse()).transpose()?.unwrap_or(d))
    };
    Ok(Args {
        client: get("client")?,
        workload: get("workload")?,
        url: get("url")?,
        prefix: get("prefix")?,
        n: num("n", 1000)?,
        workers: num("workers", 1)?,
        inflight: num("inflight", 0)?,
        batch: num("batch", 1000)?,
        gap_ms: num("gap-ms", 2)? as u64,
        payload: num("payload", 64)?,
        orphans: num("orphans", 0)?,
        delayed: num("delayed", 0)?,
        sleep_ms: num("sleep-ms", 0)? as u64,
        duration_ms: num("duration-ms", 0)? as u64,
        groups: num("groups", 0)?,
        busy: num("busy", 0)?,
        partitions: num("partitions", 1)?,
        options: map.get("options").cloned().unwrap_or_default(),
        runtime: map
            .get("runtime")
            .cloned()
            .unwrap_or_else(|| "multi".into()),
    })
}

/// The runtime `--runtime` names (see [`Args::runtime`]).
fn runtime(name: &str) -> Res<tokio::runtime::Runtime> {
    let mut builder = match name {
        "multi" => tokio::runtime::Builder::new_multi_thread(),
        "one" => {
            let mut b = tokio::runtime::Builder::new_multi_thread();
            b.worker_threads(1);
            b
        }
        "current" => tokio::runtime::Builder::new_current_thread(),
        other => return Err(format!("--runtime {other}: expected multi, one or current").into()),
    };
    Ok(builder.enable_all().build()?)
}

/// The same payload for every client: `size` bytes of printable ASCII.
fn payload(size: usize) -> Vec<u8> {
    (0..size).map(|i| b'a' + (i % 26) as u8).collect()
}

/// A payload that carries the time it was made (ns since `epoch`), padded to `size` bytes.
fn stamped(epoch: Instant, size: usize) -> Vec<u8> {
    let mut data = format!("{:020}", epoch.elapsed().as_nanos()).into_bytes();
    data.resize(size.max(20), b'.');
    data
}

fn stamp_of(data: &[u8]) -> Res<u64> {
    Ok(std::str::from_utf8(&data[..20])?.parse()?)
}

/// CPU time (user + system) this process used so far, in seconds: with the wall time it shows
/// what a client costs even on a busy machine.
fn cpu_seconds() -> f64 {
    // SAFETY: getrusage only writes the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    secs(usage.ru_utime) + secs(usage.ru_stime)
}

/// `cpu_seconds()` when the measured part began (f64 bits).
static CPU_AT_GO: AtomicU64 = AtomicU64::new(0);

fn emit(value: Value) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{value}");
    let _ = out.flush();
}

/// Step 1 and 2 of the protocol: say we are ready, wait for `go`.
async fn ready() -> Res<()> {
    emit(json!({"ready": true}));
    tokio::task::spawn_blocking(|| {
        let mut line = String::new();
        std::io::stdin().lock().read_line(&mut line).map(drop)
    })
    .await??;
    CPU_AT_GO.store(cpu_seconds().to_bits(), Ordering::Relaxed);
    Ok(())
}

/// Steps 3 and 4: print the result, keep the connections open until the driver has read the
/// server's statistics (it closes our stdin then).
async fn finish(mut result: Value) -> Res<()> {
    let start = f64::from_bits(CPU_AT_GO.load(Ordering::Relaxed));
    result["cpu_seconds"] = json!(cpu_seconds() - start);
    emit(json!({ "result": result }));
    tokio::task::spawn_blocking(|| {
        let mut rest = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin().lock(), &mut rest).map(drop)
    })
    .await??;
    Ok(())
}

fn latency_summary(mut samples_us: Vec<f64>) -> Value {
    samples_us.sort_by(|a, b| a.total_cmp(b));
    let pick = |q: f64| {
        let i = ((samples_us.len() as f64 - 1.0) * q).round() as usize;
        samples_us[i]
    };
    json!({
        "samples": samples_us.len(),
        "p50_us": pick(0.5),
        "p99_us": pick(0.99),
        "max_us": samples_us.last().copied().unwrap_or(0.0),
    })
}

fn main() {
    let made = parse_args().and_then(|a| {
        let rt = runtime(&a.runtime)?;
        Ok((a, rt))
    });
    let (args, rt) = match made {
        Ok(made) => made,
        Err(e) => {
            eprintln!("leaseq-bench: {e}");
            std::process::exit(2);
        }
    };
    let outcome = rt.block_on(async {
        match args.client.as_str() {
            "leaseq" => lq::run(&args).await,
            "leaseq-v1" => v1::run(&args).await,
            "rwq" => rwq::run(&args).await,
            other => Err(format!("unknown client {other}").into()),
        }
    });
    if let Err(e) = outcome {
        eprintln!("leaseq-bench {} {}: {e}", args.client, args.workload);
        std::process::exit(1);
    }
}

/// leaseq through its Rust API (async; the bindings use the same core).
mod lq {
    use super::*;
    use leaseq::worker::{Job, JobError, Worker};
    use leaseq::{Client, Item, Queue, Wait};

    /// Item `i` of `add_batch` with the option `options` names (issue 27's adds with options).
    fn with_options(item: Item, options: &str, i: usize) -> Res<Item> {
        Ok(match options {
            "" => item,
            "delay" => item.delay(Duration::from_secs(3600)),
            "priority" => item.priority(5),
            "group" => item.group(format!("g{}", i % 100)),
            other => return Err(format!("unknown --options {other}").into()),
        })
    }

    pub async fn run(a: &Args) -> Res<()> {
        // A cluster's node URLs are separated by commas (workload `partitioned_runner`).
        let client = if a.url.contains(',') {
            Client::connect_cluster(a.url.split(',')).await?
        } else {
            Client::connect(&a.url).await?
        };
        let q = client.queue(&a.prefix)?;
        let data = payload(a.payload);
        match a.workload.as_str() {
            "add_single" => {
                let items: Vec<Item> = (0..a.n).map(|_| Item::new(data.clone())).collect();
                ready().await?;
                let t0 = Instant::now();
                let mut added = 0;
                for item in &items {
                    added += q.add(item).await? as usize;
                }
                let seconds = t0.elapsed().as_secs_f64();
                check(added, a.n, "added")?;
                finish(json!({"items": added, "seconds": seconds})).await
            }
            "add_batch" => {
                let items: Vec<Item> = (0..a.n)
                    .map(|i| with_options(Item::new(data.clone()), &a.options, i))
                    .collect::<Res<_>>()?;
                ready().await?;
                let t0 = Instant::now();
                let mut added = 0;
                for chunk in items.chunks(a.batch) {
                    added += q.add_batch(chunk).await?;
                }
                let seconds = t0.elapsed().as_secs_f64();
                check(added, a.n, "added")?;
                finish(json!({"items": added, "seconds": seconds, "batch": a.batch})).await
            }
            "lease_complete" | "lease_then_complete" => {
                hold_leases(&q, a.inflight, &data, |_| LONG_TTL).await?;
                prefill_delayed(&q, a.delayed, &data, LONG_TTL).await?;
                prefill_busy(&q, a.busy, &data).await?;
                prefill_grouped(&q, a.n, &data, a.groups).await?;
                ready().await?;
                let separate = a.workload == "lease_then_complete";
                let done = Arc::new(AtomicU64::new(0));
                let t0 = Instant::now();
                let mut tasks = Vec::new();
                for _ in 0..a.workers {
                    let (q, done) = (q.clone(), done.clone());
                    tasks.push(tokio::spawn(async move { work(&q, separate, &done).await }));
                }
                for t in tasks {
                    t.await??;
                }
                let seconds = t0.elapsed().as_secs_f64();
                let items = done.load(Ordering::Relaxed) as usize;
                check(items, a.n, "completed")?;
                finish(
                    json!({"items": items, "seconds": seconds, "workers": a.workers,
                    "inflight": a.inflight, "delayed": a.delayed, "groups": a.groups,
                    "busy": a.busy}),
                )
                .await
            }
            "runner" => {
                // leaseq's runner at concurrency `workers`, a no-op (or sleeping) handler, nothing
                // kept of a finished job (like BullMQ's removeOnComplete): the time until it has
                // completed every prefilled item and stopped.
                prefill(&q, a.n, &data).await?;
                ready().await?;
                let (n, sleep) = (a.n as u64, Duration::from_millis(a.sleep_ms));
                let started = Arc::new(AtomicU64::new(0));
                let all_started = Arc::new(tokio::sync::Notify::new());
                let (counter, notify) = (started.clone(), all_started.clone());
                let t0 = Instant::now();
                let worker = Worker::new(q.clone(), move |_job: Job| {
                    if counter.fetch_add(1, Ordering::Relaxed) + 1 == n {
                        notify.notify_one();
                    }
                    async move {
                        if !sleep.is_zero() {
                            tokio::time::sleep(sleep).await;
                        }
                        Ok::<(), JobError>(())
                    }
                })
                .concurrency(a.workers)
                .lease_ttl(WORK_TTL)
                .keep_results(false);
                // Stops (draining what runs, flushing the completes) once the last item started,
                // or after `--duration-ms` when that is given (other runners share the queue).
                let duration = Duration::from_millis(a.duration_ms);
                let report = worker
                    .run_until(async move {
                        if duration.is_zero() {
                            all_started.notified().await
                        } else {
                            tokio::time::sleep(duration).await
                        }
                    })
                    .await?;
                let seconds = t0.elapsed().as_secs_f64();
                if duration.is_zero() {
                    check(report.completed as usize, a.n, "completed")?;
                }
                finish(
                    json!({"items": report.completed, "seconds": seconds, "workers": a.workers,
                    "sleep_ms": a.sleep_ms, "duration_ms": a.duration_ms}),
                )
                .await
            }
            "promote" => {
                // n delayed items, all due by the time the clock starts: one light clean
                // promotes them, 200 per script call; the driver's SLOWLOG tells the longest call.
                prefill_delayed(&q, a.n, &data, Duration::from_millis(1)).await?;
                tokio::time::sleep(Duration::from_millis(50)).await;
                ready().await?;
                let t0 = Instant::now();
                let report = q.light_clean().await?;
                let seconds = t0.elapsed().as_secs_f64();
                check(report.promoted as usize, a.n, "promoted")?;
                finish(json!({"items": a.n, "seconds": seconds, "promoted": report.promoted})).await
            }
            "latency" => {
                let epoch = Instant::now();
                let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<f64>();
                let worker_q = q.clone();
                let n = a.n;
                let worker = tokio::spawn(async move {
                    for _ in 0..n {
                        let lease = worker_q
                            .lease(WORK_TTL, Wait::Forever)
                            .await?
                            .ok_or("a forever lease returned nothing")?;
                        let now = epoch.elapsed().as_nanos() as u64;
                        let sent = stamp_of(lease.data())?;
                        let _ = tx.send((now - sent) as f64 / 1000.0);
                        worker_q.complete(&lease).await?;
                    }
                    Ok::<(), BoxError>(())
                });
                ready().await?;
                let mut samples = Vec::with_capacity(n);
                let t0 = Instant::now();
                for _ in 0..n {
                    // Give the worker time to complete and block again, so each add finds it
                    // idle in its server-side wait.
                    tokio::time::sleep(Duration::from_millis(a.gap_ms)).await;
                    q.add(&Item::new(stamped(epoch, a.payload))).await?;
                    samples.push(rx.recv().await.ok_or("the worker stopped")?);
                }
                let seconds = t0.elapsed().as_secs_f64();
                worker.await??;
                let mut result = latency_summary(samples);
                result["items"] = json!(n);
                result["seconds"] = json!(seconds);
                finish(result).await
            }
            "follow_latency" => {
                // Issue 26 (events): from a complete to a follower of the queue's event stream
                // seeing it. Events on; one item at a time is added and leased, then the clock
                // starts, the complete is sent, and it stops when the follower (a task with its
                // own connection, waiting in XREAD) hands over that item's `completed` entry.
                q.set_config(&leaseq::QueueConfig::new().events(true))
                    .await?;
                let mut follower = q.events(leaseq::EventsFrom::Now).await?;
                let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<(String, Instant)>();
                let follow = tokio::spawn(async move {
                    loop {
                        let e = follower.next().await?;
                        if e.event == "completed" && tx.send((e.job_id, Instant::now())).is_err() {
                            return Ok::<(), BoxError>(());
                        }
                    }
                });
                ready().await?;
                let mut samples = Vec::with_capacity(a.n);
                let t0 = Instant::now();
                for i in 0..a.n {
                    let id = format!("f{i}");
                    q.add(&Item::with_id(id.clone(), data.clone())?).await?;
                    let lease = q
                        .lease(WORK_TTL, Wait::No)
                        .await?
                        .ok_or("the item just added was not leased")?;
                    let sent = Instant::now();
                    q.complete(&lease).await?;
                    loop {
                        let (seen, at) = rx.recv().await.ok_or("the follower stopped")?;
                        if seen == id {
                            samples.push(at.duration_since(sent).as_secs_f64() * 1e6);
                            break;
                        }
                    }
                }
                let seconds = t0.elapsed().as_secs_f64();
                follow.abort();
                let mut result = latency_summary(samples);
                result["items"] = json!(a.n);
                result["seconds"] = json!(seconds);
                finish(result).await
            }
            "light_clean" => {
                // 1% of the leases expire at once (1 ms), spread evenly over processing.
                hold_leases(&q, a.n, &data, |i| {
                    if i % 100 == 0 {
                        Duration::from_millis(1)
                    } else {
                        LONG_TTL
                    }
                })
                .await?;
                tokio::time::sleep(Duration::from_millis(200)).await;
                ready().await?;
                let t0 = Instant::now();
                let report = q.light_clean().await?;
                let seconds = t0.elapsed().as_secs_f64();
                finish(json!({"items": a.n, "seconds": seconds,
                    "requeued": report.requeued, "removed": report.removed}))
                .await
            }
            "deep_clean" => {
                // n items: all queued through leaseq but `--orphans` of them, which are item keys
                // on no list, as a crashed redis-work-queue producer leaves them.
                let orphans = a.orphans.min(a.n);
                prefill(&q, a.n - orphans, &data).await?;
                make_orphans(&a.url, &a.prefix, orphans, &data).await?;
                ready().await?;
                let t0 = Instant::now();
                let report = q.deep_clean().await?;
                let seconds = t0.elapsed().as_secs_f64();
                check(report.requeued as usize, orphans, "requeued")?;
                finish(json!({"items": a.n, "seconds": seconds,
                    "requeued": report.requeued, "removed": report.removed}))
                .await
            }
            "call_costs" => {
                // Where the time of one leaseq call goes, call after call on one connection:
                // a plain PING through redis-rs (the round trip), leaseq's queue_len (one LLEN
                // through leaseq's connection: the client-side cost), an EVALSHA of `return 1`
                // (the script call itself), and a lease of an empty queue (leaseq's lease script,
                // one LMOVE). Each in microseconds per call.
                let raw = redis::Client::open(a.url.as_str())?;
                let mut conn = raw.get_multiplexed_async_connection().await?;
                let trivial = redis::Script::new("return 1");
                let _: i64 = trivial.invoke_async(&mut conn).await?;
                q.lease(WORK_TTL, Wait::No).await?;
                ready().await?;
                let t0 = Instant::now();
                let mut costs = serde_json::Map::new();
                let per_call = |t: Instant| t.elapsed().as_secs_f64() * 1e6 / a.n as f64;
                let t = Instant::now();
                for _ in 0..a.n {
                    let _: String = redis::cmd("PING").query_async(&mut conn).await?;
                }
                costs.insert("redis-rs 1.8 PING".into(), json!(per_call(t)));
                // The same through redis-rs 0.26, the version redis-work-queue 0.3 uses.
                let mut old = redis026::Client::open(a.url.as_str())?
                    .get_multiplexed_async_connection()
                    .await?;
                let t = Instant::now();
                for _ in 0..a.n {
                    let _: String = redis026::cmd("PING").query_async(&mut old).await?;
                }
                costs.insert("redis-rs 0.26 PING".into(), json!(per_call(t)));
                let t = Instant::now();
                for _ in 0..a.n {
                    let _: i64 = trivial.invoke_async(&mut conn).await?;
                }
                costs.insert("redis-rs 1.8 EVALSHA return 1".into(), json!(per_call(t)));
                let t = Instant::now();
                for _ in 0..a.n {
                    q.queue_len().await?;
                }
                costs.insert("leaseq queue_len (LLEN)".into(), json!(per_call(t)));
                let t = Instant::now();
                for _ in 0..a.n {
                    q.lease(WORK_TTL, Wait::No).await?;
                }
                costs.insert("leaseq lease, empty queue".into(), json!(per_call(t)));
                prefill(&q, a.n, &data).await?;
                let t = Instant::now();
                let done = AtomicU64::new(0);
                work(&q, false, &done).await?;
                costs.insert("leaseq complete_and_lease".into(), json!(per_call(t)));
                let seconds = t0.elapsed().as_secs_f64();
                finish(json!({"items": a.n, "seconds": seconds, "costs_us": costs})).await
            }
            "partitioned_runner" => partitioned_runner(&client, a, &data).await,
            other => Err(format!("unknown workload {other}").into()),
        }
    }

    /// Workload `partitioned_runner`: `Worker::partitioned` at concurrency `--workers` draining
    /// `--n` items prefilled through the partitioned add_batch over `--partitions` partitions.
    async fn partitioned_runner(client: &Client, a: &Args, data: &[u8]) -> Res<()> {
        let pq = client.create_partitioned(&a.prefix, a.partitions).await?;
        let mut per_partition = vec![0usize; pq.count()];
        let items: Vec<Item> = (0..a.n).map(|_| Item::new(data.to_vec())).collect();
        for item in &items {
            per_partition[pq.partition_of(item)?] += 1;
        }
        let mut added = 0;
        for chunk in items.chunks(1000) {
            added += pq.add_batch(chunk).await?;
        }
        check(added, a.n, "added")?;
        drop(items);
        ready().await?;
        let n = a.n as u64;
        let started = Arc::new(AtomicU64::new(0));
        let all_started = Arc::new(tokio::sync::Notify::new());
        let (counter, notify) = (started.clone(), all_started.clone());
        let t0 = Instant::now();
        let worker = Worker::partitioned(&pq, move |_job: Job| {
            if counter.fetch_add(1, Ordering::Relaxed) + 1 == n {
                notify.notify_one();
            }
            async { Ok::<(), JobError>(()) }
        })
        .concurrency(a.workers)
        .lease_ttl(WORK_TTL)
        .keep_results(false);
        let report = worker
            .run_until(async move { all_started.notified().await })
            .await?;
        let seconds = t0.elapsed().as_secs_f64();
        check(report.completed as usize, a.n, "completed")?;
        let partitions: Vec<Value> = pq
            .partitions()
            .iter()
            .zip(&per_partition)
            .map(|(q, items)| json!({"prefix": q.prefix(), "items": items}))
            .collect();
        finish(
            json!({"items": report.completed, "seconds": seconds, "workers": a.workers,
            "partitions": partitions}),
        )
        .await
    }

    /// A busy worker: one round trip per item with complete_and_lease (or two, lease then
    /// complete, when `separate`).
    async fn work(q: &Queue, separate: bool, done: &AtomicU64) -> Res<()> {
        if separate {
            while let Some(lease) = q.lease(WORK_TTL, Wait::No).await? {
                q.complete(&lease).await?;
                done.fetch_add(1, Ordering::Relaxed);
            }
            return Ok(());
        }
        let mut next = q.lease(WORK_TTL, Wait::No).await?;
        while let Some(lease) = next {
            let (completed, following) = q.complete_and_lease(&lease, WORK_TTL).await?;
            if !completed {
                return Err(format!("complete of {} returned false", lease.id()).into());
            }
            done.fetch_add(1, Ordering::Relaxed);
            next = following;
        }
        Ok(())
    }

    async fn prefill(q: &Queue, n: usize, data: &[u8]) -> Res<()> {
        prefill_grouped(q, n, data, 0).await
    }

    /// Adds `n` items; with `groups` > 0 item i is in group `g{i % groups}` (so consecutive
    /// items are in different groups, and every group holds about n / groups of them).
    async fn prefill_grouped(q: &Queue, n: usize, data: &[u8], groups: usize) -> Res<()> {
        let mut i = 0;
        while i < n {
            let k = (n - i).min(10_000);
            let items: Vec<Item> = (i..i + k)
                .map(|j| {
                    let item = Item::new(data.to_vec());
                    if groups > 0 {
                        item.group(format!("g{}", j % groups))
                    } else {
                        item
                    }
                })
                .collect();
            check(q.add_batch(&items).await?, k, "added")?;
            i += k;
        }
        Ok(())
    }

    /// Adds `n` items to group `busy` and leases its first for [`LONG_TTL`], kept to the end:
    /// the group is busy (at its limit of 1) with `n - 1` items waiting in it.
    async fn prefill_busy(q: &Queue, n: usize, data: &[u8]) -> Res<()> {
        if n == 0 {
            return Ok(());
        }
        let mut left = n;
        while left > 0 {
            let k = left.min(10_000);
            let items: Vec<Item> = (0..k)
                .map(|_| Item::new(data.to_vec()).group("busy"))
                .collect();
            check(q.add_batch(&items).await?, k, "added")?;
            left -= k;
        }
        let held = q.lease(LONG_TTL, Wait::No).await?;
        // (The lease stays in Redis until LONG_TTL; nothing here completes it.)
        check(usize::from(held.is_some()), 1, "busy group's leases")?;
        Ok(())
    }

    /// Adds `n` items delayed by `delay`.
    async fn prefill_delayed(q: &Queue, n: usize, data: &[u8], delay: Duration) -> Res<()> {
        let mut left = n;
        while left > 0 {
            let k = left.min(10_000);
            let items: Vec<Item> = (0..k)
                .map(|_| Item::new(data.to_vec()).delay(delay))
                .collect();
            check(q.add_batch(&items).await?, k, "delayed")?;
            left -= k;
        }
        Ok(())
    }

    /// Adds `n` items and leases them all, the i-th lease for `ttl(i)`, and keeps them leased.
    async fn hold_leases(
        q: &Queue,
        n: usize,
        data: &[u8],
        ttl: impl Fn(usize) -> Duration,
    ) -> Res<()> {
        if n == 0 {
            return Ok(());
        }
        prefill(q, n, data).await?;
        let results: Vec<_> = stream::iter(0..n)
            .map(|i| {
                let ttl = ttl(i);
                async move { q.lease(ttl, Wait::No).await }
            })
            .buffer_unordered(SETUP_CONCURRENCY)
            .collect()
            .await;
        let mut held = 0;
        for r in results {
            held += r?.is_some() as usize;
        }
        check(held, n, "leased")
    }

    async fn make_orphans(url: &str, prefix: &str, n: usize, data: &[u8]) -> Res<()> {
        let mut conn = redis026::Client::open(url)?
            .get_multiplexed_async_connection()
            .await?;
        let mut left = n;
        while left > 0 {
            let k = left.min(10_000);
            let mut pipe = redis026::pipe();
            for _ in 0..k {
                let id = uuid::Uuid::new_v4();
                pipe.cmd("SET")
                    .arg(format!("{prefix}:item:{id}"))
                    .arg(data)
                    .ignore();
            }
            pipe.query_async::<()>(&mut conn).await?;
            left -= k;
        }
        Ok(())
    }
}

/// Protocol v1 (the scripts before the job lifecycle, kept in bench/v1/) through redis-rs: the
/// baseline of a plain item's cost. Only what `add_single` and `lease_complete` need.
mod v1 {
    use super::*;
    use redis::aio::MultiplexedConnection;
    use redis::{Script, Value as RValue};

    const LIB: &str = include_str!("../v1/lib.lua");

    fn script(body: &str) -> Script {
        Script::new(&format!("{LIB}\n{body}"))
    }

    struct V1 {
        keys: [String; 5],
        add: Script,
        lease: Script,
        complete_and_lease: Script,
    }

    impl V1 {
        fn new(prefix: &str) -> V1 {
            V1 {
                keys: ["queue", "processing", "lease_count", "lease:", "item:"]
                    .map(|k| format!("{prefix}:{k}")),
                add: script(include_str!("../v1/add.lua")),
                lease: script(include_str!("../v1/lease.lua")),
                complete_and_lease: script(include_str!("../v1/complete_and_lease.lua")),
            }
        }

        fn token() -> String {
            uuid::Uuid::new_v4().simple().to_string()
        }

        /// A lease reply: the id, or `None` for an empty queue.
        fn leased(value: RValue) -> Res<Option<Vec<u8>>> {
            match value {
                RValue::Nil => Ok(None),
                RValue::Array(mut parts) if parts.len() == 3 => match parts.swap_remove(0) {
                    RValue::BulkString(id) => Ok(Some(id)),
                    other => Err(format!("v1 lease: {other:?}").into()),
                },
                other => Err(format!("v1 lease: {other:?}").into()),
            }
        }
    }

    pub async fn run(a: &Args) -> Res<()> {
        let mut conn: MultiplexedConnection = redis::Client::open(a.url.as_str())?
            .get_multiplexed_async_connection()
            .await?;
        let v1 = V1::new(&a.prefix);
        let data = payload(a.payload);
        let ttl = WORK_TTL.as_millis() as u64;
        match a.workload.as_str() {
            "add_single" => {
                let ids: Vec<String> = (0..a.n).map(|_| uuid::Uuid::new_v4().to_string()).collect();
                ready().await?;
                let t0 = Instant::now();
                let mut added = 0;
                for id in &ids {
                    let n: i64 = v1
                        .add
                        .key(&v1.keys[..])
                        .arg(id)
                        .arg(&data)
                        .invoke_async(&mut conn)
                        .await?;
                    added += n as usize;
                }
                let seconds = t0.elapsed().as_secs_f64();
                check(added, a.n, "added")?;
                finish(json!({"items": added, "seconds": seconds})).await
            }
            "lease_complete" => {
                let mut left = a.n;
                while left > 0 {
                    let k = left.min(1000);
                    let mut inv = v1.add.key(&v1.keys[..]);
                    for _ in 0..k {
                        inv.arg(uuid::Uuid::new_v4().to_string()).arg(&data);
                    }
                    let _: i64 = inv.invoke_async(&mut conn).await?;
                    left -= k;
                }
                ready().await?;
                let t0 = Instant::now();
                let mut done = 0;
                let reply: RValue = v1
                    .lease
                    .key(&v1.keys[..])
                    .arg(V1::token())
                    .arg(ttl)
                    .invoke_async(&mut conn)
                    .await?;
                let mut next = V1::leased(reply)?;
                while let Some(id) = next {
                    let reply: RValue = v1
                        .complete_and_lease
                        .key(&v1.keys[..])
                        .arg(id)
                        .arg(V1::token())
                        .arg(ttl)
                        .invoke_async(&mut conn)
                        .await?;
                    let RValue::Array(mut parts) = reply else {
                        return Err("v1 complete_and_lease".into());
                    };
                    let following = parts.pop().unwrap_or(RValue::Nil);
                    if parts.pop() != Some(RValue::Int(1)) {
                        return Err("a v1 complete returned false".into());
                    }
                    done += 1;
                    next = V1::leased(following)?;
                }
                let seconds = t0.elapsed().as_secs_f64();
                check(done, a.n, "completed")?;
                finish(json!({"items": done, "seconds": seconds, "workers": 1})).await
            }
            other => Err(format!("leaseq-v1 has no workload {other}").into()),
        }
    }
}

/// crates.io `redis-work-queue` 0.3 (its own redis 0.26 connections).
mod rwq {
    use super::*;
    use redis026::aio::MultiplexedConnection;
    use redis_work_queue::{Item, KeyPrefix, WorkQueue};

    async fn connect(url: &str) -> Res<MultiplexedConnection> {
        Ok(redis026::Client::open(url)?
            .get_multiplexed_async_connection()
            .await?)
    }

    pub async fn run(a: &Args) -> Res<()> {
        let mut conn = connect(&a.url).await?;
        let wq = Arc::new(WorkQueue::new(KeyPrefix::new(a.prefix.clone())));
        let data = payload(a.payload);
        let item = |d: &[u8]| Item::new(d.to_vec().into_boxed_slice());
        match a.workload.as_str() {
            "add_single" => {
                let items: Vec<Item> = (0..a.n).map(|_| item(&data)).collect();
                ready().await?;
                let t0 = Instant::now();
                let mut added = 0;
                for it in &items {
                    added += wq.add_item(&mut conn, it).await? as usize;
                }
                let seconds = t0.elapsed().as_secs_f64();
                check(added, a.n, "added")?;
                finish(json!({"items": added, "seconds": seconds})).await
            }
            "add_batch" => {
                // Its batch path: add_unique_item_to_pipeline, one pipeline per batch.
                let items: Vec<Item> = (0..a.n).map(|_| item(&data)).collect();
                ready().await?;
                let t0 = Instant::now();
                for chunk in items.chunks(a.batch) {
                    add_pipelined(&wq, &mut conn, chunk).await?;
                }
                let seconds = t0.elapsed().as_secs_f64();
                finish(json!({"items": a.n, "seconds": seconds, "batch": a.batch})).await
            }
            // Its runner is this loop: `workers` tasks, each leasing, handling (sleeping
            // `sleep_ms`, or nothing) and completing one item at a time.
            "lease_complete" | "lease_then_complete" | "runner" => {
                hold_leases(&wq, &mut conn, a.inflight, &data).await?;
                prefill(&wq, &mut conn, a.n, &data).await?;
                ready().await?;
                let done = Arc::new(AtomicU64::new(0));
                let t0 = Instant::now();
                let mut tasks = Vec::new();
                for _ in 0..a.workers {
                    let (wq, done, mut conn) = (wq.clone(), done.clone(), conn.clone());
                    let sleep = Duration::from_millis(a.sleep_ms);
                    tasks.push(tokio::spawn(async move {
                        while let Some(it) = wq
                            .lease(&mut conn, Some(Duration::ZERO), WORK_TTL)
                            .await
                            .map_err(|e| e.to_string())?
                        {
                            if !sleep.is_zero() {
                                tokio::time::sleep(sleep).await;
                            }
                            if !wq
                                .complete(&mut conn, &it)
                                .await
                                .map_err(|e| e.to_string())?
                            {
                                return Err(format!("complete of {} returned false", it.id));
                            }
                            done.fetch_add(1, Ordering::Relaxed);
                        }
                        Ok::<(), String>(())
                    }));
                }
                for t in tasks {
                    t.await??;
                }
                let seconds = t0.elapsed().as_secs_f64();
                let items = done.load(Ordering::Relaxed) as usize;
                check(items, a.n, "completed")?;
                finish(
                    json!({"items": items, "seconds": seconds, "workers": a.workers,
                    "inflight": a.inflight}),
                )
                .await
            }
            "latency" => {
                let epoch = Instant::now();
                let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<f64>();
                // The worker blocks in BRPOPLPUSH: a connection of its own.
                let mut wconn = connect(&a.url).await?;
                let wwq = wq.clone();
                let n = a.n;
                let worker = tokio::spawn(async move {
                    for _ in 0..n {
                        let it = wwq
                            .lease(&mut wconn, None, WORK_TTL)
                            .await
                            .map_err(|e| e.to_string())?
                            .ok_or("a blocking lease returned nothing")?;
                        let now = epoch.elapsed().as_nanos() as u64;
                        let sent = stamp_of(&it.data).map_err(|e| e.to_string())?;
                        let _ = tx.send((now - sent) as f64 / 1000.0);
                        wwq.complete(&mut wconn, &it)
                            .await
                            .map_err(|e| e.to_string())?;
                    }
                    Ok::<(), String>(())
                });
                ready().await?;
                let mut samples = Vec::with_capacity(n);
                let t0 = Instant::now();
                for _ in 0..n {
                    tokio::time::sleep(Duration::from_millis(a.gap_ms)).await;
                    wq.add_item(&mut conn, &item(&stamped(epoch, a.payload)))
                        .await?;
                    samples.push(rx.recv().await.ok_or("the worker stopped")?);
                }
                let seconds = t0.elapsed().as_secs_f64();
                worker.await??;
                let mut result = latency_summary(samples);
                result["items"] = json!(n);
                result["seconds"] = json!(seconds);
                finish(result).await
            }
            other => Err(format!("unknown workload {other} for rwq").into()),
        }
    }

    async fn add_pipelined(
        wq: &WorkQueue,
        conn: &mut MultiplexedConnection,
        items: &[Item],
    ) -> Res<()> {
        let mut pipe = redis026::pipe();
        for it in items {
            wq.add_unique_item_to_pipeline(&mut pipe, it);
        }
        pipe.query_async::<()>(conn).await?;
        Ok(())
    }

    async fn prefill(
        wq: &WorkQueue,
        conn: &mut MultiplexedConnection,
        n: usize,
        data: &[u8],
    ) -> Res<()> {
        let mut left = n;
        while left > 0 {
            let k = left.min(1000);
            let items: Vec<Item> = (0..k)
                .map(|_| Item::new(data.to_vec().into_boxed_slice()))
                .collect();
            add_pipelined(wq, conn, &items).await?;
            left -= k;
        }
        Ok(())
    }

    async fn hold_leases(
        wq: &WorkQueue,
        conn: &mut MultiplexedConnection,
        n: usize,
        data: &[u8],
    ) -> Res<()> {
        if n == 0 {
            return Ok(());
        }
        prefill(wq, conn, n, data).await?;
        let results: Vec<_> = stream::iter(0..n)
            .map(|_| {
                let mut conn = conn.clone();
                async move { wq.lease(&mut conn, Some(Duration::ZERO), LONG_TTL).await }
            })
            .buffer_unordered(SETUP_CONCURRENCY)
            .collect()
            .await;
        let mut held = 0;
        for r in results {
            held += r?.is_some() as usize;
        }
        check(held, n, "leased")
    }
}

fn check(got: usize, want: usize, what: &str) -> Res<()> {
    if got == want {
        Ok(())
    } else {
        Err(format!("{what} {got} items, expected {want}").into())
    }
}
