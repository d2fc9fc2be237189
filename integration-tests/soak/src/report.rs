//! Reading the workers' records at the end of a run, and the verdict.

use std::collections::{BTreeMap, HashMap, HashSet};

/// What the records say.
#[derive(Default)]
pub struct Records {
    /// (queue, id) -> winning completes.
    pub wins: HashMap<(String, String), u32>,
    /// (queue, id) -> leases worked on.
    pub execs: HashMap<(String, String), u32>,
    /// language -> winning completes.
    pub completed: BTreeMap<String, u64>,
    /// language -> leases worked on.
    pub leases: BTreeMap<String, u64>,
    /// language -> leases of items that some worker had leased before (re-deliveries).
    pub repeats: BTreeMap<String, u64>,
    /// Failures retried, per language (runner mode).
    pub retried: BTreeMap<String, u64>,
    /// Items a language's runner sent to the dead letters (runner mode).
    pub dead: BTreeMap<String, u64>,
    pub violations: Vec<String>,
    /// (queue, id) of completes whose reply was lost (a connection cut): they may have taken
    /// effect, so the item may be done with no `win` record (never sent again).
    pub lost: HashSet<(String, String)>,
    /// language -> completes whose reply was lost.
    pub lost_replies: BTreeMap<String, u64>,
}

/// One `MGET` of the language that wrote each of the records `ids` of the results queue
/// `results` (a record is an id there, its item's data the language).
pub fn languages(results: &str, ids: &[String]) -> redis::Cmd {
    let keys: Vec<String> = ids
        .iter()
        .map(|id| format!("{results}:item:{id}"))
        .collect();
    let mut mget = redis::cmd("MGET");
    mget.arg(keys);
    mget
}

/// Reads every record of the results queue `results` (see README.md for their form).
pub async fn read(url: &str, results: &str) -> Records {
    let mut conn = redis::Client::open(url)
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap();
    let ids: Vec<String> = redis::cmd("LRANGE")
        .arg(format!("{results}:queue"))
        .arg(0)
        .arg(-1)
        .query_async(&mut conn)
        .await
        .unwrap();
    let mut records = Records::default();
    // Records are LPUSHed: the list is newest first. Oldest first tells which lease came first.
    let ids: Vec<String> = ids.into_iter().rev().collect();
    let mut seen: HashSet<(String, String)> = HashSet::new();
    for chunk in ids.chunks(1000) {
        let langs: Vec<Option<String>> = languages(results, chunk)
            .query_async(&mut conn)
            .await
            .unwrap();
        for (record, lang) in chunk.iter().zip(langs) {
            let lang = lang.unwrap_or_default();
            match record.split('|').collect::<Vec<_>>().as_slice() {
                ["win", q, id, _] => {
                    *records
                        .wins
                        .entry((q.to_string(), id.to_string()))
                        .or_default() += 1;
                    *records.completed.entry(lang).or_default() += 1;
                }
                ["exec", q, id, _] => {
                    let key = (q.to_string(), id.to_string());
                    if !seen.insert(key.clone()) {
                        *records.repeats.entry(lang.clone()).or_default() += 1;
                    }
                    *records.execs.entry(key).or_default() += 1;
                    *records.leases.entry(lang).or_default() += 1;
                }
                ["lost", q, id, _] => {
                    records.lost.insert((q.to_string(), id.to_string()));
                    *records.lost_replies.entry(lang).or_default() += 1;
                }
                ["retry", _, _, _] => *records.retried.entry(lang).or_default() += 1,
                ["dead", _, _, _] => *records.dead.entry(lang).or_default() += 1,
                ["viol", who, what, _] => records.violations.push(format!("{who}: {what}")),
                _ => records
                    .violations
                    .push(format!("unreadable record {record}")),
            }
        }
    }
    records
}

impl Records {
    /// Leases beyond the first of each item: expiries, kills, duplicates.
    pub fn redeliveries(&self) -> u64 {
        self.execs
            .values()
            .map(|&n| u64::from(n.saturating_sub(1)))
            .sum()
    }

    /// Ids completed more than once.
    pub fn completed_twice(&self) -> Vec<&(String, String)> {
        self.wins
            .iter()
            .filter(|(_, &n)| n > 1)
            .map(|(k, _)| k)
            .collect()
    }

    /// Expected items with no winning complete on record, nor a complete whose reply was lost.
    pub fn unrecorded(&self, expected: &[(String, String)]) -> usize {
        let won: HashSet<&(String, String)> = self.wins.keys().collect();
        expected
            .iter()
            .filter(|k| !won.contains(k) && !self.lost.contains(*k))
            .count()
    }
}
