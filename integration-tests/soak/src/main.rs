//! The mixed-language soak orchestrator (README.md).
//!
//! ```text
//! leaseq-soak [--items N] [--minutes M] [--worker LANG=COMMAND]...
//! ```
//! Rust and redis-work-queue workers are built in; `--worker c=./soak_worker` etc. add the
//! others (COMMAND is split on spaces; the worker arguments are appended).

use std::collections::{BTreeMap, HashMap};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use leaseq::{Client, Queue};
use leaseq_harness::RedisServer;
use leaseq_soak::{Dice, TTL};

const QUEUES: [&str; 2] = ["{soak-a}", "{soak-b}"];
const RESULTS: &str = "{soak-results}";
const WORKERS_PER_LANG: usize = 2;

struct Options {
    items: u64,
    deadline: Duration,
    langs: Vec<(String, Vec<String>)>,
}

fn options() -> Options {
    let exe_dir = std::env::current_exe()
        .unwrap()
        .parent()
        .unwrap()
        .to_path_buf();
    let mut opts = Options {
        items: 4000,
        deadline: Duration::from_secs(150),
        langs: vec![(
            "rust".into(),
            vec![exe_dir
                .join("soak-worker-rust")
                .to_string_lossy()
                .into_owned()],
        )],
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--items" => opts.items = args.next().and_then(|v| v.parse().ok()).expect("--items N"),
            "--minutes" => {
                let minutes: f64 = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .expect("--minutes M");
                opts.deadline = Duration::from_secs_f64(minutes * 60.0);
            }
            "--worker" => {
                let spec = args.next().expect("--worker LANG=COMMAND");
                let (lang, cmd) = spec.split_once('=').expect("--worker LANG=COMMAND");
                opts.langs.push((
                    lang.to_owned(),
                    cmd.split_whitespace().map(str::to_owned).collect(),
                ));
            }
            other => panic!("unknown argument {other}"),
        }
    }
    opts
}

struct Worker {
    lang: String,
    child: Child,
}

fn spawn(cmd: &[String], url: &str, lang: &str, mode: &[String]) -> Child {
    Command::new(&cmd[0])
        .args(&cmd[1..])
        .arg(url)
        .arg(lang)
        .args(mode)
        .env("LEASEQ_SOAK_QUEUES", QUEUES.join(","))
        .env("LEASEQ_SOAK_RESULTS", RESULTS)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("spawn {cmd:?}: {e}"))
}

/// The cleaner's own mischief: what crashed clients of either protocol leave behind.
async fn corrupt(url: &str, dice: &mut Dice) {
    let mut conn = redis::Client::open(url)
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap();
    let prefix = QUEUES[dice.below(2) as usize];
    let processing = format!("{prefix}:processing");
    let queue = format!("{prefix}:queue");
    let held: Vec<String> = redis::cmd("LRANGE")
        .arg(&processing)
        .arg(0)
        .arg(20)
        .query_async(&mut conn)
        .await
        .unwrap();
    let victim = (!held.is_empty()).then(|| held[dice.below(held.len() as u32) as usize].clone());
    let mut cmd = redis::cmd("ECHO");
    match (dice.below(4), victim) {
        // A stale id: an item completed long ago.
        (0, _) => {
            cmd = redis::cmd("LPUSH")
                .arg(&queue)
                .arg(format!("gone-{}", dice.below(1_000_000)))
                .clone()
        }
        // A duplicate of a held id in the queue (a racing cleaner of the other protocol).
        (1, Some(id)) => cmd = redis::cmd("LPUSH").arg(&queue).arg(id).clone(),
        // An id dropped from processing (a crashed cleaner): only deep clean finds it.
        (2, Some(id)) => cmd = redis::cmd("LREM").arg(&processing).arg(1).arg(id).clone(),
        // A lease lost early (clock trouble, eviction): the item runs twice, one complete wins.
        (3, Some(id)) => {
            cmd = redis::cmd("DEL")
                .arg(format!("{prefix}:lease:{id}"))
                .clone()
        }
        _ => {
            cmd.arg("nothing to corrupt");
        }
    }
    let _: redis::RedisResult<redis::Value> = cmd.query_async(&mut conn).await;
}

/// Empty lists are not enough: an item knocked off every list (by the corruption) is only
/// found by deep clean, so a queue is drained when its lists are empty and a deep clean finds
/// nothing to put back.
async fn drained(queues: &[Queue]) -> bool {
    for q in queues {
        if q.queue_len().await.unwrap() + q.processing_len().await.unwrap() > 0 {
            return false;
        }
        if q.deep_clean().await.unwrap().requeued > 0 {
            return false;
        }
    }
    true
}

