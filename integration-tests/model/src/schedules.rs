//! A model of ONE schedule of a queue (recurring jobs, spec/PROTOCOL.md 5.23) for stateright:
//! several firers that read the due schedule, compute their fire plan (as the core's
//! `schedule_plan` does, for an `every` schedule) and send `schedule_fire`, crash between the
//! two (forgetting what they read) or lose the reply; upserts that change the period; and the
//! server's clock moving on. Each script call is one action, a transcription of its Lua file
//! (`schedules` due read, `schedule_fire`, `schedule_upsert`), so that the replay
//! (tests/schedules.rs) can hold the real scripts to it step by step.
//!
//! Invariants: each tick fires at most once (whatever the number of firers and their crashes),
//! never before its time, only on the grid of the spec in force, a tick not fired was missed (it
//! was more than the grace old when decided) and the policy's count of missed ticks fired is
//! kept, and the items are exactly the ticks fired.
//!
//! Left out: cron expressions (the client's arithmetic, unit-tested in the core: the scripts
//! see only ticks), capacity, several schedules (each has its own keys; `P:cron` only orders
//! them), item options.

use std::collections::BTreeMap;

use stateright::{Model, Property};

/// The model's clock starts here (ms since the epoch), so that the replay sends real times.
pub const BASE: u64 = 1_000_000_000_000;
/// The clock moves by this much per step (ms): a schedule's ticks are whole seconds.
pub const STEP: u64 = 1000;

/// What a schedule does with missed ticks (the core's `Missed`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Missed {
    /// Missed ticks add nothing.
    Skip,
    /// The latest missed tick fires.
    Once,
    /// The latest `n` missed ticks fire.
    All(u8),
}

impl Missed {
    /// The stored form.
    pub fn wire(self) -> String {
        match self {
            Missed::Skip => "skip".into(),
            Missed::Once => "once".into(),
            Missed::All(n) => format!("all:{n}"),
        }
    }

    fn latest(self) -> usize {
        match self {
            Missed::Skip => 0,
            Missed::Once => 1,
            Missed::All(n) => n as usize,
        }
    }
}

/// The bounds of the exploration.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SchedScope {
    /// Firers (runners' housekeeping, or `fire_due_schedules` callers).
    pub firers: u8,
    /// The clock stops at BASE + this (ms).
    pub max_clock: u64,
    /// Upserts after the first (each one alternates the period between the two below).
    pub max_upserts: u8,
    /// The periods an upsert alternates between (ms).
    pub periods: [u64; 2],
    /// The grace after which a tick is missed (ms): the core's is 10 s; the model's is shorter
    /// so that a small clock reaches missed ticks. The replay sends it to the upsert.
    pub grace: u64,
    /// The schedule's policy.
    pub missed: Missed,
    /// Whether `schedule_fire` compares the version as well as `from` (the scripts do). Off, a
    /// firer that read before an upsert which kept `from` fires its ticks under the old spec:
    /// the checker finds it (tests/schedules.rs).
    pub cas_version: bool,
}

impl SchedScope {
    /// The scope `cargo test` checks.
    pub fn small() -> SchedScope {
        SchedScope {
            firers: 2,
            max_clock: 6 * STEP,
            max_upserts: 1,
            periods: [STEP, 2 * STEP],
            grace: 2 * STEP,
            missed: Missed::Once,
            cas_version: true,
        }
    }
}

/// The schedule as stored (`P:cron:<name>` and its score in `P:cron`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Stored {
    /// `version`.
    pub version: u32,
    /// `from`: every tick at or before it is decided.
    pub from: u64,
    /// `next`, once a fire stored it.
    pub next: Option<u64>,
    /// `every` (ms).
    pub period: u64,
    /// `anchor`.
    pub anchor: u64,
    /// `fired`, `skipped` (absent: 0).
    pub fired: u64,
    /// See `fired`.
    pub skipped: u64,
    /// `last_tick`.
    pub last_tick: Option<u64>,
}

impl Stored {
    /// Its score in `P:cron`.
    pub fn score(&self) -> u64 {
        self.next.unwrap_or(self.from)
    }
}

/// What a firer read from `schedules due`, until it fires or crashes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Read {
    /// The server's clock of the read.
    pub now: u64,
    /// The schedule as read.
    pub stored: Stored,
}

/// The plan a firer sends (the core's `schedule_plan` for an `every` schedule).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Plan {
    /// Ticks to fire, ascending.
    pub ticks: Vec<u64>,
    /// Missed ticks skipped.
    pub skipped: u64,
    /// `new_from` (= the read's now).
    pub new_from: u64,
    /// The first tick after now.
    pub next: u64,
}

/// The first tick after `t` of `anchor + k * period`.
fn first_after(anchor: u64, period: u64, t: u64) -> u64 {
    let k = (t as i128 - anchor as i128).div_euclid(period as i128) + 1;
    (anchor as i128 + k * period as i128) as u64
}

