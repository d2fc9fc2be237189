//! The fault soak's watch on its results server, which no fault touches: every record the
//! workers write, with the moment it was seen, and from those moments how long each language's
//! workers stood still around a fault.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How often the watcher looks: the resolution of the stall figures.
const POLL: Duration = Duration::from_millis(20);

/// One record (README.md: `kind|queue|id|nonce`, its data the language), as seen.
#[derive(Clone)]
pub struct Seen {
    pub at: Instant,
    pub kind: String,
    pub lang: String,
    pub queue: String,
    pub id: String,
}

/// Reads the results queue as it grows, on a thread of its own.
pub struct Watcher {
    stop: Arc<AtomicBool>,
    seen: Arc<Mutex<Vec<Seen>>>,
    thread: Option<JoinHandle<()>>,
}

impl Watcher {
    /// Starts watching the results queue `results` on the server at `url`.
    pub fn start(url: &str, results: &str) -> Watcher {
        let stop = Arc::new(AtomicBool::new(false));
        let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
        let mut conn = redis::Client::open(url)
            .and_then(|c| c.get_connection())
            .expect("the results server");
        let (flag, out, results) = (stop.clone(), seen.clone(), results.to_owned());
        let thread = std::thread::spawn(move || {
            let mut taken = 0usize;
            loop {
                let last = flag.load(Ordering::SeqCst);
                taken += poll(&mut conn, &results, taken, &out);
                if last {
                    return;
                }
                std::thread::sleep(POLL);
            }
        });
        Watcher {
            stop,
            seen,
            thread: Some(thread),
        }
    }

    /// Calls `f` with every record seen so far.
    pub fn with<T>(&self, f: impl FnOnce(&[Seen]) -> T) -> T {
        f(&self.seen.lock().unwrap())
    }

    /// Takes a last look and returns every record.
    pub fn finish(mut self) -> Vec<Seen> {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            t.join().expect("the watcher thread");
        }
        std::mem::take(&mut self.seen.lock().unwrap())
    }
}

/// Reads the records added since the first `taken`; returns how many it read. The list is
/// pushed on its left, so the oldest `taken` are its last elements and one `LRANGE 0
/// -(taken+1)` reads exactly the others, however many arrive meanwhile.
fn poll(
    conn: &mut redis::Connection,
    results: &str,
    taken: usize,
    out: &Mutex<Vec<Seen>>,
) -> usize {
    let now = Instant::now();
    let mut ids: Vec<String> = redis::cmd("LRANGE")
        .arg(format!("{results}:queue"))
        .arg(0)
        .arg(-(taken as i64) - 1)
        .query(conn)
        .expect("LRANGE of the results");
    let read = ids.len();
    ids.reverse();
    let mut seen = Vec::with_capacity(ids.len());
    for chunk in ids.chunks(500) {
        let langs: Vec<Option<String>> = crate::report::languages(results, chunk)
            .query(conn)
            .expect("MGET of the results");
        for (record, lang) in chunk.iter().zip(langs) {
            let mut parts = record.split('|');
            let (Some(kind), Some(queue), Some(id)) = (parts.next(), parts.next(), parts.next())
            else {
                continue;
            };
            seen.push(Seen {
                at: now,
                kind: kind.to_owned(),
                lang: lang.unwrap_or_default(),
                queue: queue.to_owned(),
                id: id.to_owned(),
            });
        }
    }
    out.lock().unwrap().extend(seen);
    read
}

/// How long a language's workers stood still around one fault.
pub struct Stall {
    /// The longest gap between two consecutive records of the language that began before the
    /// fault ended (or the fault's start, when nothing came before it).
    pub longest: Duration,
    /// Whether the language recorded anything after the fault ended.
    pub resumed: bool,
}

/// The stall of `lang` around a fault from `start` to `end`, looking no further than `until`.
/// Activity is any record the language wrote: a handler starting (`exec`) or a completion.
pub fn stall(seen: &[Seen], lang: &str, start: Instant, end: Instant, until: Instant) -> Stall {
    let times: Vec<Instant> = seen
        .iter()
        .filter(|s| s.lang == lang && s.kind != "viol")
        .map(|s| s.at)
        .collect();
    let mut last = times
        .iter()
        .copied()
        .filter(|&t| t <= start)
        .max()
        .unwrap_or(start);
    let mut longest = Duration::ZERO;
    let mut resumed = false;
    let mut after: Vec<Instant> = times.into_iter().filter(|&t| t > start).collect();
    after.sort();
    for t in after {
        if last > end {
            resumed = true;
            break;
        }
        longest = longest.max(t - last);
        last = t;
    }
    if last > end {
        resumed = true;
    }
    if !resumed {
        longest = longest.max(until.saturating_duration_since(last));
    }
    Stall { longest, resumed }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(base: Instant, ms: u64) -> Seen {
        Seen {
            at: base + Duration::from_millis(ms),
            kind: "exec".into(),
            lang: "c".into(),
            queue: "q".into(),
            id: "x".into(),
        }
    }

    #[test]
    fn the_stall_is_the_longest_gap_that_began_before_the_fault_ended() {
        let b = Instant::now();
        let seen: Vec<Seen> = [0, 100, 200, 1700, 1750, 4000].map(|ms| at(b, ms)).to_vec();
        let ms = Duration::from_millis;
        // Fault from 150 to 1000: the gap 200..1700 is the stall; 1750..4000 began after.
        let s = stall(&seen, "c", b + ms(150), b + ms(1000), b + ms(5000));
        assert_eq!(s.longest, ms(1500));
        assert!(s.resumed);
        // Nothing after a fault from 4100 to 4200: still standing at `until`.
        let s = stall(&seen, "c", b + ms(4100), b + ms(4200), b + ms(6000));
        assert_eq!(s.longest, ms(2000));
        assert!(!s.resumed);
        // Another language's records do not count.
        let s = stall(&seen, "rust", b + ms(150), b + ms(1000), b + ms(5000));
        assert!(!s.resumed);
    }
}
