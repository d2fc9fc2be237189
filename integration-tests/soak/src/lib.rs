//! What the Rust soak workers share: their command line, the results queue, and the dice that
//! decide how a worker misbehaves. The C, Python and Node workers follow the same rules
//! (README.md).

use std::time::Duration;

use leaseq::{Client, Item, Queue};

/// The error a failing handler reports, and its type: how the verdict tells a dead letter of the
/// soak from one of anything else.
pub const FAILURE: &str = "soak failure";
/// See [`FAILURE`].
pub const FAILURE_TYPE: &str = "SoakError";

/// Every worker's lease TTL.
pub const TTL: Duration = Duration::from_millis(500);
/// Past the TTL: how long a "slow" worker sleeps.
pub const SLOW: Duration = Duration::from_millis(700);

/// What a worker does with one lease, decided by a roll in [0, 100).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Behaviour {
    /// Never completes: the lease expires and the cleaner gives the item back.
    Drop,
    /// Sleeps past the TTL, then completes (which may return false).
    Slow,
    /// Completes twice: the second must return false.
    Twice,
    /// Sleeps past the TTL, renews (must return false), then completes.
    RenewLate,
    /// Fails the attempt ([`FAILURE`]), to be retried shortly.
    Fail,
    /// Fails for good: the item is dead with its error.
    FailForGood,
    /// Completes.
    Normal,
}

impl Behaviour {
    /// 4% drop, 3% slow, 2% twice, 2% renew late, 4% fail, 1% fail for good: the same table
    /// in every language.
    /// With `LEASEQ_SOAK_MISBEHAVE=0` in the environment (the demo), always
    /// [`Behaviour::Normal`]; with `LEASEQ_SOAK_MISBEHAVE=plain` (the drain soak) only what a
    /// redis-work-queue worker can do too: 4% drop, 3% slow, 2% twice (no renew, no fail).
    pub fn from_roll(roll: u32) -> Behaviour {
        match std::env::var("LEASEQ_SOAK_MISBEHAVE").as_deref() {
            Ok("0") => return Behaviour::Normal,
            Ok("plain") => {
                return match roll {
                    0..4 => Behaviour::Drop,
                    4..7 => Behaviour::Slow,
                    7..9 => Behaviour::Twice,
                    _ => Behaviour::Normal,
                }
            }
            _ => {}
        }
        match roll {
            0..4 => Behaviour::Drop,
            4..7 => Behaviour::Slow,
            7..9 => Behaviour::Twice,
            9..11 => Behaviour::RenewLate,
            11..15 => Behaviour::Fail,
            15 => Behaviour::FailForGood,
            _ => Behaviour::Normal,
        }
    }
}

/// A small xorshift generator: the soak needs variety, not quality.
pub struct Dice(u64);

impl Dice {
    /// Seeded from the process id and the clock.
    pub fn new() -> Dice {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .as_nanos() as u64;
        Dice(nanos ^ ((std::process::id() as u64) << 32) | 1)
    }

    /// A number in [0, n).
    pub fn below(&mut self, n: u32) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as u32
    }
}

impl Default for Dice {
    fn default() -> Self {
        Dice::new()
    }
}

/// A worker's command line and environment.
pub struct Args {
    /// One server's URL, or a cluster's node URLs separated by commas.
    pub url: String,
    /// `LEASEQ_SOAK_RESULTS_URL`: where the results queue lives when it is not beside the work
    /// (the fault soak keeps its records away from the servers it breaks).
    pub results_url: Option<String>,
    pub lang: String,
    pub queues: Vec<String>,
    pub results: String,
    /// `None`: work; `Some((first, count))`: produce ids `<lang>-<first..first+count>`.
    pub produce: Option<(u64, u64)>,
}

impl Args {
    /// `WORKER URL LANG work` or `WORKER URL LANG produce FIRST COUNT`.
    pub fn from_env() -> Args {
        let argv: Vec<String> = std::env::args().skip(1).collect();
        let usage =
            "usage: WORKER URL LANG work | WORKER URL LANG run | WORKER URL LANG produce FIRST COUNT";
        let (url, lang, mode) = match argv.as_slice() {
            [url, lang, mode, ..] => (url.clone(), lang.clone(), mode.as_str()),
            _ => panic!("{usage}"),
        };
        let produce = match mode {
            "work" | "run" => None,
            "produce" => Some((argv[3].parse().expect(usage), argv[4].parse().expect(usage))),
            _ => panic!("{usage}"),
        };
        let queues = std::env::var("LEASEQ_SOAK_QUEUES")
            .expect("LEASEQ_SOAK_QUEUES")
            .split(',')
            .map(str::to_owned)
            .collect();
        let results = std::env::var("LEASEQ_SOAK_RESULTS").expect("LEASEQ_SOAK_RESULTS");
        let results_url = std::env::var("LEASEQ_SOAK_RESULTS_URL")
            .ok()
            .filter(|u| !u.is_empty());
        Args {
            url,
            results_url,
            lang,
            queues,
            results,
            produce,
        }
    }
}