/// The fire plan for `r` (spec/PROTOCOL.md 5.23): on-time ticks of (max(from, now - grace), now]
/// fire; of the missed ones, (from, now - grace], the latest per the policy.
pub fn plan(r: &Read, grace: u64, missed: Missed) -> Plan {
    let s = &r.stored;
    let late = r.now.saturating_sub(grace);
    let grid = |after: u64, until: u64| -> Vec<u64> {
        let mut out = Vec::new();
        let mut t = first_after(s.anchor, s.period, after);
        while t <= until {
            out.push(t);
            t += s.period;
        }
        out
    };
    let mut ticks = Vec::new();
    let mut skipped = 0;
    if late > s.from {
        let all = grid(s.from, late);
        let keep = missed.latest().min(all.len());
        skipped = (all.len() - keep) as u64;
        ticks.extend_from_slice(&all[all.len() - keep..]);
    }
    ticks.extend(grid(s.from.max(late), r.now));
    Plan {
        ticks,
        skipped,
        new_from: r.now,
        next: first_after(s.anchor, s.period, r.now),
    }
}

/// One state: the server's keys of the schedule, the items added, the firers, and ghosts.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SchedState {
    /// The server's clock.
    pub clock: u64,
    /// The schedule, or none once removed.
    pub stored: Option<Stored>,
    /// The ids added (`s@<tick>`), by tick.
    pub items: Vec<u64>,
    /// What each firer read (none: idle).
    pub firers: Vec<Option<Read>>,
    /// Upserts done after the first.
    pub upserts: u8,
    /// Ghost: how many successful fire calls carried each tick.
    pub fired: BTreeMap<u64, u8>,
    /// Ghost: a tick fired after its time? (false is good) / off the grid in force / a tick
    /// decided without firing that was not missed yet.
    pub early: bool,
    /// See `early`.
    pub off_grid: bool,
    /// See `early`.
    pub not_missed_skipped: bool,
    /// Ghost: a missed stretch fired more ticks than the policy allows.
    pub too_many_missed: bool,
    /// Ghost, for the `sometimes` properties: a fire lost its race; an upsert moved a read.
    pub lost_race: bool,
    /// See `lost_race`.
    pub overtaken: bool,
}

/// One step.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum SchedAction {
    /// The clock moves on by [`STEP`].
    Tick,
    /// Firer `f` reads the due schedule (`schedules due`).
    Read(u8),
    /// Firer `f` sends `schedule_fire` with its plan (its reply may be lost: it is idle after,
    /// whatever the reply).
    Fire(u8),
    /// Firer `f` crashes between its read and its fire.
    Crash(u8),
    /// An upsert with the other period (`schedule_upsert`).
    Upsert,
}

/// What a call replied, as the replay compares it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SchedReply {
    /// No script call (the clock, a crash).
    Local,
    /// `schedules due`: whether the schedule was due.
    Due(bool),
    /// `schedule_fire`: items added, or -1 when the schedule had moved.
    Fired(i64),
    /// `schedule_upsert`: `{1, version, from}`.
    Upserted(u32, u64),
}

/// The model.
pub struct ScheduleModel {
    /// Its bounds.
    pub scope: SchedScope,
}

impl ScheduleModel {
    /// The state after the first upsert at BASE (version 1, from = anchor = BASE).
    pub fn initial(&self) -> SchedState {
        SchedState {
            clock: BASE,
            stored: Some(Stored {
                version: 1,
                from: BASE,
                next: None,
                period: self.scope.periods[0],
                anchor: BASE,
                fired: 0,
                skipped: 0,
                last_tick: None,
            }),
            items: Vec::new(),
            firers: vec![None; self.scope.firers as usize],
            upserts: 0,
            fired: BTreeMap::new(),
            early: false,
            off_grid: false,
            not_missed_skipped: false,
            too_many_missed: false,
            lost_race: false,
            overtaken: false,
        }
    }

