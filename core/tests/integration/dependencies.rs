//! Dependencies and flows (spec/PROTOCOL.md 5.24): a dependant is never leased before its
//! dependencies complete; a dependency that dies, is cancelled or expires fails it (or, with
//! `run`, lets it run); one that goes without leaseq seeing it (a redis-work-queue complete, a
//! key removed by hand) is found by light clean; flows with their children's results; bad
//! input refused before anything is written. Every test runs against a single server and
//! against a local Redis Cluster.

use crate::common;

use std::time::Duration;

use common::{assert_invalid, Env, TTL};
use leaseq::{Flow, Item, OnDependencyFailure, Retry, State, Wait};

on_both!(
    a_dependant_waits_until_every_dependency_completes,
    a_dead_dependency_fails_the_dependant_naming_it,
    with_run_the_dependant_runs_after_a_dead_dependency,
    a_cancelled_dependency_fails_the_dependant,
    a_cancelled_leased_dependency_fails_the_dependant,
    a_dependency_that_expires_before_it_starts_fails_the_dependant,
    a_dead_dependency_cascades_down_a_chain,
    a_redis_work_queue_complete_is_found_by_light_clean,
    a_dependency_removed_by_hand_is_found_by_light_clean,
    a_dependency_completed_by_its_first_plain_lease_is_found_by_light_clean,
    dependencies_known_at_add_time,
    many_dependants_are_released_in_bounded_steps,
    a_flow_runs_children_first_and_the_parent_reads_their_results,
    a_nested_flow_runs_from_the_leaves_up,
    get_list_count_and_cancel_know_blocked_items,
    bad_dependencies_are_refused_before_anything_is_written,
);

fn item(id: &str) -> Item {
    Item::with_id(id, id.as_bytes().to_vec()).unwrap()
}

fn dependant(id: &str, deps: &[&str]) -> Item {
    item(id).depends_on(deps.iter().copied())
}

async fn state(env: &Env, id: &str) -> Option<State> {
    env.queue.get(id).await.unwrap().map(|j| j.state)
}

async fn reason(env: &Env, id: &str) -> Option<String> {
    env.queue.get(id).await.unwrap().and_then(|j| j.dead_reason)
}

/// Leases everything leasable now and returns the ids, completing each.
async fn drain(env: &Env) -> Vec<String> {
    let mut ids = Vec::new();
    while let Some(lease) = env.lease().await {
        ids.push(lease.id().to_owned());
        assert!(env.queue.complete(&lease).await.unwrap());
    }
    ids
}

async fn a_dependant_waits_until_every_dependency_completes(env: Env) {
    env.queue.add(&item("a")).await.unwrap();
    env.queue.add(&item("b").priority(5)).await.unwrap();
    assert!(env.queue.add(&dependant("c", &["a", "b"])).await.unwrap());
    assert_eq!(state(&env, "c").await, Some(State::Blocked));
    let deps = env.queue.dependencies("c").await.unwrap();
    assert_eq!(deps.depends_on, ["a", "b"]);
    let mut pending = deps.pending.clone();
    pending.sort();
    assert_eq!(pending, ["a", "b"]);
    assert_eq!(deps.on_dependency_failure, Some(OnDependencyFailure::Fail));
    assert_eq!(env.queue.dependencies("a").await.unwrap().dependants, ["c"]);

    let b = env.lease().await.expect("b");
    let a = env.lease().await.expect("a");
    assert_eq!((a.id(), b.id()), ("a", "b"));
    assert!(env.lease().await.is_none(), "c is blocked");
    assert!(env.queue.complete(&a).await.unwrap());
    assert_eq!(state(&env, "c").await, Some(State::Blocked));
    assert_eq!(env.queue.dependencies("c").await.unwrap().pending, ["b"]);
    assert!(env.lease().await.is_none(), "c still waits for b");
    assert!(env.queue.complete(&b).await.unwrap());
    assert_eq!(state(&env, "c").await, Some(State::Waiting));
    let c = env.lease().await.expect("c runs once both completed");
    assert_eq!(c.data(), b"c");
    // Redis-work-queue clients never saw it while it was blocked: its data was parked.
    assert!(env.queue.complete(&c).await.unwrap());
    assert!(env.keys().await.is_empty(), "{:?}", env.keys().await);
}

