//! The drain soak (`leaseq-soak --drain`, `make soak-drain`; README.md): what
//! redis-work-queue's own cross-language suite checks (issue 30). redis-work-queue and leaseq
//! clients, mixed, drain several queues through kills, connection cuts, corruption and cleaning;
//! at the end the whole database must hold nothing but what the test itself wrote: the results
//! queue's `R:queue` and `R:item:*`.
//!
//! ```text
//! leaseq-soak --drain [--items N] [--minutes M] [--worker LANG=COMMAND]...
//! ```
//!
//! - queues: `<lang>_jobs` for each leaseq language, `rwq_jobs` and `shared_jobs`;
//! - producers: every leaseq language (plain items: Rust with `add`, the others with
//!   `add_batch`) and the redis-work-queue crate (`add_item`, `add_unique_item`), each adding its
//!   share round-robin over every queue;
//! - workers (`LEASEQ_SOAK_MISBEHAVE=plain`: lease, complete, drop, oversleep, complete twice):
//!   two per leaseq language on its own queue and the shared one, two redis-work-queue ones on
//!   every queue;
//! - faults: the killer, the cleaner's corruption, and a `CLIENT KILL TYPE normal` storm;
//! - cleaning: leaseq's light and deep clean (the redis-work-queue crate 0.3 has no cleaner).

use std::collections::{BTreeMap, HashSet};
use std::future::Future;
use std::time::{Duration, Instant};

use leaseq::{CleanReport, Client, Queue};
use leaseq_harness::RedisServer;
use leaseq_soak::{Dice, TTL};

use crate::fleet::Fleet;
use crate::{chaos, faults, report};

/// The results queue: the only keys the test writes itself.
const RESULTS: &str = "drain_results";
const SHARED: &str = "shared_jobs";
const RWQ: &str = "redis-work-queue";
const RWQ_QUEUE: &str = "rwq_jobs";
const WORKERS_PER_LANG: usize = 2;
/// How long the `CLIENT KILL` storm lasts (a kill every 100 ms).
const STORM: Duration = Duration::from_secs(3);
/// The longest lease any worker takes: redis-work-queue's, whole seconds.
const LONGEST_LEASE: Duration = Duration::from_secs(1);

struct Options {
    items: u64,
    deadline: Duration,
    langs: Vec<(String, Vec<String>)>,
}

fn options(args: impl Iterator<Item = String>, rust: Vec<String>) -> Options {
    let mut opts = Options {
        items: 2000,
        deadline: Duration::from_secs(120),
        langs: vec![("rust".into(), rust)],
    };
    let mut args = args.peekable();
    while let Some(arg) = args.next() {
        let mut value = |what: &str| args.next().unwrap_or_else(|| panic!("{arg} needs {what}"));
        match arg.as_str() {
            "--items" => opts.items = value("N").parse().expect("--items N"),
            "--minutes" => {
                opts.deadline =
                    Duration::from_secs_f64(value("M").parse::<f64>().expect("--minutes M") * 60.0)
            }
            "--worker" => opts
                .langs
                .push(crate::worker_option(&value("LANG=COMMAND"))),
            other => panic!("unknown argument {other}"),
        }
    }
    opts
}

