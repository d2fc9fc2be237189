//! The exhaustive checks: the model with every fix on satisfies every invariant within the
//! scope; with one fix off the checker finds that defect's counterexample.

use std::time::Instant;

use leaseq_model::verdict::verdict;
use leaseq_model::{Config, Fixes, QueueModel, Scope, TICK};
use stateright::{Checker, HasDiscoveries, Model, Property};

/// Runs a breadth-first check; prints its counts and time; returns the failed invariants with
/// their counterexamples (as the list of actions).
fn check(
    label: &str,
    model: QueueModel,
    stop_at: Option<&'static str>,
) -> Vec<(&'static str, String)> {
    check_with(label, model, stop_at, false)
}

/// As [`check`]; `dfs`: depth-first, which keeps no frontier of whole states (the deep scope's
/// breadth-first frontier outgrows memory).
fn check_with(
    label: &str,
    model: QueueModel,
    stop_at: Option<&'static str>,
    dfs: bool,
) -> Vec<(&'static str, String)> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(2));
    let props = model.properties();
    let start = Instant::now();
    let mut builder = model.checker().threads(threads);
    if let Some(name) = stop_at {
        builder = builder.finish_when(HasDiscoveries::AllOf([name].into()));
    }
    if dfs {
        report(label, &props, builder.spawn_dfs().join(), start, stop_at)
    } else {
        report(label, &props, builder.spawn_bfs().join(), start, stop_at)
    }
}

fn report(
    label: &str,
    props: &[Property<QueueModel>],
    checker: impl Checker<QueueModel>,
    start: Instant,
    stop_at: Option<&'static str>,
) -> Vec<(&'static str, String)> {
    // A check stopped at its first discovery may not have reached every `sometimes`.
    let failed = verdict(label, props, &checker, |_| stop_at.is_some());
    eprintln!("[model] {label}: {:.1?}", start.elapsed());
    for (name, steps) in &failed {
        eprintln!("[model] {label}: FAILED `{name}`: {steps}");
    }
    failed
}

#[test]
fn every_invariant_holds_with_every_fix() {
    let failed = check(
        "small scope, all fixes",
        QueueModel::new(Scope::small(), Fixes::ALL),
        None,
    );
    assert!(failed.is_empty(), "invariants fail: {failed:#?}");
}

/// Each defect of issue 24, with its fix off and the others on: the checker finds it.
#[test]
fn each_defect_is_found_with_its_fix_off() {
    type Off = fn(&mut Fixes);
    let defects: [(&str, Off, &str); 4] = [
        (
            "1 cancel leaves P:leased",
            |f| f.cancel_leased = false,
            "no incarnation lost",
        ),
        (
            "2 cancelled item leased again",
            |f| f.lease_cancelled = false,
            "no cancelled or completed incarnation leased again",
        ),
        (
            "3 expires_after kills a started item",
            |f| f.expires_started = false,
            "expires_after kills only items not started",
        ),
        (
            "4 WRONGTYPE strands items",
            |f| f.type_check = false,
            "no incarnation lost",
        ),
    ];
    for (label, off, expected) in defects {
        let mut fixes = Fixes::ALL;
        off(&mut fixes);
        let failed = check(
            &format!("defect {label}, its fix off"),
            QueueModel::new(Scope::small(), fixes),
            Some(expected),
        );
        assert!(
            failed.iter().any(|(name, _)| *name == expected),
            "defect {label}: expected a failure of {expected:?}, got {failed:#?}"
        );
    }
}

/// `make model-deep`: a larger scope, every fix on. LEASEQ_MODEL_IDS, _WORKERS, _ADDS, _LEASES
/// and _CLOCK (ms) change it.
#[test]
#[ignore = "minutes; run with `make model-deep`"]
fn deep_scope_with_every_fix() {
    let mut scope = Scope::deep();
    let env = |name: &str| {
        std::env::var(format!("LEASEQ_MODEL_{name}"))
            .ok()
            .and_then(|v| v.parse::<u64>().ok())
    };
    if let Some(v) = env("IDS") {
        scope.ids = v as u8;
    }
    if let Some(v) = env("WORKERS") {
        scope.workers = v as u8;
    }
    if let Some(v) = env("ADDS") {
        scope.max_adds = v as u8;
    }
    if let Some(v) = env("LEASES") {
        scope.max_leases = v as u16;
    }
    if let Some(v) = env("CLOCK") {
        scope.max_clock = v;
    }
    let label = format!(
        "deep scope ({} ids, {} workers, {} adds, {} leases, clock {} ms), all fixes",
        scope.ids, scope.workers, scope.max_adds, scope.max_leases, scope.max_clock
    );
    let failed = check_with(&label, QueueModel::new(scope, Fixes::ALL), None, true);
    assert!(failed.is_empty(), "invariants fail: {failed:#?}");
}

/// `make model-deep` for the groups' rate limits (5.21): [`Scope::group_rates`] with 3 leases
/// and the clock up to 200 ms (a second window ends), the same with 2 leases per window (a
/// count past the limit, windows of two leases, a hold cut to the window's end), and
/// [`Scope::group_holds`] with 3 leases and the clock up to 150 ms (a 3-tick hold ends);
/// depth-first, every fix on. (The LEASEQ_MODEL_* variables change the other deep scope only.)
#[test]
#[ignore = "minutes; run with `make model-deep`"]
fn deep_scope_of_group_rate_limits() {
    for (label, scope) in [
        (
            "deep group rate limits (3 leases, clock 200 ms), all fixes",
            Scope {
                max_leases: 3,
                max_clock: 200,
                ..Scope::group_rates()
            },
        ),
        (
            "deep group rate limits of 2 per window (3 leases, clock 200 ms), all fixes",
            Scope {
                max_leases: 3,
                max_clock: 200,
                config: Config {
                    group_rate: Some((2, 2 * TICK)),
                    ..Config::default()
                },
                ..Scope::group_rates()
            },
        ),
        (
            "deep group holds (3 leases, clock 150 ms), all fixes",
            Scope {
                max_leases: 3,
                max_clock: 150,
                ..Scope::group_holds()
            },
        ),
    ] {
        let failed = check_with(label, QueueModel::new(scope, Fixes::ALL), None, true);
        assert!(failed.is_empty(), "{label}: invariants fail: {failed:#?}");
    }
}

