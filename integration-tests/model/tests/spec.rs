//! Every transition of spec/PROTOCOL.md 8.1's table is one the model makes: the table is read
//! from the spec, and each row must map to the model's actions below (a row added, changed or
//! removed in the spec fails this test until the mapping, and the model, follow).

use leaseq_model::spec_table::transition_rows;
use leaseq_model::{Action, Opts, TICK};

/// (from, to) as the spec's table writes them, and the model actions that make that transition.
fn mapping() -> Vec<((&'static str, &'static str), Vec<Action>)> {
    let add = |opts| Action::Add { id: 0, opts };
    let w = 0;
    vec![
        (
            ("–", "waiting / delayed"),
            vec![
                add(Opts::PLAIN),
                add(Opts {
                    delay: TICK,
                    ..Opts::PLAIN
                }),
            ],
        ),
        (
            ("delayed", "waiting"),
            vec![Action::Lease { w }, Action::Clean],
        ),
        (("waiting", "leased"), vec![Action::Lease { w }]),
        (("waiting", "dead"), vec![Action::Lease { w }]),
        (("leased", "gone (+ done)"), vec![Action::Complete { w }]),
        (
            ("leased", "delayed / waiting"),
            vec![
                Action::Fail { w, delay: TICK },
                Action::Fail { w, delay: 0 },
                Action::Release { w },
            ],
        ),
        (
            ("leased", "dead"),
            vec![Action::FailDead { w }, Action::Fail { w, delay: 0 }],
        ),
        (("leased", "expired"), vec![Action::Tick]),
        (
            ("expired", "waiting / dead"),
            vec![Action::Lease { w }, Action::Clean],
        ),
        (("dead", "waiting"), vec![Action::DeadRequeue { id: 0 }]),
        // Retention (trim_dead) is not modelled: the default bounds are never reached.
        (
            ("dead", "gone"),
            vec![Action::DeadPurge, Action::Cancel { id: 0 }],
        ),
        (("waiting, delayed", "gone"), vec![Action::Cancel { id: 0 }]),
        (
            ("leased", "marked cancelled → gone"),
            vec![
                Action::Cancel { id: 0 },
                Action::Complete { w },
                Action::Fail { w, delay: 0 },
                Action::Release { w },
                Action::Renew { w },
                Action::Lease { w },
                Action::Clean,
            ],
        ),
    ]
}

#[test]
fn every_transition_of_the_spec_is_modelled() {
    let spec = include_str!("../../../spec/PROTOCOL.md");
    let rows = transition_rows(spec, "Transitions, each one script call:");
    assert!(rows.len() >= 10, "8.1's table has {} rows", rows.len());
    let mapping = mapping();
    for (from, to) in &rows {
        assert!(
            mapping.iter().any(|((f, t), _)| f == from && t == to),
            "spec/PROTOCOL.md 8.1: `{from}` -> `{to}` has no model action (tests/spec.rs)"
        );
    }
    for ((f, t), actions) in &mapping {
        assert!(
            rows.iter().any(|(from, to)| f == from && t == to),
            "the mapping's `{f}` -> `{t}` is no longer in spec/PROTOCOL.md 8.1"
        );
        assert!(!actions.is_empty());
    }
}
