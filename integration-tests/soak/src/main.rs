//! The mixed-language soak orchestrator, and the demo (README.md).
//!
//! ```text
//! leaseq-soak [--demo] [--items N] [--minutes M] [--worker LANG=COMMAND]...
//! ```
//! The Rust worker (and, in a soak, the redis-work-queue worker) is built in;
//! `--worker c=./soak-worker-c` etc. add the others (COMMAND is split on spaces; the worker
//! arguments are appended).
//!
//! - soak: every language produces a share; workers misbehave; the cleaner corrupts the lists;
//!   a random worker is killed every second or two. Checks every guarantee at the end.
//! - faults (`--faults`, its own options; see `faults`): runners keep working through server
//!   faults.
//! - drain (`--drain`, its own options; see `drain`): redis-work-queue and leaseq clients drain
//!   several queues through faults and cleaning; the database must then hold only the records.
//! - schedules (`--schedules`, its own options; see `schedules`): 20 schedules ticking every
//!   second, fired by runners in every language through kills, a Redis restart and an outage
//!   with no runner; each tick must be decided once, by its schedule's policy.
//! - demo (`--demo`): the Python worker (or the first language) produces everything; each
//!   language runs its runner (`leaseq::worker` and its bindings) in runner mode, whose handlers
//!   fail some items once (retried) and some for good (dead letters); no cleaner runs (the
//!   runners clean); one runner is killed halfway and Redis is restarted (keeping its data) at
//!   two thirds; a live progress bar, a line saying what each planned failure shows, a table per
//!   language, and a few lines on what came of it, where lost must be 0. The runners' own logs
//!   (their errors during the restart, their reports) go to a file, named on the first lines.

mod chaos;
mod drain;
mod faults;
mod fleet;
mod report;
mod schedules;

use std::collections::{BTreeMap, HashSet};
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use leaseq::{CleanReport, Client, Queue, State};
use leaseq_harness::RedisServer;
use leaseq_soak::{Dice, TTL};

use crate::fleet::Fleet;

const QUEUES: [&str; 2] = ["{soak-a}", "{soak-b}"];
const RESULTS: &str = "{soak-results}";
const WORKERS_PER_LANG: usize = 2;
const RWQ: &str = "redis-work-queue";

struct Options {
    demo: bool,
    /// Demo: keep Redis and the dashboard up after the table, until Ctrl-C.
    keep: bool,
    items: u64,
    deadline: Duration,
    langs: Vec<(String, Vec<String>)>,
}

fn sibling(name: &str) -> Vec<String> {
    let exe = std::env::current_exe().unwrap().with_file_name(name);
    vec![exe.to_string_lossy().into_owned()]
}

/// `--worker LANG=COMMAND`: the language, and the command split on spaces.
pub(crate) fn worker_option(spec: &str) -> (String, Vec<String>) {
    let (lang, cmd) = spec.split_once('=').expect("--worker LANG=COMMAND");
    (
        lang.to_owned(),
        cmd.split_whitespace().map(str::to_owned).collect(),
    )
}

fn options() -> Options {
    let mut opts = Options {
        demo: false,
        keep: false,
        items: 0,
        deadline: Duration::from_secs(150),
        langs: vec![("rust".into(), sibling("soak-worker-rust"))],
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |what: &str| args.next().unwrap_or_else(|| panic!("{arg} needs {what}"));
        match arg.as_str() {
            "--demo" => opts.demo = true,
            "--keep" => opts.keep = true,
            "--items" => opts.items = value("N").parse().expect("--items N"),
            "--minutes" => {
                opts.deadline =
                    Duration::from_secs_f64(value("M").parse::<f64>().expect("--minutes M") * 60.0)
            }
            "--worker" => opts.langs.push(worker_option(&value("LANG=COMMAND"))),
            other => panic!("unknown argument {other}"),
        }
    }
    if opts.items == 0 {
        opts.items = if opts.demo { 10_000 } else { 4_000 };
    }
    opts
}

/// Ids still to be worked on: waiting, delayed, leased (by leaseq, or in processing). Asks
/// again while Redis restarts.
async fn in_lists(queues: &[Queue]) -> u64 {
    loop {
        match try_in_lists(queues).await {
            Ok(n) => return n,
            Err(e) if e.is_retryable() => tokio::time::sleep(Duration::from_millis(100)).await,
            Err(e) => panic!("counting: {e}"),
        }
    }
}

