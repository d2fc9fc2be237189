//! The fault soak (`leaseq-soak --faults`, `make soak-faults`; README.md): runners in every
//! language keep working while the servers under them fail, and no item is lost or completed
//! twice.
//!
//! Three stages, each with its own servers and one runner process per language:
//! - one redis-server with AOF and a filler dataset: a restart (LOADING while the dataset
//!   loads), a CLIENT KILL storm, a maxmemory squeeze;
//! - a cluster of three primaries with a replica each: the queue's primary killed (failover),
//!   the queue's slot migrated to another primary, a CLIENT KILL storm on every node;
//! - `partitioned`: the same cluster and a partitioned queue of [`PARTITIONS`] partitions
//!   (spec/PROTOCOL.md 5.25), one per primary, fed through the partitioned add and worked by
//!   the runners over its partitions ([`PARTITIONED_LANGS`]: Rust's `Worker::partitioned`, C's
//!   `leaseq_worker_run_partitioned`, and Python's and Node's `Worker` over a
//!   `PartitionedQueue`, with `LEASEQ_SOAK_PARTITIONED`): the primary of
//!   partition 0 killed (failover), then partition 1's slot migrated to another primary.
//!
//! The workers record what they do on a third server that no fault touches, so the records are
//! complete and the watcher can time them. The verdict compares three views: what the producer
//! added, what the handlers saw and the runners' completions (the records), and what the server
//! counted (`stats`: completes that took effect).

pub(crate) mod inject;
mod watch;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use leaseq::{Client, ErrorCode, Item, Partitioned, Queue, QueueConfig, State};
use leaseq_harness::{RedisCluster, RedisServer};

use watch::Watcher;

/// The fault soak's command line (after `--faults`).
struct Options {
    /// Times each stage's faults are repeated.
    rounds: u32,
    /// Megabytes of filler data that the restart has to load.
    dataset_mb: u64,
    /// Which stages: `single`, `cluster`, `partitioned`, or all three.
    stages: Vec<String>,
    /// Language -> command (the worker's arguments are appended).
    langs: Vec<(String, Vec<String>)>,
}

fn options(args: impl Iterator<Item = String>, rust: Vec<String>) -> Options {
    let mut opts = Options {
        rounds: 1,
        dataset_mb: 200,
        stages: vec!["single".into(), "cluster".into(), "partitioned".into()],
        langs: vec![("rust".into(), rust)],
    };
    let mut args = args.peekable();
    while let Some(arg) = args.next() {
        let mut value = |what: &str| args.next().unwrap_or_else(|| panic!("{arg} needs {what}"));
        match arg.as_str() {
            "--rounds" => opts.rounds = value("N").parse().expect("--rounds N"),
            "--dataset-mb" => opts.dataset_mb = value("MB").parse().expect("--dataset-mb MB"),
            "--stage" => opts.stages = vec![value("single|cluster|partitioned")],
            "--worker" => opts
                .langs
                .push(crate::worker_option(&value("LANG=COMMAND"))),
            other => panic!("unknown argument {other}"),
        }
    }
    opts
}

/// Both queues of a stage share one hash tag, so the slot migration moves them together.
const QUEUES: [&str; 2] = ["{faults}-a", "{faults}-b"];
/// The partitioned stage's queue: its base, and its partitions (one per primary).
const PARTITIONED: &str = "{pfaults}";
const PARTITIONS: usize = 3;
/// The languages whose soak workers serve a partitioned queue (`LEASEQ_SOAK_PARTITIONED`).
const PARTITIONED_LANGS: [&str; 4] = ["rust", "c", "python", "node"];
/// Items kept waiting per queue, so that a worker that stands still does so because of the
/// fault, never for want of work.
const BACKLOG: u64 = 150;
/// The backlog before a maxmemory squeeze, which refuses adds while it lasts: enough for the
/// workers to show that they go on.
const SQUEEZE_BACKLOG: u64 = 4000;
/// Items per add.
const BATCH: usize = 25;
/// Time between faults, for the runners to show their pace.
const SETTLE: Duration = Duration::from_secs(3);

/// The servers a stage breaks.
enum Servers {
    Single(RedisServer),
    Cluster(RedisCluster),
}

impl Servers {
    /// The workers' URL: one server's, or every cluster node's, separated by commas.
    fn url(&self) -> String {
        match self {
            Servers::Single(s) => s.url(),
            Servers::Cluster(c) => c.urls().join(","),
        }
    }

