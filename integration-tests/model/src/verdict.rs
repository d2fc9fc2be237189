//! What a finished check says of a model's properties, once for every model of the crate: the
//! queue's, the schedules' and the dependencies'.

use stateright::{Checker, Expectation, Model, Property};

/// The state counts of `checker` on one line (`[model] <label>: ...`), then its verdict on
/// `props`: every `always` property that fails, with its counterexample as the list of actions
/// (`a -> b -> ...`). Panics when a `sometimes` property is reached by no state, unless
/// `may_miss(name)` (the scope is then too small to mean much).
pub fn verdict<M>(
    label: &str,
    props: &[Property<M>],
    checker: &impl Checker<M>,
    may_miss: impl Fn(&str) -> bool,
) -> Vec<(&'static str, String)>
where
    M: Model,
    M::State: Clone + PartialEq,
    M::Action: Clone + PartialEq + std::fmt::Debug,
{
    eprintln!(
        "[model] {label}: {} states ({} unique), max depth {}",
        checker.state_count(),
        checker.unique_state_count(),
        checker.max_depth(),
    );
    let mut failed = Vec::new();
    for p in props {
        let found = checker.discovery(p.name);
        match (p.expectation.clone(), found) {
            (Expectation::Always, Some(path)) => {
                let steps: Vec<String> = path
                    .into_actions()
                    .iter()
                    .map(|a| format!("{a:?}"))
                    .collect();
                failed.push((p.name, steps.join(" -> ")));
            }
            (Expectation::Sometimes, None) if !may_miss(p.name) => {
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