async fn a_dead_dependency_fails_the_dependant_naming_it(env: Env) {
    env.queue.add(&item("a")).await.unwrap();
    env.queue.add(&dependant("c", &["a"])).await.unwrap();
    let a = env.lease().await.unwrap();
    env.queue.fail(&a, "boom", "E", Retry::Never).await.unwrap();
    assert_eq!(state(&env, "c").await, Some(State::Dead));
    assert_eq!(
        reason(&env, "c").await.as_deref(),
        Some("dependency a is dead")
    );
    assert!(env.lease().await.is_none());
    assert_eq!(env.queue.count(State::Blocked).await.unwrap(), 0);
}

async fn with_run_the_dependant_runs_after_a_dead_dependency(env: Env) {
    env.queue.add(&item("a").max_attempts(1)).await.unwrap();
    env.queue.add(&item("b")).await.unwrap();
    let c = dependant("c", &["a", "b"]).on_dependency_failure(OnDependencyFailure::Run);
    env.queue.add(&c).await.unwrap();
    let a = env.lease().await.unwrap();
    // Out of attempts: dead, but c runs anyway once b has finished too.
    env.queue
        .fail(&a, "boom", "E", Retry::Default)
        .await
        .unwrap();
    assert_eq!(state(&env, "a").await, Some(State::Dead));
    assert_eq!(state(&env, "c").await, Some(State::Blocked));
    assert_eq!(drain(&env).await, ["b", "c"]);
}

async fn a_cancelled_dependency_fails_the_dependant(env: Env) {
    env.queue
        .add(&item("a").delay(Duration::from_secs(60)))
        .await
        .unwrap();
    env.queue.add(&dependant("c", &["a"])).await.unwrap();
    assert_eq!(env.queue.cancel("a").await.unwrap(), Some(State::Delayed));
    assert_eq!(
        reason(&env, "c").await.as_deref(),
        Some("dependency a was cancelled")
    );
}

async fn a_cancelled_leased_dependency_fails_the_dependant(env: Env) {
    env.queue.add(&item("a")).await.unwrap();
    env.queue.add(&dependant("c", &["a"])).await.unwrap();
    let a = env.lease().await.unwrap();
    assert_eq!(env.queue.cancel("a").await.unwrap(), Some(State::Leased));
    assert_eq!(state(&env, "c").await, Some(State::Dead));
    // The holder's complete does not bring it back.
    assert!(!env.queue.complete(&a).await.unwrap());
    assert_eq!(state(&env, "c").await, Some(State::Dead));
}

async fn a_dependency_that_expires_before_it_starts_fails_the_dependant(env: Env) {
    let a = item("a").expires_after(Duration::from_millis(1));
    env.queue.add(&a).await.unwrap();
    env.queue.add(&dependant("c", &["a"])).await.unwrap();
    tokio::time::sleep(Duration::from_millis(20)).await;
    // The lease finds a expired (dead); the dependant learns it at the next housekeeping or
    // light clean.
    assert!(env.lease().await.is_none());
    assert_eq!(state(&env, "a").await, Some(State::Dead));
    env.queue.light_clean().await.unwrap();
    assert_eq!(state(&env, "c").await, Some(State::Dead));
}

async fn a_dead_dependency_cascades_down_a_chain(env: Env) {
    env.queue.add(&item("a")).await.unwrap();
    env.queue.add(&dependant("b", &["a"])).await.unwrap();
    env.queue.add(&dependant("c", &["b"])).await.unwrap();
    let a = env.lease().await.unwrap();
    env.queue.fail(&a, "boom", "E", Retry::Never).await.unwrap();
    assert_eq!(
        reason(&env, "b").await.as_deref(),
        Some("dependency a is dead")
    );
    assert_eq!(
        reason(&env, "c").await.as_deref(),
        Some("dependency b is dead")
    );
}

async fn a_redis_work_queue_complete_is_found_by_light_clean(env: Env) {
    env.add("a", b"A").await;
    env.queue.add(&dependant("c", &["a"])).await.unwrap();
    let id = env
        .foreign_lease()
        .await
        .expect("a redis-work-queue worker takes a");
    assert_eq!(id, "a");
    env.foreign_complete("a").await;
    assert_eq!(state(&env, "c").await, Some(State::Blocked));
    env.queue.light_clean().await.unwrap();
    assert_eq!(state(&env, "c").await, Some(State::Waiting));
    assert_eq!(drain(&env).await, ["c"]);
}

