//! A model of dependencies (spec/PROTOCOL.md 5.24) for the stateright model checker, apart from
//! the queue's main model: items that wait for others, leased, completed, failed to dead,
//! cancelled, expired (a crashed holder), removed by a redis-work-queue client, requeued from
//! the dead letters (one, or all at once), and light clean.
//!
//! The state is what the scripts keep for it: each item's state, its lease (live or run out,
//! and whether its complete takes the shortcut of 4.6 step 0, which reads no record), the
//! waiting list (with stale ids), `P:deps:X`, `P:dependants:X` (stale entries included),
//! `P:blocked` and `P:settled`; and a ghost record of how each item finished. Each action is one
//! script call, transcribed from its Lua (lib/flows.lua, lib/deps.lua and the steps that call
//! them); a lease's housekeeping always runs (the replay moves the clock past its period).
//!
//! Invariants: a dependant is never leased before all its dependencies pending at its add (or
//! at its requeue from the dead letters) completed (with `run`: finished, whichever way), an
//! id unknown then counting as complete; and after a light clean no blocked item waits for a
//! dependency that is gone (never waits forever).
//! Left out: delays, priorities, groups, results, batches and flows (a flow is one add call of
//! several items, each as here), re-adding an id, more dependants than a call settles (100).

use std::collections::{BTreeSet, VecDeque};

use stateright::{Model, Property};

/// An item of the model: 0..n, named "d0".. in Redis.
pub type Item = usize;

/// The item's id in Redis.
pub fn dep_name(x: Item) -> String {
    format!("d{x}")
}

/// What each item is added with: its dependencies, its policy, and its own max_attempts.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Spec {
    /// The items it depends on.
    pub deps: Vec<Item>,
    /// `on_dependency_failure` is `run` (else `fail`).
    pub run: bool,
    /// Its own max_attempts (None: the default, 25).
    pub max_attempts: Option<u32>,
}

/// The items of a check: a plain dependency, one that dies at its first expiry or failure, a
/// dependant of both (policy fail) and one of the first and the dependant (policy run).
pub fn default_specs() -> Vec<Spec> {
    let plain = |deps: Vec<Item>, run| Spec {
        deps,
        run,
        max_attempts: None,
    };
    vec![
        plain(vec![], false),
        Spec {
            deps: vec![],
            run: false,
            max_attempts: Some(1),
        },
        plain(vec![0, 1], false),
        plain(vec![0, 2], true),
    ]
}

/// Where an item is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum St {
    /// Not added yet.
    Absent,
    /// In the waiting list.
    Waiting,
    /// Leased: `live` while its lease key exists; `cancelled` once marked.
    Leased { live: bool, cancelled: bool },
    /// Waiting for dependencies.
    Blocked,
    /// Dead.
    Dead,
    /// Completed, cancelled or removed: no key of it is left that `get` reads.
    Gone,
}

/// How a finished dependency went, as `P:settled` notes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Outcome {
    /// Completed (or gone without a trace).
    Done,
    /// Dead.
    Dead,
    /// Cancelled.
    Cancelled,
}

impl Outcome {
    /// As the scripts write it.
    pub fn text(self) -> &'static str {
        match self {
            Outcome::Done => "done",
            Outcome::Dead => "dead",
            Outcome::Cancelled => "cancelled",
        }
    }
}

/// The model's state.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DepsState {
    /// Each item's state.
    pub st: Vec<St>,
    /// Leases so far.
    pub attempts: Vec<u32>,
    /// The record has an incarnation of its own (added with options, or marked as a
    /// dependency before its first lease): its complete reads the record.
    pub has_inc: Vec<bool>,
    /// The current lease's complete takes the shortcut (a first lease of a plain item).
    pub shortcut: Vec<bool>,
    /// `dependants 1` in the record.
    pub flagged: Vec<bool>,
    /// `P:queue`, head first (ids LPUSHed at the front, leased from the back).
    pub queue: VecDeque<Item>,
    /// `P:deps:X`.
    pub deps: Vec<BTreeSet<Item>>,
    /// `P:dependants:X`.
    pub dependants: Vec<BTreeSet<Item>>,
    /// `P:settled`: pairs, oldest first.
    pub settled: VecDeque<(Item, Outcome)>,
    /// `P:blocked` in its order (by score: when added, or swept last; then by name).
    pub blocked: Vec<Item>,
    /// Ghost: how each item finished (None: not yet).
    pub finished: Vec<Option<Outcome>>,
    /// Ghost: the dependencies this item must see finish before it is leased: those pending
    /// at its add or its last requeue, until each completes (with `run`: finishes). An id no
    /// item had then counts as complete (spec 5.24); a dependency that finishes and is
    /// requeued afterwards is not owed again.
    pub owed: Vec<BTreeSet<Item>>,
    /// Ghost: the first broken rule, if any.
    pub violation: Option<String>,
    /// Ghost: the last action was a light clean.
    pub cleaned: bool,
    /// Requeue calls so far (the scope bounds them).
    pub requeues: u8,
}

