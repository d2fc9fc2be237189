//! The model of dependencies (src/deps.rs): checked exhaustively, then its random walks (fixed
//! seed) replayed against the real scripts on a throwaway redis-server, comparing after every
//! step each item's state as `get` reports it, the waiting list, `P:deps:X`, `P:dependants:X`,
//! `P:blocked` and `P:settled`, and which item each lease took.
//!
//! Time: as tests/replay.rs, an edited copy of the library reads the clock from a key the replay
//! sets (it moves past a lease's housekeeping period before every step); lease keys get a TTL
//! no test outlives, and a holder's crash is the replay deleting the lease key and moving the
//! clock past its expiry.

use std::collections::BTreeMap;

use leaseq_harness::RedisServer;
use leaseq_model::deps::{dep_name, DepsAction, DepsModel, DepsState, Outcome, St};
use leaseq_model::spec_table::transition_rows;
use leaseq_model::verdict::verdict;
use stateright::{Checker, Model};

const CLOCK: &str = "leaseq-test:clock";
/// The lease TTL the replay asks for (ms): no walk lasts that long in real time.
const TTL: u64 = 600_000;

#[test]
fn every_dependency_invariant_holds() {
    let model = DepsModel::new();
    let props = model.properties();
    let checker = model.checker().threads(2).spawn_bfs().join();
    let failed = verdict("deps", &props, &checker, |_| false);
    assert!(failed.is_empty(), "{failed:?}");
}

/// The same over any number of requeues from the dead letters (`make model-deep`): about 6
/// million states, 40 s and 1.4 GB here.
#[test]
#[ignore]
fn every_dependency_invariant_holds_over_any_requeues() {
    let model = DepsModel {
        max_requeues: None,
        ..DepsModel::new()
    };
    let props = model.properties();
    let checker = model.checker().threads(2).spawn_bfs().join();
    let failed = verdict("deps-any-requeues", &props, &checker, |_| false);
    assert!(failed.is_empty(), "{failed:?}");
}

/// The checker finds a dependant leased too early when the scripts forget a step: here, a
/// complete that settles nothing (as if lib/finish.lua did not note it) is caught only by the
/// sweep, so leasing never breaks the rule; but a lease that ignored the blocked state would.
#[test]
fn a_blocked_item_on_the_waiting_list_would_be_found() {
    let model = DepsModel::new();
    let mut s = model.init_states().remove(0);
    for a in [DepsAction::Add(0), DepsAction::Add(1), DepsAction::Add(2)] {
        s = model.next_state(&s, a).unwrap();
    }
    assert_eq!(s.st[2], St::Blocked);
    // Put the blocked item on the list as a faulty add would: the next lease takes it.
    s.st[2] = St::Waiting;
    s.queue.push_back(2);
    let s = model.next_state(&s, DepsAction::Lease).unwrap();
    assert!(s.violation.is_some(), "{s:?}");
}

/// The checker finds a dependant requeued from the dead letters straight to waiting while its
/// dependency is still pending, as dead.lua did before requeue_dependant (a user's trial found
/// the parent of a flow run beside its requeued child): the next lease breaks the rule.
#[test]
fn a_dependant_requeued_to_waiting_would_be_found() {
    let model = DepsModel::new();
    let mut s = model.init_states().remove(0);
    for a in [
        DepsAction::Add(0),
        DepsAction::Add(1),
        DepsAction::Add(2),
        DepsAction::Lease,
        DepsAction::Lease,
        DepsAction::FailDead(1),
    ] {
        s = model.next_state(&s, a).unwrap();
    }
    assert_eq!((s.st[1], s.st[2]), (St::Dead, St::Dead));
    // Requeued together, the dependant is blocked on both of its dependencies.
    let both = model.next_state(&s, DepsAction::RequeueAll).unwrap();
    assert_eq!(both.st[2], St::Blocked);
    assert_eq!(both.deps[2].iter().copied().collect::<Vec<_>>(), [0, 1]);
    // Alone, with its dependency d1 still dead, it dies again.
    let alone = model.next_state(&s, DepsAction::Requeue(2)).unwrap();
    assert_eq!(alone.st[2], St::Dead);
    // Both requeued, but the dependant put on the waiting list as the old script did: the
    // lease that takes it (d0 is still leased) is caught.
    let mut faulty = both.clone();
    faulty.st[2] = St::Waiting;
    faulty.blocked.retain(|&x| x != 2);
    faulty.deps[2].clear();
    faulty.queue.push_back(2);
    let after = model.next_state(&faulty, DepsAction::Lease).unwrap();
    assert!(after.violation.is_some(), "{after:?}");
}

