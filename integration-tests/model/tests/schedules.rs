//! Recurring jobs (spec/PROTOCOL.md 5.23): the schedules model checked exhaustively in its small
//! scope, each policy, and its random walks (fixed seed) replayed against the real scripts on a
//! throwaway redis-server, comparing every reply and the schedule's keys. As tests/replay.rs
//! does, the replay loads an edited copy of the library whose `now_ms` reads the key
//! `leaseq-test:clock`, set to the model's clock before each step: it never sleeps.

use leaseq_harness::RedisServer;
use leaseq_model::schedules::{
    plan, Missed, SchedAction, SchedReply, SchedScope, SchedState, ScheduleModel, BASE,
};
use leaseq_model::verdict::verdict;
use redis::Value;
use stateright::{Checker, Expectation, Model};

const CLOCK: &str = "leaseq-test:clock";

#[test]
fn every_schedule_invariant_holds_for_each_policy() {
    for missed in [Missed::Skip, Missed::Once, Missed::All(2)] {
        let model = ScheduleModel {
            scope: SchedScope {
                missed,
                ..SchedScope::small()
            },
        };
        let props = model.properties();
        let checker = model.checker().threads(2).spawn_bfs().join();
        // With All(2), the scope may give no tick to skip.
        let failed = verdict(
            &format!("schedules ({missed:?})"),
            &props,
            &checker,
            |name| name == "a missed tick is skipped" && missed == Missed::All(2),
        );
        assert!(failed.is_empty(), "{missed:?}: {failed:?}");
    }
}

/// Why the fire compares the version too: without it, the checker finds a firer that read
/// before an upsert (which kept `from` and changed the period) firing a tick of the old period.
#[test]
fn without_the_version_in_the_compare_and_set_an_upsert_can_be_overtaken() {
    let model = ScheduleModel {
        scope: SchedScope {
            cas_version: false,
            ..SchedScope::small()
        },
    };
    let checker = model.checker().threads(2).spawn_bfs().join();
    assert!(
        checker
            .discovery("only ticks of the spec in force fire")
            .is_some(),
        "the checker finds the stale firer"
    );
}

/// The model's plan (a transcription of the core's `schedule_plan` for `every` schedules).
#[test]
fn the_plan_fires_on_time_ticks_and_the_policys_missed_ones() {
    let stored = leaseq_model::schedules::Stored {
        version: 1,
        from: BASE,
        next: None,
        period: 1000,
        anchor: BASE,
        fired: 0,
        skipped: 0,
        last_tick: None,
    };
    let read = leaseq_model::schedules::Read {
        now: BASE + 6000,
        stored,
    };
    // Grace 2 s: ticks +1 .. +4 s missed, +5 and +6 on time.
    let p = plan(&read, 2000, Missed::Once);
    assert_eq!(p.ticks, [BASE + 4000, BASE + 5000, BASE + 6000]);
    assert_eq!((p.skipped, p.next), (3, BASE + 7000));
    let p = plan(&read, 2000, Missed::Skip);
    assert_eq!((p.ticks.len(), p.skipped), (2, 4));
}