/// One script call, or an outside event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DepsAction {
    /// `add` of the item with its spec.
    Add(Item),
    /// `lease` of one item (housekeeping first).
    Lease,
    /// The holder completes it.
    Complete(Item),
    /// The holder fails it for good (`Retry::Never`).
    FailDead(Item),
    /// `cancel`.
    Cancel(Item),
    /// The holder crashed and its lease ran out.
    Expire(Item),
    /// A redis-work-queue client completes it (deletes its item and lease keys).
    ForeignComplete(Item),
    /// `dead_requeue_each` of this dead letter.
    Requeue(Item),
    /// `dead_requeue_each` of every dead letter at once, in the reverse order of their names:
    /// dependants before their dependencies, so that the call's depth-first walk requeues the
    /// dependencies first ("requeue all" takes them oldest death first, in any order).
    RequeueAll,
    /// One light clean call.
    Clean,
}

/// The model: the items' specs.
#[derive(Debug, Clone)]
pub struct DepsModel {
    /// What each item is added with.
    pub specs: Vec<Spec>,
    /// The scope: at most this many requeue calls in a run (`None`: any number, which
    /// `make model-deep` checks; states then do not count them).
    pub max_requeues: Option<u8>,
}

impl DepsModel {
    /// The model of [`default_specs`].
    pub fn new() -> DepsModel {
        DepsModel {
            specs: default_specs(),
            max_requeues: Some(1),
        }
    }

    fn max_attempts(&self, x: Item) -> u32 {
        self.specs[x].max_attempts.unwrap_or(25)
    }

    /// `dependency_state` (lib/flows.lua).
    pub fn dependency_state(s: &DepsState, d: Item) -> Option<Outcome> {
        match s.st[d] {
            St::Leased {
                cancelled: true, ..
            } => Some(Outcome::Cancelled),
            St::Waiting | St::Leased { .. } | St::Blocked => None,
            St::Dead => Some(Outcome::Dead),
            St::Absent | St::Gone => Some(Outcome::Done),
        }
    }

    /// `note_settled` (lib/deps.lua).
    fn note(s: &mut DepsState, x: Item, outcome: Outcome) {
        if !s.dependants[x].is_empty() {
            s.settled.push_back((x, outcome));
        }
    }

    /// Ghost: `x` finished with `outcome`; the items that owed it are paid when that is what
    /// they wait for.
    fn finish(&self, s: &mut DepsState, x: Item, outcome: Outcome) {
        s.finished[x].get_or_insert(outcome);
        for y in 0..s.st.len() {
            if s.owed[y].contains(&x) && (outcome == Outcome::Done || self.specs[y].run) {
                s.owed[y].remove(&x);
            }
        }
    }

    /// `to_dead` (lib/jobs.lua), with its note.
    fn to_dead(&self, s: &mut DepsState, x: Item) {
        s.st[x] = St::Dead;
        self.finish(s, x, Outcome::Dead);
        Self::note(s, x, Outcome::Dead);
    }