    async fn client(&self) -> Client {
        match self {
            Servers::Single(s) => Client::connect(&s.url()).await,
            Servers::Cluster(c) => Client::connect_cluster(c.urls()).await,
        }
        .expect("connect to the stage's servers")
    }
}

#[derive(Clone, Copy, Debug)]
enum Fault {
    Restart,
    ClientKills,
    Squeeze,
    Failover,
    Migrate,
}

impl Fault {
    fn name(self) -> &'static str {
        match self {
            Fault::Restart => "restart, LOADING",
            Fault::ClientKills => "CLIENT KILL storm",
            Fault::Squeeze => "maxmemory squeeze",
            Fault::Failover => "primary killed",
            Fault::Migrate => "slot migration",
        }
    }

    /// Does the fault to `servers` (on a blocking thread) and says what it did; a failover or
    /// a migration hits the slot of the queue prefix `target`.
    async fn inject(self, servers: Servers, target: String) -> (Servers, String) {
        tokio::task::spawn_blocking(move || {
            let mut servers = servers;
            let detail = match (&mut servers, self) {
                (Servers::Single(s), Fault::Restart) => inject::restart_with_loading(s),
                (Servers::Single(s), Fault::ClientKills) => {
                    let n = inject::client_kill_storm(&[s.port()], Duration::from_secs(3));
                    format!("{n} connections killed in 3 s")
                }
                (Servers::Single(s), Fault::Squeeze) => {
                    inject::maxmemory_squeeze(s, Duration::from_secs(2))
                }
                (Servers::Cluster(c), Fault::Failover) => {
                    let slot = inject::slot(c, &target);
                    inject::failover(c, slot)
                }
                (Servers::Cluster(c), Fault::Migrate) => {
                    let slot = inject::slot(c, &target);
                    inject::migrate_slot(c, slot)
                }
                (Servers::Cluster(c), Fault::ClientKills) => {
                    let n = inject::client_kill_storm(&inject::ports(c), Duration::from_secs(3));
                    format!("{n} connections killed in 3 s")
                }
                (_, f) => panic!("{f:?} does not apply to this stage"),
            };
            (servers, detail)
        })
        .await
        .expect("the fault")
    }
}

/// What the producer added: ids whose add took effect, and ids whose add's outcome is unknown
/// (its reply was lost; it was never sent again).
#[derive(Default)]
struct Added {
    sure: Vec<(String, String)>,
    unknown: Vec<(String, String)>,
    refused_oom: u64,
}

/// Keeps [`BACKLOG`] items waiting in each queue until `stop`; rides through every fault. An
/// add refused with OUT_OF_MEMORY or UNAVAILABLE wrote nothing and is sent again later; an add
/// whose reply was lost (CONNECTION, TIMEOUT) may have run, so its ids are counted as unknown
/// and never sent again (a second add of an id completed meanwhile would run it twice).
async fn produce(
    queues: Vec<Queue>,
    stage: &'static str,
    added: Arc<Mutex<Added>>,
    backlog: Arc<AtomicU64>,
    stop: Arc<tokio::sync::Notify>,
) {
    let mut next = 1u64;
    let mut pending: Vec<Option<Vec<Item>>> = vec![None, None];
    loop {
        tokio::select! {
            _ = stop.notified() => return,
            _ = tokio::time::sleep(Duration::from_millis(50)) => {}
        }
        for (i, q) in queues.iter().enumerate() {
            // A read first: while the server is away, nothing is sent whose outcome is unknown.
            let Ok(waiting) = q.count(State::Waiting).await else {
                continue;
            };
            if pending[i].is_none() {
                let want = backlog.load(Ordering::SeqCst);
                if waiting >= want {
                    continue;
                }
                // Small batches in the steady state; big ones to build a backlog quickly.
                let size = if want > BACKLOG { 500 } else { BATCH as u64 };
                pending[i] = Some(
                    (next..next + size)
                        .map(|n| {
                            let id = format!("{stage}-{n}");
                            let data = format!("{{\"id\":\"{id}\"}}");
                            Item::with_id(id, data).unwrap()
                        })
                        .collect(),
                );
                next += size;
            }
            let batch = pending[i].as_ref().unwrap();
            let keys = batch
                .iter()
                .map(|item| (q.prefix().to_owned(), item.id().to_owned()));
            match q.add_batch(batch).await {
                Ok(n) => {
                    assert_eq!(n, batch.len(), "fresh ids are all added");
                    added.lock().unwrap().sure.extend(keys);
                    pending[i] = None;
                }
                Err(e) if matches!(e.code(), ErrorCode::OutOfMemory | ErrorCode::Unavailable) => {
                    if e.code() == ErrorCode::OutOfMemory {
                        added.lock().unwrap().refused_oom += 1;
                    }
                }
                Err(e) if matches!(e.code(), ErrorCode::Connection | ErrorCode::Timeout) => {
                    added.lock().unwrap().unknown.extend(keys);
                    pending[i] = None;
                }
                Err(e) => panic!("add_batch: {e}"),
            }
        }
    }
}