fn connect() -> (RedisServer, redis::Connection, String) {
    let server = RedisServer::start();
    let client = redis::Client::open(server.url()).unwrap();
    let mut con = client.get_connection().unwrap();
    let (name, text) = leaseq::edited_library(|code| {
        let from = "  local t = redis.call('TIME')\n  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)\n";
        assert_eq!(
            code.matches(from).count(),
            1,
            "lib/time.lua's now_ms changed"
        );
        code.replace(
            from,
            &format!("  return tonumber(redis.call('GET', '{CLOCK}'))\n"),
        )
    });
    let _: String = redis::cmd("FUNCTION")
        .arg("LOAD")
        .arg("REPLACE")
        .arg(text)
        .query(&mut con)
        .unwrap();
    (server, con, name)
}

/// What the replay keeps of each lease: token and incarnation.
type Leases = BTreeMap<usize, (String, String)>;

struct Replay<'a> {
    con: &'a mut redis::Connection,
    lib: &'a str,
    prefix: String,
    clock: u64,
    leases: Leases,
    tokens: u64,
}

impl Replay<'_> {
    fn fcall(&mut self, op: &str, args: &[String]) -> redis::RedisResult<redis::Value> {
        let mut c = redis::cmd("FCALL");
        c.arg(format!("{}_{op}", self.lib))
            .arg(2)
            .arg(format!("{}:lease:", self.prefix))
            .arg(format!("{}:item:", self.prefix));
        for a in args {
            c.arg(a);
        }
        c.query(self.con)
    }

    fn key(&self, suffix: &str) -> String {
        format!("{}:{suffix}", self.prefix)
    }

    /// Runs `a` from the model's state `before`; returns the id a lease took, if it was a
    /// lease.
    fn run(&mut self, model: &DepsModel, before: &DepsState, a: DepsAction) -> Option<String> {
        self.clock += 200;
        let _: () = redis::cmd("SET")
            .arg(CLOCK)
            .arg(self.clock)
            .query(self.con)
            .unwrap();
        let s = |x: usize| dep_name(x);
        match a {
            DepsAction::Add(x) => {
                let spec = &model.specs[x];
                let deps: Vec<String> = spec.deps.iter().map(|&d| s(d)).collect();
                let max = spec.max_attempts.map(|m| m.to_string()).unwrap_or_default();
                let mut args = vec!["add_deps".into(), format!("i{x}"), "0".into(), s(x), s(x)];
                args.extend(["", "", ""].map(String::from));
                args.push(max);
                args.extend(["", "", "", "", ""].map(String::from));
                args.push(deps.join("\n"));
                args.push(if spec.run {
                    "run".into()
                } else {
                    String::new()
                });
                let added: i64 =
                    redis::from_redis_value(self.fcall("add", &args).unwrap()).unwrap();
                assert_eq!(added, 1);
                None
            }
            DepsAction::Lease => {
                self.tokens += 1;
                let token = format!("t{}", self.tokens);
                let reply = self
                    .fcall(
                        "lease",
                        &[token.clone(), TTL.to_string(), "1".into(), "0".into()],
                    )
                    .unwrap();
                let redis::Value::Array(parts) = reply else {
                    panic!("lease: {reply:?}")
                };
                // The plain form (spec/PROTOCOL.md 4.4), {3, max_attempts, backoff, id, data}:
                // a plain item's first lease, whose incarnation is its token.
                if parts.first() == Some(&redis::Value::Int(3)) {
                    let id: String = redis::from_redis_value(parts[3].clone()).unwrap();
                    let x: usize = id[1..].parse().unwrap();
                    self.leases.insert(x, (token.clone(), token));
                    return Some(id);
                }
                let lease = parts.get(2).cloned()?;
                let redis::Value::Array(lease) = lease else {
                    panic!("lease: {lease:?}")
                };
                let id: String = redis::from_redis_value(lease[0].clone()).unwrap();
                let inc: String = redis::from_redis_value(lease[3].clone()).unwrap();
                let x: usize = id[1..].parse().unwrap();
                self.leases.insert(x, (token, inc));
                Some(id)
            }
            DepsAction::Complete(x) => {
                let (token, inc) = self.leases[&x].clone();
                self.fcall("complete", &[s(x), inc, token]).unwrap();
                None
            }
            DepsAction::FailDead(x) => {
                let (token, inc) = self.leases[&x].clone();
                let args = [
                    s(x),
                    token,
                    inc,
                    "dead".into(),
                    "0".into(),
                    "boom".into(),
                    "E".into(),
                ];
                self.fcall("fail", &args).unwrap();
                None
            }
            DepsAction::Cancel(x) => {
                self.fcall("cancel", &[s(x)]).unwrap();
                None
            }
            DepsAction::Expire(x) => {
                let _: i64 = redis::cmd("DEL")
                    .arg(self.key(&format!("lease:{}", s(x))))
                    .query(self.con)
                    .unwrap();
                self.clock += TTL + 1;
                None
            }
            DepsAction::ForeignComplete(x) => {
                let _: i64 = redis::cmd("LREM")
                    .arg(self.key("queue"))
                    .arg(0)
                    .arg(s(x))
                    .query(self.con)
                    .unwrap();
                let _: i64 = redis::cmd("DEL")
                    .arg(self.key(&format!("item:{}", s(x))))
                    .query(self.con)
                    .unwrap();
                None
            }
            DepsAction::Requeue(x) => {
                let got: Vec<i64> = redis::from_redis_value(
                    self.fcall("dead", &["requeue_each".into(), s(x)]).unwrap(),
                )
                .unwrap();
                assert_eq!(got, [1]);
                None
            }
            DepsAction::RequeueAll => {
                let mut args = vec!["requeue_each".to_string()];
                args.extend(
                    (0..before.st.len())
                        .rev()
                        .filter(|&x| before.st[x] == St::Dead)
                        .map(s),
                );
                let got: Vec<i64> =
                    redis::from_redis_value(self.fcall("dead", &args).unwrap()).unwrap();
                assert!(got.iter().all(|&r| r == 1), "{got:?}");
                None
            }
            DepsAction::Clean => {
                self.fcall("clean", &["200".into()]).unwrap();
                None
            }
        }
    }

    /// The keys and states the model keeps, as Redis has them.
    fn observe(&mut self, n: usize) -> String {
        let mut out = String::new();
        for x in 0..n {
            let got = self.fcall("get", &[dep_name(x)]).unwrap();
            let state = match got {
                redis::Value::Array(parts) => {
                    redis::from_redis_value::<String>(parts[0].clone()).unwrap()
                }
                _ => "-".into(),
            };
            let deps: Vec<String> = self.sorted_set(&format!("deps:{}", dep_name(x)));
            let dependants: Vec<String> = self.sorted_set(&format!("dependants:{}", dep_name(x)));
            out += &format!(
                "{}: {state} deps {deps:?} dependants {dependants:?}\n",
                dep_name(x)
            );
        }
        let queue: Vec<String> = redis::cmd("LRANGE")
            .arg(self.key("queue"))
            .arg(0)
            .arg(-1)
            .query(self.con)
            .unwrap();
        let blocked: Vec<String> = redis::cmd("ZRANGE")
            .arg(self.key("blocked"))
            .arg(0)
            .arg(-1)
            .query(self.con)
            .unwrap();
        let settled: Vec<String> = redis::cmd("LRANGE")
            .arg(self.key("settled"))
            .arg(0)
            .arg(-1)
            .query(self.con)
            .unwrap();
        out + &format!("queue {queue:?}\nblocked {blocked:?}\nsettled {settled:?}\n")
    }

    fn sorted_set(&mut self, suffix: &str) -> Vec<String> {
        let mut v: Vec<String> = redis::cmd("SMEMBERS")
            .arg(self.key(suffix))
            .query(self.con)
            .unwrap();
        v.sort();
        v
    }
}

