//! Bad input is refused with an error naming the argument, and nothing is written to Redis.

use crate::common;

use std::time::Duration;

use common::{Env, TTL};
use leaseq::{Client, Error, ErrorCode, Item, Wait, MAX_TTL};
use leaseq_harness::RedisServer;

fn argument(err: Error) -> &'static str {
    match err {
        Error::InvalidArgument { argument, .. } => argument,
        other => panic!("expected InvalidArgument, got {other}"),
    }
}

on_both!(bad_ttls_write_nothing, wrong_key_type_is_reported);

async fn bad_ttls_write_nothing(env: Env) {
    env.queue
        .add(&Item::with_id("t", b"x".to_vec()).unwrap())
        .await
        .unwrap();
    let before = env.keys().await;
    for ttl in [Duration::ZERO, MAX_TTL + Duration::from_secs(1)] {
        let err = env.queue.lease(ttl, Wait::No).await.unwrap_err();
        assert_eq!(argument(err), "ttl");
    }
    assert_eq!(env.keys().await, before);
    assert_eq!(env.list("queue").await, vec!["t"], "nothing was taken");
    let lease = env.queue.lease(TTL, Wait::No).await.unwrap().unwrap();
    let err = env.queue.renew(&lease, Duration::ZERO).await.unwrap_err();
    assert!(err.to_string().contains("`ttl`"), "{err}");
    let err = env
        .queue
        .complete_and_lease(&lease, Duration::ZERO)
        .await
        .unwrap_err();
    assert_eq!(argument(err), "ttl");
    assert!(
        env.exists("item:t").await,
        "the refused complete_and_lease completed nothing"
    );
}

async fn wrong_key_type_is_reported(env: Env) {
    env.cmd::<String>(&[b"SET", env.key("queue").as_bytes(), b"not a list"])
        .await;
    let err = env.queue.add(&Item::new(vec![])).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::WrongType, "{err}");
    assert!(
        err.to_string().contains(&env.prefix),
        "names the queue: {err}"
    );
    let err = env.queue.lease(TTL, Wait::No).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::WrongType);
}

#[test]
fn bad_ids_and_prefixes_name_the_argument() {
    assert_eq!(argument(Item::with_id("", vec![]).unwrap_err()), "id");
    assert_eq!(
        argument(Item::with_id("a\u{0}b", vec![]).unwrap_err()),
        "id"
    );
    assert_eq!(
        argument(Item::with_id("x".repeat(513), vec![]).unwrap_err()),
        "id"
    );
}

#[tokio::test]
async fn client_arguments_are_checked() {
    let err = Client::connect("not a url").await.unwrap_err();
    assert_eq!(argument(err), "url");
    let err = Client::connect_cluster(Vec::<String>::new())
        .await
        .unwrap_err();
    assert_eq!(argument(err), "urls");
    // Nothing listens there: a connection error, which is retryable.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let err = Client::connect(&format!("redis://127.0.0.1:{port}"))
        .await
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::Connection);
    assert!(err.is_retryable());

    let env = Env::single("prefix").await;
    // A cluster client of a server that is no Cluster node: the URLs' fault, said so.
    let err = Client::connect_cluster([env.urls[0].as_str()])
        .await
        .unwrap_err();
    assert!(
        err.to_string().contains("not a node of a Redis Cluster"),
        "{err}"
    );
    assert_eq!(argument(err), "urls");
    for bad in ["", "a\nb"] {
        assert_eq!(argument(env.client.queue(bad).unwrap_err()), "prefix");
    }
    assert!(env.keys().await.is_empty());
}

#[tokio::test]
async fn cluster_refuses_prefix_without_hash_tag() {
    let env = Env::cluster("tagless").await;
    let err = env.client.queue("jobs").unwrap_err();
    assert_eq!(argument(err), "prefix");
    assert!(env.client.queue("{jobs}").is_ok());
}

#[tokio::test]
async fn eviction_policy_that_can_lose_items_is_warned_about() {
    let env = Env::single("noeviction").await;
    assert!(
        env.client.warnings().is_empty(),
        "{:?}",
        env.client.warnings()
    );
    let lru = RedisServer::start_with(&["--maxmemory-policy", "allkeys-lru"]);
    let client = Client::connect(&lru.url()).await.unwrap();
    assert!(
        client.warnings().iter().any(|w| w.contains("allkeys-lru")),
        "{:?}",
        client.warnings()
    );
}

#[tokio::test]
async fn deep_clean_escapes_glob_characters_in_the_prefix() {
    let env = Env::single("glob").await;
    // An orphan item of the queue `jobs1`, which the unescaped pattern `jobs[1]*:item:*` matches.
    env.cmd::<String>(&[b"SET", b"jobs1:item:x", b"other queue's data"])
        .await;
    env.cmd::<String>(&[b"SET", b"jobs[1]*:item:mine", b"ours"])
        .await;
    let q = env.client.queue("jobs[1]*").unwrap();
    let report = q.deep_clean().await.unwrap();
    assert_eq!(report.requeued, 1);
    let ours: Vec<String> = env.cmd(&[b"LRANGE", b"jobs[1]*:queue", b"0", b"-1"]).await;
    assert_eq!(ours, ["mine"]);
    let theirs: i64 = env.cmd(&[b"EXISTS", b"jobs1:queue"]).await;
    assert_eq!(theirs, 0, "jobs1 was not touched");
}