/// The edited library (`now_ms` reads the model's clock), loaded; its name.
fn library(con: &mut redis::Connection) -> String {
    let (name, text) = leaseq::edited_library(|code| {
        let from =
            "  local t = redis.call('TIME')\n  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)\n";
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
    let _: Value = redis::cmd("FUNCTION")
        .arg("LOAD")
        .arg("REPLACE")
        .arg(text)
        .query(con)
        .unwrap();
    name
}

fn fcall(lib: &str, prefix: &str, f: &str) -> redis::Cmd {
    let mut c = redis::cmd("FCALL");
    c.arg(format!("{lib}_{f}"))
        .arg(2)
        .arg(format!("{prefix}:lease:"))
        .arg(format!("{prefix}:item:"));
    c
}

fn int(v: &Value) -> i64 {
    match v {
        Value::Int(n) => *n,
        Value::BulkString(b) => String::from_utf8_lossy(b).parse().unwrap(),
        other => panic!("not an integer: {other:?}"),
    }
}

/// Sends `a` to the real scripts as a firer of the model would; returns their reply in the
/// model's terms. `s` is the model's state before the step.
fn send(
    con: &mut redis::Connection,
    lib: &str,
    prefix: &str,
    model: &ScheduleModel,
    s: &SchedState,
    a: &SchedAction,
) -> SchedReply {
    match *a {
        SchedAction::Tick | SchedAction::Crash(_) => SchedReply::Local,
        SchedAction::Read(_) => {
            let v: Vec<Value> = fcall(lib, prefix, "schedules")
                .arg("due")
                .arg(100)
                .query(con)
                .unwrap();
            match &v[2] {
                Value::Array(due) => SchedReply::Due(!due.is_empty()),
                other => panic!("due: {other:?}"),
            }
        }
        SchedAction::Upsert => {
            let period = s.stored.as_ref().unwrap().period;
            let other = if period == model.scope.periods[0] {
                model.scope.periods[1]
            } else {
                model.scope.periods[0]
            };
            upsert(con, lib, prefix, model, other)
        }
        SchedAction::Fire(f) => {
            let read = s.firers[f as usize].clone().unwrap();
            let p = plan(&read, model.scope.grace, model.scope.missed);
            let mut c = fcall(lib, prefix, "schedule_fire");
            c.arg("s")
                .arg(read.stored.version)
                .arg(read.stored.from)
                .arg(p.new_from)
                .arg(p.next)
                .arg(p.skipped)
                .arg("inc");
            for t in &p.ticks {
                c.arg(*t);
            }
            let v: Vec<Value> = c.query(con).unwrap();
            SchedReply::Fired(int(&v[0]))
        }
    }
}

fn upsert(
    con: &mut redis::Connection,
    lib: &str,
    prefix: &str,
    model: &ScheduleModel,
    period: u64,
) -> SchedReply {
    let v: Vec<Value> = fcall(lib, prefix, "schedule_upsert")
        .arg("s")
        .arg(model.scope.grace)
        .arg(10_000)
        .arg("kind")
        .arg("every")
        .arg("every")
        .arg(period)
        .arg("missed")
        .arg(model.scope.missed.wire())
        .arg("data")
        .arg("x")
        .query(con)
        .unwrap();
    assert_eq!(int(&v[0]), 1, "upsert: {v:?}");
    SchedReply::Upserted(int(&v[1]) as u32, int(&v[2]) as u64)
}

/// The schedule's keys hold what the model's state says.
fn check_keys(con: &mut redis::Connection, prefix: &str, s: &SchedState, trail: &[SchedAction]) {
    let st = s.stored.as_ref().unwrap();
    let fields: Vec<Option<String>> = redis::cmd("HMGET")
        .arg(format!("{prefix}:cron:s"))
        .arg(&[
            "version",
            "from",
            "next",
            "every",
            "anchor",
            "fired",
            "skipped",
            "last_tick",
        ])
        .query(con)
        .unwrap();
    let num = |i: usize| fields[i].as_ref().map(|v| v.parse::<u64>().unwrap());
    let got = (
        num(0),
        num(1),
        num(2),
        num(3),
        num(4),
        num(5).unwrap_or(0),
        num(6).unwrap_or(0),
        num(7),
    );
    let want = (
        Some(st.version as u64),
        Some(st.from),
        st.next,
        Some(st.period),
        Some(st.anchor),
        st.fired,
        st.skipped,
        st.last_tick,
    );
    assert_eq!(got, want, "after {trail:?}");
    let score: Option<u64> = redis::cmd("ZSCORE")
        .arg(format!("{prefix}:cron"))
        .arg("s")
        .query(con)
        .unwrap();
    assert_eq!(score, Some(st.score()), "P:cron after {trail:?}");
    let mut queued: Vec<String> = redis::cmd("LRANGE")
        .arg(format!("{prefix}:queue"))
        .arg(0)
        .arg(-1)
        .query(con)
        .unwrap();
    queued.sort();
    let mut want: Vec<String> = s.items.iter().map(|t| format!("s@{t}")).collect();
    want.sort();
    assert_eq!(queued, want, "items after {trail:?}");
}

/// A small fixed-seed generator (xorshift64*).
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
fn schedule_walks_replay_against_the_scripts() {
    let server = RedisServer::start();
    let mut con = redis::Client::open(server.url())
        .unwrap()
        .get_connection()
        .unwrap();
    let lib = library(&mut con);
    let mut rng = Rng(0x5c4e_d01e_7157_0a11);
    let mut seen = std::collections::BTreeMap::<String, usize>::new();
    for (w, missed) in [Missed::Skip, Missed::Once, Missed::All(2)]
        .into_iter()
        .cycle()
        .take(300)
        .enumerate()
    {
        let model = ScheduleModel {
            scope: SchedScope {
                missed,
                max_clock: 12_000,
                max_upserts: 2,
                firers: 3,
                ..SchedScope::small()
            },
        };
        let prefix = format!("{{s{w}}}");
        let mut s = model.initial();
        let _: () = redis::cmd("SET")
            .arg(CLOCK)
            .arg(BASE)
            .query(&mut con)
            .unwrap();
        // The first upsert makes the model's initial state.
        upsert(&mut con, &lib, &prefix, &model, model.scope.periods[0]);
        let mut trail = Vec::new();
        for _ in 0..24 {
            let mut actions = Vec::new();
            model.actions(&s, &mut actions);
            let a = actions[rng.below(actions.len())].clone();
            trail.push(a.clone());
            let _: () = redis::cmd("SET")
                .arg(CLOCK)
                .arg(s.clock)
                .query(&mut con)
                .unwrap();
            let got = send(&mut con, &lib, &prefix, &model, &s, &a);
            let want = model.apply(&mut s, &a);
            assert_eq!(got, want, "{missed:?}: reply of {a:?} after {trail:?}");
            check_keys(&mut con, &prefix, &s, &trail);
            let kind = match (&a, &want) {
                (_, SchedReply::Fired(-1)) => "Fire (lost race)".to_string(),
                (_, SchedReply::Fired(n)) if *n > 0 => "Fire (added)".to_string(),
                (_, SchedReply::Due(false)) => "Read (nothing due)".to_string(),
                _ => format!("{a:?}").split('(').next().unwrap().to_string(),
            };
            *seen.entry(kind).or_default() += 1;
        }
        for p in model.properties() {
            if p.expectation == Expectation::Always {
                assert!((p.condition)(&model, &s), "{}: after {trail:?}", p.name);
            }
        }
    }
    eprintln!("[replay] schedules: 300 walks of 24 steps, calls: {seen:?}");
    for kind in ["Fire (lost race)", "Fire (added)", "Upsert", "Crash"] {
        assert!(seen.contains_key(kind), "no {kind} replayed: {seen:?}");
    }
}