/// The same rendering of the model's state.
fn expected(s: &DepsState) -> String {
    let mut out = String::new();
    for x in 0..s.st.len() {
        let state = match s.st[x] {
            St::Absent | St::Gone => "-",
            St::Waiting | St::Leased { live: false, .. } => "waiting",
            St::Leased { live: true, .. } => "leased",
            St::Blocked => "blocked",
            St::Dead => "dead",
        };
        let names = |set: &std::collections::BTreeSet<usize>| -> Vec<String> {
            set.iter().map(|&d| dep_name(d)).collect()
        };
        out += &format!(
            "{}: {state} deps {:?} dependants {:?}\n",
            dep_name(x),
            names(&s.deps[x]),
            names(&s.dependants[x])
        );
    }
    let queue: Vec<String> = s.queue.iter().map(|&x| dep_name(x)).collect();
    let blocked: Vec<String> = s.blocked.iter().map(|&x| dep_name(x)).collect();
    let settled: Vec<String> = s
        .settled
        .iter()
        .flat_map(|&(x, o): &(usize, Outcome)| [dep_name(x), o.text().to_owned()])
        .collect();
    out + &format!("queue {queue:?}\nblocked {blocked:?}\nsettled {settled:?}\n")
}

/// Xorshift64*, fixed seed: the same walks on every run.
struct Rng(u64);
impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n
    }
}