    /// Item `x`'s dependencies as an add of it finds them (`plan_dependencies`, lib/flows.lua),
    /// or a requeue (`requeue_dependant`), where a dependency that closes a cycle back to `x`
    /// (`closing`) counts as complete: then the item dies (a dependency dead or cancelled,
    /// policy `fail`), is blocked on the pending ones (each marked: `dependants 1`, and an
    /// incarnation for a record without one), or waits.
    fn enter(&self, s: &mut DepsState, x: Item, closing: &BTreeSet<Item>) {
        let spec = &self.specs[x];
        let mut pending = BTreeSet::new();
        let mut failed = false;
        for &d in &spec.deps {
            let state = if closing.contains(&d) {
                Some(Outcome::Done)
            } else {
                Self::dependency_state(s, d)
            };
            match state {
                None => {
                    pending.insert(d);
                }
                // No item under the id (never added, or gone whichever way): it counts as
                // complete (5.24), so the rule holds from what was pending.
                Some(Outcome::Done) => {}
                Some(_) => failed |= !spec.run,
            }
        }
        s.owed[x] = pending.clone();
        if failed {
            self.to_dead(s, x);
        } else if !pending.is_empty() {
            for &d in &pending {
                if !s.has_inc[d] && !matches!(s.st[d], St::Leased { .. }) {
                    s.has_inc[d] = true;
                }
                s.flagged[d] = true;
                s.dependants[d].insert(x);
            }
            s.deps[x] = pending;
            s.st[x] = St::Blocked;
            s.blocked.push(x);
        } else {
            s.st[x] = St::Waiting;
            s.queue.push_front(x);
        }
    }

    /// `dead.lua` `requeue_each` of `ids`: each dead letter of the call requeued once, its
    /// dependencies among them first (depth first), its attempts reset, then back as
    /// [`DepsModel::enter`] says (an item without dependencies waits). When one died again,
    /// the call settles the notes (`settle_now`).
    fn requeue(&self, s: &mut DepsState, ids: &[Item]) {
        if self.max_requeues.is_some() {
            s.requeues += 1;
        }
        let mut requeuing: BTreeSet<Item> = ids
            .iter()
            .copied()
            .filter(|&x| s.st[x] == St::Dead)
            .collect();
        let mut closing = BTreeSet::new();
        let mut died_again = false;
        for &x in ids {
            self.requeue_one(s, x, &mut requeuing, &mut closing, &mut died_again);
        }
        if died_again {
            self.run_settled(s);
        }
    }

    /// `requeue(id)` of dead.lua.
    fn requeue_one(
        &self,
        s: &mut DepsState,
        x: Item,
        requeuing: &mut BTreeSet<Item>,
        closing: &mut BTreeSet<Item>,
        died_again: &mut bool,
    ) {
        if !requeuing.remove(&x) {
            return;
        }
        closing.insert(x);
        for &d in &self.specs[x].deps {
            if requeuing.contains(&d) {
                self.requeue_one(s, d, requeuing, closing, died_again);
            }
        }
        closing.remove(&x);
        s.attempts[x] = 0;
        self.enter(s, x, closing);
        *died_again |= s.st[x] == St::Dead;
    }

    /// `unblock` (lib/flows.lua): no delay here, so back to waiting.
    fn unblock(s: &mut DepsState, x: Item) {
        s.blocked.retain(|&y| y != x);
        s.deps[x].clear();
        s.st[x] = St::Waiting;
        s.queue.push_front(x);
    }

    /// `settle_dependant` (lib/flows.lua).
    fn settle_dependant(&self, s: &mut DepsState, x: Item, d: Item, outcome: Outcome) {
        if s.st[x] != St::Blocked {
            return;
        }
        if outcome != Outcome::Done && !self.specs[x].run {
            s.deps[x].clear();
            s.blocked.retain(|&y| y != x);
            self.to_dead(s, x);
        } else if s.deps[x].contains(&d) {
            if s.deps[x].len() == 1 {
                Self::unblock(s, x);
            } else {
                s.deps[x].remove(&d);
            }
        }
    }

    /// `run_settled` (lib/flows.lua), with a budget that the model's few items never reach.
    fn run_settled(&self, s: &mut DepsState) {
        while let Some(&(d, outcome)) = s.settled.front() {
            let ids = std::mem::take(&mut s.dependants[d]);
            for x in ids {
                self.settle_dependant(s, x, d, outcome);
            }
            if s.dependants[d].is_empty() {
                s.settled.pop_front();
            }
        }
    }

    /// `sweep_blocked` (lib/flows.lua), when P:settled is empty.
    fn sweep(&self, s: &mut DepsState) {
        if !s.settled.is_empty() {
            return;
        }
        for x in s.blocked.clone() {
            if s.st[x] != St::Blocked {
                s.blocked.retain(|&y| y != x);
                continue;
            }
            if s.deps[x].is_empty() {
                Self::unblock(s, x);
                continue;
            }
            for d in s.deps[x].clone() {
                if let Some(outcome) = Self::dependency_state(s, d) {
                    self.settle_dependant(s, x, d, outcome);
                }
            }
        }
        // Every item still blocked was looked at now: one score, so by name.
        s.blocked.sort_unstable();
    }