#[tokio::main]
async fn main() {
    let opts = options();
    let server = RedisServer::start();
    let url = server.url();
    let client = Client::connect(&url).await.unwrap();
    let queues: Vec<Queue> = QUEUES.iter().map(|p| client.queue(p).unwrap()).collect();
    let started = Instant::now();
    println!(
        "soak: {} items, languages: {}",
        opts.items,
        opts.langs
            .iter()
            .map(|l| l.0.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );

    // Producers: one per language, each its share.
    let share = opts.items / opts.langs.len() as u64;
    let mut expected: Vec<(String, String)> = Vec::new();
    let mut producers = Vec::new();
    for (i, (lang, cmd)) in opts.langs.iter().enumerate() {
        let count = if i + 1 == opts.langs.len() {
            opts.items - share * i as u64
        } else {
            share
        };
        for n in 0..count {
            expected.push((QUEUES[(n % 2) as usize].to_owned(), format!("{lang}-{n}")));
        }
        producers.push(spawn(
            cmd,
            &url,
            lang,
            &["produce".into(), "0".into(), count.to_string()],
        ));
    }

    let rwq_cmd = vec![std::env::current_exe()
        .unwrap()
        .with_file_name("soak-worker-rwq")
        .to_string_lossy()
        .into_owned()];
    let mut workers: Vec<Worker> = Vec::new();
    let start_worker = |lang: &str, cmd: &[String]| Worker {
        lang: lang.to_owned(),
        child: spawn(cmd, &url, lang, &["work".into()]),
    };
    for (lang, cmd) in &opts.langs {
        for _ in 0..WORKERS_PER_LANG {
            workers.push(start_worker(lang, cmd));
        }
    }
    workers.push(start_worker("redis-work-queue", &rwq_cmd));

    let mut kills: BTreeMap<String, u32> = BTreeMap::new();
    let mut dice = Dice::new();
    let (mut last_light, mut last_deep, mut last_kill, mut last_report) = (
        Instant::now(),
        Instant::now(),
        Instant::now(),
        Instant::now(),
    );
    let (mut requeued, mut removed) = (0u64, 0u64);
    let mut producers_done = false;
    let mut ok = true;
    loop {
        tokio::time::sleep(Duration::from_millis(50)).await;
        if !producers_done {
            let mut all = true;
            for p in &mut producers {
                match p.try_wait().unwrap() {
                    Some(status) if !status.success() => panic!("a producer failed: {status}"),
                    Some(_) => {}
                    None => all = false,
                }
            }
            producers_done = all;
        }
        // Workers that died by themselves are failures (the killer's are expected).
        for w in &mut workers {
            if let Some(status) = w.child.try_wait().unwrap() {
                eprintln!("soak: a {} worker exited by itself: {status}", w.lang);
                ok = false;
            }
        }
        if last_light.elapsed() >= TTL {
            for q in &queues {
                let r = q.light_clean().await.unwrap();
                requeued += r.requeued;
                removed += r.removed;
            }
            corrupt(&url, &mut dice).await;
            last_light = Instant::now();
        }
        if last_deep.elapsed() >= Duration::from_secs(4) {
            for q in &queues {
                let r = q.deep_clean().await.unwrap();
                requeued += r.requeued;
                removed += r.removed;
            }
            last_deep = Instant::now();
        }
        let draining = producers_done && drained(&queues).await;
        if !draining
            && last_kill.elapsed() >= Duration::from_millis(1200 + 100 * dice.below(10) as u64)
        {
            let at = dice.below(workers.len() as u32) as usize;
            let mut victim = workers.swap_remove(at);
            let _ = victim.child.kill();
            let _ = victim.child.wait();
            *kills.entry(victim.lang.clone()).or_default() += 1;
            let cmd = if victim.lang == "redis-work-queue" {
                rwq_cmd.clone()
            } else {
                opts.langs
                    .iter()
                    .find(|l| l.0 == victim.lang)
                    .unwrap()
                    .1
                    .clone()
            };
            workers.push(start_worker(&victim.lang, &cmd));
            last_kill = Instant::now();
        }
        if last_report.elapsed() >= Duration::from_secs(5) {
            let left: u64 = {
                let mut n = 0;
                for q in &queues {
                    n += q.queue_len().await.unwrap() + q.processing_len().await.unwrap();
                }
                n
            };
            println!(
                "soak: {:>5.1}s  ids in lists {left:>6}  kills {}",
                started.elapsed().as_secs_f64(),
                kills.values().sum::<u32>()
            );
            last_report = Instant::now();
        }
        if draining {
            // Drained twice, a TTL apart: nothing was in flight at the first look.
            tokio::time::sleep(TTL * 2).await;
            if drained(&queues).await {
                break;
            }
        }
        if started.elapsed() > opts.deadline {
            eprintln!("soak: not drained after {:?}", opts.deadline);
            ok = false;
            break;
        }
    }
    for w in &mut workers {
        let _ = w.child.kill();
        let _ = w.child.wait();
    }
    for q in &queues {
        q.deep_clean().await.unwrap();
    }

    // Read the records.
    let mut conn = redis::Client::open(url.as_str())
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap();
    let records: Vec<String> = redis::cmd("LRANGE")
        .arg(format!("{RESULTS}:queue"))
        .arg(0)
        .arg(-1)
        .query_async(&mut conn)
        .await
        .unwrap();
    let mut wins: HashMap<(String, String), u32> = HashMap::new();
    let mut execs: HashMap<(String, String), u32> = HashMap::new();
    let mut processed: BTreeMap<String, u64> = BTreeMap::new();
    let mut violations = Vec::new();
    for record in &records {
        let parts: Vec<&str> = record.split('|').collect();
        match parts.as_slice() {
            ["win", q, id, _] => *wins.entry((q.to_string(), id.to_string())).or_default() += 1,
            ["exec", q, id, _] => *execs.entry((q.to_string(), id.to_string())).or_default() += 1,
            ["viol", lang, what, _] => violations.push(format!("{lang}: {what}")),
            _ => violations.push(format!("unreadable record {record}")),
        }
    }
    // Who processed what: the record's data is the worker's language.
    for record in records.iter().filter(|r| r.starts_with("win|")) {
        let lang: Option<Vec<u8>> = redis::cmd("GET")
            .arg(format!("{RESULTS}:item:{record}"))
            .query_async(&mut conn)
            .await
            .unwrap();
        *processed
            .entry(String::from_utf8_lossy(&lang.unwrap_or_default()).into_owned())
            .or_default() += 1;
    }
    let mut redelivered: BTreeMap<String, u64> = BTreeMap::new();
    for ((_, id), n) in &execs {
        let lang = id.rsplit_once('-').map_or("?", |(l, _)| l).to_owned();
        *redelivered.entry(lang).or_default() += u64::from(n.saturating_sub(1));
    }

    let twice: Vec<_> = wins.iter().filter(|(_, &n)| n > 1).collect();
    let unrecorded = expected.iter().filter(|k| !wins.contains_key(*k)).count();
    let total_kills: u32 = kills.values().sum();
    let mut items_left = 0;
    let mut keys_left = Vec::new();
    for prefix in QUEUES {
        for (_, id) in expected.iter().filter(|(q, _)| q == prefix) {
            let exists: bool = redis::cmd("EXISTS")
                .arg(format!("{prefix}:item:{id}"))
                .query_async(&mut conn)
                .await
                .unwrap();
            items_left += exists as usize;
        }
        let state = leaseq_harness::vectors::state(&url, prefix).unwrap();
        keys_left.extend(
            state["keys"]
                .as_array()
                .unwrap()
                .iter()
                .map(|k| format!("{prefix}:{}", k.as_str().unwrap())),
        );
    }

    println!(
        "\n{:<18} {:>10} {:>22} {:>6}",
        "language", "completed", "re-deliveries of its items", "kills"
    );
    let langs: Vec<String> = opts
        .langs
        .iter()
        .map(|l| l.0.clone())
        .chain(["redis-work-queue".to_owned()])
        .collect();
    for lang in &langs {
        println!(
            "{lang:<18} {:>10} {:>22} {:>6}",
            processed.get(lang).copied().unwrap_or(0),
            redelivered
                .get(lang)
                .map_or("-".to_owned(), |n| n.to_string()),
            kills.get(lang).copied().unwrap_or(0)
        );
    }
    println!(
        "\nitems {}  completed-record missing {unrecorded} (allowed up to {total_kills} kills)  completed twice {}  items left {items_left}  keys left {}  violations {}  cleaner re-queued {requeued}, removed {removed}  {:.1}s",
        expected.len(),
        twice.len(),
        keys_left.len(),
        violations.len(),
        started.elapsed().as_secs_f64()
    );
    for v in &violations {
        eprintln!("violation: {v}");
    }
    if !twice.is_empty() {
        eprintln!("completed twice: {twice:?}");
    }
    if !keys_left.is_empty() {
        eprintln!("keys left: {keys_left:?}");
    }
    let passed = ok
        && twice.is_empty()
        && items_left == 0
        && keys_left.is_empty()
        && violations.is_empty()
        && unrecorded <= total_kills as usize;
    println!("soak: {} passed, {} failed", passed as u8, (!passed) as u8);
    drop(server);
    if !passed {
        std::process::exit(1);
    }
}
