//! Finding queues with an escaped SCAN, the server report, and the reserved runner registry.

use crate::common;

use common::Env;
use leaseq::{Item, State};

on_both!(
    queues_are_found_by_their_keys,
    a_paused_queue_is_found,
    glob_characters_in_the_start_match_themselves,
    server_report_names_slot_and_rights,
    runner_registry_is_absent,
);

async fn queues_are_found_by_their_keys(env: Env) {
    let waiting = format!("{}-w", env.prefix);
    let dead = format!("{}-d", env.prefix);
    let q = env.client.queue(&waiting).unwrap();
    q.add(&Item::with_id("ends:queue", b"x".to_vec()).unwrap())
        .await
        .unwrap();
    let d = env.client.queue(&dead).unwrap();
    d.add(&Item::with_id("a", b"x".to_vec()).unwrap().max_attempts(1))
        .await
        .unwrap();
    let lease = d
        .lease(common::TTL, leaseq::Wait::No)
        .await
        .unwrap()
        .unwrap();
    d.fail(&lease, "boom", "E", leaseq::Retry::Never)
        .await
        .unwrap();
    assert_eq!(d.count(State::Dead).await.unwrap(), 1);
    // A key of the right name but the wrong type is not a queue.
    let impostor = format!("{}-x", env.prefix);
    env.cmd::<()>(&[b"SET", format!("{impostor}:queue").as_bytes(), b"1"])
        .await;
    let found = env.client.queues(&env.prefix).await.unwrap();
    assert_eq!(found, vec![dead, waiting.clone()]);
    // The item `ends:queue` makes the key `P:item:ends:queue`: not a queue `P:item:ends`.
    assert!(!found.iter().any(|p| p.contains(":item:")));
    let all = env.client.queues("").await.unwrap();
    assert!(all.contains(&waiting));
}

async fn a_paused_queue_is_found(env: Env) {
    // Paused, its only item (priority 0) waits in `P:held`, and `P:queue` is gone.
    let q = env.client.queue(&env.prefix).unwrap();
    q.add(&Item::with_id("a", b"x".to_vec()).unwrap())
        .await
        .unwrap();
    assert!(q.pause().await.unwrap());
    let queue_key = format!("{}:queue", env.prefix);
    assert_eq!(env.cmd::<i64>(&[b"EXISTS", queue_key.as_bytes()]).await, 0);
    assert_eq!(
        env.client.queues(&env.prefix).await.unwrap(),
        vec![env.prefix.clone()]
    );
    assert!(q.resume().await.unwrap());
}

async fn glob_characters_in_the_start_match_themselves(env: Env) {
    let odd = format!("{}*[x]?\\", env.prefix);
    let plain = format!("{}Z", env.prefix);
    for prefix in [&odd, &plain] {
        env.client
            .queue(prefix)
            .unwrap()
            .add(&Item::new(b"x".to_vec()))
            .await
            .unwrap();
    }
    // Unescaped, `*` would match `Z` too.
    let found = env
        .client
        .queues(&format!("{}*", env.prefix))
        .await
        .unwrap();
    assert_eq!(found, vec![odd]);
}

async fn server_report_names_slot_and_rights(env: Env) {
    let report = env.client.server_report(&env.prefix).await.unwrap();
    let (major, _) = report.version_parts().expect("a version");
    assert!(major >= 6, "{report:?}");
    assert_eq!(report.cluster, env.server.is_none());
    let tag = report.hash_tag.clone().expect("fresh prefixes carry a tag");
    assert_eq!(report.slot, leaseq::key_slot(tag.as_bytes()));
    // The harness's servers run as the default user, with every right.
    assert_eq!(report.denied, Some(Vec::new()), "{report:?}");
    // Which server answered: on a cluster the node that owns the slot, named as CLUSTER NODES
    // names it, and the cluster's size.
    let port = report.port.expect("INFO's tcp_port");
    assert!(
        env.urls.iter().any(|u| u.ends_with(&format!(":{port}"))),
        "{report:?}"
    );
    assert_eq!(
        report.run_id.as_ref().map(String::len),
        Some(40),
        "{report:?}"
    );
    match &env.server {
        Some(_) => {
            assert_eq!(report.node_id, None);
            assert_eq!(report.cluster_primaries, None);
            assert_eq!(report.server_id(), report.run_id.as_deref());
        }
        None => {
            let node = report.node_id.clone().expect("CLUSTER MYID");
            assert_eq!(report.server_id(), Some(node.as_str()));
            let owner: String = env.cmd(&[b"CLUSTER", b"NODES"]).await;
            let line = owner
                .lines()
                .find(|l| l.starts_with(&node))
                .unwrap_or_else(|| panic!("{node} in {owner}"));
            assert!(line.contains(&format!(":{port}@")), "{line}");
            assert!(line.contains("master"), "{line}");
            assert_eq!(report.cluster_primaries, Some(3), "{report:?}");
        }
    }
    let err = env.client.server_report("").await.unwrap_err();
    assert_eq!(err.code(), leaseq::ErrorCode::InvalidArgument);
}

async fn runner_registry_is_absent(env: Env) {
    let runners = env.queue.runners().await.unwrap();
    assert!(runners.runners.is_empty() && runners.housekeeper.is_none());
    assert!(runners.now_ms > 0, "the server's clock");
}

#[tokio::test]
async fn acl_refusals_are_reported() {
    let env = Env::single("acl").await;
    env.cmd::<()>(&[
        b"ACL", b"SETUSER", b"reader", b"on", b">pw", b"~*", b"+@read", b"+acl", b"+info",
        b"+fcall",
    ])
    .await;
    let url = env.urls[0].replace("redis://", "redis://reader:pw@");
    let client = leaseq::Client::connect(&url).await.unwrap();
    let report = client.server_report("jobs").await.unwrap();
    assert_eq!(report.user.as_deref(), Some("reader"));
    let denied = report.denied.expect("checked");
    assert!(
        denied
            .iter()
            .any(|(cmd, _)| cmd.starts_with("SET jobs:item:X")),
        "{denied:?}"
    );
    assert!(
        !denied.iter().any(|(cmd, _)| cmd.starts_with("LLEN")),
        "{denied:?}"
    );
}