async fn try_in_lists(queues: &[Queue]) -> leaseq::Result<u64> {
    let mut n = 0;
    for q in queues {
        for state in [State::Waiting, State::Delayed] {
            n += q.count(state).await?;
        }
        // Leased by leaseq, or in redis-work-queue's processing list.
        n += q.processing_len().await?;
    }
    Ok(n)
}

/// The dead letters of every queue, as (queue, id), each checked to carry its error or reason.
async fn dead_letters(queues: &[Queue], problems: &mut Vec<String>) -> HashSet<(String, String)> {
    let mut dead = HashSet::new();
    for q in queues {
        let mut start = 0;
        loop {
            let page = q.list(State::Dead, start, 1000).await.unwrap();
            for entry in &page {
                let job = q.get(&entry.id).await.unwrap();
                let why = job.as_ref().and_then(|j| {
                    j.error
                        .as_ref()
                        .map(|(m, t)| format!("{t}: {m}"))
                        .or(j.dead_reason.clone())
                });
                match why {
                    Some(why)
                        if why.contains(leaseq_soak::FAILURE) || why.contains("lease expired") => {}
                    other => problems.push(format!(
                        "dead letter {} without the soak's error: {other:?}",
                        entry.id
                    )),
                }
                dead.insert((q.prefix().to_owned(), entry.id.clone()));
            }
            if page.len() < 1000 {
                break;
            }
            start += page.len();
        }
    }
    dead
}

/// Empty lists are not enough: an item knocked off every list (by the corruption) is only
/// found by deep clean, so a queue is drained when its lists are empty and a deep clean finds
/// nothing to put back.
async fn drained(queues: &[Queue]) -> bool {
    if in_lists(queues).await > 0 {
        return false;
    }
    for q in queues {
        if q.deep_clean().await.unwrap().requeued > 0 {
            return false;
        }
    }
    true
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

/// A line of the demo's story, over the progress bar.
fn say(text: &str) {
    println!("\r{text:<70}");
}

/// The lines of the runners' log that mention a lost connection (the restart's errors).
fn connection_lines(path: &std::path::Path) -> usize {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.to_ascii_lowercase().contains("connection"))
        .count()
}

fn progress_bar(done: u64, total: u64, started: Instant) {
    let width = 40;
    let filled = (done * width / total.max(1)) as usize;
    print!(
        "\r[{}{}] {done:>6}/{total}  {:>5.1}s",
        "#".repeat(filled),
        ".".repeat(width as usize - filled),
        started.elapsed().as_secs_f64()
    );
    let _ = std::io::stdout().flush();
}