/// [`produce`] for the partitioned stage: keeps [`BACKLOG`] items per partition waiting in the
/// partitioned queue `p`, adding through its add_batch (one call per partition touched, sent
/// at once). Each partition's call is atomic but the batch is not, and an error drops the
/// calls still in flight, so after any error every id of the batch counts as unknown and is
/// never sent again.
async fn produce_partitioned(
    p: Partitioned,
    stage: &'static str,
    added: Arc<Mutex<Added>>,
    stop: Arc<tokio::sync::Notify>,
) {
    let mut next = 1u64;
    let want = BACKLOG * p.count() as u64;
    loop {
        tokio::select! {
            _ = stop.notified() => return,
            _ = tokio::time::sleep(Duration::from_millis(50)) => {}
        }
        // A read first: while a partition's server is away, nothing is sent.
        let Ok(waiting) = p.count_in(State::Waiting).await else {
            continue;
        };
        if waiting >= want {
            continue;
        }
        let size = (BATCH * p.count()) as u64;
        let batch: Vec<Item> = (next..next + size)
            .map(|n| {
                let id = format!("{stage}-{n}");
                let data = format!("{{\"id\":\"{id}\"}}");
                Item::with_id(id, data).unwrap()
            })
            .collect();
        next += size;
        let keys = batch.iter().map(|item| {
            let at = p.partition_of(item).unwrap();
            (p.partitions()[at].prefix().to_owned(), item.id().to_owned())
        });
        match p.add_batch(&batch).await {
            Ok(n) => {
                assert_eq!(n, batch.len(), "fresh ids are all added");
                added.lock().unwrap().sure.extend(keys);
            }
            Err(e) if e.is_retryable() => added.lock().unwrap().unknown.extend(keys),
            Err(e) => panic!("partitioned add_batch: {e}"),
        }
    }
}

/// Asks `f` until it answers with something other than a retryable error (reads only: they may
/// be sent again).
async fn read<T, F, Fut>(mut f: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = leaseq::Result<T>>,
{
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        match f().await {
            Ok(v) => return v,
            Err(e) if e.is_retryable() && Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(100)).await
            }
            Err(e) => panic!("read: {e}"),
        }
    }
}

/// Ids waiting, delayed or leased in `queues`.
async fn in_lists(queues: &[Queue]) -> u64 {
    let mut n = 0;
    for q in queues {
        for state in [State::Waiting, State::Delayed, State::Leased] {
            n += read(|| q.count(state)).await;
        }
    }
    n
}

/// One fault as it happened.
struct Done {
    fault: Fault,
    detail: String,
    start: Instant,
    end: Instant,
}

/// A stage's result, for the summary.
struct Outcome {
    stage: &'static str,
    items: usize,
    faults: Vec<Done>,
    /// (fault index, language) -> stall.
    stalls: BTreeMap<(usize, String), watch::Stall>,
    problems: Vec<String>,
    line: String,
}

/// Starts a runner in runner mode; with `partitioned`, over that partitioned queue (the
/// workers' `LEASEQ_SOAK_PARTITIONED`).
fn spawn_runner(
    cmd: &[String],
    url: &str,
    lang: &str,
    results_url: &str,
    results: &str,
    partitioned: Option<&str>,
) -> Child {
    Command::new(&cmd[0])
        .args(&cmd[1..])
        .arg(url)
        .arg(lang)
        .arg("run")
        .env("LEASEQ_SOAK_QUEUES", QUEUES.join(","))
        .env("LEASEQ_SOAK_PARTITIONED", partitioned.unwrap_or(""))
        .env("LEASEQ_SOAK_RESULTS", results)
        .env("LEASEQ_SOAK_RESULTS_URL", results_url)
        .env("LEASEQ_SOAK_MISBEHAVE", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("spawn {cmd:?}: {e}"))
}