#[test]
fn dependency_walks_replay_against_the_scripts() {
    let traces: usize = std::env::var("LEASEQ_MODEL_REPLAY_TRACES")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .map_or(400, |n| n.div_ceil(5));
    let model = DepsModel::new();
    let (_server, mut con, lib) = connect();
    let mut rng = Rng(0x00de_950f_f10e_5eed);
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for t in 0..traces {
        let mut r = Replay {
            con: &mut con,
            lib: &lib,
            prefix: format!("{{dep{t}}}"),
            clock: 1_000_000,
            leases: Leases::new(),
            tokens: 0,
        };
        let mut s = model.init_states().remove(0);
        let mut trail = Vec::new();
        for _ in 0..16 {
            let mut actions = Vec::new();
            model.actions(&s, &mut actions);
            if actions.is_empty() {
                break;
            }
            let a = actions[rng.below(actions.len())];
            trail.push(a);
            let next = model.next_state(&s, a).unwrap();
            let took = r.run(&model, &s, a);
            let model_took = (0..next.st.len())
                .find(|&x| {
                    matches!(next.st[x], St::Leased { live: true, .. })
                        && !matches!(s.st[x], St::Leased { live: true, .. })
                })
                .filter(|_| a == DepsAction::Lease)
                .map(dep_name);
            assert_eq!(took, model_took, "lease diverges: {trail:?}");
            let (got, want) = (r.observe(next.st.len()), expected(&next));
            assert_eq!(got, want, "diverges at the last step of {trail:?}");
            *seen
                .entry(format!("{a:?}").split('(').next().unwrap().to_owned())
                .or_default() += 1;
            s = next;
        }
    }
    eprintln!("[deps replay] {traces} walks, every step as the model's: {seen:?}");
}

/// Every transition of dependencies in spec/PROTOCOL.md 8.1 (its own table) is one this model
/// makes: a row added, changed or removed there fails this test until the mapping follows.
#[test]
fn every_dependency_transition_of_the_spec_is_modelled() {
    let spec = include_str!("../../../spec/PROTOCOL.md");
    let rows = transition_rows(spec, "Transitions of dependencies (5.24)");
    let mapping: Vec<((&str, &str), Vec<DepsAction>)> = vec![
        (("–", "blocked"), vec![DepsAction::Add(2)]),
        (
            ("blocked", "waiting / delayed"),
            vec![
                DepsAction::Complete(0),
                DepsAction::FailDead(0),
                DepsAction::Cancel(0),
                DepsAction::Clean,
            ],
        ),
        (
            ("blocked", "dead"),
            vec![
                DepsAction::FailDead(1),
                DepsAction::Cancel(1),
                DepsAction::Lease,
                DepsAction::Clean,
            ],
        ),
        (("blocked", "gone"), vec![DepsAction::Cancel(2)]),
        (("dead", "blocked"), vec![DepsAction::RequeueAll]),
        (("dead", "dead"), vec![DepsAction::Requeue(2)]),
    ];
    assert_eq!(rows.len(), mapping.len(), "{rows:?}");
    for ((f, t), actions) in &mapping {
        assert!(
            rows.iter().any(|(from, to)| f == from && t == to),
            "the mapping's `{f}` -> `{t}` is not in spec/PROTOCOL.md 8.1"
        );
        assert!(!actions.is_empty());
    }
}