async fn a_dependency_removed_by_hand_is_found_by_light_clean(env: Env) {
    env.queue
        .add(&item("a").delay(Duration::from_secs(60)))
        .await
        .unwrap();
    env.queue.add(&dependant("c", &["a"])).await.unwrap();
    // Someone deletes a's keys: gone without a trace counts as complete (5.24).
    for key in ["data:a", "job:a"] {
        env.cmd::<i64>(&[b"DEL", env.key(key).as_bytes()]).await;
    }
    env.queue.light_clean().await.unwrap();
    assert_eq!(state(&env, "c").await, Some(State::Waiting));
}

async fn a_dependency_completed_by_its_first_plain_lease_is_found_by_light_clean(env: Env) {
    env.add("a", b"A").await;
    let a = env.lease().await.unwrap();
    env.queue.add(&dependant("c", &["a"])).await.unwrap();
    // The plain lease's complete takes its shortcut, which reads no record.
    assert!(env.queue.complete(&a).await.unwrap());
    env.queue.light_clean().await.unwrap();
    assert_eq!(drain(&env).await, ["c"]);
}

async fn dependencies_known_at_add_time(env: Env) {
    // Unknown (or completed without a kept result): complete.
    env.queue
        .add(&dependant("x", &["never-added"]))
        .await
        .unwrap();
    assert_eq!(state(&env, "x").await, Some(State::Waiting));
    // Completed with a kept result: complete.
    assert_eq!(drain(&env).await, ["x"]);
    env.queue.add(&item("r")).await.unwrap();
    let r = env.lease().await.unwrap();
    env.queue
        .complete_with_result(&r, Some(b"R"), None)
        .await
        .unwrap();
    env.queue.add(&dependant("y", &["r"])).await.unwrap();
    assert_eq!(state(&env, "y").await, Some(State::Waiting));
    // Dead: the dependant dies at once, or runs with `run`.
    assert_eq!(drain(&env).await, ["y"]);
    env.queue.add(&item("d")).await.unwrap();
    let d = env.lease().await.unwrap();
    env.queue.fail(&d, "boom", "E", Retry::Never).await.unwrap();
    env.queue.add(&dependant("z", &["d"])).await.unwrap();
    assert_eq!(
        reason(&env, "z").await.as_deref(),
        Some("dependency d is dead")
    );
    let w = dependant("w", &["d"]).on_dependency_failure(OnDependencyFailure::Run);
    env.queue.add(&w).await.unwrap();
    assert_eq!(state(&env, "w").await, Some(State::Waiting));
    let job = env.queue.get("w").await.unwrap().unwrap();
    assert_eq!(job.depends_on, ["d"]);
    assert_eq!(job.on_dependency_failure, Some(OnDependencyFailure::Run));
}

async fn many_dependants_are_released_in_bounded_steps(env: Env) {
    env.queue.add(&item("a")).await.unwrap();
    let items: Vec<Item> = (0..250)
        .map(|i| dependant(&format!("d{i}"), &["a"]))
        .collect();
    assert_eq!(env.queue.add_batch(&items).await.unwrap(), 250);
    assert_eq!(env.queue.count(State::Blocked).await.unwrap(), 250);
    let a = env.lease().await.unwrap();
    assert!(env.queue.complete(&a).await.unwrap());
    // The complete released at most 100; the rest wait on P:settled for the next call.
    let blocked = env.queue.count(State::Blocked).await.unwrap();
    assert_eq!(blocked, 150);
    env.queue.light_clean().await.unwrap();
    assert_eq!(env.queue.count(State::Blocked).await.unwrap(), 0);
    assert_eq!(env.queue.count(State::Waiting).await.unwrap(), 250);
    assert!(!env.exists("settled").await);
}

async fn a_flow_runs_children_first_and_the_parent_reads_their_results(env: Env) {
    let parent = item("report");
    let children = [Flow::new(item("part1")), item("part2").into()];
    assert_eq!(env.queue.add_flow(&parent, &children).await.unwrap(), 3);
    assert_eq!(state(&env, "report").await, Some(State::Blocked));
    let mut leases = Vec::new();
    while let Some(l) = env.lease().await {
        leases.push(l);
    }
    let ids: Vec<&str> = leases.iter().map(|l| l.id()).collect();
    assert_eq!(
        ids,
        ["part1", "part2"],
        "the parent is not leased before them"
    );
    for l in &leases {
        let result = format!("done {}", l.id());
        env.queue
            .complete_with_result(l, Some(result.as_bytes()), None)
            .await
            .unwrap();
    }
    let parent = env.lease().await.expect("the parent runs last");
    assert_eq!(parent.id(), "report");
    let results = env.queue.dependency_results(parent.id()).await.unwrap();
    assert_eq!(
        results,
        [
            ("part1".to_owned(), Some(b"done part1".to_vec())),
            ("part2".to_owned(), Some(b"done part2".to_vec()))
        ]
    );
}