async fn stage(name: &'static str, opts: &Options, results: &RedisServer) -> Outcome {
    let (mut servers, faults) = if name == "single" {
        let server = RedisServer::start_with(&["--appendonly", "yes", "--appendfsync", "everysec"]);
        let mb = opts.dataset_mb;
        let t = Instant::now();
        let server = tokio::task::spawn_blocking(move || {
            inject::fill(&server, mb);
            server
        })
        .await
        .unwrap();
        println!(
            "{name}: {mb} MB of filler written in {:.1}s",
            t.elapsed().as_secs_f64()
        );
        (
            Servers::Single(server),
            vec![Fault::Restart, Fault::ClientKills, Fault::Squeeze],
        )
    } else {
        let cluster = tokio::task::spawn_blocking(|| RedisCluster::start_with(1, 1000))
            .await
            .unwrap();
        let faults = if name == "partitioned" {
            vec![Fault::Failover, Fault::Migrate]
        } else {
            vec![Fault::Failover, Fault::Migrate, Fault::ClientKills]
        };
        (Servers::Cluster(cluster), faults)
    };
    let url = servers.url();
    let client = servers.client().await;
    let partitioned = if name == "partitioned" {
        Some(
            client
                .create_partitioned(PARTITIONED, PARTITIONS)
                .await
                .expect("create the partitioned queue"),
        )
    } else {
        None
    };
    let queues: Vec<Queue> = match &partitioned {
        Some(p) => p.partitions().to_vec(),
        None => QUEUES.iter().map(|p| client.queue(p).unwrap()).collect(),
    };
    // The prefix whose slot each fault hits: partition 0's primary is killed, partition 1's
    // slot migrated; the plain cluster stage hits its queues' one slot.
    let target = |fault: Fault| match (&partitioned, fault) {
        (Some(p), Fault::Migrate) => p.partitions()[1].prefix().to_owned(),
        (Some(p), _) => p.partitions()[0].prefix().to_owned(),
        (None, _) => QUEUES[0].to_owned(),
    };
    let langs_here: Vec<&(String, Vec<String>)> = opts
        .langs
        .iter()
        .filter(|(lang, _)| partitioned.is_none() || PARTITIONED_LANGS.contains(&lang.as_str()))
        .collect();
    // Retried items run again 200 ms after a failure; a lease lost to a fault counts as an
    // attempt, so attempts are many. The verdict reads the server's count of completes, so the
    // queues count.
    let config = QueueConfig::new()
        .backoff(leaseq::Backoff::fixed(Duration::from_millis(200)))
        .max_attempts(25)
        .stats(true);
    for q in &queues {
        q.set_config(&config).await.unwrap();
    }
    let results_prefix = format!("{{results-{name}}}");
    let watcher = Watcher::start(&results.url(), &results_prefix);
    let mut runners: Vec<(String, Child)> = langs_here
        .iter()
        .map(|(lang, cmd)| {
            (
                lang.clone(),
                spawn_runner(
                    cmd,
                    &url,
                    lang,
                    &results.url(),
                    &results_prefix,
                    partitioned.is_some().then_some(PARTITIONED),
                ),
            )
        })
        .collect();
    let added: Arc<Mutex<Added>> = Arc::default();
    let stop = Arc::new(tokio::sync::Notify::new());
    let backlog = Arc::new(AtomicU64::new(BACKLOG));
    let producer = match &partitioned {
        Some(p) => tokio::spawn(produce_partitioned(
            p.clone(),
            name,
            added.clone(),
            stop.clone(),
        )),
        None => tokio::spawn(produce(
            queues.clone(),
            name,
            added.clone(),
            backlog.clone(),
            stop.clone(),
        )),
    };
    let mut problems = Vec::new();

    // Every language at work before the first fault.
    let langs: Vec<String> = langs_here.iter().map(|l| l.0.clone()).collect();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let idle: Vec<String> = watcher.with(|seen| {
            langs
                .iter()
                .filter(|l| {
                    seen.iter()
                        .filter(|s| &s.lang == *l && s.kind == "win")
                        .count()
                        < 20
                })
                .cloned()
                .collect()
        });
        if idle.is_empty() {
            break;
        }
        if Instant::now() > deadline {
            problems.push(format!("{name}: never started: {idle:?}"));
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(SETTLE).await;

    let mut done = Vec::new();
    for round in 0..opts.rounds {
        for &fault in &faults {
            if matches!(fault, Fault::Squeeze) {
                // Work for the squeeze, which refuses adds: a backlog built beforehand.
                backlog.store(SQUEEZE_BACKLOG, Ordering::SeqCst);
                let deadline = Instant::now() + Duration::from_secs(30);
                loop {
                    let mut least = u64::MAX;
                    for q in &queues {
                        least = least.min(read(|| q.count(State::Waiting)).await);
                    }
                    if least >= SQUEEZE_BACKLOG * 9 / 10 || Instant::now() > deadline {
                        break;
                    }
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
            let start = Instant::now();
            let (back, detail) = fault.inject(servers, target(fault)).await;
            servers = back;
            let end = Instant::now();
            backlog.store(BACKLOG, Ordering::SeqCst);
            println!(
                "{name} round {}: {} ({detail}) took {:.1}s",
                round + 1,
                fault.name(),
                (end - start).as_secs_f64()
            );
            done.push(Done {
                fault,
                detail,
                start,
                end,
            });
            tokio::time::sleep(SETTLE).await;
            for (lang, child) in &mut runners {
                if let Some(status) = child.try_wait().unwrap() {
                    problems.push(format!(
                        "{name}: the {lang} runner exited during the faults: {status}"
                    ));
                }
            }
        }
    }
    let faults_over = Instant::now();
    stop.notify_one();
    producer.await.unwrap();

    // Drained: nothing waiting, delayed or leased, twice a few seconds apart (a lease lost to a
    // fault comes back when it expires).
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if in_lists(&queues).await == 0 {
            tokio::time::sleep(Duration::from_secs(3)).await;
            if in_lists(&queues).await == 0 {
                break;
            }
        }
        if Instant::now() > deadline {
            problems.push(format!(
                "{name}: not drained two minutes after the last fault"
            ));
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    for (_, child) in &runners {
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(child.id().to_string())
            .status();
    }
    for (lang, child) in &mut runners {
        let status = child.wait().unwrap();
        if !status.success() {
            problems.push(format!(
                "{name}: the {lang} runner exited with {status} after SIGTERM"
            ));
        }
    }
    let seen = watcher.finish();
    let end = Instant::now();

    // Stalls: how long each language stood still around each fault.
    let mut stalls = BTreeMap::new();
    for (i, d) in done.iter().enumerate() {
        let next = done.get(i + 1).map(|n| n.start).unwrap_or(faults_over);
        for lang in &langs {
            let s = watch::stall(&seen, lang, d.start, d.end, next.min(end));
            if !s.resumed {
                problems.push(format!(
                    "{name}: {lang} did nothing after the {} until the next step",
                    d.fault.name()
                ));
            }
            stalls.insert((i, lang.clone()), s);
        }
    }

    // The verdict.
    let added = std::mem::take(&mut *added.lock().unwrap());
    let mut delivered: HashSet<(String, String)> = HashSet::new();
    let mut wins: HashMap<(String, String), u32> = HashMap::new();
    for s in &seen {
        let key = (s.queue.clone(), s.id.clone());
        match s.kind.as_str() {
            "exec" => {
                delivered.insert(key);
            }
            "win" => *wins.entry(key).or_default() += 1,
            "viol" => problems.push(format!("{name}: violation: {} {}", s.queue, s.id)),
            _ => {}
        }
    }
    let mut dead: HashSet<(String, String)> = HashSet::new();
    let mut completed_on_server = 0u64;
    for q in &queues {
        let mut start = 0;
        loop {
            let page = read(|| q.list(State::Dead, start, 1000)).await;
            dead.extend(page.iter().map(|e| (q.prefix().to_owned(), e.id.clone())));
            if page.len() < 1000 {
                break;
            }
            start += page.len();
        }
        let completed = read(|| q.stats())
            .await
            .last_hour()
            .expect("the soak turns counters on")
            .completed;
        // The partitioned add spreads the items: every partition must have worked some.
        if partitioned.is_some() && completed == 0 {
            problems.push(format!(
                "{name}: partition {} completed nothing: the items were not spread",
                q.prefix()
            ));
        }
        completed_on_server += completed;
    }
    let twice: Vec<_> = wins
        .iter()
        .filter(|(_, &n)| n > 1)
        .map(|(k, _)| k.clone())
        .collect();
    let both: Vec<_> = wins.keys().filter(|k| dead.contains(*k)).cloned().collect();
    // Every item added for sure reached a handler, or is dead (its handler ran too).
    let never_delivered: Vec<_> = added
        .sure
        .iter()
        .filter(|k| !delivered.contains(*k) && !dead.contains(*k))
        .cloned()
        .collect();
    // Every delivered item that is not dead is gone, so exactly one complete took effect for
    // each: the server's count of completes must be exactly that number. More would be an item
    // completed twice; fewer, an item gone without a complete (lost).
    let must_complete = delivered.iter().filter(|k| !dead.contains(*k)).count() as u64;
    let unknown_delivered = added
        .unknown
        .iter()
        .filter(|k| delivered.contains(*k))
        .count();
    let unrecorded = must_complete.saturating_sub(wins.len() as u64);
    if !twice.is_empty() {
        problems.push(format!(
            "{name}: completed twice (two completion events): {twice:?}"
        ));
    }
    if !both.is_empty() {
        problems.push(format!("{name}: both completed and dead: {both:?}"));
    }
    if !never_delivered.is_empty() {
        problems.push(format!(
            "{name}: {} items added and never delivered: {:?}",
            never_delivered.len(),
            &never_delivered[..never_delivered.len().min(10)]
        ));
    }
    if completed_on_server > must_complete {
        problems.push(format!(
            "{name}: the server counted {completed_on_server} completes for {must_complete} items: some completed twice"
        ));
    }
    if completed_on_server < must_complete {
        problems.push(format!(
            "{name}: the server counted {completed_on_server} completes for {must_complete} items: some were lost"
        ));
    }
    let lost = never_delivered.len() as u64 + must_complete.saturating_sub(completed_on_server);
    let doubles = twice.len() as u64 + completed_on_server.saturating_sub(must_complete);
    let line = format!(
        "{name}: items {} (+{} whose add's reply was lost, {unknown_delivered} of them delivered)  completed {completed_on_server}  dead {}  lost {lost}  completed twice {doubles}  completions whose reply was lost {unrecorded}  adds refused out of memory {}",
        added.sure.len(),
        added.unknown.len(),
        dead.len(),
        added.refused_oom
    );
    println!("{line}");
    Outcome {
        stage: name,
        items: added.sure.len() + unknown_delivered,
        faults: done,
        stalls,
        problems,
        line,
    }
}

/// `leaseq-soak --faults [--rounds N] [--dataset-mb MB] [--stage single|cluster]
/// [--worker LANG=COMMAND]...`: runs the stages, prints the figures, exits non-zero on any
/// problem.
pub async fn main(args: impl Iterator<Item = String>, rust: Vec<String>) {
    let opts = options(args, rust);
    let results = RedisServer::start();
    let started = Instant::now();
    let langs: Vec<String> = opts.langs.iter().map(|l| l.0.clone()).collect();
    println!(
        "fault soak: languages {}, {} round(s), stages {}",
        langs.join(", "),
        opts.rounds,
        opts.stages.join(", ")
    );
    let mut outcomes = Vec::new();
    for s in opts.stages.clone() {
        let name: &'static str = match s.as_str() {
            "single" => "single",
            "partitioned" => "partitioned",
            _ => "cluster",
        };
        outcomes.push(stage(name, &opts, &results).await);
    }

    println!("\nlongest time each language stood still around each fault (s):");
    print!("{:<11} {:<18} {:>6}", "stage", "fault", "took");
    for lang in &langs {
        print!(" {lang:>8}");
    }
    println!("  what");
    let mut problems = Vec::new();
    let mut items = 0;
    let mut injected = 0;
    for o in &outcomes {
        for (i, d) in o.faults.iter().enumerate() {
            print!(
                "{:<11} {:<18} {:>6.1}",
                o.stage,
                d.fault.name(),
                (d.end - d.start).as_secs_f64()
            );
            for lang in &langs {
                // A language that did not run in this stage (partitioned: PARTITIONED_LANGS
                // only): `-`.
                match o.stalls.get(&(i, lang.clone())) {
                    Some(s) => print!(" {:>8.2}", s.longest.as_secs_f64()),
                    None => print!(" {:>8}", "-"),
                }
            }
            println!("  {}", d.detail);
        }
        items += o.items;
        injected += o.faults.len();
        problems.extend(o.problems.iter().cloned());
    }
    println!();
    for o in &outcomes {
        println!("{}", o.line);
    }
    println!(
        "\nfault soak: {items} items, {injected} faults, {:.0}s",
        started.elapsed().as_secs_f64()
    );
    for p in &problems {
        eprintln!("{p}");
    }
    println!(
        "soak-faults: {} passed, {} failed",
        u8::from(problems.is_empty()),
        u8::from(!problems.is_empty())
    );
    if !problems.is_empty() {
        std::process::exit(1);
    }
}