    /// Applies `a` to `s` as the scripts do; returns the reply.
    pub fn apply(&self, s: &mut SchedState, a: &SchedAction) -> SchedReply {
        match *a {
            SchedAction::Tick => {
                s.clock += STEP;
                SchedReply::Local
            }
            SchedAction::Crash(f) => {
                s.firers[f as usize] = None;
                SchedReply::Local
            }
            SchedAction::Read(f) => match &s.stored {
                Some(st) if st.score() <= s.clock => {
                    s.firers[f as usize] = Some(Read {
                        now: s.clock,
                        stored: st.clone(),
                    });
                    SchedReply::Due(true)
                }
                _ => SchedReply::Due(false),
            },
            SchedAction::Upsert => {
                s.upserts += 1;
                let now = s.clock;
                let grace = self.scope.grace;
                let st = s.stored.as_mut().expect("the model never removes");
                st.version += 1;
                st.from = st.from.max(now.saturating_sub(grace));
                st.next = None;
                st.period = if st.period == self.scope.periods[0] {
                    self.scope.periods[1]
                } else {
                    self.scope.periods[0]
                };
                if s.firers
                    .iter()
                    .flatten()
                    .any(|r| r.stored.version != st.version)
                {
                    s.overtaken = true;
                }
                SchedReply::Upserted(st.version, st.from)
            }
            SchedAction::Fire(f) => {
                let r = s.firers[f as usize].take().expect("fire after a read");
                let p = plan(&r, self.scope.grace, self.scope.missed);
                let now = s.clock;
                let st = s.stored.as_mut().expect("the model never removes");
                if (self.scope.cas_version && st.version != r.stored.version)
                    || st.from != r.stored.from
                {
                    s.lost_race = true;
                    return SchedReply::Fired(-1);
                }
                // Ghost checks against the spec in force.
                let grid =
                    |t: u64| (t as i128 - st.anchor as i128).rem_euclid(st.period as i128) == 0;
                let mut t = first_after(st.anchor, st.period, st.from);
                let late = r.now.saturating_sub(self.scope.grace);
                let mut missed_fired = 0;
                while t <= p.new_from {
                    if p.ticks.contains(&t) {
                        if t <= late {
                            missed_fired += 1;
                        }
                    } else if t > late {
                        s.not_missed_skipped = true;
                    }
                    t += st.period;
                }
                if missed_fired > self.scope.missed.latest() {
                    s.too_many_missed = true;
                }
                let mut added = 0;
                for &tick in &p.ticks {
                    if tick > now {
                        s.early = true;
                    }
                    if !grid(tick) {
                        s.off_grid = true;
                    }
                    *s.fired.entry(tick).or_default() += 1;
                    if !s.items.contains(&tick) {
                        s.items.push(tick);
                        added += 1;
                    }
                }
                s.items.sort_unstable();
                st.from = p.new_from;
                st.next = Some(p.next);
                st.fired += p.ticks.len() as u64;
                st.skipped += p.skipped;
                if let Some(&last) = p.ticks.last() {
                    st.last_tick = Some(last);
                }
                SchedReply::Fired(added)
            }
        }
    }
}

impl Model for ScheduleModel {
    type State = SchedState;
    type Action = SchedAction;

    fn init_states(&self) -> Vec<SchedState> {
        vec![self.initial()]
    }

    fn actions(&self, s: &SchedState, out: &mut Vec<SchedAction>) {
        if s.clock < BASE + self.scope.max_clock {
            out.push(SchedAction::Tick);
        }
        for (f, read) in s.firers.iter().enumerate() {
            let f = f as u8;
            match read {
                None => out.push(SchedAction::Read(f)),
                Some(_) => {
                    out.push(SchedAction::Fire(f));
                    out.push(SchedAction::Crash(f));
                }
            }
        }
        if s.upserts < self.scope.max_upserts {
            out.push(SchedAction::Upsert);
        }
    }

    fn next_state(&self, s: &SchedState, a: SchedAction) -> Option<SchedState> {
        // A read that finds nothing due changes nothing: not a new state.
        if let SchedAction::Read(_) = a {
            if s.stored.as_ref().is_none_or(|st| st.score() > s.clock) {
                return None;
            }
        }
        let mut next = s.clone();
        self.apply(&mut next, &a);
        Some(next)
    }

    fn properties(&self) -> Vec<Property<Self>> {
        vec![
            Property::always("each tick fires at most once", |_, s: &SchedState| {
                s.fired.values().all(|&n| n <= 1)
            }),
            Property::always("no tick fires before its time", |_, s: &SchedState| {
                !s.early
            }),
            Property::always(
                "only ticks of the spec in force fire",
                |_, s: &SchedState| !s.off_grid,
            ),
            Property::always(
                "a tick not fired was missed, and the policy bounds the missed ones fired",
                |_, s: &SchedState| !s.not_missed_skipped && !s.too_many_missed,
            ),
            Property::always("the items are the ticks fired", |_, s: &SchedState| {
                s.items.iter().copied().eq(s.fired.keys().copied())
            }),
            Property::sometimes("a tick fires", |_, s: &SchedState| !s.items.is_empty()),
            Property::sometimes("a fire loses its race", |_, s: &SchedState| s.lost_race),
            Property::sometimes("an upsert overtakes a read", |_, s: &SchedState| {
                s.overtaken
            }),
            Property::sometimes("a missed tick is skipped", |_, s: &SchedState| {
                s.stored.as_ref().is_some_and(|st| st.skipped > 0)
            }),
        ]
    }
}