    /// `recover_expired` (lib/jobs.lua) of every run-out lease.
    fn recover(&self, s: &mut DepsState) {
        for x in 0..s.st.len() {
            if let St::Leased {
                live: false,
                cancelled,
            } = s.st[x]
            {
                if cancelled {
                    s.st[x] = St::Gone;
                } else if s.attempts[x] >= self.max_attempts(x) {
                    self.to_dead(s, x);
                } else {
                    s.st[x] = St::Waiting;
                    s.queue.push_front(x);
                }
            }
        }
    }

    /// Whether the scope allows another requeue call.
    fn may_requeue(&self, s: &DepsState) -> bool {
        self.max_requeues.is_none_or(|m| s.requeues < m)
    }

    fn leased_too_early(&self, s: &DepsState, x: Item) -> Option<String> {
        s.owed[x].iter().next().map(|&d| {
            format!(
                "{} leased before its dependency {} finished as it must",
                dep_name(x),
                dep_name(d)
            )
        })
    }

    fn step(&self, s: &mut DepsState, a: DepsAction) {
        s.cleaned = false;
        match a {
            DepsAction::Add(x) => {
                let spec = &self.specs[x];
                s.has_inc[x] = spec.max_attempts.is_some() || !spec.deps.is_empty();
                self.enter(s, x, &BTreeSet::new());
            }
            DepsAction::Lease => {
                self.recover(s);
                self.run_settled(s);
                while let Some(x) = s.queue.pop_back() {
                    if s.st[x] != St::Waiting {
                        continue;
                    }
                    s.attempts[x] += 1;
                    if s.attempts[x] > self.max_attempts(x) {
                        self.to_dead(s, x);
                        continue;
                    }
                    s.shortcut[x] = !s.has_inc[x];
                    s.has_inc[x] = true;
                    s.st[x] = St::Leased {
                        live: true,
                        cancelled: false,
                    };
                    if s.violation.is_none() {
                        s.violation = self.leased_too_early(s, x);
                    }
                    break;
                }
            }
            DepsAction::Complete(x) => {
                if let St::Leased { cancelled, .. } = s.st[x] {
                    s.st[x] = St::Gone;
                    if cancelled {
                        return;
                    }
                    self.finish(s, x, Outcome::Done);
                    if !s.shortcut[x] && s.flagged[x] {
                        Self::note(s, x, Outcome::Done);
                        self.run_settled(s);
                    }
                }
            }
            DepsAction::FailDead(x) => {
                if let St::Leased {
                    cancelled: false, ..
                } = s.st[x]
                {
                    self.to_dead(s, x);
                    self.run_settled(s);
                }
                // Cancelled: the cancel overwrote the holder's token, so fail answers -3 and
                // changes nothing (lib/outcome.lua); the lease's recovery removes the item.
            }
            DepsAction::Cancel(x) => {
                let marked = St::Leased {
                    live: true,
                    cancelled: true,
                };
                let before = s.st[x];
                s.st[x] = match before {
                    St::Waiting | St::Blocked | St::Dead => St::Gone,
                    St::Leased { live: true, .. } => marked,
                    St::Leased { live: false, .. } => St::Gone,
                    other => other,
                };
                if before == St::Blocked {
                    s.deps[x].clear();
                    s.blocked.retain(|&y| y != x);
                }
                if matches!(before, St::Waiting | St::Blocked | St::Leased { .. }) {
                    self.finish(s, x, Outcome::Cancelled);
                    Self::note(s, x, Outcome::Cancelled);
                    self.run_settled(s);
                }
            }
            DepsAction::Expire(x) => {
                if let St::Leased { cancelled, .. } = s.st[x] {
                    s.st[x] = St::Leased {
                        live: false,
                        cancelled,
                    };
                }
            }
            DepsAction::ForeignComplete(x) => {
                // Its copy taken off the list (into processing, then LREM), its item deleted.
                s.queue.retain(|&y| y != x);
                s.st[x] = St::Gone;
                self.finish(s, x, Outcome::Done);
            }
            DepsAction::Requeue(x) => self.requeue(s, &[x]),
            DepsAction::RequeueAll => {
                let dead: Vec<Item> = (0..s.st.len())
                    .rev()
                    .filter(|&x| s.st[x] == St::Dead)
                    .collect();
                self.requeue(s, &dead);
            }
            DepsAction::Clean => {
                self.recover(s);
                self.run_settled(s);
                self.sweep(s);
                while let Some(&x) = s.queue.back() {
                    if matches!(s.st[x], St::Waiting | St::Leased { .. }) {
                        break;
                    }
                    s.queue.pop_back();
                }
                s.cleaned = true;
            }
        }
    }