/// A leaseq call of the orchestrator, tried again while the storm cuts its connection.
async fn retrying<T, F, Fut>(what: &str, mut call: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = leaseq::Result<T>>,
{
    loop {
        match call().await {
            Ok(value) => return value,
            Err(e) if e.is_retryable() => tokio::time::sleep(Duration::from_millis(100)).await,
            Err(e) => panic!("{what}: {e}"),
        }
    }
}

async fn light_clean(queues: &[Queue]) -> CleanReport {
    let mut report = CleanReport::default();
    for q in queues {
        report += retrying("light clean", || q.light_clean()).await;
    }
    report
}

async fn deep_clean(queues: &[Queue]) -> CleanReport {
    let mut report = CleanReport::default();
    for q in queues {
        report += retrying("deep clean", || q.deep_clean()).await;
    }
    report
}

/// Drained: nothing in any list, and a deep clean finds nothing to put back.
async fn drained(queues: &[Queue], cleaned: &mut CleanReport) -> bool {
    if crate::in_lists(queues).await > 0 {
        return false;
    }
    let report = deep_clean(queues).await;
    let requeued = report.requeued;
    *cleaned += report;
    requeued == 0
}

/// Every key of the database (SCAN with COUNT, never KEYS), sorted.
async fn every_key(url: &str) -> Vec<String> {
    let mut conn = redis::Client::open(url)
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap();
    let mut keys = Vec::new();
    let mut cursor: u64 = 0;
    loop {
        let (next, page): (u64, Vec<String>) = redis::cmd("SCAN")
            .arg(cursor)
            .arg("COUNT")
            .arg(1000)
            .query_async(&mut conn)
            .await
            .unwrap();
        keys.extend(page);
        if next == 0 {
            break;
        }
        cursor = next;
    }
    keys.sort();
    keys.dedup();
    keys
}

/// A key's type and time to live, for the report of a key left behind.
async fn describe(url: &str, key: &str) -> String {
    let mut conn = redis::Client::open(url)
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap();
    let kind: String = redis::cmd("TYPE")
        .arg(key)
        .query_async(&mut conn)
        .await
        .unwrap_or_default();
    let ttl: i64 = redis::cmd("PTTL")
        .arg(key)
        .query_async(&mut conn)
        .await
        .unwrap_or(-2);
    let ttl = if ttl >= 0 {
        format!("expires in {:.1}s", ttl as f64 / 1000.0)
    } else {
        "no expiry".to_owned()
    };
    format!("{key} ({kind}, {ttl})")
}

pub async fn main(args: impl Iterator<Item = String>, rust: Vec<String>, rwq: Vec<String>) {
    let opts = options(args, rust);
    let server = RedisServer::start();
    let url = server.url();
    let langs: Vec<String> = opts.langs.iter().map(|l| l.0.clone()).collect();
    // One queue per leaseq language, one for the redis-work-queue worker, one shared by all.
    let mut names: Vec<String> = langs.iter().map(|l| format!("{l}_jobs")).collect();
    names.push(RWQ_QUEUE.into());
    names.push(SHARED.into());
    let mut queues_of: BTreeMap<String, Vec<String>> = langs
        .iter()
        .map(|l| (l.clone(), vec![format!("{l}_jobs"), SHARED.to_owned()]))
        .collect();
    // The redis-work-queue workers take from every queue, theirs and the shared one first.
    let mut every = vec![RWQ_QUEUE.to_owned(), SHARED.to_owned()];
    every.extend(langs.iter().map(|l| format!("{l}_jobs")));
    queues_of.insert(RWQ.into(), every);
    let mut commands: BTreeMap<String, Vec<String>> = opts.langs.iter().cloned().collect();
    commands.insert(RWQ.into(), rwq);

    let client = Client::connect(&url).await.unwrap();
    let queues: Vec<Queue> = names.iter().map(|p| client.queue(p).unwrap()).collect();
    let mut fleet = Fleet::new(&url, commands, queues_of, RESULTS);
    fleet.misbehave = Some("plain");
    println!(
        "drain: {} items on {} queues ({}), results in {RESULTS}; leaseq workers: {}; and {RWQ}",
        opts.items,
        names.len(),
        names.join(", "),
        langs.join(", ")
    );

    // Producers: every leaseq language and the redis-work-queue crate, round-robin over every
    // queue.
    let producing: Vec<String> = fleet.commands.keys().cloned().collect();
    let share = opts.items / producing.len() as u64;
    let mut expected: Vec<(String, String)> = Vec::new();
    let mut producers = Vec::new();
    for (i, lang) in producing.iter().enumerate() {
        let count = if i + 1 == producing.len() {
            opts.items - share * i as u64
        } else {
            share
        };
        expected.extend((0..count).map(|n| {
            (
                names[(n % names.len() as u64) as usize].clone(),
                format!("{lang}-{n}"),
            )
        }));
        let mode = ["produce".into(), "0".into(), count.to_string()];
        producers.push((lang.clone(), fleet.spawn(lang, &mode, &names)));
    }
    for lang in fleet.commands.keys().cloned().collect::<Vec<_>>() {
        for _ in 0..WORKERS_PER_LANG {
            fleet.start_worker(&lang);
        }
    }

    let started = Instant::now();
    let total = expected.len() as u64;
    let mut dice = Dice::new();
    let mut cleaned = CleanReport::default();
    let mut problems: Vec<String> = Vec::new();
    let (mut last_light, mut last_deep, mut last_kill, mut last_report) = (
        Instant::now(),
        Instant::now(),
        Instant::now(),
        Instant::now(),
    );
    let mut storm: Option<tokio::task::JoinHandle<u64>> = None;
    let mut storm_at = Duration::ZERO;
    let name_refs: Vec<&str> = names.iter().map(String::as_str).collect();
    loop {
        tokio::time::sleep(Duration::from_millis(50)).await;
        producers.retain_mut(|(lang, p)| match p.try_wait().unwrap() {
            Some(status) => {
                if !status.success() {
                    problems.push(format!("the {lang} producer failed: {status}"));
                }
                false
            }
            None => true,
        });
        let producers_done = producers.is_empty();
        fleet.crashed(&mut problems, started.elapsed());
        if last_light.elapsed() >= TTL {
            cleaned += light_clean(&queues).await;
            chaos::corrupt(&url, &name_refs, &mut dice).await;
            last_light = Instant::now();
        }
        if last_deep.elapsed() >= Duration::from_secs(4) {
            cleaned += deep_clean(&queues).await;
            last_deep = Instant::now();
        }
        let left = crate::in_lists(&queues).await;
        let done = if producers_done {
            total.saturating_sub(left)
        } else {
            0
        };
        // A quarter of the way, once every item is added: cut every client's connection,
        // every 100 ms for a few seconds (ours too: the orchestrator tries again).
        if producers_done && storm.is_none() && done >= total / 4 {
            let port = server.port();
            storm_at = started.elapsed();
            println!(
                "drain: {:>5.1}s  CLIENT KILL TYPE normal every 100 ms for {}s",
                storm_at.as_secs_f64(),
                STORM.as_secs()
            );
            storm = Some(tokio::task::spawn_blocking(move || {
                faults::inject::client_kill_storm(&[port], STORM)
            }));
        }
        if left > 0
            && last_kill.elapsed() >= Duration::from_millis(1200 + 100 * u64::from(dice.below(10)))
        {
            let at = dice.below(fleet.workers.len() as u32) as usize;
            fleet.kill(at, true);
            last_kill = Instant::now();
        }
        if last_report.elapsed() >= Duration::from_secs(5) {
            println!(
                "drain: {:>5.1}s  ids in lists {left:>6}  kills {}",
                started.elapsed().as_secs_f64(),
                fleet.kills.values().sum::<u32>()
            );
            last_report = Instant::now();
        }
        let storm_over = storm.as_ref().is_some_and(|s| s.is_finished());
        if producers_done && storm_over && left == 0 && drained(&queues, &mut cleaned).await {
            // Drained twice, a TTL apart: nothing was in flight at the first look.
            tokio::time::sleep(TTL * 2).await;
            if drained(&queues, &mut cleaned).await {
                break;
            }
        }
        if started.elapsed() > opts.deadline {
            problems.push(format!("not drained after {:?}", opts.deadline));
            break;
        }
    }
    let elapsed = started.elapsed();
    fleet.stop();
    let storm_kills = match storm {
        Some(s) => s.await.unwrap(),
        None => 0,
    };
    // Every lease a stopped worker held has expired (the longest is redis-work-queue's);
    // then the last cleaning, as an operator's would be: a light clean, then a deep clean (the
    // only one to remove the `P:job:X` records that redis-work-queue completes leave behind).
    tokio::time::sleep(LONGEST_LEASE + Duration::from_millis(100)).await;
    let last_light_clean = light_clean(&queues).await;
    let last_deep_clean = deep_clean(&queues).await;
    let last_requeued = last_light_clean.requeued + last_deep_clean.requeued;
    cleaned += last_light_clean;
    cleaned += last_deep_clean;
    if last_requeued > 0 {
        problems.push(format!(
            "the final clean put back {last_requeued} items the workers left"
        ));
    }

    let records = report::read(&url, RESULTS).await;
    let twice = records.completed_twice();
    let unrecorded = records.unrecorded(&expected);
    let total_kills: u32 = fleet.kills.values().sum();
    let expected_set: HashSet<&(String, String)> = expected.iter().collect();
    let strangers: Vec<&(String, String)> = records
        .wins
        .keys()
        .filter(|k| !expected_set.contains(k))
        .collect();

    // The whole database: only the results queue's own keys may be left.
    let list = format!("{RESULTS}:queue");
    let family = format!("{RESULTS}:item:");
    let keys = every_key(&url).await;
    let records_kept = keys.iter().filter(|k| k.starts_with(&family)).count();
    let mut offending = Vec::new();
    for key in keys
        .iter()
        .filter(|k| **k != list && !k.starts_with(&family))
    {
        offending.push(describe(&url, key).await);
    }

    println!(
        "\n{:<18} {:>10} {:>8} {:>14} {:>13} {:>6} {:>8}",
        "language", "completed", "leases", "re-deliveries", "lost replies", "kills", "crashes"
    );
    for lang in fleet.commands.keys() {
        let get = |m: &BTreeMap<String, u64>| m.get(lang).copied().unwrap_or(0);
        println!(
            "{lang:<18} {:>10} {:>8} {:>14} {:>13} {:>6} {:>8}",
            get(&records.completed),
            get(&records.leases),
            get(&records.repeats),
            get(&records.lost_replies),
            fleet.kills.get(lang).copied().unwrap_or(0),
            fleet.crashes.get(lang).copied().unwrap_or(0),
        );
    }
    println!(
        "\nitems {total}  completed {}  completed twice {}  without a completion record {unrecorded} (at most {total_kills} kills may cause that)  completes whose reply was lost {}  storm at {:.1}s killed {storm_kills} connections  cleaner re-queued {}, removed {}  violations {}  {:.1}s",
        records.wins.len(),
        twice.len(),
        records.lost.len(),
        storm_at.as_secs_f64(),
        cleaned.requeued,
        cleaned.removed,
        records.violations.len(),
        elapsed.as_secs_f64()
    );
    println!(
        "database: {} keys, {records_kept} records ({family}*) and {list}; {} other",
        keys.len(),
        offending.len()
    );
    for key in &offending {
        eprintln!("found unexpected key: {key}");
    }
    problems.extend(records.violations.iter().map(|v| format!("violation: {v}")));
    if !twice.is_empty() {
        problems.push(format!("completed twice: {twice:?}"));
    }
    if !strangers.is_empty() {
        problems.push(format!("completed but never added: {strangers:?}"));
    }
    if unrecorded > total_kills as usize {
        problems.push(format!(
            "{unrecorded} items have no completion record, more than the kills explain ({total_kills})"
        ));
    }
    if !offending.is_empty() {
        problems.push(format!(
            "{} keys left that the test did not write (above)",
            offending.len()
        ));
    }
    for p in &problems {
        eprintln!("{p}");
    }
    println!(
        "drain: {} passed, {} failed",
        u8::from(problems.is_empty()),
        u8::from(!problems.is_empty())
    );
    drop(server);
    if !problems.is_empty() {
        std::process::exit(1);
    }
}