async fn a_nested_flow_runs_from_the_leaves_up(env: Env) {
    let tree = Flow::new(item("mid"))
        .child(item("leaf1"))
        .child(item("leaf2"));
    env.queue
        .add_flow(&item("root"), &[tree, item("side").into()])
        .await
        .unwrap();
    let order = drain(&env).await;
    // Each round leases what is free; a parent only after all its children.
    let pos = |id: &str| order.iter().position(|x| x == id).unwrap();
    assert_eq!(order.len(), 5);
    assert!(pos("leaf1") < pos("mid") && pos("leaf2") < pos("mid"));
    assert!(pos("mid") < pos("root") && pos("side") < pos("root"));
    // drain completes each before leasing the next: the last is the root.
    assert_eq!(order.last().unwrap(), "root");
}

async fn get_list_count_and_cancel_know_blocked_items(env: Env) {
    env.queue.add(&item("a")).await.unwrap();
    env.queue
        .add(&dependant("b", &["a"]).priority(3))
        .await
        .unwrap();
    env.queue.add(&dependant("c", &["b"])).await.unwrap();
    let job = env.queue.get("b").await.unwrap().unwrap();
    assert_eq!(job.state, State::Blocked);
    assert_eq!(job.data, b"b");
    assert_eq!(job.depends_on, ["a"]);
    let listed: Vec<String> = env
        .queue
        .list(State::Blocked, 0, 10)
        .await
        .unwrap()
        .into_iter()
        .map(|e| e.id)
        .collect();
    assert_eq!(listed.len(), 2);
    assert_eq!(env.queue.count(State::Blocked).await.unwrap(), 2);
    // Cancelling a blocked item removes it and fails what waits for it.
    assert_eq!(env.queue.cancel("b").await.unwrap(), Some(State::Blocked));
    assert_eq!(state(&env, "b").await, None);
    assert_eq!(
        reason(&env, "c").await.as_deref(),
        Some("dependency b was cancelled")
    );
    assert_eq!(env.queue.count(State::Blocked).await.unwrap(), 0);
    // a completes later: nothing waits for it any more.
    assert_eq!(drain(&env).await, ["a"]);
    env.queue.dead_purge(None).await.unwrap();
    env.queue.light_clean().await.unwrap();
    assert!(env.keys().await.is_empty(), "{:?}", env.keys().await);
}

async fn bad_dependencies_are_refused_before_anything_is_written(env: Env) {
    let refused = |item: Item| {
        let queue = env.queue.clone();
        async move { queue.add(&item).await.unwrap_err() }
    };
    assert_invalid(
        &refused(dependant("a", &["a"])).await,
        "depends_on",
        "itself",
    );
    assert_invalid(
        &refused(dependant("a", &["x\ny"])).await,
        "depends_on",
        "an id with a newline",
    );
    assert_invalid(
        &refused(dependant("a", &[""])).await,
        "depends_on",
        "an empty id",
    );
    let many: Vec<String> = (0..1001).map(|i| format!("d{i}")).collect();
    assert_invalid(
        &refused(item("a").depends_on(many)).await,
        "depends_on",
        "too many",
    );
    // In one call a dependency comes first: a later one would allow a cycle.
    let err = env
        .queue
        .add_batch(&[dependant("p", &["q"]), dependant("q", &["p"])])
        .await
        .unwrap_err();
    assert_invalid(&err, "depends_on", "a cycle");
    let err = env
        .queue
        .add_flow(&item("p"), &[item("c").into(), item("c").into()])
        .await
        .unwrap_err();
    assert_invalid(&err, "children", "an id twice");
    let err = env
        .queue
        .add_flow(&item("p"), &[Flow::new(item("p"))])
        .await
        .unwrap_err();
    assert_invalid(&err, "children", "the parent as its own child");
    let big: Vec<Flow> = (0..1000).map(|i| item(&format!("c{i}")).into()).collect();
    let err = env.queue.add_flow(&item("p"), &big).await.unwrap_err();
    assert_invalid(&err, "children", "over 1000 items");
    assert!(env.keys().await.is_empty(), "{:?}", env.keys().await);
    assert!(env.queue.lease(TTL, Wait::No).await.unwrap().is_none());
}