    /// A blocked item that waits for a dependency that is gone, after a light clean.
    pub fn waits_for_nothing(s: &DepsState) -> bool {
        s.cleaned
            && (0..s.st.len()).any(|x| {
                s.st[x] == St::Blocked
                    && (s.deps[x].is_empty()
                        || s.deps[x]
                            .iter()
                            .any(|&d| Self::dependency_state(s, d).is_some()))
            })
    }
}

impl Default for DepsModel {
    fn default() -> DepsModel {
        DepsModel::new()
    }
}

impl Model for DepsModel {
    type State = DepsState;
    type Action = DepsAction;

    fn init_states(&self) -> Vec<DepsState> {
        let n = self.specs.len();
        vec![DepsState {
            st: vec![St::Absent; n],
            attempts: vec![0; n],
            has_inc: vec![false; n],
            shortcut: vec![false; n],
            flagged: vec![false; n],
            queue: VecDeque::new(),
            deps: vec![BTreeSet::new(); n],
            dependants: vec![BTreeSet::new(); n],
            settled: VecDeque::new(),
            blocked: Vec::new(),
            finished: vec![None; n],
            owed: vec![BTreeSet::new(); n],
            violation: None,
            cleaned: false,
            requeues: 0,
        }]
    }

    fn actions(&self, s: &DepsState, out: &mut Vec<DepsAction>) {
        if s.violation.is_some() {
            return;
        }
        for x in 0..s.st.len() {
            match s.st[x] {
                St::Absent => out.push(DepsAction::Add(x)),
                St::Waiting => {
                    out.push(DepsAction::Cancel(x));
                    if self.specs[x].deps.is_empty() && self.specs[x].max_attempts.is_none() {
                        out.push(DepsAction::ForeignComplete(x));
                    }
                }
                St::Leased { live: true, .. } => {
                    out.push(DepsAction::Complete(x));
                    out.push(DepsAction::FailDead(x));
                    out.push(DepsAction::Cancel(x));
                    // The scope: a holder crashes at most on an item's first lease.
                    if s.attempts[x] < 2 {
                        out.push(DepsAction::Expire(x));
                    }
                }
                St::Leased { live: false, .. } | St::Blocked => out.push(DepsAction::Cancel(x)),
                St::Dead if self.may_requeue(s) => out.push(DepsAction::Requeue(x)),
                St::Dead => {}
                St::Gone => {}
            }
        }
        if self.may_requeue(s) && s.st.iter().filter(|&&st| st == St::Dead).count() > 1 {
            out.push(DepsAction::RequeueAll);
        }
        if s.queue.iter().any(|&x| s.st[x] == St::Waiting) {
            out.push(DepsAction::Lease);
        }
        // Light clean: when it has something to do (after any other call), at most twice in a
        // row of nothing else.
        if !s.cleaned {
            out.push(DepsAction::Clean);
        }
    }

    fn next_state(&self, last: &DepsState, a: DepsAction) -> Option<DepsState> {
        let mut s = last.clone();
        self.step(&mut s, a);
        Some(s)
    }

    fn properties(&self) -> Vec<Property<Self>> {
        vec![
            Property::always(
                "a dependant is never leased before its dependencies completed",
                |_, s: &DepsState| s.violation.is_none(),
            ),
            Property::always(
                "after a light clean no blocked item waits for a dependency that is gone",
                |_, s: &DepsState| !DepsModel::waits_for_nothing(s),
            ),
            Property::sometimes("a dependant runs", |_, s: &DepsState| {
                matches!(s.st[2], St::Leased { .. })
            }),
            Property::sometimes("a dependant dies for its dependency", |_, s: &DepsState| {
                s.st[2] == St::Dead && s.finished[1] == Some(Outcome::Dead)
            }),
            Property::sometimes(
                "a run dependant runs after a dead dependency",
                |_, s: &DepsState| {
                    matches!(s.st[3], St::Leased { .. }) && s.finished[2] == Some(Outcome::Dead)
                },
            ),
        ]
    }
}