/// Connects to `url`: one server, or a cluster when it holds several URLs separated by commas.
/// Tries again for up to 10 s while the error is retryable (a connection cut as it opens).
pub async fn connect(url: &str) -> Client {
    let mut tries = 0;
    loop {
        let result = if url.contains(',') {
            Client::connect_cluster(url.split(',')).await
        } else {
            Client::connect(url).await
        };
        match result {
            Ok(client) => return client,
            Err(e) if e.is_retryable() && tries < 100 => {
                tries += 1;
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(e) => panic!("connect {url}: {e}"),
        }
    }
}

/// The outcome of a call that may fail with a retryable error (connection, timeout,
/// unavailable): `None` then, after a short pause; any other error ends the worker.
pub async fn unless_cut<T>(what: &str, result: leaseq::Result<T>) -> Option<T> {
    match result {
        Ok(value) => Some(value),
        Err(e) if e.is_retryable() => {
            tokio::time::sleep(Duration::from_millis(100)).await;
            None
        }
        Err(e) => panic!("{what}: {e}"),
    }
}

/// Records events in the results queue, through leaseq itself.
#[derive(Clone)]
pub struct Recorder {
    results: Queue,
    lang: String,
}

impl Recorder {
    /// Records through `client`, or through a client of its own when the results live on a
    /// server of their own ([`Args::results_url`]).
    pub async fn new(client: &Client, args: &Args) -> Recorder {
        let client = match &args.results_url {
            Some(url) => connect(url).await,
            None => client.clone(),
        };
        Recorder {
            results: client.queue(&args.results).expect("results prefix"),
            lang: args.lang.clone(),
        }
    }

    /// `kind` is `win`, `exec`, or `lost` (a complete whose reply was lost); `queue` the
    /// prefix the item came from.
    pub async fn record(&self, kind: &str, queue: &str, id: &str) {
        let record = format!("{kind}|{queue}|{id}|{}", uuid::Uuid::new_v4().simple());
        self.add(record).await;
    }

    /// A broken guarantee.
    pub async fn violation(&self, what: &str) {
        let record = format!(
            "viol|{}|{what}|{}",
            self.lang,
            uuid::Uuid::new_v4().simple()
        );
        self.add(record).await;
    }

    /// Adds a record; rides through Redis restarts (a resent record that landed the first time
    /// is refused as a duplicate, which is fine: ids are unique per record).
    async fn add(&self, record: String) {
        let item = Item::with_id(record, self.lang.clone().into_bytes()).expect("record id");
        loop {
            match self.results.add(&item).await {
                Ok(_) => return,
                Err(e) if e.is_retryable() => tokio::time::sleep(Duration::from_millis(100)).await,
                Err(e) => panic!("record: {e}"),
            }
        }
    }
}

/// Whether `LEASEQ_SOAK_MISBEHAVE=plain`: workers and producers do only what redis-work-queue
/// can do too (the drain soak, README.md).
pub fn plain() -> bool {
    std::env::var("LEASEQ_SOAK_MISBEHAVE").is_ok_and(|v| v == "plain")
}

/// Adds `<lang>-<n>` for n in first..first+count, item n to queue n % (number of queues), in
/// batches of 50; every tenth is delayed 300 ms and every seventh has priority 1. Plain
/// ([`plain`]): no option, each item with `add`.
pub async fn produce(client: &Client, args: &Args, first: u64, count: u64) {
    let queues: Vec<Queue> = args
        .queues
        .iter()
        .map(|p| client.queue(p).unwrap())
        .collect();
    if plain() {
        for n in first..first + count {
            let q = &queues[(n % queues.len() as u64) as usize];
            let item =
                Item::with_id(format!("{}-{n}", args.lang), format!("{{\"n\":{n}}}")).unwrap();
            assert!(q.add(&item).await.expect("add"), "a fresh id is added");
        }
        return;
    }
    let mut batches: Vec<Vec<Item>> = vec![Vec::new(); queues.len()];
    for n in first..first + count {
        let mut item =
            Item::with_id(format!("{}-{n}", args.lang), format!("{{\"n\":{n}}}")).unwrap();
        if n % 10 == 0 {
            item = item.delay(Duration::from_millis(300));
        }
        if n % 7 == 0 {
            item = item.priority(1);
        }
        batches[(n % queues.len() as u64) as usize].push(item);
        for (q, batch) in queues.iter().zip(batches.iter_mut()) {
            if batch.len() == 50 {
                let added = q.add_batch(batch).await.expect("add_batch");
                assert_eq!(added, 50, "fresh ids are all added");
                batch.clear();
            }
        }
    }
    for (q, batch) in queues.iter().zip(batches) {
        if !batch.is_empty() {
            q.add_batch(&batch).await.expect("add_batch");
        }
    }
}

/// What a runner's handler does with an item in runner mode (`WORKER URL LANG run`, the demo),
/// the same rule in every language: the number `n` at the end of the id decides. Every 101st
/// item fails for good (dead at once: unrecoverable, with [`FAILURE`]); every 13th fails its
/// first attempt (retried with the queue's backoff); the rest succeed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunnerRule {
    /// Fail, unrecoverable.
    Dead,
    /// Fail this attempt, to be retried.
    Retry,
    /// Succeed.
    Succeed,
}

impl RunnerRule {
    /// The rule for item `id` (`<lang>-<n>`) on attempt `attempt`.
    pub fn of(id: &str, attempt: u64) -> RunnerRule {
        let n: u64 = id
            .rsplit('-')
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or(1);
        if n.is_multiple_of(101) {
            RunnerRule::Dead
        } else if n.is_multiple_of(13) && attempt == 1 {
            RunnerRule::Retry
        } else {
            RunnerRule::Succeed
        }
    }
}