/// The runner registry (spec/PROTOCOL.md 13.2), in its own scope: with every fix its keys always
/// carry a TTL, so runners killed without a leave leave nothing; with the registry fix off the
/// checker finds the leak (issue 24: P:workers stayed with no expiry until another runner beat).
#[test]
fn the_runner_registry_expires() {
    let name = "the runner registry has a TTL";
    let fixed = check(
        "runner registry, all fixes",
        QueueModel::new(Scope::runners(), Fixes::ALL),
        Some(name),
    );
    assert!(fixed.is_empty(), "invariants fail: {fixed:#?}");
    let mut off = Fixes::ALL;
    off.registry_expires = false;
    let failed = check(
        "registration leak, its fix off",
        QueueModel::new(Scope::runners(), off),
        Some(name),
    );
    assert!(
        failed.iter().any(|(n, _)| *n == name),
        "expected a failure of {name:?}, got {failed:#?}"
    );
}

/// Pause and resume (spec/PROTOCOL.md 5.17) in their own scope ([`Scope::flow`]): nothing is
/// leased by a call made while paused, no incarnation is lost (P:held is a waiting list), and
/// once resumed P:held is gone or leases take it first; a redis-work-queue add during the pause
/// merges into P:held.
#[test]
fn pause_and_resume_hold_every_invariant() {
    let failed = check(
        "pause and resume, all fixes",
        QueueModel::new(Scope::flow(), Fixes::ALL),
        None,
    );
    assert!(failed.is_empty(), "invariants fail: {failed:#?}");
}

/// Rate limits (5.19) and capacity (5.18) in their own scope ([`Scope::limits`]): no window of
/// the limit grants more than `rate_max` leases, nothing is leased while a `hold` holds the queue
/// off, an add never leaves more items waiting or delayed than the capacity (a requeue may: the
/// scope reaches that), and no incarnation is lost.
#[test]
fn rate_limits_and_capacity_hold_every_invariant() {
    let failed = check(
        "rate limits and capacity, all fixes",
        QueueModel::new(Scope::limits(), Fixes::ALL),
        None,
    );
    assert!(failed.is_empty(), "invariants fail: {failed:#?}");
}

/// Groups (5.20) in their own scope ([`Scope::groups`]): a group never has more items leased
/// than its limit, P:group_active never drifts from the leased items whatever ends a lease, no
/// grouped item is lost or seen by redis-work-queue clients, a ready group is always on the
/// ring, and a group leases in its order.
#[test]
fn groups_hold_every_invariant() {
    let failed = check(
        "groups, all fixes",
        QueueModel::new(Scope::groups(), Fixes::ALL),
        None,
    );
    assert!(failed.is_empty(), "invariants fail: {failed:#?}");
}

/// The groups' defect the checker found: with `cancel_frees_slot` off (cancel.lua as the
/// groups came), a cancel of a grouped item whose lease ran out before its recovery leaves
/// P:group_active counting a lease nobody holds.
#[test]
fn the_groups_cancel_defect_is_found_with_its_fix_off() {
    let name = "P:group_active counts each group's leased items";
    let mut off = Fixes::ALL;
    off.cancel_frees_slot = false;
    let failed = check(
        "groups, cancel_frees_slot off",
        QueueModel::new(Scope::groups(), off),
        Some(name),
    );
    assert!(
        failed.iter().any(|(n, _)| *n == name),
        "expected a failure of {name:?}, got {failed:#?}"
    );
}

/// The groups' rate limits (5.21) in their own scope ([`Scope::group_rates`]): no window of a
/// group takes more than `group_rate_max` items, nothing of a held group is leased, a group
/// leaves the ring only when its window is used up or it is held, a group parked in
/// P:group_wait is back on the ring after the first housekeeping past its window's end (no
/// group parked forever while it has work), and the groups' invariants hold.
/// [`Scope::group_holds`] checks the holds without a configured limit.
#[test]
fn group_rate_limits_hold_every_invariant() {
    for (label, scope) in [
        ("group rate limits, all fixes", Scope::group_rates()),
        ("group holds, all fixes", Scope::group_holds()),
    ] {
        let failed = check(label, QueueModel::new(scope, Fixes::ALL), None);
        assert!(failed.is_empty(), "{label}: invariants fail: {failed:#?}");
    }
}

/// The group rate limits' defect the checker found: with `group_rate_empty` off (the scripts
/// as 5.21 came), a lease that meets a group whose only waiting item was cancelled counts a
/// lease it does not take, and the group's next item waits for a window in which nothing of
/// the group was leased.
#[test]
fn the_empty_group_count_is_found_with_its_fix_off() {
    let name = "a group leaves the ring only when its window is used up or it is held";
    let mut off = Fixes::ALL;
    off.group_rate_empty = false;
    let failed = check(
        "group rate limits, group_rate_empty off",
        QueueModel::new(Scope::group_rates(), off),
        Some(name),
    );
    assert!(
        failed.iter().any(|(n, _)| *n == name),
        "expected a failure of {name:?}, got {failed:#?}"
    );
}