#[tokio::main]
async fn main() {
    if std::env::args().nth(1).as_deref() == Some("--faults") {
        return faults::main(std::env::args().skip(2), sibling("soak-worker-rust")).await;
    }
    if std::env::args().nth(1).as_deref() == Some("--schedules") {
        return schedules::main(std::env::args().skip(2), sibling("soak-worker-rust")).await;
    }
    if std::env::args().nth(1).as_deref() == Some("--drain") {
        let (rust, rwq) = (sibling("soak-worker-rust"), sibling("soak-worker-rwq"));
        return drain::main(std::env::args().skip(2), rust, rwq).await;
    }
    let opts = options();
    let mut server = RedisServer::start();
    let url = server.url();
    let client = Client::connect(&url).await.unwrap();
    let queues: Vec<Queue> = QUEUES.iter().map(|p| client.queue(p).unwrap()).collect();
    if opts.demo {
        // Retried items run again 200 ms after a failure.
        let config =
            leaseq::QueueConfig::new().backoff(leaseq::Backoff::fixed(Duration::from_millis(200)));
        for q in &queues {
            q.set_config(&config).await.unwrap();
        }
    }
    let mut commands: BTreeMap<String, Vec<String>> = opts.langs.iter().cloned().collect();
    if !opts.demo {
        commands.insert(RWQ.into(), sibling("soak-worker-rwq"));
    }
    let queue_names: Vec<String> = QUEUES.iter().map(|q| (*q).to_owned()).collect();
    let queues_of = commands
        .keys()
        .map(|lang| (lang.clone(), queue_names.clone()))
        .collect();
    let mut fleet = Fleet::new(&url, commands, queues_of, RESULTS);
    let mut demo_log = None;
    if opts.demo {
        fleet.misbehave = Some("0");
        fleet.runners = true;
        let path = std::path::PathBuf::from(sibling("demo-workers.log")[0].clone());
        fleet.log = Some(std::fs::File::create(&path).unwrap());
        demo_log = Some(path);
    }
    let langs: Vec<String> = opts.langs.iter().map(|l| l.0.clone()).collect();
    println!(
        "{}: {} items, languages: {}",
        if opts.demo { "demo" } else { "soak" },
        opts.items,
        langs.join(", ")
    );
    // The demo's dashboard, beside its queues (the `leaseq` command, built next to this one).
    let mut dashboard = None;
    if opts.demo {
        let listen = format!("127.0.0.1:{}", free_port());
        match Command::new(sibling("leaseq")[0].clone())
            .args(["dashboard", "--url", &url, "--listen", &listen])
            .env("LEASEQ_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .spawn()
        {
            Ok(child) => {
                println!("dashboard: http://{listen}/  (the runners are under Workers)");
                if !opts.keep {
                    println!(
                        "  it closes with the demo; `make demo KEEP=1` keeps it (and Redis) up \
                         until Ctrl-C"
                    );
                }
                dashboard = Some(child);
            }
            Err(e) => println!("no dashboard ({e}); `cargo build -p leaseq-cli` builds it"),
        }
    }
    let started = Instant::now();

    // Producers: in a soak every language its share; in the demo, the web side: Python and
    // Node share it (whichever of them runs; else the first language).
    let producing: Vec<String> = if opts.demo {
        let web: Vec<String> = langs
            .iter()
            .filter(|l| *l == "python" || *l == "node")
            .cloned()
            .collect();
        if web.is_empty() {
            vec![langs[0].clone()]
        } else {
            web
        }
    } else {
        langs.clone()
    };
    println!("producers: {}", producing.join(", "));
    if let Some(path) = &demo_log {
        println!("the runners' own logs: {}", path.display());
    }
    let share = opts.items / producing.len() as u64;
    let mut expected: Vec<(String, String)> = Vec::new();
    let mut producers = Vec::new();
    for (i, lang) in producing.iter().enumerate() {
        let count = if i + 1 == producing.len() {
            opts.items - share * i as u64
        } else {
            share
        };
        expected.extend(
            (0..count).map(|n| (QUEUES[(n % 2) as usize].to_owned(), format!("{lang}-{n}"))),
        );
        producers.push(fleet.spawn(
            lang,
            &["produce".into(), "0".into(), count.to_string()],
            &queue_names,
        ));
    }
    for lang in fleet.commands.keys().cloned().collect::<Vec<_>>() {
        let n = if lang == RWQ { 1 } else { WORKERS_PER_LANG };
        for _ in 0..n {
            fleet.start_worker(&lang);
        }
    }

    let mut dice = Dice::new();
    let mut cleaned = CleanReport::default();
    let mut problems: Vec<String> = Vec::new();
    let (mut last_light, mut last_deep, mut last_kill, mut last_report) = (
        Instant::now(),
        Instant::now(),
        Instant::now(),
        Instant::now(),
    );
    let mut producers_done = false;
    let mut demo_killed: Option<String> = None;
    let mut restarted = false;
    let mut cancelled: HashSet<(String, String)> = HashSet::new();
    let mut cancels_done = opts.demo;
    let total = expected.len() as u64;
    loop {
        tokio::time::sleep(Duration::from_millis(50)).await;
        if !producers_done {
            producers_done = true;
            for p in &mut producers {
                match p.try_wait().unwrap() {
                    Some(status) if !status.success() => panic!("a producer failed: {status}"),
                    Some(_) => {}
                    None => producers_done = false,
                }
            }
        }
        fleet.crashed(&mut problems, started.elapsed());
        if !opts.demo && last_light.elapsed() >= TTL {
            for q in &queues {
                cleaned += q.light_clean().await.unwrap();
            }
            if !opts.demo {
                chaos::corrupt(&url, &QUEUES, &mut dice).await;
            }
            last_light = Instant::now();
        }
        if !opts.demo && last_deep.elapsed() >= Duration::from_secs(4) {
            for q in &queues {
                cleaned += q.deep_clean().await.unwrap();
            }
            last_deep = Instant::now();
        }
        let left = in_lists(&queues).await;
        let done = if producers_done {
            total.saturating_sub(left)
        } else {
            0
        };
        // A third of the way: cancel a few items, in whatever state they are.
        if producers_done && !cancels_done && done >= total / 3 {
            for _ in 0..10 {
                let (prefix, id) = &expected[dice.below(expected.len() as u32) as usize];
                let queue = queues.iter().find(|q| q.prefix() == prefix).unwrap();
                if queue.cancel(id).await.unwrap().is_some() {
                    cancelled.insert((prefix.clone(), id.clone()));
                }
            }
            cancels_done = true;
        }
        if opts.demo {
            if producers_done && demo_killed.is_none() && done >= total / 2 {
                let lang = fleet.kill(dice.below(fleet.workers.len() as u32) as usize, false);
                say(&format!(
                    "planned failure 1: a {lang} runner killed (SIGKILL) halfway, its leases \
                     held; they run out and the other runners take those items again"
                ));
                demo_killed = Some(lang);
            }
            if producers_done && !restarted && done >= total * 2 / 3 {
                say(
                    "planned failure 2: Redis restarted (SHUTDOWN SAVE, a new server loads the \
                     data); the runners' calls in flight fail, and they reconnect by themselves",
                );
                let down = Instant::now();
                server.restart_keeping_data();
                say(&format!(
                    "  Redis is back after {:.1}s",
                    down.elapsed().as_secs_f64()
                ));
                restarted = true;
            }
            if last_report.elapsed() >= Duration::from_millis(200) {
                progress_bar(done, total, started);
                last_report = Instant::now();
            }
        } else {
            if left > 0
                && last_kill.elapsed()
                    >= Duration::from_millis(1200 + 100 * u64::from(dice.below(10)))
            {
                let at = dice.below(fleet.workers.len() as u32) as usize;
                fleet.kill(at, true);
                last_kill = Instant::now();
            }
            if last_report.elapsed() >= Duration::from_secs(5) {
                println!(
                    "soak: {:>5.1}s  ids in lists {left:>6}  kills {}",
                    started.elapsed().as_secs_f64(),
                    fleet.kills.values().sum::<u32>()
                );
                last_report = Instant::now();
            }
        }
        let drained_now = if opts.demo {
            left == 0
        } else {
            left == 0 && drained(&queues).await
        };
        if producers_done && drained_now {
            if opts.demo {
                // Runners clean by themselves; a second look a few TTLs later.
                tokio::time::sleep(TTL * 4).await;
                if in_lists(&queues).await == 0 {
                    break;
                }
                continue;
            }
            // Drained twice, a TTL apart: nothing was in flight at the first look.
            tokio::time::sleep(TTL * 2).await;
            if drained(&queues).await {
                break;
            }
        }
        if started.elapsed() > opts.deadline {
            problems.push(format!("not drained after {:?}", opts.deadline));
            break;
        }
    }
    let elapsed = started.elapsed();
    if opts.demo {
        progress_bar(total, total, started);
        println!();
    }
    fleet.stop();
    // In the demo this deep clean is a check: the runners did the cleaning, so it must find
    // nothing to put back.
    let mut last_check = CleanReport::default();
    for q in &queues {
        last_check += q.deep_clean().await.unwrap();
    }
    if opts.demo && last_check.requeued > 0 {
        problems.push(format!(
            "the final deep clean re-queued {} items the runners left",
            last_check.requeued
        ));
    }
    cleaned += last_check;

    let records = report::read(&url, RESULTS).await;
    let twice = records.completed_twice();
    let dead = dead_letters(&queues, &mut problems).await;
    // Every item ends completed once, dead with its error, or cancelled; a kill between a
    // winning complete and its record explains a missing record, at most once per kill.
    let settled: Vec<(String, String)> = expected
        .iter()
        .filter(|k| !dead.contains(*k) && !cancelled.contains(*k))
        .cloned()
        .collect();
    let unrecorded = records.unrecorded(&settled);
    for key in records.wins.keys() {
        if dead.contains(key) {
            problems.push(format!("{key:?} both completed and dead"));
        }
    }
    let total_kills: u32 = fleet.kills.values().sum();
    // A SIGKILL loses the records a soak worker had not written yet (one per kill). In the demo,
    // a runner's records follow its events, and the Redis restart loses the replies of finishes
    // that ran (never sent twice, 13.1): those items are done, with no record, so there the
    // figure is shown, not judged; lost (items still there) is what the demo judges.
    let allowed = total_kills as usize;
    let mut items_left = 0usize;
    let mut keys_left = Vec::new();
    for prefix in QUEUES {
        let state = leaseq_harness::vectors::state(&url, prefix).unwrap();
        items_left += state["items"].as_object().unwrap().len();
        // What dead letters keep is bounded (count and age); anything else is left behind.
        let kept = |key: &str| {
            key == "dead"
                || (opts.demo && key == "config")
                || key
                    .strip_prefix("data:")
                    .or_else(|| key.strip_prefix("job:"))
                    .is_some_and(|id| dead.contains(&(prefix.to_owned(), id.to_owned())))
        };
        keys_left.extend(
            state["keys"]
                .as_array()
                .unwrap()
                .iter()
                .map(|k| k.as_str().unwrap())
                .filter(|k| !kept(k))
                .map(|k| format!("{prefix}:{k}")),
        );
    }

    println!(
        "\n{:<18} {:>10} {:>8} {:>6} {:>8} {:>14} {:>10} {:>6}",
        "language", "completed", "retried", "dead", "leases", "re-deliveries", "items/s", "kills"
    );
    for lang in fleet.commands.keys() {
        let completed = records.completed.get(lang).copied().unwrap_or(0);
        let get = |m: &BTreeMap<String, u64>| m.get(lang).copied().unwrap_or(0);
        println!(
            "{lang:<18} {completed:>10} {:>8} {:>6} {:>8} {:>14} {:>10.0} {:>6}",
            get(&records.retried),
            get(&records.dead),
            get(&records.leases),
            get(&records.repeats),
            completed as f64 / elapsed.as_secs_f64(),
            fleet.kills.get(lang).copied().unwrap_or(0)
        );
    }
    let lost = items_left;
    if opts.demo {
        let logged = demo_log.as_deref().map_or(0, connection_lines);
        // Done once each: every item that is neither dead, cancelled nor still there (the
        // tally of records may miss some, below).
        let completed = (total as usize).saturating_sub(dead.len() + cancelled.len() + lost);
        println!("\nwhat came of it:");
        println!(
            "  {total} items: {completed} completed (completed twice: {}), {} dead letters \
             (failed for good, errors kept), {} cancelled; lost {lost}",
            twice.len(),
            dead.len(),
            cancelled.len()
        );
        if let Some(lang) = &demo_killed {
            println!(
                "  the killed {lang} runner: the items it held went back to waiting when their \
                 leases ran out, and the other runners finished them"
            );
        }
        if restarted {
            let log = demo_log
                .as_deref()
                .map_or(String::new(), |p| p.display().to_string());
            if logged == 0 {
                println!(
                    "  the Redis restart: the runners reconnected and went on (no call was cut)"
                );
            } else {
                println!(
                    "  the Redis restart: the runners reconnected and went on; {logged} lines of \
                     their log say which calls it cut ({log})"
                );
            }
        }
        if unrecorded > 0 {
            println!(
                "  the demo's own tally missed {unrecorded} completions: the killed runner's, \
                 and finishes whose reply the restart cut (never sent twice, spec 13.1); those \
                 items are done all the same"
            );
        }
        println!(
            "  keys left {}, violations {}, {:.1}s",
            keys_left.len(),
            records.violations.len(),
            elapsed.as_secs_f64()
        );
    } else {
        println!(
        "\nitems {total}  dead {}  cancelled {}  completed twice {}  lost {lost}  re-deliveries {}  without a completion record {unrecorded} ({})  keys left {}  violations {}  cleaner re-queued {}, removed {}  {:.1}s",
        dead.len(),
        cancelled.len(),
        twice.len(),
        records.redeliveries(),
        if opts.demo {
            "a kill, or the restart's lost replies, leaves done items unrecorded".to_owned()
        } else {
            format!("at most {allowed} kills may cause that")
        },
        keys_left.len(),
        records.violations.len(),
        cleaned.requeued,
        cleaned.removed,
        elapsed.as_secs_f64()
    );
    }
    problems.extend(records.violations.iter().map(|v| format!("violation: {v}")));
    if !twice.is_empty() {
        problems.push(format!("completed twice: {twice:?}"));
    }
    if lost > 0 || !keys_left.is_empty() {
        problems.push(format!("left behind: {keys_left:?}"));
    }
    if !opts.demo && unrecorded > allowed {
        problems.push(format!("{unrecorded} items have no completion record, more than the kills and restart explain ({allowed})"));
    }
    for p in &problems {
        eprintln!("{p}");
    }
    let name = if opts.demo { "demo" } else { "soak" };
    if opts.keep {
        println!("Redis ({url}) and the dashboard stay up: press Ctrl-C to end");
        let _ = tokio::signal::ctrl_c().await;
    }
    if let Some(mut child) = dashboard {
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(child.id().to_string())
            .status();
        let _ = child.wait();
    }
    println!(
        "{name}: {} passed, {} failed",
        u8::from(problems.is_empty()),
        u8::from(!problems.is_empty())
    );
    drop(server);
    if !problems.is_empty() {
        std::process::exit(1);
    }
}