#[tokio::test]
async fn a_server_that_never_answers_fails_the_connect_with_a_timeout() {
    // Accepts connections and never says a word.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("redis://{}", listener.local_addr().unwrap());
    let _holder = std::thread::spawn(move || {
        let held: Vec<_> = listener.incoming().take(8).collect();
        std::thread::sleep(Duration::from_secs(30));
        drop(held);
    });
    let err = Client::connect(&url).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::Timeout, "{err}");
}

#[tokio::test]
async fn close_lets_the_sockets_go() {
    let server = RedisServer::start();
    let clients = || {
        server
            .command("INFO clients")
            .lines()
            .find_map(|l| {
                l.strip_prefix("connected_clients:")
                    .map(|n| n.trim().parse::<u32>().unwrap())
            })
            .unwrap()
    };
    let before = clients();
    let client = Client::connect(&server.url()).await.unwrap();
    let q = client.queue("sockets").unwrap();
    q.lease(TTL, Wait::Timeout(Duration::from_millis(50)))
        .await
        .unwrap();
    assert!(clients() > before, "the client holds connections");
    client.close();
    for _ in 0..100 {
        if clients() == before {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("sockets still open after close: {} > {before}", clients());
}

/// A key of the queue holding another type (issue 14, 8): an add fails with WRONG_TYPE and
/// writes nothing (the shared keys are written before the item's own). Single adds, and
/// batches whose items share their options (the `shared` modes, 5.1), groups of their own too.
#[tokio::test]
async fn wrong_type_keys_leave_no_partial_writes() {
    /// A kind of add: its name, and what it does to the k-th item.
    type Add = (&'static str, fn(Item, usize) -> Item);
    let adds: [Add; 4] = [
        ("plain", |i, _| i),
        ("delayed", |i, _| {
            i.delay(std::time::Duration::from_secs(60))
        }),
        ("priority", |i, _| i.priority(3)),
        ("grouped", |i, k| i.group(format!("g{k}"))),
    ];
    for key in [
        "queue", "delayed", "prios", "config", "wake", "job:a", "leased", "prio:3", "group:g0",
        "group:g1",
    ] {
        for ((what, make), batch) in adds.iter().flat_map(|a| [(a, false), (a, true)]) {
            let env = Env::single("wrongtype").await;
            env.cmd::<String>(&[b"SET", env.key(key).as_bytes(), b"not mine"])
                .await;
            let item =
                |id: &str, k| make(Item::with_id(id, b"x".to_vec()).unwrap().max_attempts(3), k);
            let added = if batch {
                let items = [item("a", 0), item("b", 1)];
                env.queue.add_batch(&items).await.map(|n| n > 0)
            } else {
                env.queue.add(&item("a", 0)).await
            };
            let what = format!("{what}{}", if batch { " batch" } else { "" });
            match added {
                Ok(added) => assert!(added, "{key}/{what}"),
                Err(err) => {
                    assert_eq!(err.code(), ErrorCode::WrongType, "{key}/{what}: {err}");
                    let keys = env.keys().await;
                    assert_eq!(
                        keys,
                        vec![env.key(key)],
                        "{key}/{what}: nothing but the bad key"
                    );
                }
            }
        }
    }
}

/// A batch complete checks P:leased's type by its own first write (the shortcut's ZREM) or by
/// TYPE (leases that go one by one): either way a P:leased of another type fails the call
/// before anything changes (spec/PROTOCOL.md 4.1, Refused calls; 4.6).
#[tokio::test]
async fn a_batch_complete_refused_on_a_wrong_type_leased_writes_nothing() {
    let env = Env::single("leasedtype").await;
    for id in ["a", "b", "c"] {
        env.queue
            .add(&Item::with_id(id, b"x".to_vec()).unwrap())
            .await
            .unwrap();
    }
    let leases = env.queue.lease_batch(3, TTL, Wait::No).await.unwrap();
    assert_eq!(leases.len(), 3);
    let leased = env.key("leased");
    env.cmd::<i64>(&[b"DEL", leased.as_bytes()]).await;
    env.cmd::<String>(&[b"SET", leased.as_bytes(), b"not mine"])
        .await;
    let before = env.keys().await;
    // The shortcut (plain first leases), and one by one (results to keep: complete_item).
    let shortcut: Vec<_> = leases.iter().map(|l| (l, None)).collect();
    let kept: Vec<_> = leases
        .iter()
        .map(|l| (l, Some((&b"r"[..], None))))
        .collect();
    for batch in [shortcut, kept] {
        let err = env.queue.complete_batch(&batch).await.unwrap_err();
        assert_eq!(err.code(), ErrorCode::WrongType, "{err}");
        assert_eq!(env.keys().await, before, "nothing written or removed");
    }
}
