//! The schedules soak (`leaseq-soak --schedules`, `make soak-schedules`; README.md): 20
//! schedules ticking every second on one queue, fired by the housekeeping of runners in every
//! language while runners are killed, Redis restarts (keeping its data) and, for longer than
//! the missed-tick grace, no runner is alive at all. At the end every schedule must have
//! decided each of its ticks exactly once (spec/PROTOCOL.md 5.23):
//! - the schedule's own counts: `fired + skipped` = its ticks up to `from`, so no tick was
//!   fired twice nor forgotten;
//! - `all:<n>` schedules skipped nothing, and every one of their ticks' items ran;
//! - `once` and `skip` schedules skipped the ticks the outage made them miss (at least one);
//! - each tick's item ran (a handler saw it) or still waits, and no item was completed twice;
//! - the items that ran are exactly `fired` per schedule: none of a tick that was skipped.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::{Duration, Instant};

use leaseq::{Client, Item, Missed, Queue, Schedule, State};
use leaseq_harness::RedisServer;
use leaseq_soak::Dice;

use crate::fleet::Fleet;
use crate::report;

const QUEUE: &str = "{sched}";
const RESULTS: &str = "{sched-results}";
/// Schedules by policy: the first ten fire every missed tick, the next five once, the last five
/// skip them.
const SCHEDULES: usize = 20;
const PERIOD: Duration = Duration::from_secs(1);
/// The missed-tick grace (5.23) plus a margin: an outage this long makes ticks missed.
const OUTAGE: Duration = Duration::from_secs(13);

struct Options {
    /// Seconds of work before and after the outage, each.
    seconds: u64,
    langs: Vec<(String, Vec<String>)>,
}

fn options(args: impl Iterator<Item = String>, rust: Vec<String>) -> Options {
    let mut opts = Options {
        seconds: 12,
        langs: vec![("rust".into(), rust)],
    };
    let mut args = args.peekable();
    while let Some(arg) = args.next() {
        let mut value = |what: &str| args.next().unwrap_or_else(|| panic!("{arg} needs {what}"));
        match arg.as_str() {
            "--seconds" => opts.seconds = value("N").parse().expect("--seconds N"),
            "--worker" => opts
                .langs
                .push(crate::worker_option(&value("LANG=COMMAND"))),
            other => panic!("unknown argument {other}"),
        }
    }
    opts
}

fn policy(i: usize) -> Missed {
    match i {
        0..=9 => Missed::All(1000),
        10..=14 => Missed::Once,
        _ => Missed::Skip,
    }
}

fn name(i: usize) -> String {
    format!("s{i:02}")
}

fn say(line: &str) {
    println!("soak-schedules: {line}");
}

/// Kills a random runner every `every` for `length` (each replaced at once), and notices
/// runners that exit by themselves.
fn churn(
    fleet: &mut Fleet,
    dice: &mut Dice,
    length: Duration,
    every: Duration,
    problems: &mut Vec<String>,
    started: Instant,
) {
    let end = Instant::now() + length;
    while Instant::now() < end {
        std::thread::sleep(every.min(end.saturating_duration_since(Instant::now())));
        fleet.crashed(problems, started.elapsed());
        if !fleet.workers.is_empty() && Instant::now() < end {
            let at = dice.below(fleet.workers.len() as u32) as usize;
            let lang = fleet.kill(at, true);
            say(&format!("killed a {lang} runner (replaced)"));
        }
    }
}

