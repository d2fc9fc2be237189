//! The exhaustive checks: the model with every fix on satisfies every invariant within the
//! scope; with one fix off the checker finds that defect's counterexample.

use std::time::Instant;

use leaseq_model::{Fixes, QueueModel, Scope};
use stateright::{Checker, Expectation, HasDiscoveries, Model};

/// Runs a breadth-first check; prints its counts and time; returns the failed invariants with
/// their counterexamples (as the list of actions).
fn check(
    label: &str,
    model: QueueModel,
    stop_at: Option<&'static str>,
) -> Vec<(&'static str, String)> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(2));
    let props = model.properties();
    let start = Instant::now();
    let mut builder = model.checker().threads(threads);
    if let Some(name) = stop_at {
        builder = builder.finish_when(HasDiscoveries::AllOf([name].into()));
    }
    let checker = builder.spawn_bfs().join();
    eprintln!(
        "[model] {label}: {} states ({} unique), max depth {}, {:.1?}",
        checker.state_count(),
        checker.unique_state_count(),
        checker.max_depth(),
        start.elapsed()
    );
    let mut failed = Vec::new();
    for p in &props {
        let found = checker.discovery(p.name);
        match (p.expectation.clone(), found) {
            (Expectation::Always, Some(path)) => {
                let steps: Vec<String> = path
                    .into_actions()
                    .iter()
                    .map(|a| format!("{a:?}"))
                    .collect();
                let steps = steps.join(" -> ");
                eprintln!("[model] {label}: FAILED `{}`: {steps}", p.name);
                failed.push((p.name, steps));
            }
            (Expectation::Sometimes, None) if stop_at.is_none() => {
                panic!(
                    "{label}: no state reaches `{}`: the scope is too small to mean much",
                    p.name
                )
            }
            _ => {}
        }
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

/// `make model-deep`: a larger scope (3 adds, 3 leases, 250 ms), every fix on.
#[test]
#[ignore = "minutes; run with `make model-deep`"]
fn deep_scope_with_every_fix() {
    let failed = check(
        "deep scope, all fixes",
        QueueModel::new(Scope::deep(), Fixes::ALL),
        None,
    );
    assert!(failed.is_empty(), "invariants fail: {failed:#?}");
}