/// `call`'s value, calling again while it fails with a retryable error (a connection that the
/// restart cut is reopened by the next call).
async fn again<T, F, Fut>(what: &str, mut call: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = leaseq::Result<T>>,
{
    loop {
        if let Some(value) = leaseq_soak::unless_cut(what, call().await).await {
            return value;
        }
    }
}

/// Every id still in the queue (waiting, delayed or leased), asking again while Redis restarts.
async fn left_in(q: &Queue) -> HashSet<String> {
    let mut ids = HashSet::new();
    for state in [State::Waiting, State::Delayed, State::Leased, State::Dead] {
        let mut start = 0;
        loop {
            let page = again("list", || q.list(state, start, 1000)).await;
            let n = page.len();
            ids.extend(page.into_iter().map(|e| e.id));
            if n < 1000 {
                break;
            }
            start += n;
        }
    }
    ids
}

/// The soak; exits the process with status 1 when a guarantee broke.
pub async fn main(args: impl Iterator<Item = String>, rust: Vec<String>) {
    let opts = options(args, rust);
    let started = Instant::now();
    let mut server = RedisServer::start();
    let url = server.url();
    let client = Client::connect(&url).await.expect("connect");
    let q = client.queue(QUEUE).expect("queue");
    for i in 0..SCHEDULES {
        let schedule = Schedule::every(PERIOD)
            .missed(policy(i))
            .item(Item::new(name(i).into_bytes()));
        q.upsert_schedule(&name(i), &schedule)
            .await
            .expect("upsert");
    }
    say(&format!(
        "{SCHEDULES} schedules every {}s (10 all:1000, 5 once, 5 skip); runners: {}",
        PERIOD.as_secs(),
        opts.langs
            .iter()
            .map(|(l, _)| l.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    ));
    let commands: BTreeMap<String, Vec<String>> = opts.langs.iter().cloned().collect();
    let queues = commands
        .keys()
        .map(|lang| (lang.clone(), vec![QUEUE.to_owned()]))
        .collect();
    let mut fleet = Fleet::new(&url, commands.clone(), queues, RESULTS);
    fleet.misbehave = Some("0");
    fleet.runners = true;
    for lang in commands.keys() {
        fleet.start_worker(lang);
    }
    let mut dice = Dice::new();
    let mut problems = Vec::new();
    let step = Duration::from_secs(opts.seconds);

    // Runners killed and replaced; then Redis restarted under them.
    churn(
        &mut fleet,
        &mut dice,
        step,
        Duration::from_secs(3),
        &mut problems,
        started,
    );
    say("Redis restarted (SHUTDOWN SAVE, a new server loads the data)");
    server.restart_keeping_data();
    churn(
        &mut fleet,
        &mut dice,
        Duration::from_secs(3),
        Duration::from_secs(10),
        &mut problems,
        started,
    );

    // No runner at all, longer than the grace: the ticks meanwhile are missed.
    say(&format!(
        "every runner killed for {}s: no one fires",
        OUTAGE.as_secs()
    ));
    while !fleet.workers.is_empty() {
        fleet.kill(0, false);
    }
    std::thread::sleep(OUTAGE);
    for lang in commands.keys() {
        fleet.start_worker(lang);
    }
    say("runners back: missed ticks follow each schedule's policy");
    churn(
        &mut fleet,
        &mut dice,
        step,
        Duration::from_secs(4),
        &mut problems,
        started,
    );
    fleet.crashed(&mut problems, started.elapsed());
    // Runners stop (SIGTERM: they finish what they hold); no one fires after this.
    fleet.stop();

    // The verdict.
    let records = report::read(&url, RESULTS).await;
    let left = left_in(&q).await;
    let mut ran: HashMap<String, HashSet<u64>> = HashMap::new();
    for (queue, id) in records.execs.keys().chain(records.wins.keys()) {
        if queue != QUEUE {
            problems.push(format!("a record of another queue: {queue} {id}"));
            continue;
        }
        match id.split_once('@') {
            Some((s, tick)) => {
                ran.entry(s.to_owned())
                    .or_default()
                    .insert(tick.parse().expect("tick"));
            }
            None => problems.push(format!("an item that no tick added: {id}")),
        }
    }
    for id in &left {
        if let Some((s, tick)) = id.split_once('@') {
            ran.entry(s.to_owned())
                .or_default()
                .insert(tick.parse().expect("tick"));
        }
    }
    for key in records.completed_twice() {
        problems.push(format!("completed twice: {}", key.1));
    }
    problems.extend(records.violations.iter().cloned());
    let period = PERIOD.as_millis() as u64;
    let (mut fired_all, mut skipped_all) = (0, 0);
    for i in 0..SCHEDULES {
        let who = name(i);
        let info = again("get_schedule", || q.get_schedule(&who))
            .await
            .expect("the schedule is there");
        // `every` ticks: created + k·period, k ≥ 1, up to `from` (all decided).
        let ticks: Vec<u64> = (1..)
            .map(|k| info.created + k * period)
            .take_while(|t| *t <= info.from)
            .collect();
        fired_all += info.fired;
        skipped_all += info.skipped;
        if info.fired + info.skipped != ticks.len() as u64 {
            problems.push(format!(
                "{who}: fired {} + skipped {} != its {} ticks",
                info.fired,
                info.skipped,
                ticks.len()
            ));
        }
        let seen = ran.remove(&who).unwrap_or_default();
        let expected: HashSet<u64> = ticks.iter().copied().collect();
        if let Some(t) = seen.iter().find(|t| !expected.contains(t)) {
            problems.push(format!(
                "{who}: an item of tick {t}, which is not one of its ticks"
            ));
        }
        if seen.len() as u64 != info.fired {
            problems.push(format!(
                "{who}: {} ticks' items ran or wait, but it fired {}",
                seen.len(),
                info.fired
            ));
        }
        match policy(i) {
            Missed::All(_) => {
                if info.skipped != 0 {
                    problems.push(format!("{who} (all): skipped {}", info.skipped));
                }
                if let Some(t) = ticks.iter().find(|t| !seen.contains(t)) {
                    problems.push(format!("{who} (all): tick {t} never ran"));
                }
            }
            _ => {
                if info.skipped == 0 {
                    problems.push(format!(
                        "{who} ({}): skipped no tick across a {}s outage",
                        policy(i).to_wire(),
                        OUTAGE.as_secs()
                    ));
                }
            }
        }
    }
    for (s, _) in ran {
        problems.push(format!("items of an unknown schedule {s}"));
    }
    let kills: u32 = fleet.kills.values().sum();
    say(&format!(
        "{fired_all} ticks fired, {skipped_all} missed ticks skipped, {} items ran ({} completes on \
         record), {} left waiting, {kills} runners killed, {:.0}s",
        records.execs.len(),
        records.wins.len(),
        left.len(),
        started.elapsed().as_secs_f64()
    ));
    if problems.is_empty() {
        say("ok: every tick of every schedule decided once, by its policy");
    } else {
        for p in &problems {
            say(&format!("PROBLEM: {p}"));
        }
        std::process::exit(1);
    }
}
