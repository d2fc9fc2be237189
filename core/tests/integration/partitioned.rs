//! Partitioned queues (spec/PROTOCOL.md 5.25) on a local cluster of three primaries: the
//! layout (one partition per primary for P = 3, two for P = 6), creation, routing, leasing and
//! runners over the partitions, the reads over the logical queue, and P = 1 as today's queue.

use crate::common;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use common::{assert_invalid, fresh_prefix, Env, TTL};
use leaseq::worker::{Event, Job, Outcome, Worker};
use leaseq::{key_slot, Client, Flow, Item, Partitioned, Retry, State, Wait};
use leaseq_harness::{RedisCluster, RedisServer};

static CLUSTER: OnceLock<RedisCluster> = OnceLock::new();

fn cluster() -> &'static RedisCluster {
    CLUSTER.get_or_init(RedisCluster::start)
}

async fn client() -> Client {
    Client::connect_cluster(cluster().urls()).await.unwrap()
}

/// The slot ranges a node owns (its `myself` line of CLUSTER NODES).
fn own_slots(node: &RedisServer) -> Vec<(u16, u16)> {
    let nodes = node.command("CLUSTER NODES");
    let line = nodes.lines().find(|l| l.contains("myself")).unwrap();
    line.split_whitespace()
        .skip(8)
        .filter(|r| !r.starts_with('['))
        .map(|r| match r.split_once('-') {
            Some((a, b)) => (a.parse().unwrap(), b.parse().unwrap()),
            None => (r.parse().unwrap(), r.parse().unwrap()),
        })
        .collect()
}

/// The index of the node that owns the slot of `prefix`.
fn owner(prefix: &str) -> usize {
    let slot = key_slot(prefix.as_bytes());
    cluster()
        .nodes()
        .iter()
        .position(|n| own_slots(n).iter().any(|&(a, b)| (a..=b).contains(&slot)))
        .expect("an owner")
}

async fn create(client: &Client, name: &str, p: usize) -> Partitioned {
    client
        .create_partitioned(&fresh_prefix(name), p)
        .await
        .unwrap()
}

fn item(id: &str) -> Item {
    Item::with_id(id, id.as_bytes().to_vec()).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn partitions_spread_evenly_over_the_primaries() {
    let client = client().await;
    for (p, per_node) in [(3, 1), (6, 2)] {
        let q = create(&client, "spread", p).await;
        let mut on = [0; 3];
        for part in q.partitions() {
            on[owner(part.prefix())] += 1;
        }
        assert_eq!(on, [per_node; 3], "P = {p}: partitions per primary");
        // Every partition's keys are where its slot is: an item added to each shows up there.
        for (i, part) in q.partitions().iter().enumerate() {
            part.add(&item(&format!("x{i}"))).await.unwrap();
            let keys = cluster().nodes()[owner(part.prefix())]
                .command(&format!("EXISTS {}:item:x{i}", part.prefix()));
            assert!(keys.contains('1'), "{keys}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn creation_is_idempotent_and_a_different_count_is_refused() {
    let client = client().await;
    let base = fresh_prefix("create");
    let q = client.create_partitioned(&base, 3).await.unwrap();
    let again = client.create_partitioned(&base, 3).await.unwrap();
    let read = client.partitioned(&base).await.unwrap();
    let prefixes = |q: &Partitioned| -> Vec<String> {
        q.partitions()
            .iter()
            .map(|p| p.prefix().to_owned())
            .collect()
    };
    assert_eq!(prefixes(&q), prefixes(&again));
    assert_eq!(prefixes(&q), prefixes(&read));
    assert_eq!(q.count(), 3);
    for other in [1, 6] {
        let e = client.create_partitioned(&base, other).await.unwrap_err();
        assert_invalid(&e, "partitions", other);
    }
    // The stored layout wins over what a client would compute.
    for n in [0, leaseq::MAX_PARTITIONS + 1] {
        assert_invalid(
            &client.create_partitioned(&base, n).await.unwrap_err(),
            "partitions",
            n,
        );
    }
    // A base with a plain queue in it cannot become partitioned.
    let plain = fresh_prefix("plain");
    client.queue(&plain).unwrap().add(&item("a")).await.unwrap();
    let e = client.create_partitioned(&plain, 2).await.unwrap_err();
    assert_invalid(&e, "partitions", "a plain queue");
    assert_eq!(client.partitioned(&plain).await.unwrap().count(), 1);
    // Nor one drained down to its kept results, which the partitions would hide.
    let drained = fresh_prefix("drained");
    let dq = client.queue(&drained).unwrap();
    dq.add(&item("r")).await.unwrap();
    let lease = dq.lease(TTL, Wait::No).await.unwrap().unwrap();
    dq.complete_with_result(&lease, Some(b"kept"), None)
        .await
        .unwrap();
    assert!(!dq.exists().await.unwrap(), "only the result is left");
    let e = client.create_partitioned(&drained, 2).await.unwrap_err();
    assert_invalid(&e, "partitions", "a queue's kept results");
    assert_eq!(dq.result("r").await.unwrap().unwrap().data, b"kept");
    // More than one partition needs a hash tag, on a single server too.
    let single = RedisServer::start();
    let one = Client::connect(&single.url()).await.unwrap();
    assert_invalid(
        &one.create_partitioned("jobs", 2).await.unwrap_err(),
        "prefix",
        "no tag",
    );
    assert_eq!(
        one.create_partitioned("{jobs}", 2).await.unwrap().count(),
        2
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_partition_is_todays_queue_byte_for_byte() {
    let env = Env::single("p1").await;
    let base = fresh_prefix("p1base");
    let q = env.client.create_partitioned(&base, 1).await.unwrap();
    assert_eq!(q.partitions()[0].prefix(), base);
    assert_eq!(env.client.partitioned(&base).await.unwrap().count(), 1);
    let items = |n: usize| -> Vec<Item> {
        (0..n)
            .map(|i| match i % 3 {
                0 => item(&format!("i{i}")),
                1 => item(&format!("i{i}")).priority(5),
                _ => item(&format!("i{i}")).group("g"),
            })
            .collect()
    };
    let plain = &env.queue;
    plain.add_batch(&items(9)).await.unwrap();
    q.add_batch(&items(9)).await.unwrap();
    plain.add(&item("one")).await.unwrap();
    q.add(&item("one")).await.unwrap();
    // Every key, its type and content (hash field names: times and incarnations differ).
    let dump = |prefix: String| {
        let raw = env.raw.clone();
        async move {
            let mut raw = raw;
            let pattern = format!("{}*", prefix.replace('{', "\\{").replace('}', "\\}"));
            let keys: Vec<String> = redis::cmd("KEYS")
                .arg(&pattern)
                .query_async(&mut raw)
                .await
                .unwrap();
            let mut out = BTreeMap::new();
            for key in keys {
                let kind: String = redis::cmd("TYPE")
                    .arg(&key)
                    .query_async(&mut raw)
                    .await
                    .unwrap();
                let content: Vec<Vec<u8>> = match kind.as_str() {
                    "string" => vec![redis::cmd("GET")
                        .arg(&key)
                        .query_async(&mut raw)
                        .await
                        .unwrap()],
                    "list" => redis::cmd("LRANGE")
                        .arg(&key)
                        .arg(0)
                        .arg(-1)
                        .query_async(&mut raw)
                        .await
                        .unwrap(),
                    "hash" => redis::cmd("HKEYS")
                        .arg(&key)
                        .query_async(&mut raw)
                        .await
                        .unwrap(),
                    "zset" | "set" => {
                        let mut m: Vec<Vec<u8>> =
                            redis::cmd(if kind == "set" { "SMEMBERS" } else { "ZRANGE" })
                                .arg(&key)
                                .arg_if(kind == "zset", 0)
                                .arg_if(kind == "zset", -1)
                                .query_async(&mut raw)
                                .await
                                .unwrap();
                        m.sort();
                        m
                    }
                    other => panic!("{key}: {other}"),
                };
                let mut fields = content;
                if kind == "hash" {
                    fields.sort();
                }
                out.insert(key[prefix.len()..].to_owned(), (kind, fields));
            }
            out
        }
    };
    let ours = dump(base.clone()).await;
    let theirs = dump(plain.prefix().to_owned()).await;
    assert!(!ours.is_empty());
    assert_eq!(ours, theirs);
    assert!(!ours.contains_key(":partitions"));
}

trait ArgIf {
    fn arg_if(&mut self, cond: bool, arg: i64) -> &mut Self;
}

impl ArgIf for redis::Cmd {
    fn arg_if(&mut self, cond: bool, arg: i64) -> &mut Self {
        if cond {
            self.arg(arg);
        }
        self
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn items_route_by_group_then_dependency_then_id() {
    let client = client().await;
    let q = create(&client, "route", 6).await;
    // By id: each item lands in its id's partition, and an id added twice stays one item.
    let mut per = vec![0; 6];
    for i in 0..120 {
        let it = item(&format!("id{i}"));
        assert!(q.add(&it).await.unwrap());
        let at = q.partition_of(&it).unwrap();
        assert_eq!(at, q.partition_of_id(it.id()));
        assert!(q.partitions()[at].get(it.id()).await.unwrap().is_some());
        per[at] += 1;
    }
    assert!(
        per.iter().all(|&n| n > 0),
        "every partition got items: {per:?}"
    );
    assert!(!q.add(&item("id7")).await.unwrap(), "a dedup by id");
    // By group: all of a group's items in one partition, whatever their ids.
    let grouped: Vec<Item> = (0..30)
        .map(|i| item(&format!("g{i}")).group("tenant-a"))
        .collect();
    assert_eq!(q.add_batch(&grouped).await.unwrap(), 30);
    let home = q.partition_of(&grouped[0]).unwrap();
    assert_eq!(
        q.partitions()[home]
            .group("tenant-a")
            .await
            .unwrap()
            .waiting,
        30
    );
    // By dependency: an item waits in its dependency's partition; one whose dependencies
    // would cross partitions is refused before anything is sent.
    let dep = "id3";
    let waiter = item("after3").depends_on([dep]);
    assert!(q.add(&waiter).await.unwrap());
    let at = q.partition_of_id(dep);
    let job = q.partitions()[at].get("after3").await.unwrap().unwrap();
    assert_eq!(job.state, State::Blocked);
    assert_eq!(
        job.partition, None,
        "read from the partition itself, a plain queue"
    );
    // Read through the logical queue, it says where: the dependency in its id's partition, the
    // dependant in the dependency's (whatever its own id's).
    assert_eq!(q.get(dep).await.unwrap().unwrap().partition, Some(at));
    let found = q.get("after3").await.unwrap().unwrap();
    assert_eq!((found.state, found.partition), (State::Blocked, Some(at)));
    let other = (0..120)
        .map(|i| format!("id{i}"))
        .find(|id| q.partition_of_id(id) != at)
        .unwrap();
    let cross = item("cross").depends_on([dep.to_owned(), other]);
    assert_invalid(&q.add(&cross).await.unwrap_err(), "depends_on", "cross");
    assert_invalid(
        &q.add_batch(&[item("fine"), cross]).await.unwrap_err(),
        "depends_on",
        "batch",
    );
    assert!(q.get("fine").await.unwrap().is_none(), "nothing sent");
    // A dependency lives where it was added, which its id alone does not say: the item goes
    // where the dependency is found. `g0` is a grouped item, in its group's partition.
    let on_grouped = item("after-g0").depends_on(["g0"]);
    assert!(q.add(&on_grouped).await.unwrap());
    let job = q.partitions()[home].get("after-g0").await.unwrap().unwrap();
    assert_eq!(
        job.state,
        State::Blocked,
        "it waits for g0, in g0's partition"
    );
    // A grouped item whose dependency is in another partition than its group's is refused;
    // one whose dependency is nowhere (finished, or never added) is not held back.
    let elsewhere = (0..120)
        .map(|i| format!("id{i}"))
        .find(|id| q.partition_of_id(id) != home)
        .unwrap();
    let off = item("off")
        .group("tenant-a")
        .depends_on([elsewhere.as_str()]);
    assert_invalid(&q.add(&off).await.unwrap_err(), "depends_on", "off");
    assert!(q.get("off").await.unwrap().is_none(), "nothing written");
    let free = (0..120)
        .map(|i| format!("gone{i}"))
        .find(|id| q.partition_of_id(id) != home)
        .unwrap();
    let free = item("free").group("tenant-a").depends_on([free.as_str()]);
    assert!(q.add(&free).await.unwrap());
    let job = q.partitions()[home].get("free").await.unwrap().unwrap();
    assert_ne!(
        job.state,
        State::Blocked,
        "a missing dependency counts as complete"
    );
    // In one batch: an item after its grouped dependency goes where the group goes.
    let batch = [
        item("parent-b").group("tenant-b"),
        item("child-b").depends_on(["parent-b"]),
    ];
    assert_eq!(q.add_batch(&batch).await.unwrap(), 2);
    let b = q.partition_of(&batch[0]).unwrap();
    let job = q.partitions()[b].get("child-b").await.unwrap().unwrap();
    assert_eq!(job.state, State::Blocked);
    // A flow goes whole to its root's partition.
    let flow = Flow::new(item("c1")).child(item("c2"));
    assert_eq!(
        q.add_flow(&item("root"), &[flow, Flow::new(item("c3"))])
            .await
            .unwrap(),
        4
    );
    let root = q.partition_of_id("root");
    for id in ["root", "c1", "c2", "c3"] {
        assert!(
            q.partitions()[root].get(id).await.unwrap().is_some(),
            "{id}"
        );
    }
    // A bad item of a batch or a flow is named as a queue's batch names it: `items`, with the
    // item's id and its argument in the reason; nothing written.
    let bad = [item("fine"), item("too-high").priority(5000)];
    for e in [
        q.add_batch(&bad).await.unwrap_err(),
        q.add_flow(&bad[0], &[Flow::new(bad[1].clone())])
            .await
            .unwrap_err(),
    ] {
        assert_invalid(&e, "items", "a bad item of many");
        assert!(
            e.to_string().contains("too-high") && e.to_string().contains("priority"),
            "{e}"
        );
    }
    assert!(q.get("fine").await.unwrap().is_none(), "nothing written");
    // A flow item's dependency outside the flow is located: in another partition it would
    // count as complete there, so the flow is refused whole; in the flow's, it holds the item.
    let far = (0..120)
        .map(|i| format!("far{i}"))
        .find(|id| q.partition_of_id(id) != root)
        .unwrap();
    assert!(q.add(&item(&far)).await.unwrap());
    let child = item("waits-far").depends_on([far.as_str()]);
    assert_invalid(
        &q.add_flow(&item("root2"), &[Flow::new(child)])
            .await
            .unwrap_err(),
        "depends_on",
        &far,
    );
    assert!(
        q.get("waits-far").await.unwrap().is_none(),
        "nothing written"
    );
    let root2 = q.partition_of_id("root2");
    let near = (0..120)
        .map(|i| format!("near{i}"))
        .find(|id| q.partition_of_id(id) == root2)
        .unwrap();
    assert!(q.add(&item(&near)).await.unwrap());
    let child = item("waits-near").depends_on([near.as_str()]);
    assert_eq!(
        q.add_flow(&item("root2"), &[Flow::new(child)])
            .await
            .unwrap(),
        2
    );
    let job = q.partitions()[root2]
        .get("waits-near")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(job.state, State::Blocked, "held by `{near}`");
    // A flow item whose group lives in another partition would split the group: refused.
    let root3 = q.partition_of_id("root3");
    let stray = (0..64)
        .map(|g| format!("g{g}"))
        .find(|g| q.partition_of(&item("x").group(g.as_str())).unwrap() != root3)
        .unwrap();
    let child = item("grouped-child").group(stray.as_str());
    assert_invalid(
        &q.add_flow(&item("root3"), &[Flow::new(child)])
            .await
            .unwrap_err(),
        "group",
        &stray,
    );
    assert!(
        q.get("grouped-child").await.unwrap().is_none() && q.get("root3").await.unwrap().is_none()
    );
    // The root's own group is the flow's partition: its items may carry it.
    let child = item("same-group").group("tenant-z");
    let root = item("root4").group("tenant-z");
    assert_eq!(q.add_flow(&root, &[Flow::new(child)]).await.unwrap(), 2);
    let home = q.partition_of(&root).unwrap();
    assert!(q.partitions()[home]
        .get("same-group")
        .await
        .unwrap()
        .is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leases_rotate_over_partitions_and_finish_in_their_own() {
    let client = client().await;
    let q = create(&client, "lease", 3).await;
    assert!(q.lease(TTL, Wait::No).await.unwrap().is_none());
    // One item in each partition: three leases, one from each, in any order.
    for (i, part) in q.partitions().iter().enumerate() {
        part.add(&item(&format!("p{i}"))).await.unwrap();
    }
    let mut from = HashSet::new();
    for _ in 0..3 {
        let lease = q.lease(TTL, Wait::No).await.unwrap().expect("an item");
        from.insert(q.queue_of(&lease).unwrap().prefix().to_owned());
        assert!(q.complete(&lease).await.unwrap());
    }
    assert_eq!(from.len(), 3);
    // A batch gathers from every partition it needs.
    let items: Vec<Item> = (0..30).map(|i| item(&format!("b{i}"))).collect();
    q.add_batch(&items).await.unwrap();
    let leases = q.lease_batch(30, TTL, Wait::No).await.unwrap();
    assert_eq!(leases.len(), 30);
    // A lease of another queue is refused.
    let stranger = client.queue(&fresh_prefix("stranger")).unwrap();
    stranger.add(&item("s")).await.unwrap();
    let foreign = stranger.lease(TTL, Wait::No).await.unwrap().unwrap();
    assert_invalid(&q.queue_of(&foreign).unwrap_err(), "lease", "foreign");
    // A waiting lease wakes for an item added to any partition.
    let adder = q.clone();
    let add = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        adder.partitions()[2].add(&item("late")).await.unwrap();
    });
    let late = q
        .lease(TTL, Wait::Timeout(Duration::from_secs(30)))
        .await
        .unwrap()
        .expect("the late item");
    assert_eq!(late.id(), "late");
    assert_eq!(
        q.queue_of(&late).unwrap().prefix(),
        q.partitions()[2].prefix()
    );
    add.await.unwrap();
}

/// The queue's finishing and waiting calls, each in the partition that holds the item: a
/// result kept, a failure retried or dead with its trace, and an add that waits for room in a
/// bounded partition.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn finishes_and_waits_go_to_the_items_partition() {
    let client = client().await;
    let q = create(&client, "finish", 3).await;
    let items: Vec<Item> = (0..3).map(|i| item(&format!("f{i}"))).collect();
    assert_eq!(q.add_batch_wait(&items, Wait::No).await.unwrap(), 3);
    let lease = q.lease(TTL, Wait::No).await.unwrap().unwrap();
    let home = q.partition_of_id(lease.id());
    assert_eq!(
        q.queue_of(&lease).unwrap().prefix(),
        q.partitions()[home].prefix()
    );
    assert!(q
        .complete_with_result(&lease, Some(b"done"), None)
        .await
        .unwrap());
    let kept = q.result(lease.id()).await.unwrap().expect("a kept result");
    assert_eq!(kept.data, b"done");
    // A failure retries in the lease's partition, then leaves the item dead there.
    let lease = q.lease(TTL, Wait::No).await.unwrap().unwrap();
    let home = q.queue_of(&lease).unwrap().clone();
    let waiting = |q: leaseq::Queue| async move {
        q.count(State::Waiting).await.unwrap() + q.count(State::Delayed).await.unwrap()
    };
    let before = waiting(home.clone()).await;
    let retried = q
        .fail(&lease, "broken", "Broken", Retry::After(Duration::ZERO))
        .await
        .unwrap();
    assert!(
        matches!(retried, leaseq::FailOutcome::Retrying(_)),
        "{retried:?}"
    );
    assert_eq!(waiting(home.clone()).await, before + 1);
    let again = loop {
        let l = q.lease(TTL, Wait::No).await.unwrap().unwrap();
        if l.id() == lease.id() {
            break l;
        }
        q.complete(&l).await.unwrap();
    };
    let dead = q
        .fail_with_trace(&again, "broken", "Broken", Retry::Never, Some("at line 7"))
        .await
        .unwrap();
    assert_eq!(dead, leaseq::FailOutcome::Dead);
    assert_eq!(home.count(State::Dead).await.unwrap(), 1);
    let job = q.get(lease.id()).await.unwrap().unwrap();
    assert_eq!(job.trace.as_deref(), Some("at line 7"));
    // A bounded partition: an add that finds it full waits for the lease that makes room.
    q.set_config(&leaseq::QueueConfig::new().capacity(1))
        .await
        .unwrap();
    let first = item("w0");
    let at = q.partition_of(&first).unwrap();
    let second = (1..)
        .map(|i| item(&format!("w{i}")))
        .find(|i| q.partition_of(i).unwrap() == at)
        .unwrap();
    assert!(q.add_wait(&first, Wait::No).await.unwrap());
    let full = q.add_wait(&second, Wait::No).await.unwrap_err();
    assert_eq!(full.code(), leaseq::ErrorCode::Full, "{full}");
    let partition = q.partitions()[at].clone();
    let room = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        partition.lease(TTL, Wait::No).await.unwrap().expect("w0")
    });
    assert!(q
        .add_wait(&second, Wait::Timeout(Duration::from_secs(30)))
        .await
        .unwrap());
    assert_eq!(room.await.unwrap().id(), "w0");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reads_cover_the_logical_queue() {
    let client = client().await;
    let q = create(&client, "reads", 3).await;
    let items: Vec<Item> = (0..60).map(|i| item(&format!("r{i:02}"))).collect();
    assert_eq!(q.add_batch(&items).await.unwrap(), 60);
    // An item put in a partition other than its id's is still found.
    let elsewhere = (q.partition_of_id("odd") + 1) % 3;
    q.partitions()[elsewhere].add(&item("odd")).await.unwrap();
    let job = q
        .get("odd")
        .await
        .unwrap()
        .expect("found in another partition");
    assert_eq!(job.state, State::Waiting);
    assert!(q.get("nobody").await.unwrap().is_none());
    assert_eq!(q.cancel("odd").await.unwrap(), Some(State::Waiting));
    assert_eq!(q.cancel("odd").await.unwrap(), None);
    assert_eq!(q.cancel("r05").await.unwrap(), Some(State::Waiting));
    assert!(q.get("r05").await.unwrap().is_none());
    // Waiting counts the ids in the lists: a cancelled item's id stays until a lease drops it.
    let stats = q.stats().await.unwrap();
    assert_eq!(stats.total.waiting, 61);
    assert_eq!(stats.partitions.len(), 3);
    assert_eq!(stats.partitions.iter().map(|s| s.waiting).sum::<u64>(), 61);
    assert!(stats.partitions.iter().all(|s| s.waiting > 0));
    assert_eq!(q.count_in(State::Waiting).await.unwrap(), 61);
    // Pages over the partitions, one after another: every id once, but for the two cancelled
    // (their ids, stale, are skipped: spec 5.12), each entry naming the partition it lives in.
    let mut seen = Vec::new();
    for start in (0..70).step_by(7) {
        for e in q.list(State::Waiting, start, 7).await.unwrap() {
            assert_eq!(e.partition, Some(q.partition_of_id(&e.id)), "{}", e.id);
            seen.push(e.id);
        }
    }
    let unique: HashSet<_> = seen.iter().collect();
    assert_eq!((seen.len(), unique.len()), (59, 59));
    assert!(!seen.iter().any(|id| id == "odd" || id == "r05"));
    // Items waiting in groups, one in each partition, are counted as waiting but not listed,
    // and take no positions: the 61 positions of the lists (two of them stale) hold the 59.
    for p in 0..3 {
        let grouped = (0..)
            .map(|g| item(&format!("g{p}-{g}")).group(format!("tenant{g}")))
            .find(|i| q.partition_of(i).unwrap() == p)
            .unwrap();
        assert!(q.add(&grouped).await.unwrap());
    }
    assert_eq!(q.count_in(State::Waiting).await.unwrap(), 64);
    assert_eq!(q.list(State::Waiting, 0, 61).await.unwrap().len(), 59);
    // From a partition itself (a plain queue), no partition.
    let plain = q.partitions()[0].list(State::Waiting, 0, 5).await.unwrap();
    assert!(!plain.is_empty() && plain.iter().all(|e| e.partition.is_none()));
    // A filter's entries name theirs too.
    let found = q.find(State::Waiting, None, None, 30, 10).await.unwrap();
    assert!(!found.entries.is_empty());
    assert!(found
        .entries
        .iter()
        .all(|e| e.partition == Some(q.partition_of_id(&e.id))));
    // A page size out of range is refused as a queue's list refuses it, even where no
    // partition would be asked (past the end, or nothing in the state).
    for (start, count) in [(0, 0), (1000, 0), (0, 1001)] {
        assert_invalid(
            &q.list(State::Dead, start, count).await.unwrap_err(),
            "count",
            format!("count {count}"),
        );
    }
    // Dead letters: one dies in each partition of another queue, then all are requeued.
    let d = create(&client, "dead", 3).await;
    for (i, part) in d.partitions().iter().enumerate() {
        part.add(&item(&format!("d{i}"))).await.unwrap();
        let lease = part.lease(TTL, Wait::No).await.unwrap().unwrap();
        part.fail(&lease, "boom", "E", Retry::Never).await.unwrap();
    }
    assert_eq!(d.count_in(State::Dead).await.unwrap(), 3);
    assert_eq!(d.list(State::Dead, 0, 10).await.unwrap().len(), 3);
    assert_eq!(d.stats().await.unwrap().total.dead, 3);
    assert_eq!(d.dead_requeue_oldest(None).await.unwrap(), 3);
    assert_eq!(d.stats().await.unwrap().total.waiting, 3);
    assert!(q.pause().await.unwrap());
    assert!(q.stats().await.unwrap().total.paused);
    assert!(q.resume().await.unwrap());
}

async fn drain_with_a_runner(p: usize) {
    const N: usize = 900;
    let client = client().await;
    let q = create(&client, "runner", p).await;
    let items: Vec<Item> = (0..N).map(|i| item(&format!("w{i}"))).collect();
    assert_eq!(q.add_batch(&items).await.unwrap(), N);
    let completed: Arc<Mutex<HashMap<String, u32>>> = Arc::default();
    let served: Arc<Mutex<HashMap<String, usize>>> = Arc::default();
    let all_done = Arc::new(tokio::sync::Notify::new());
    let (seen, done) = (completed.clone(), all_done.clone());
    let by = served.clone();
    let worker = Worker::partitioned(&q, move |job: Job| {
        *by.lock()
            .unwrap()
            .entry(job.queue().prefix().to_owned())
            .or_default() += 1;
        async { Outcome::Complete(None) }
    })
    .concurrency(16)
    .on_event(move |e| {
        if let Event::Completed { id, .. } = e {
            let mut seen = seen.lock().unwrap();
            *seen.entry(id.clone()).or_default() += 1;
            if seen.len() == N {
                done.notify_one();
            }
        }
    });
    let report = tokio::time::timeout(
        Duration::from_secs(120),
        worker.run_until(async move { all_done.notified().await }),
    )
    .await
    .expect("the runner drained the queue")
    .unwrap();
    let completed = completed.lock().unwrap().clone();
    assert_eq!(completed.len(), N, "P = {p}: every item");
    assert!(completed.values().all(|&n| n == 1), "P = {p}: none twice");
    assert_eq!(report.completed, N as u64);
    let served = served.lock().unwrap().clone();
    for part in q.partitions() {
        let expected = items
            .iter()
            .filter(|it| q.partitions()[q.partition_of(it).unwrap()].prefix() == part.prefix())
            .count();
        assert_eq!(
            served.get(part.prefix()).copied().unwrap_or(0),
            expected,
            "{}",
            part.prefix()
        );
    }
    let stats = q.stats().await.unwrap().total;
    assert_eq!((stats.waiting, stats.leased), (0, 0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_runner_drains_three_partitions_exactly_once() {
    drain_with_a_runner(3).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_runner_drains_six_partitions_exactly_once() {
    drain_with_a_runner(6).await;
}

/// An idle runner over six partitions, given one item at a time, leases it from the partition
/// whose wait answered: it does not ask each empty partition again at every look, nor open a
/// connection for each of their waits again (spec 13.3).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_runner_does_not_ask_every_empty_partition_per_item() {
    const N: usize = 30;
    let server = RedisServer::start();
    let client = Client::connect(&server.url()).await.unwrap();
    let q = client.create_partitioned("{idle}", 6).await.unwrap();
    let done = Arc::new(tokio::sync::Semaphore::new(0));
    let (notify, stop) = (done.clone(), Arc::new(tokio::sync::Notify::new()));
    let stopper = stop.clone();
    let worker = Worker::partitioned(&q, |_job: Job| async { Outcome::Complete(None) })
        .concurrency(4)
        .on_event(move |e| {
            if let Event::Completed { .. } = e {
                notify.add_permits(1);
            }
        });
    let run = tokio::spawn(worker.run_until(async move { stopper.notified().await }));
    // The runner's first look (and its registration) before counting.
    q.add(&item("warm")).await.unwrap();
    done.acquire().await.unwrap().forget();
    let fcalls = || {
        let info = server.command("INFO commandstats");
        info.lines()
            .find_map(|l| l.strip_prefix("cmdstat_fcall:calls="))
            .and_then(|rest| rest.split(',').next())
            .map_or(0u64, |n| n.parse().unwrap())
    };
    let connections = || {
        let info = server.command("INFO stats");
        info.lines()
            .find_map(|l| l.strip_prefix("total_connections_received:"))
            .map_or(0u64, |n| n.trim().parse().unwrap())
    };
    let (before, connected) = (fcalls(), connections());
    for i in 0..N {
        q.add(&item(&format!("one{i}"))).await.unwrap();
        done.acquire().await.unwrap().forget();
    }
    let calls = fcalls() - before;
    let opened = connections() - connected;
    stop.notify_one();
    run.await.unwrap().unwrap();
    // Each item: its add, its lease and its complete, with a little room for the runner's
    // beats and a lease that found a partition empty; asking all six partitions per look
    // would be about nine per item.
    assert!(
        calls <= 5 * N as u64,
        "{calls} function calls for {N} items added one at a time"
    );
    // The waits on the partitions that did not answer stay in flight to the next look: no
    // connection is opened per item (ending them would cost eleven new ones per item here).
    assert!(
        opened < N as u64,
        "{opened} connections opened for {N} items added one at a time"
    );
}

/// The script calls `server` has run (FCALL in INFO commandstats).
fn fcalls(server: &RedisServer) -> u64 {
    let info = server.command("INFO commandstats");
    info.lines()
        .find_map(|l| l.strip_prefix("cmdstat_fcall:calls="))
        .and_then(|rest| rest.split(',').next())
        .map_or(0u64, |n| n.parse().unwrap())
}

/// Drains `n` items from a queue of `p` partitions at base `base` on `server` with a runner at
/// `concurrency` and a no-op handler; returns the script calls the server ran meanwhile and the
/// partition of each completed item, in the order completed.
async fn drain_counting(
    server: &RedisServer,
    base: &str,
    p: usize,
    n: usize,
    concurrency: usize,
) -> (u64, Vec<usize>) {
    let client = Client::connect(&server.url()).await.unwrap();
    let q = client.create_partitioned(base, p).await.unwrap();
    let items: Vec<Item> = (0..n).map(|i| item(&format!("c{i}"))).collect();
    assert_eq!(q.add_batch(&items).await.unwrap(), n);
    let prefixes: Vec<String> = q
        .partitions()
        .iter()
        .map(|q| q.prefix().to_owned())
        .collect();
    let order: Arc<Mutex<Vec<usize>>> = Arc::default();
    let all_done = Arc::new(tokio::sync::Notify::new());
    let (seen, done) = (order.clone(), all_done.clone());
    let before = fcalls(server);
    let worker = Worker::partitioned(&q, move |job: Job| {
        let i = prefixes
            .iter()
            .position(|p| p == job.queue().prefix())
            .unwrap();
        let mut seen = seen.lock().unwrap();
        seen.push(i);
        if seen.len() == n {
            done.notify_one();
        }
        async { Outcome::Complete(None) }
    })
    .concurrency(concurrency);
    let report = tokio::time::timeout(
        Duration::from_secs(120),
        worker.run_until(async move { all_done.notified().await }),
    )
    .await
    .expect("the runner drained the queue")
    .unwrap();
    assert_eq!(report.completed, n as u64);
    let calls = fcalls(server) - before;
    let order = order.lock().unwrap().clone();
    (calls, order)
}

/// A runner over three partitions sends about as many script calls per item as a runner over
/// one queue: it serves one partition at a time, in turns, so each call completes a whole batch
/// of its slots and leases for them (spec 13.3, "Turns"), instead of a complete per partition
/// for its share of a batch and a lease apart (about 3.5 times the calls, measured before).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_runner_over_partitions_makes_the_calls_of_a_runner_over_one_queue() {
    const N: usize = 3000;
    let server = RedisServer::start();
    let (one, _) = drain_counting(&server, "{calls-one}", 1, N, 20).await;
    let (three, order) = drain_counting(&server, "{calls-three}", 3, N, 20).await;
    assert!(
        three <= one + one / 2 + 20,
        "{three} script calls for {N} items over 3 partitions, {one} over one queue"
    );
    // Every partition served (each holds about a third of the items).
    for i in 0..3 {
        assert!(order.contains(&i), "partition {i} not served");
    }
}

/// With work in every partition, the runner takes the partitions in turns (spec 13.3): long
/// runs of one partition's items, yet every partition gets its turn long before the others run
/// dry (none starves). A runner that asked the partitions in rotation per batch would switch
/// partitions at almost every batch.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_runner_takes_the_partitions_in_turns_and_starves_none() {
    const N: usize = 6000;
    let server = RedisServer::start();
    let (_, order) = drain_counting(&server, "{turns}", 3, N, 2).await;
    // A turn is at most 256 leases per slot (512 here, and the jobs of the turn before it
    // still running), or 250 ms if that ends first; so the first 2,000 items (a third of the
    // queue) hold turns of every partition.
    let first = &order[..2000];
    for i in 0..3 {
        let served = first.iter().filter(|&&p| p == i).count();
        assert!(
            served > 0,
            "partition {i} starved in the first 2,000: {first:?}"
        );
    }
    let switches = order.windows(2).filter(|w| w[0] != w[1]).count();
    assert!(
        switches < N / 20,
        "{switches} switches between partitions in {N} items"
    );
}

/// Fails unless `$call` was refused as a call at a partitioned queue's base: `InvalidArgument`
/// naming `prefix`.
macro_rules! refused_at_base {
    ($call:expr, $what:literal) => {
        match $call {
            Ok(v) => panic!("{}: not refused at the base: {v:?}", $what),
            Err(e) => {
                assert_invalid(&e, "prefix", $what);
                assert!(e.to_string().contains("partitioned"), "{}: {e}", $what);
            }
        }
    };
}

/// The base of a partitioned queue is no queue (spec/PROTOCOL.md 5.25): the plain queue that
/// `Client::queue(base)` opens refuses every call that would give it work or settings, which no
/// runner of the partitioned queue would ever see, and writes nothing; the partitioned queue
/// itself goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_base_of_a_partitioned_queue_refuses_work() {
    let env = Env::single("base").await;
    let q = env.client.create_partitioned(&env.prefix, 3).await.unwrap();
    let layout = vec![format!("{}:partitions", env.prefix)];
    assert_eq!(env.keys().await, layout);
    let base = &env.queue;
    assert_eq!(base.prefix(), env.prefix);
    refused_at_base!(base.add(&item("a")).await, "a single plain add");
    refused_at_base!(base.add_unique(&item("b")).await, "add_unique");
    refused_at_base!(
        base.add(&item("c").delay(Duration::from_secs(60))).await,
        "an add with a delay"
    );
    refused_at_base!(base.add(&item("d").group("g")).await, "a grouped add");
    refused_at_base!(
        base.add_batch(&[item("e"), item("f")]).await,
        "a batch of plain items"
    );
    refused_at_base!(
        base.add_batch(&[item("g").priority(5), item("h").priority(5)])
            .await,
        "a batch sharing its options"
    );
    refused_at_base!(base.lease(TTL, Wait::No).await, "a lease");
    refused_at_base!(
        base.lease(TTL, Wait::Timeout(Duration::from_secs(30)))
            .await,
        "a waiting lease"
    );
    refused_at_base!(base.lease_batch(5, TTL, Wait::No).await, "a batch lease");
    refused_at_base!(base.pause().await, "pause");
    refused_at_base!(base.resume().await, "resume");
    refused_at_base!(
        base.set_config(&leaseq::QueueConfig::new().max_attempts(3))
            .await,
        "set_config"
    );
    refused_at_base!(base.rate_limit(Duration::from_secs(1)).await, "rate_limit");
    refused_at_base!(
        base.upsert_schedule("nightly", &leaseq::Schedule::every(Duration::from_secs(60)))
            .await,
        "upsert_schedule"
    );
    refused_at_base!(base.pause_group("g").await, "pause_group");
    refused_at_base!(base.resume_group("g").await, "resume_group");
    refused_at_base!(base.set_group_limit("g", Some(2)).await, "set_group_limit");
    refused_at_base!(
        base.rate_limit_group("g", Duration::from_secs(1)).await,
        "rate_limit_group"
    );
    let runner = Worker::new(base.clone(), |_job: Job| async { Outcome::Complete(None) });
    refused_at_base!(
        runner.run_until(std::future::pending()).await,
        "a runner, at its start"
    );
    assert_eq!(env.keys().await, layout, "nothing was written at the base");
    // Reads answer for an empty queue; the partitioned queue works.
    assert_eq!(base.count(State::Waiting).await.unwrap(), 0);
    assert!(q.add(&item("a")).await.unwrap());
    assert_eq!(q.lease(TTL, Wait::No).await.unwrap().unwrap().id(), "a");
}

/// The logical queue's schedules live in partition 0 (spec/PROTOCOL.md 5.25): the handle's
/// schedule calls go there, and a fire adds their items there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn schedules_live_in_partition_zero() {
    let env = Env::single("schedules").await;
    let q = env.client.create_partitioned(&env.prefix, 3).await.unwrap();
    let poll = leaseq::Schedule::every(Duration::from_secs(1)).item(Item::new("poll"));
    assert!(q.upsert_schedule("poll", &poll).await.unwrap());
    assert!(!q.upsert_schedule("poll", &poll).await.unwrap());
    let zero = q.partition(0).unwrap();
    assert!(zero.get_schedule("poll").await.unwrap().is_some());
    for other in &q.partitions()[1..] {
        assert_eq!(other.schedules(0, 10).await.unwrap().total, 0);
    }
    assert_eq!(q.schedules(0, 10).await.unwrap().total, 1);
    // Past its first tick, a fire adds its item to partition 0.
    tokio::time::sleep(Duration::from_millis(1200)).await;
    assert!(q.fire_due_schedules().await.unwrap().fired >= 1);
    assert!(zero.count(State::Waiting).await.unwrap() >= 1);
    for other in &q.partitions()[1..] {
        assert_eq!(other.count(State::Waiting).await.unwrap(), 0);
    }
    assert!(q.get_schedule("poll").await.unwrap().unwrap().fired >= 1);
    assert!(q.remove_schedule("poll").await.unwrap());
    assert_eq!(zero.get_schedule("poll").await.unwrap(), None);
    // Its items go to partition 0: an item of a group that lives elsewhere would split the
    // group, and is refused; one of a group of partition 0 is taken.
    let of = |g: &str| q.partition_of(&Item::new("x").group(g)).unwrap();
    let elsewhere = (0..64)
        .map(|g| format!("g{g}"))
        .find(|g| of(g) != 0)
        .unwrap();
    let at_zero = (0..64)
        .map(|g| format!("g{g}"))
        .find(|g| of(g) == 0)
        .unwrap();
    let stray = leaseq::Schedule::every(Duration::from_secs(60))
        .item(Item::new("x").group(elsewhere.as_str()));
    assert_invalid(
        &q.upsert_schedule("stray", &stray).await.unwrap_err(),
        "group",
        &elsewhere,
    );
    assert_eq!(
        q.schedules(0, 10).await.unwrap().total,
        0,
        "nothing written"
    );
    let home = leaseq::Schedule::every(Duration::from_secs(60))
        .item(Item::new("x").group(at_zero.as_str()));
    assert!(q.upsert_schedule("home", &home).await.unwrap());
}

/// A capacity below what one partition holds is refused naming that partition, and no
/// partition takes any of the call's settings (spec/PROTOCOL.md 5.25: a capacity is per
/// partition).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_capacity_one_partition_cannot_take_is_refused_everywhere() {
    let env = Env::single("capacity").await;
    let q = env.client.create_partitioned(&env.prefix, 3).await.unwrap();
    let first = item("c0");
    let home = q.partition_of(&first).unwrap();
    let second = (1..)
        .map(|i| item(&format!("c{i}")))
        .find(|i| q.partition_of(i).unwrap() == home)
        .unwrap();
    assert_eq!(q.add_batch(&[first, second]).await.unwrap(), 2);
    let config = leaseq::QueueConfig::new().capacity(1).max_attempts(9);
    let err = q.set_config(&config).await.unwrap_err();
    assert_invalid(&err, "capacity", "a capacity below a partition's two items");
    assert!(
        err.to_string().contains(&format!("partition {home}")),
        "{err}"
    );
    for p in q.partitions() {
        assert_eq!(p.config().await.unwrap(), leaseq::QueueConfig::new());
    }
    q.set_config(&leaseq::QueueConfig::new().capacity(2).max_attempts(9))
        .await
        .unwrap();
    for p in q.partitions() {
        let stored = p.config().await.unwrap();
        assert_eq!((stored.capacity, stored.max_attempts), (Some(2), Some(9)));
    }
}

/// Ids that route to each partition of `q`, `per` for each, in partition order.
fn ids_per_partition(q: &Partitioned, per: usize, tag: &str) -> Vec<Vec<String>> {
    let mut out = vec![Vec::new(); q.count()];
    let mut n = 0;
    while out.iter().any(|ids| ids.len() < per) {
        let id = format!("{tag}{n}");
        let p = q.partition_of_id(&id);
        if out[p].len() < per {
            out[p].push(id);
        }
        n += 1;
    }
    out
}

/// The logical queue's follower (spec/PROTOCOL.md 5.25, "Events"): every partition's entries,
/// each naming its partition and in its partition's order; a position with an id per
/// partition that a new follower resumes after, missing nothing and repeating nothing; a wait
/// over every partition at once that loses nothing when cut short; and its refusals.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_follower_follows_every_partition_and_resumes_from_its_position() {
    let client = client().await;
    let q = create(&client, "events", 3).await;
    q.set_config(&leaseq::QueueConfig::new().events(true))
        .await
        .unwrap();
    let mut follower = q.events(leaseq::EventsFrom::Now).await.unwrap();
    assert_eq!(follower.position(), None);
    // Cut short while nothing comes, again and again: the waits are kept, nothing is lost.
    for _ in 0..5 {
        let cut = tokio::time::timeout(Duration::from_millis(20), follower.next()).await;
        assert!(cut.is_err(), "an entry came from an idle queue: {cut:?}");
    }
    let ids = ids_per_partition(&q, 3, "e");
    let adder = {
        let q = q.clone();
        let ids = ids.clone();
        tokio::spawn(async move {
            // One id of each partition in turn, so that every partition's stream wakes.
            for round in 0..3 {
                for part in &ids {
                    q.add(&item(&part[round])).await.unwrap();
                }
            }
        })
    };
    let mut seen: Vec<Vec<String>> = vec![Vec::new(); 3];
    for _ in 0..9 {
        let ev = follower.next().await.unwrap();
        assert_eq!(ev.event, "added", "{ev:?}");
        let p = ev
            .partition
            .expect("a partitioned follower names the partition");
        assert_eq!(p, q.partition_of_id(&ev.job_id), "{ev:?}");
        seen[p].push(ev.job_id);
    }
    adder.await.unwrap();
    assert_eq!(seen, ids, "each partition's entries in its order");
    let position = follower.position().unwrap().to_owned();
    let parts: Vec<&str> = position.split(',').collect();
    assert_eq!(parts.len(), 3, "{position}");
    for (i, id) in parts.iter().enumerate() {
        let last = q
            .partition(i)
            .unwrap()
            .read_events(None, 1)
            .await
            .unwrap()
            .last;
        assert_eq!(*id, last, "partition {i}'s last entry");
    }

    // What came after the position, and only that, for a follower that resumes after it.
    let later = ids_per_partition(&q, 1, "later");
    for part in &later {
        q.add(&item(&part[0])).await.unwrap();
    }
    let mut resumed = q
        .events(leaseq::EventsFrom::After(position.clone()))
        .await
        .unwrap();
    let mut got = Vec::new();
    for _ in 0..3 {
        got.push(resumed.next().await.unwrap().job_id);
    }
    got.sort();
    let mut want: Vec<String> = later.into_iter().flatten().collect();
    want.sort();
    assert_eq!(got, want);
    // So does the first follower, which waited for nothing meanwhile.
    let mut again = Vec::new();
    for _ in 0..3 {
        again.push(follower.next().await.unwrap().job_id);
    }
    again.sort();
    assert_eq!(again, want);

    // One id for every partition: `0-0` is every entry still kept.
    let mut all = q
        .events(leaseq::EventsFrom::After("0-0".into()))
        .await
        .unwrap();
    let mut count = 0;
    while count < 12 {
        let ev = all.next().await.unwrap();
        assert_eq!(ev.event, "added");
        count += 1;
    }
    assert_eq!(all.position().unwrap().split(',').count(), 3);
    // What is there now, without waiting: the same twelve, then none.
    let mut now = q
        .events(leaseq::EventsFrom::After("0-0".into()))
        .await
        .unwrap();
    let mut drained = 0;
    while let Some(ev) = now.next_now().await.unwrap() {
        assert!(ev.partition.is_some());
        drained += 1;
    }
    assert_eq!(drained, 12);
    assert_eq!(now.position(), all.position());

    // Refused, sending nothing: a count of ids other than 1 or 3, and ids that are none.
    for bad in ["1-0,2-0", "1-0,2-0,3-0,4-0", "x", "1-0,,2-0", "1-0,y,2-0"] {
        let err = q
            .events(leaseq::EventsFrom::After(bad.into()))
            .await
            .err()
            .unwrap();
        assert_invalid(&err, "after", bad);
    }
    // Later than one partition's last entry: refused, naming the partition.
    let (ms, _) = parts[1].split_once('-').unwrap();
    let future = format!(
        "{},{}-0,{}",
        parts[0],
        ms.parse::<u64>().unwrap() + 60_000,
        parts[2]
    );
    let err = q
        .events(leaseq::EventsFrom::After(future))
        .await
        .err()
        .unwrap();
    assert_invalid(&err, "after", "future");
    assert!(err.to_string().contains("partition 1"), "{err}");
}

/// Creation checks that the base holds no queue and writes the layout in one call
/// (spec/PROTOCOL.md 5.25, "Creation"): a producer adding at the base meanwhile, on a connection
/// of its own, either got an item in first (the creation is refused) or has every add refused,
/// never both, so no item is left at a base where no runner looks. Creators of different
/// counts racing: one wins whole.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn creation_and_adds_at_the_base_never_both_succeed() {
    let client = client().await;
    let producer_client = self::client().await;
    let mut refused_creations = 0;
    for round in 0..60u64 {
        let base = fresh_prefix(&format!("race{round}"));
        let plain = producer_client.queue(&base).unwrap();
        let producer = tokio::spawn(async move {
            // Starts a little later each round, so that its first add lands anywhere in the
            // creation's calls.
            tokio::time::sleep(Duration::from_micros(round * 20)).await;
            let mut added = 0;
            for n in 0..100 {
                match plain.add(&item(&format!("x{n}"))).await {
                    Ok(_) => added += 1,
                    Err(e) => {
                        assert_invalid(&e, "prefix", "an add after the layout");
                        break;
                    }
                }
            }
            added
        });
        let created = client.create_partitioned(&base, 3).await;
        let added = producer.await.unwrap();
        match created {
            Ok(q) => {
                assert_eq!(
                    added, 0,
                    "round {round}: created, and {added} items at the base"
                );
                assert_eq!(q.count(), 3);
            }
            Err(e) => {
                assert_invalid(&e, "partitions", "a creation after an add");
                assert!(
                    added > 0,
                    "round {round}: refused with no queue at the base"
                );
                refused_creations += 1;
            }
        }
        let other = fresh_prefix(&format!("count{round}"));
        let (three, two) = tokio::join!(
            client.create_partitioned(&other, 3),
            client.create_partitioned(&other, 2)
        );
        assert!(
            three.is_ok() != two.is_ok(),
            "round {round}: exactly one count wins: {:?} {:?}",
            three.map(|q| q.count()),
            two.map(|q| q.count())
        );
    }
    eprintln!("{refused_creations} of 60 creations came after an add");
}

/// The clients blocked in an `XREAD` (a follower's waits) on `server`.
fn xreads(server: &RedisServer) -> usize {
    blocked_xreads(&server.command("CLIENT LIST"))
}

/// The lines of a `CLIENT LIST` reply of clients blocked (`flags=b`) in an `XREAD` (an idle
/// connection back in the pool also shows its last command, unblocked).
fn blocked_xreads(list: &str) -> usize {
    list.lines()
        .filter(|l| l.contains(" flags=b ") && l.contains(" cmd=xread "))
        .count()
}

/// `FCALL`s `server` has run (every read of a follower's pages is one).
fn fcall_count(server: &RedisServer) -> u64 {
    let stats = server.command("INFO commandstats");
    stats
        .lines()
        .find_map(|l| l.strip_prefix("cmdstat_fcall:calls="))
        .and_then(|rest| rest.split(',').next())
        .map_or(0, |n| n.parse().unwrap())
}

/// Waits until `ok` holds (a server-side effect that lands within moments), for at most 10 s.
async fn eventually(mut ok: impl FnMut() -> bool) -> bool {
    for _ in 0..200 {
        if ok() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    ok()
}

/// A follower's waits: kept between calls cut short (no page read again while nothing came),
/// ended by `release` and by dropping the follower, blocking facade included; and a partition
/// whose stream started again (ids lower than the position) moves the position there, so it
/// can still be resumed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_followers_waits_are_kept_then_ended_and_a_restarted_stream_moves_its_position() {
    let server = RedisServer::start();
    let client = Client::connect(&server.url()).await.unwrap();
    let q = client.create_partitioned("{kept}", 3).await.unwrap();
    q.set_config(&leaseq::QueueConfig::new().events(true))
        .await
        .unwrap();
    let mut follower = q.events(leaseq::EventsFrom::Now).await.unwrap();
    assert!(
        tokio::time::timeout(Duration::from_millis(30), follower.next())
            .await
            .is_err()
    );
    let reads = fcall_count(&server);
    for _ in 0..5 {
        assert!(
            tokio::time::timeout(Duration::from_millis(30), follower.next())
                .await
                .is_err()
        );
    }
    assert_eq!(
        fcall_count(&server),
        reads,
        "an idle follower reads no page again"
    );
    assert!(
        eventually(|| xreads(&server) == 3).await,
        "one wait per partition"
    );
    follower.release();
    assert!(eventually(|| xreads(&server) == 0).await, "released");
    // It waits again, and misses nothing meanwhile.
    q.add(&item("after-release")).await.unwrap();
    assert_eq!(follower.next().await.unwrap().job_id, "after-release");
    assert!(
        tokio::time::timeout(Duration::from_millis(30), follower.next())
            .await
            .is_err()
    );
    assert!(eventually(|| xreads(&server) == 3).await);
    drop(follower);
    assert!(eventually(|| xreads(&server) == 0).await, "dropped");

    // The blocking facade: dropped, its waits end at once, not at the client's next call.
    let url = server.url();
    let (before, after) = tokio::task::spawn_blocking(move || {
        let raw = redis::Client::open(url.as_str()).unwrap();
        let mut raw = raw.get_connection().unwrap();
        let mut count = || -> usize {
            let list: String = redis::cmd("CLIENT").arg("LIST").query(&mut raw).unwrap();
            blocked_xreads(&list)
        };
        let blocking = leaseq::blocking::Client::connect(&url).unwrap();
        let bq = blocking.partitioned("{kept}").unwrap();
        let mut f = bq.events(leaseq::EventsFrom::Now).unwrap();
        assert!(f.next_timeout(Duration::from_millis(50)).unwrap().is_none());
        let before = count();
        drop(f);
        let mut after = count();
        for _ in 0..100 {
            if after == 0 {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
            after = count();
        }
        (before, after)
    })
    .await
    .unwrap();
    assert_eq!(
        (before, after),
        (3, 0),
        "waits while it lives, none once dropped"
    );

    // Partition 0's stream starts again with lower ids (as after a failover to a replica that
    // lacked its last entries): the position moves to its new last entry and stays resumable.
    let mut follower = q
        .events(leaseq::EventsFrom::After("0-0".into()))
        .await
        .unwrap();
    while follower.next_now().await.unwrap().is_some() {}
    let zero = q.partition(0).unwrap().prefix().to_owned();
    server.command(&format!("DEL {zero}:events"));
    server.command(&format!("XADD {zero}:events 5-1 event added id restarted"));
    let later = (0..200)
        .map(|i| format!("r{i}"))
        .find(|id| q.partition_of_id(id) == 1)
        .unwrap();
    q.add(&item(&later)).await.unwrap();
    let ev = follower.next().await.unwrap();
    assert_eq!(ev.job_id, later);
    let position = follower.position().unwrap().to_owned();
    assert!(position.starts_with("5-1,"), "{position}");
    let mut resumed = q.events(leaseq::EventsFrom::After(position)).await.unwrap();
    assert_eq!(resumed.next_now().await.unwrap(), None);
    // One id for every partition is a time: later than some partitions' last entries, they
    // start there; later than every one's, it is refused.
    let (ms, _) = follower
        .position()
        .unwrap()
        .rsplit(',')
        .next()
        .unwrap()
        .split_once('-')
        .unwrap();
    let time = ms.to_owned();
    assert!(q.events(leaseq::EventsFrom::After(time)).await.is_ok());
    let future = "99999999999999-0".to_owned();
    let e = q
        .events(leaseq::EventsFrom::After(future))
        .await
        .err()
        .unwrap();
    assert_invalid(
        &e,
        "after",
        "a time later than every partition's last entry",
    );
    // With no entry in any partition, nothing says a time is later: it is taken, and the
    // follower gets what comes.
    let fresh = create(&client, "no-events-yet", 3).await;
    let mut follower = fresh
        .events(leaseq::EventsFrom::After("1000".to_owned()))
        .await
        .unwrap();
    fresh
        .set_config(&leaseq::QueueConfig::new().events(true))
        .await
        .unwrap();
    fresh.add(&item("first")).await.unwrap();
    assert_eq!(follower.next().await.unwrap().job_id, "first");
}

/// Routing by live state stays idempotent and whole (spec/PROTOCOL.md 5.25, "Dependencies and
/// flows"): a retried add of an item routed by its dependency adds no second copy after the
/// dependency finished; a batch's dependency on a later item is refused whole; a dependency
/// that completed with its result kept takes its dependant where the result is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn routing_by_dependencies_is_idempotent_ordered_and_finds_kept_results() {
    let client = client().await;
    let q = create(&client, "deps", 4).await;
    // A grouped dependency, in its group's partition, and an item that waits for it there.
    let d = item("d").group("tenant");
    assert!(q.add(&d).await.unwrap());
    let home = q.partition_of(&d).unwrap();
    let x = item("x").depends_on(["d"]);
    assert!(q.add(&x).await.unwrap());
    assert_eq!(
        q.partitions()[home].get("x").await.unwrap().unwrap().state,
        State::Blocked
    );
    // d completes; the producer retries x's add (say, after a lost reply): a no-op.
    let lease = q.partitions()[home]
        .lease(TTL, Wait::No)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(lease.id(), "d");
    assert!(q.complete(&lease).await.unwrap());
    assert!(!q.add(&x).await.unwrap(), "the retry adds nothing");
    let copies = futures_util::future::join_all(q.partitions().iter().map(|p| p.get("x"))).await;
    assert_eq!(
        copies.iter().filter(|c| matches!(c, Ok(Some(_)))).count(),
        1
    );
    // (x, released by d, is leased and completed: nothing else waits in d's partition.)
    let lease = q.partitions()[home]
        .lease(TTL, Wait::No)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(lease.id(), "x");
    assert!(q.complete(&lease).await.unwrap());

    // A batch whose item depends on a later one is refused whole, as a queue's add is.
    let batch = [item("c").depends_on(["p"]), item("p").group("g2")];
    assert_invalid(
        &q.add_batch(&batch).await.unwrap_err(),
        "depends_on",
        "later item",
    );
    assert!(q.get("c").await.unwrap().is_none() && q.get("p").await.unwrap().is_none());

    // A dependency completed with its result kept: its dependant goes where the result is.
    let r = item("r").group("tenant");
    assert!(q.add(&r).await.unwrap());
    let lease = q.partitions()[home]
        .lease(TTL, Wait::No)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(lease.id(), "r");
    assert!(q
        .complete_with_result(&lease, Some(b"done"), None)
        .await
        .unwrap());
    let after = item("after-r").depends_on(["r"]);
    assert!(q.add(&after).await.unwrap());
    assert!(q.partitions()[home].get("after-r").await.unwrap().is_some());
    let results = q.partitions()[home]
        .dependency_results("after-r")
        .await
        .unwrap();
    assert_eq!(results, [("r".to_owned(), Some(b"done".to_vec()))]);
}

/// `wait_result` on the logical queue waits where the item is, not where its id routes: a
/// grouped item's result comes from its group's partition; an item not added yet is waited for
/// in every partition; a wait that ends first gives `None`; a bad id is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wait_result_waits_where_the_item_is() {
    let client = client().await;
    let q = create(&client, "waitres", 4).await;
    // A group whose partition is not the id's: routing by id alone would wait in vain.
    let group = (0..64)
        .map(|g| format!("g{g}"))
        .find(|g| q.partition_of(&item("w1").group(g.as_str())).unwrap() != q.partition_of_id("w1"))
        .unwrap();
    let w1 = item("w1").group(group.as_str());
    assert!(q.add(&w1).await.unwrap());
    let home = q.partition_of(&w1).unwrap();
    let waiting = {
        let q = q.clone();
        tokio::spawn(async move { q.wait_result("w1", Duration::from_secs(30)).await })
    };
    let lease = q.partitions()[home]
        .lease(TTL, Wait::No)
        .await
        .unwrap()
        .unwrap();
    assert!(q
        .complete_with_result(&lease, Some(b"one"), None)
        .await
        .unwrap());
    let got = waiting.await.unwrap().unwrap().expect("the result");
    assert_eq!(got.data, b"one");

    // Not added yet when the wait starts: waited for in every partition.
    let waiting = {
        let q = q.clone();
        tokio::spawn(async move { q.wait_result("w2", Wait::Forever).await })
    };
    // (The wait looks the id up first; an add before that only makes it wait in one place.)
    let w2 = item("w2").group(group.as_str());
    assert!(q.add(&w2).await.unwrap());
    let lease = q.partitions()[home]
        .lease(TTL, Wait::No)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(lease.id(), "w2");
    assert!(q
        .complete_with_result(&lease, Some(b"two"), None)
        .await
        .unwrap());
    let got = waiting.await.unwrap().unwrap().expect("the result");
    assert_eq!(got.data, b"two");

    // Kept already: read at once, also without a wait.
    let got = q.wait_result("w1", Wait::No).await.unwrap().unwrap();
    assert_eq!(got.data, b"one");
    // Nothing comes: None once the wait ends.
    assert!(q
        .wait_result("never", Duration::from_millis(200))
        .await
        .unwrap()
        .is_none());
    assert_invalid(
        &q.wait_result("", Wait::No).await.unwrap_err(),
        "id",
        "an empty id",
    );
    // An id held by two partitions (added without a group, and with one that lives
    // elsewhere), both completed with a result: `wait_result` answers what `result` answers.
    let twice = [item("two-copies"), item("two-copies").group(group.as_str())];
    for copy in &twice {
        assert!(q.add(copy).await.unwrap());
    }
    for lease in q.lease_batch(10, TTL, Wait::No).await.unwrap() {
        let data = format!("from {}", lease.queue_prefix());
        assert!(q
            .complete_with_result(&lease, Some(data.as_bytes()), None)
            .await
            .unwrap());
    }
    let read = q.result("two-copies").await.unwrap().unwrap();
    let waited = q
        .wait_result("two-copies", Wait::No)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(waited.data, read.data);
}

/// The group calls on the logical queue act in the group's partition, where all its items
/// live: a paused group's items are not leased from any partition, its limit and hold are
/// read back, and the other partitions' items go on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn group_calls_act_where_the_group_lives() {
    let client = client().await;
    let q = create(&client, "groups", 4).await;
    let grouped: Vec<Item> = (0..3)
        .map(|i| item(&format!("t{i}")).group("tenant"))
        .collect();
    assert_eq!(q.add_batch(&grouped).await.unwrap(), 3);
    let home = q.partition_of(&grouped[0]).unwrap();
    assert!(q.pause_group("tenant").await.unwrap(), "it was running");
    assert!(!q.pause_group("tenant").await.unwrap());
    let info = q.group("tenant").await.unwrap();
    assert!(info.paused);
    assert_eq!(info.waiting, 3);
    // Paused: no partition hands out its items; an ungrouped item still goes.
    assert!(q.add(&item("free")).await.unwrap());
    let got = q.lease_batch(10, TTL, Wait::No).await.unwrap();
    assert_eq!(
        got.iter().map(|l| l.id().to_owned()).collect::<Vec<_>>(),
        ["free"]
    );
    assert!(q.resume_group("tenant").await.unwrap(), "it was paused");
    assert!(!q.partitions()[home].group("tenant").await.unwrap().paused);
    q.set_group_limit("tenant", Some(2)).await.unwrap();
    assert_eq!(q.group("tenant").await.unwrap().limit, 2);
    let got = q.lease_batch(10, TTL, Wait::No).await.unwrap();
    assert_eq!(got.len(), 2, "the limit holds");
    let held = q
        .rate_limit_group("tenant", Duration::from_secs(60))
        .await
        .unwrap();
    assert!(held > Duration::ZERO && held <= Duration::from_secs(60));
    assert!(q.group("tenant").await.unwrap().rate_limited_for.is_some());
    assert_invalid(
        &q.set_group_limit("tenant", Some(0)).await.unwrap_err(),
        "limit",
        "a limit of 0",
    );
}

/// `wait_result` for an id no partition holds (here: completed without a result, then added
/// again): one server-side wait per partition, kept until a result comes in any of them, then
/// ended; a result kept meanwhile in another partition than the id's answers it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wait_result_for_an_id_held_nowhere_waits_in_every_partition_then_ends_its_waits() {
    let server = RedisServer::start();
    let client = Client::connect(&server.url()).await.unwrap();
    let q = client.create_partitioned("{nowhere}", 3).await.unwrap();
    let group = (0..64)
        .map(|g| format!("g{g}"))
        .find(|g| q.partition_of(&item("w").group(g.as_str())).unwrap() != q.partition_of_id("w"))
        .unwrap();
    let w = item("w").group(group.as_str());
    let home = q.partition_of(&w).unwrap();
    assert!(q.add(&w).await.unwrap());
    let lease = q.lease(TTL, Wait::No).await.unwrap().unwrap();
    assert!(
        q.complete(&lease).await.unwrap(),
        "completed, no result kept"
    );
    let blmoves = || {
        server
            .command("CLIENT LIST")
            .lines()
            .filter(|l| l.contains(" flags=b ") && l.contains(" cmd=blmove "))
            .count()
    };
    let waiting = {
        let q = q.clone();
        tokio::spawn(async move { q.wait_result("w", Wait::Forever).await })
    };
    assert!(
        eventually(|| blmoves() == 3).await,
        "one wait per partition"
    );
    // Added again (to its group's partition) and completed with a result there.
    assert!(q.add(&w).await.unwrap());
    let lease = q.partitions()[home]
        .lease(TTL, Wait::No)
        .await
        .unwrap()
        .unwrap();
    assert!(q
        .complete_with_result(&lease, Some(b"again"), None)
        .await
        .unwrap());
    let got = waiting.await.unwrap().unwrap().expect("the result");
    assert_eq!(got.data, b"again");
    assert!(eventually(|| blmoves() == 0).await, "its waits ended");

    // Held nowhere at first, then added and dead in another partition than its id's: the
    // wait reads every partition's outcome each second, and ends with Error::Dead.
    let d = item("d").group(group.as_str());
    let waiting = {
        let q = q.clone();
        tokio::spawn(async move { q.wait_result("d", Wait::Forever).await })
    };
    assert!(
        eventually(|| blmoves() == 3).await,
        "waits in every partition"
    );
    assert!(q.add(&d).await.unwrap());
    let lease = q.partitions()[q.partition_of(&d).unwrap()]
        .lease(TTL, Wait::No)
        .await
        .unwrap()
        .unwrap();
    q.fail(&lease, "boom", "", Retry::Never).await.unwrap();
    let ended = tokio::time::timeout(Duration::from_secs(10), waiting)
        .await
        .expect("ended by the death")
        .unwrap();
    assert!(
        matches!(&ended, Err(leaseq::Error::Dead { id, .. }) if id == "d"),
        "{ended:?}"
    );
    assert!(eventually(|| blmoves() == 0).await, "its waits ended");
}

/// An id is unique per partition only, so copies of it in two partitions may each have ended
/// their own way. A dead copy does not end a wait while another partition holds a live one; a
/// result older than a death in another partition does not hide it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wait_result_over_partitions_weighs_each_copys_outcome() {
    let client = client().await;
    let q = create(&client, "newest", 3).await;
    // Two groups in two different partitions.
    let groups: Vec<String> = (0..64).map(|g| format!("g{g}")).collect();
    let a = groups[0].clone();
    let pa = q.partition_of(&item("x").group(a.as_str())).unwrap();
    let b = groups
        .iter()
        .find(|g| q.partition_of(&item("x").group(g.as_str())).unwrap() != pa)
        .unwrap()
        .clone();
    let pb = q.partition_of(&item("x").group(b.as_str())).unwrap();
    let take = |p: usize| {
        let q = q.clone();
        async move {
            q.partitions()[p]
                .lease(TTL, Wait::No)
                .await
                .unwrap()
                .unwrap()
        }
    };

    // x died in A, then was added again in B: the live copy is waited for.
    assert!(q.add(&item("x").group(a.as_str())).await.unwrap());
    let lease = take(pa).await;
    q.fail(&lease, "old", "", Retry::Never).await.unwrap();
    assert!(q.add(&item("x").group(b.as_str())).await.unwrap());
    assert!(q
        .wait_result("x", Duration::from_millis(1500))
        .await
        .unwrap()
        .is_none());
    let lease = take(pb).await;
    assert!(q
        .complete_with_result(&lease, Some(b"new"), None)
        .await
        .unwrap());
    let got = q.wait_result("x", Wait::No).await.unwrap().unwrap();
    assert_eq!(got.data, b"new", "its result is newer than the death");

    // z completed with a result in A, then added again in B: the result is the earlier
    // incarnation's, and the wait is for the live copy's.
    assert!(q.add(&item("z").group(a.as_str())).await.unwrap());
    let lease = take(pa).await;
    assert!(q
        .complete_with_result(&lease, Some(b"old"), None)
        .await
        .unwrap());
    assert!(q.add(&item("z").group(b.as_str())).await.unwrap());
    assert!(q.wait_result("z", Wait::No).await.unwrap().is_none());
    let lease = take(pb).await;
    assert!(q
        .complete_with_result(&lease, Some(b"current"), None)
        .await
        .unwrap());
    assert_eq!(
        q.wait_result("z", Duration::from_secs(5))
            .await
            .unwrap()
            .unwrap()
            .data,
        b"current"
    );

    // c waiting in A and in B: A's result, kept after the wait began, answers it (as `result`
    // reads it), though B's copy still waits.
    assert!(q.add(&item("c").group(a.as_str())).await.unwrap());
    assert!(q.add(&item("c").group(b.as_str())).await.unwrap());
    let waiting = {
        let q = q.clone();
        tokio::spawn(async move { q.wait_result("c", Wait::Forever).await })
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    let lease = take(pa).await;
    assert!(q
        .complete_with_result(&lease, Some(b"from-a"), None)
        .await
        .unwrap());
    let got = tokio::time::timeout(Duration::from_secs(10), waiting)
        .await
        .expect("answered by A's result")
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(got.data, b"from-a");
    assert_eq!(q.cancel("c").await.unwrap(), Some(State::Waiting));

    // y completed with a result in A, then a newer y died in B: the death answers.
    assert!(q.add(&item("y").group(a.as_str())).await.unwrap());
    let lease = take(pa).await;
    assert!(q
        .complete_with_result(&lease, Some(b"stale"), None)
        .await
        .unwrap());
    tokio::time::sleep(Duration::from_millis(5)).await;
    assert!(q.add(&item("y").group(b.as_str())).await.unwrap());
    let lease = take(pb).await;
    q.fail(&lease, "newer", "", Retry::Never).await.unwrap();
    let ended = q.wait_result("y", Duration::from_secs(5)).await;
    assert!(
        matches!(&ended, Err(leaseq::Error::Dead { reason, .. }) if reason.contains("newer")),
        "{ended:?}"
    );
}

/// Ids whose own partition is not `avoid`, as many as asked.
fn ids_not_in(q: &Partitioned, avoid: usize, tag: &str, n: usize) -> Vec<String> {
    (0..)
        .map(|i| format!("{tag}{i}"))
        .filter(|id| q.partition_of_id(id) != avoid)
        .take(n)
        .collect()
}

/// `promote`, `dependencies`, `dependency_results` and `dead_requeue` find an item in the
/// partition that holds it, which a group or dependencies chose, not its id.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_by_id_find_the_item_where_it_lives() {
    let client = client().await;
    let q = create(&client, "by-id", 3).await;
    let gp = q.partition_of(&item("x").group("g")).unwrap();
    let [late, base, after] = <[String; 3]>::try_from(ids_not_in(&q, gp, "i", 3)).unwrap();
    // A delayed item of group g lives in g's partition.
    q.add(&item(&late).group("g").delay(Duration::from_secs(3600)))
        .await
        .unwrap();
    assert_eq!(q.partitions()[gp].count(State::Delayed).await.unwrap(), 1);
    assert!(
        q.promote(&late).await.unwrap(),
        "found in its group's partition"
    );
    assert_eq!(q.get(&late).await.unwrap().unwrap().state, State::Waiting);
    assert!(!q.promote(&late).await.unwrap(), "no longer delayed");
    assert!(!q.promote("nobody").await.unwrap());
    assert_invalid(&q.promote("").await.unwrap_err(), "id", "an empty id");
    // Out of the way of the group's limit (one at a time).
    assert_eq!(q.cancel(&late).await.unwrap(), Some(State::Waiting));
    // A dependant lives where its dependency does: g's partition.
    q.add(&item(&base).group("g")).await.unwrap();
    q.add(&item(&after).depends_on([base.as_str()]))
        .await
        .unwrap();
    assert_eq!(q.partitions()[gp].count(State::Blocked).await.unwrap(), 1);
    let d = q.dependencies(&after).await.unwrap();
    assert_eq!(
        (d.depends_on.clone(), d.pending.clone()),
        (vec![base.clone()], vec![base.clone()])
    );
    let d = q.dependencies(&base).await.unwrap();
    assert_eq!((d.dependants_count, d.dependants), (1, vec![after.clone()]));
    assert_eq!(q.dependencies("nobody").await.unwrap(), Default::default());
    assert_eq!(
        q.dependency_results(&after).await.unwrap(),
        [(base.clone(), None)]
    );
    let leases = q.partitions()[gp]
        .lease_batch(10, TTL, Wait::No)
        .await
        .unwrap();
    let lease = leases.iter().find(|l| l.id() == base).expect("base leased");
    q.complete_with_result(lease, Some(b"out"), None)
        .await
        .unwrap();
    assert_eq!(
        q.dependency_results(&after).await.unwrap(),
        [(base.clone(), Some(b"out".to_vec()))]
    );
    assert!(q.dependency_results("nobody").await.unwrap().is_empty());

    // Dead letters: one in its group's partition, one in its id's; requeued by id.
    let d = create(&client, "by-id-dead", 3).await;
    let [k1, k2] = <[String; 2]>::try_from(ids_not_in(&d, gp, "k", 2)).unwrap();
    d.add(&item(&k1).group("g")).await.unwrap();
    d.add(&item(&k2)).await.unwrap();
    for part in d.partitions() {
        for lease in part.lease_batch(10, TTL, Wait::No).await.unwrap() {
            part.fail(&lease, "boom", "E", Retry::Never).await.unwrap();
        }
    }
    assert_eq!(d.count_in(State::Dead).await.unwrap(), 2);
    assert_eq!(
        d.dead_requeue_each(&[k1.as_str(), k2.as_str(), k1.as_str(), "nobody"])
            .await
            .unwrap(),
        [true, true, false, false],
        "found where each is; a repeat is false"
    );
    assert_eq!(d.get(&k1).await.unwrap().unwrap().state, State::Waiting);
    assert_eq!(d.partitions()[gp].count(State::Waiting).await.unwrap(), 1);
    assert_eq!(
        d.dead_requeue(&[k1.as_str(), k2.as_str()]).await.unwrap(),
        0
    );
    // Checked before anything is sent: both dead again, and neither requeued by a refused call.
    for part in d.partitions() {
        for lease in part.lease_batch(10, TTL, Wait::No).await.unwrap() {
            part.fail(&lease, "boom", "E", Retry::Never).await.unwrap();
        }
    }
    assert_eq!(d.count_in(State::Dead).await.unwrap(), 2);
    let many: Vec<String> = (0..1001).map(|i| format!("m{i}")).collect();
    assert_invalid(&d.dead_requeue(&many).await.unwrap_err(), "ids", "1001 ids");
    assert_invalid(
        &d.dead_requeue_each(&[k1.as_str(), ""]).await.unwrap_err(),
        "id",
        "an empty id",
    );
    assert_eq!(
        d.count_in(State::Dead).await.unwrap(),
        2,
        "nothing requeued"
    );
}

/// A flow's dead letters live in their root's partition, not their ids': requeued together by
/// id, from any partition, the child waits and the parent is blocked on it, as in one queue
/// (spec 5.13), whichever order the ids come in.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_flow_requeued_by_id_waits_for_its_child_in_its_roots_partition() {
    let client = client().await;
    for order in [["root", "child"], ["child", "root"]] {
        let q = create(&client, "dead-flow", 3).await;
        let home = q.partition_of_id("root");
        let [child] = <[String; 1]>::try_from(ids_not_in(&q, home, "child", 1)).unwrap();
        assert_eq!(
            q.add_flow(&item("root"), &[Flow::new(item(&child))])
                .await
                .unwrap(),
            2
        );
        let lease = q.lease(TTL, Wait::No).await.unwrap().unwrap();
        assert_eq!(lease.id(), child);
        q.fail(&lease, "boom", "E", Retry::Never).await.unwrap();
        assert_eq!(
            q.count_in(State::Dead).await.unwrap(),
            2,
            "the parent died too"
        );
        let ids: Vec<&str> = order
            .iter()
            .map(|&o| if o == "root" { "root" } else { child.as_str() })
            .collect();
        assert_eq!(q.dead_requeue_each(&ids).await.unwrap(), [true, true]);
        assert_eq!(q.get("root").await.unwrap().unwrap().state, State::Blocked);
        assert_eq!(q.get(&child).await.unwrap().unwrap().state, State::Waiting);
        assert_eq!(q.partitions()[home].count(State::Waiting).await.unwrap(), 1);
        // The child completes; then the parent runs.
        let lease = q.lease(TTL, Wait::No).await.unwrap().unwrap();
        assert_eq!(lease.id(), child);
        assert!(q.complete(&lease).await.unwrap());
        let lease = q.lease(TTL, Wait::No).await.unwrap().unwrap();
        assert_eq!(lease.id(), "root");
    }
}

/// A hold, a pause and a reset of the logical queue are every partition's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn holds_pauses_and_resets_of_the_logical_queue_are_every_partitions() {
    let client = client().await;
    let q = create(&client, "hold", 3).await;
    assert_invalid(
        &q.rate_limit(Duration::ZERO).await.unwrap_err(),
        "duration",
        "a hold of 0",
    );
    let stats = q.stats().await.unwrap();
    assert!(
        stats
            .partitions
            .iter()
            .all(|s| s.rate_limited_for.is_none()),
        "nothing written"
    );
    let held = q.rate_limit(Duration::from_secs(60)).await.unwrap();
    assert!(
        held > Duration::from_secs(50) && held <= Duration::from_secs(60),
        "{held:?}"
    );
    let stats = q.stats().await.unwrap();
    assert!(stats
        .partitions
        .iter()
        .all(|s| s.rate_limited_for.is_some()));
    let items: Vec<Item> = (0..9).map(|i| item(&format!("h{i}"))).collect();
    q.add_batch(&items).await.unwrap();
    assert!(q.lease_batch(10, TTL, Wait::No).await.unwrap().is_empty());
    // A shorter hold keeps the longer one.
    let held = q.rate_limit(Duration::from_secs(1)).await.unwrap();
    assert!(held > Duration::from_secs(50), "{held:?}");

    assert!(!q.is_paused().await.unwrap());
    assert!(q.pause().await.unwrap());
    assert!(q.is_paused().await.unwrap());
    assert!(q.partitions()[1].resume().await.unwrap());
    assert!(!q.is_paused().await.unwrap(), "one partition runs");

    let mut config = leaseq::QueueConfig::default();
    config.capacity = Some(100);
    q.set_config(&config).await.unwrap();
    q.reset_config().await.unwrap();
    for part in q.partitions() {
        assert_eq!(
            part.config().await.unwrap().capacity,
            None,
            "{}",
            part.prefix()
        );
    }
}

/// A handler's "rate limited" holds every partition of the logical queue, not only its job's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_runners_rate_limited_holds_every_partition() {
    runner_hold(leaseq::worker::JobError::rate_limited(Duration::from_secs(
        60,
    )))
    .await;
}

/// "Rate limited for its group" of a job without a group holds the queue: every partition.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_runners_group_rate_limit_without_a_group_holds_every_partition() {
    runner_hold(leaseq::worker::JobError::rate_limited_group(
        Duration::from_secs(60),
    ))
    .await;
}

async fn runner_hold(error: leaseq::worker::JobError) {
    let client = client().await;
    let q = create(&client, "runner-hold", 3).await;
    q.add(&item("api")).await.unwrap();
    let ran = Arc::new(tokio::sync::Notify::new());
    let told = ran.clone();
    let calls = Arc::new(Mutex::new(0));
    let counted = calls.clone();
    let worker = Worker::partitioned(&q, move |_job: Job| {
        *counted.lock().unwrap() += 1;
        told.notify_one();
        let error = error.clone();
        async move { Err::<String, _>(error) }
    });
    let handle = worker.handle();
    let run = tokio::spawn(worker.run_until(std::future::pending()));
    tokio::time::timeout(Duration::from_secs(30), ran.notified())
        .await
        .expect("the handler ran");
    // The hold goes out before the job is released; wait for the release.
    let mut released = false;
    for _ in 0..300 {
        if q.get("api").await.unwrap().unwrap().state == State::Waiting {
            released = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(released, "the job was released");
    handle.stop();
    run.await.unwrap().unwrap();
    // The other partitions' holds go out beside the release, not waited for.
    let mut stats = q.stats().await.unwrap();
    for _ in 0..250 {
        if stats
            .partitions
            .iter()
            .all(|s| s.rate_limited_for.is_some())
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        stats = q.stats().await.unwrap();
    }
    for (i, s) in stats.partitions.iter().enumerate() {
        assert!(s.rate_limited_for.is_some(), "partition {i} is held");
    }
    assert_eq!(
        q.get("api").await.unwrap().unwrap().attempts,
        0,
        "no attempt charged"
    );
    assert_eq!(
        *calls.lock().unwrap(),
        1,
        "not leased again: its partition was held first"
    );
}

/// The logical queue's counts, cleans and configuration cover every partition.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn counts_cleans_and_configuration_of_the_logical_queue_cover_every_partition() {
    let client = client().await;
    let q = create(&client, "whole", 3).await;
    assert!(!q.exists().await.unwrap(), "created, never used");
    let mut config = leaseq::QueueConfig::default();
    config.stats = Some(true);
    config.capacity = Some(500);
    q.set_config(&config).await.unwrap();
    assert_eq!(q.config().await.unwrap().capacity, Some(500));
    assert!(q.exists().await.unwrap());
    // Named items in every partition, added without the id check.
    let ids = ids_per_partition(&q, 2, "n");
    for id in ids.iter().flatten() {
        q.add_unique(&item(id).name("mail")).await.unwrap();
    }
    assert_eq!(q.queue_len().await.unwrap(), 6);
    let leases = q.lease_batch(10, TTL, Wait::No).await.unwrap();
    assert_eq!(leases.len(), 6);
    assert_eq!(q.processing_len().await.unwrap(), 6);
    for lease in &leases {
        q.complete(lease).await.unwrap();
    }
    let names = q.counts_by_name().await.unwrap().expect("counting");
    assert_eq!(names.len(), 1, "{names:?}");
    assert_eq!((names[0].name.as_str(), names[0].completed), ("mail", 6));
    // Due delayed items in every partition: a light clean promotes them all.
    for id in ids_per_partition(&q, 1, "late").iter().flatten() {
        q.add(&item(id).delay(Duration::from_millis(1)))
            .await
            .unwrap();
    }
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert_eq!(q.light_clean().await.unwrap().promoted, 3);
    // An item key on no list (a redis-work-queue client crashed mid-add) in two partitions:
    // the deep clean finds both.
    for part in &q.partitions()[1..] {
        cluster().nodes()[owner(part.prefix())]
            .command(&format!("SET {}:item:orphan x", part.prefix()));
    }
    assert_eq!(q.deep_clean().await.unwrap().requeued, 2);
    assert_eq!(q.count_in(State::Waiting).await.unwrap(), 5);
}

/// `find` walks the logical queue's positions as `list` numbers them: following `next` from 0
/// finds every match in every partition, once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn find_walks_every_partition_by_next() {
    let client = client().await;
    let q = create(&client, "find", 3).await;
    let ids = ids_per_partition(&q, 4, "f");
    let mut wanted = Vec::new();
    for (k, id) in ids.iter().flatten().enumerate() {
        let name = if k % 2 == 0 { "mail" } else { "resize" };
        q.add(&item(id).name(name)).await.unwrap();
        if name == "mail" {
            wanted.push(id.clone());
        }
    }
    let mut seen = Vec::new();
    let mut start = Some(0);
    let mut calls = 0;
    while let Some(at) = start {
        let found = q
            .find(State::Waiting, Some("mail"), None, at, 2)
            .await
            .unwrap();
        seen.extend(found.entries.into_iter().map(|e| e.id));
        start = found.next;
        calls += 1;
        assert!(calls < 50, "next moves on");
    }
    seen.sort();
    wanted.sort();
    assert_eq!(seen, wanted);
    assert!(calls >= 3, "one partition per call: {calls}");
    assert_invalid(
        &q.find(State::Waiting, None, None, 1000, 0)
            .await
            .unwrap_err(),
        "count",
        "count 0",
    );
    let past = q.find(State::Waiting, None, None, 1000, 5).await.unwrap();
    assert_eq!((past.entries.len(), past.next), (0, None));
    // An empty partition in the middle is stepped over.
    let gap = create(&client, "find-gap", 3).await;
    let ids = ids_per_partition(&gap, 2, "g");
    for id in ids[0].iter().chain(&ids[2]) {
        gap.add(&item(id).name("mail")).await.unwrap();
    }
    let (mut seen, mut start) = (Vec::new(), Some(1));
    while let Some(at) = start {
        let found = gap
            .find(State::Waiting, Some("mail"), None, at, 1)
            .await
            .unwrap();
        seen.extend(found.entries.into_iter().map(|e| e.id));
        start = found.next;
    }
    let mut wanted = vec![ids[0][1].clone(), ids[2][0].clone(), ids[2][1].clone()];
    seen.sort();
    wanted.sort();
    assert_eq!(
        seen, wanted,
        "from position 1: the rest of partition 0, then partition 2"
    );
}

/// `dead_requeue_oldest(n)` and `dead_purge(n)` act on the `n` oldest dead letters of the
/// logical queue, by time of death over every partition, not on `n` of each partition.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_oldest_dead_letters_are_the_logical_queues() {
    let client = client().await;
    let q = create(&client, "oldest", 3).await;
    // Two dead letters per partition, dying in turn: p0, p1, p2, p0, p1, p2.
    let ids = ids_per_partition(&q, 2, "o");
    let mut order = Vec::new();
    for round in 0..2 {
        for (part, mine) in q.partitions().iter().zip(&ids) {
            let id = &mine[round];
            part.add(&item(id)).await.unwrap();
            let lease = part.lease(TTL, Wait::No).await.unwrap().unwrap();
            part.fail(&lease, "boom", "E", Retry::Never).await.unwrap();
            order.push(id.clone());
            tokio::time::sleep(Duration::from_millis(3)).await;
        }
    }
    assert_eq!(q.dead_requeue_oldest(Some(2)).await.unwrap(), 2);
    let waiting: HashSet<String> = q
        .list(State::Waiting, 0, 10)
        .await
        .unwrap()
        .into_iter()
        .map(|e| e.id)
        .collect();
    assert_eq!(
        waiting,
        order[..2].iter().cloned().collect(),
        "the two oldest"
    );
    assert_eq!(q.dead_purge(Some(3)).await.unwrap(), 3);
    let dead: Vec<String> = q
        .list(State::Dead, 0, 10)
        .await
        .unwrap()
        .into_iter()
        .map(|e| e.id)
        .collect();
    assert_eq!(dead, [order[5].clone()], "the newest is left");
    assert_eq!(q.dead_requeue_oldest(Some(5)).await.unwrap(), 1);
    assert_eq!(q.dead_purge(None).await.unwrap(), 0);
}

/// One partition whose primary refuses writes (over `maxmemory`: OOM, which passes once memory
/// is freed) holds back no other: a "rate limited" job's hold of that partition is reported,
/// not waited for; the other partitions' jobs run and complete while it still refuses; and the
/// runner stops within its shutdown timeout although that partition's completes (of jobs with
/// a kept result, which Redis refuses over `maxmemory`) are still refused: they are given up,
/// and their items stay, to run again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_partition_that_refuses_writes_holds_back_no_other() {
    // A cluster of its own: its memory limit would refuse every other test's writes.
    let cluster = RedisCluster::start();
    let client = Client::connect_cluster(cluster.urls()).await.unwrap();
    let q = client
        .create_partitioned(&fresh_prefix("refusing"), 3)
        .await
        .unwrap();
    let node_of = |prefix: &str| {
        let slot = key_slot(prefix.as_bytes());
        cluster
            .nodes()
            .iter()
            .find(|n| own_slots(n).iter().any(|&(a, b)| (a..=b).contains(&slot)))
            .expect("an owner")
    };
    // Partition 0: the job whose handler is rate limited (briefly); partitions 1 and 2: work.
    let ids = ids_per_partition(&q, 5, "w");
    q.add(&item(&ids[0][0])).await.unwrap();
    for id in ids[1].iter().chain(&ids[2]) {
        q.add(&item(id)).await.unwrap();
    }
    let refusing = node_of(q.partitions()[2].prefix());
    let set = refusing.command("CONFIG SET maxmemory 1");
    assert_eq!(set.trim(), "+OK", "{set}");
    // It refuses writes now (a plain add there is refused with OOM, nothing written).
    let err = q.partitions()[2].add(&item("probe")).await.unwrap_err();
    assert_eq!(err.code(), leaseq::ErrorCode::OutOfMemory, "{err}");

    let limited = ids[0][0].clone();
    let completed = Arc::new(Mutex::new(HashSet::new()));
    let finish_errors = Arc::new(Mutex::new(0));
    let done = Arc::new(tokio::sync::Notify::new());
    let (seen, errors, told) = (completed.clone(), finish_errors.clone(), done.clone());
    // Partition 1's jobs, and the rate limited job once its hold ended.
    let wanted: HashSet<String> = ids[1].iter().chain(&ids[0][..1]).cloned().collect();
    let expected = wanted.clone();
    // The first time only: a rate limited outcome charges no attempt.
    let once = Arc::new(std::sync::atomic::AtomicBool::new(true));
    let worker = Worker::partitioned(&q, move |job: Job| {
        let limited = job.id() == limited && once.swap(false, std::sync::atomic::Ordering::SeqCst);
        async move {
            if limited {
                Err(leaseq::worker::JobError::rate_limited(
                    Duration::from_millis(200),
                ))
            } else {
                Ok::<_, leaseq::worker::JobError>(String::new())
            }
        }
    })
    .concurrency(4)
    .shutdown_timeout(Duration::from_secs(2))
    .on_event(move |e| {
        match e {
            Event::Completed { id, .. } => {
                seen.lock().unwrap().insert(id.clone());
            }
            Event::Error {
                during: "finish",
                error,
            } if error.code() == leaseq::ErrorCode::OutOfMemory => {
                *errors.lock().unwrap() += 1;
            }
            _ => {}
        }
        // Done: the wanted jobs completed, and partition 2's refusals were reported.
        let seen = seen.lock().unwrap();
        if wanted.iter().all(|h| seen.contains(h)) && *errors.lock().unwrap() > 0 {
            told.notify_one();
        }
    });
    let handle = worker.handle();
    let run = tokio::spawn(worker.run_until(std::future::pending()));
    tokio::time::timeout(Duration::from_secs(60), done.notified())
        .await
        .expect("the other partitions' jobs completed, and the refusals were reported");
    // Partition 2's jobs were leased (a lease is accepted there), so their completes, which
    // keep a result, are refused as the runner stops.
    let mut leased = false;
    for _ in 0..300 {
        if q.partitions()[2].count(State::Leased).await.unwrap() > 0 {
            leased = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(leased, "partition 2's jobs were leased");
    handle.stop();
    tokio::time::timeout(Duration::from_secs(60), run)
        .await
        .expect("the runner stopped while partition 2 refused writes")
        .unwrap()
        .unwrap();
    let completed = completed.lock().unwrap().clone();
    assert!(expected.is_subset(&completed), "{completed:?}");
    assert!(
        !ids[2].iter().any(|id| completed.contains(id)),
        "no complete went through in the refusing partition: {completed:?}"
    );
    // Nothing was lost there: its items are all still in it, waiting or leased (the completes
    // given up: their leases expire and they run again).
    refusing.command("CONFIG SET maxmemory 0");
    let part = &q.partitions()[2];
    let left = part.count(State::Waiting).await.unwrap() + part.count(State::Leased).await.unwrap();
    assert_eq!(left, 5);
}

/// A partition whose primary is down costs a lease nothing taken from the others: a call that
/// leased from healthy partitions before it reached the dead one returns those leases (they
/// used to be dropped with the call's error, to run only once expired, an attempt charged);
/// a call that leased nothing answers the dead partition's error at once, or, when it may
/// wait, waits on the healthy partitions.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_partition_that_is_down_costs_no_lease_of_the_others() {
    // A cluster of its own, whose nodes take a minute to call a silent one failed (the other
    // partitions' slots stay served meanwhile).
    let mut cluster = RedisCluster::start_with(0, 60_000);
    let client = Client::connect_cluster(cluster.urls()).await.unwrap();
    let q = client
        .create_partitioned(&fresh_prefix("down"), 3)
        .await
        .unwrap();
    let slot = key_slot(q.partitions()[2].prefix().as_bytes());
    let down = cluster
        .nodes()
        .iter()
        .position(|n| own_slots(n).iter().any(|&(a, b)| (a..=b).contains(&slot)))
        .expect("an owner");
    cluster.nodes_mut()[down].kill();
    // Each call starts at the next partition; asking for more than there is, every call that
    // starts at a healthy one reaches the dead one after leasing. Both ways of asking: at once,
    // and with a wait.
    for (round, wait) in [Wait::No, Wait::Timeout(Duration::from_millis(50))]
        .into_iter()
        .enumerate()
    {
        let ids = ids_per_partition(&q, 2, &format!("d{round}-"));
        for id in ids[0].iter().chain(&ids[1]) {
            q.add(&item(id)).await.unwrap();
        }
        let mut returned = Vec::new();
        let mut errors = 0;
        for _ in 0..3 {
            match q.lease_batch(10, TTL, wait).await {
                Ok(leases) => returned.extend(leases),
                Err(_) => errors += 1,
            }
        }
        let mut leased = 0;
        for part in &q.partitions()[..2] {
            leased += part.count(State::Leased).await.unwrap();
        }
        assert_eq!(leased, 4, "{wait:?}: every item leased");
        assert_eq!(
            returned.len(),
            4,
            "{wait:?}: every lease returned to the caller"
        );
        // A call that leased nothing at once says why; one that may wait waits on the others
        // instead (below).
        if matches!(wait, Wait::No) {
            assert!(errors >= 1, "{wait:?}: a call that leased nothing says why");
        } else {
            assert_eq!(errors, 0, "{wait:?}: waited on the healthy partitions");
        }
        for lease in &returned {
            assert!(q.complete(lease).await.unwrap());
        }
    }
    // A waiting lease while the healthy partitions are empty waits on them (the dead one is
    // asked again after each wait) rather than failing at once: an item added to a healthy
    // partition meanwhile is leased.
    let late = ids_per_partition(&q, 1, "late-")[0][0].clone();
    let adder = {
        let q = q.clone();
        let late = late.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            q.add(&item(&late)).await.unwrap();
        })
    };
    let leases = q
        .lease_batch(1, TTL, Wait::Timeout(Duration::from_secs(30)))
        .await
        .expect("a waiting lease rides through one partition's outage");
    adder.await.unwrap();
    assert_eq!(leases.len(), 1);
    assert_eq!(leases[0].id(), late);
}

/// A partition whose completes are refused (its primary over `maxmemory`: a complete that
/// keeps a result is refused there) stalls no other: while that partition's outcomes wait for
/// memory, the runner goes on leasing, running and completing the other partitions' jobs, and
/// leases no more from it. Once memory is freed, its outcomes go through.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_partition_whose_completes_are_refused_stalls_no_other() {
    let cluster = RedisCluster::start();
    let client = Client::connect_cluster(cluster.urls()).await.unwrap();
    let q = client
        .create_partitioned(&fresh_prefix("stall"), 3)
        .await
        .unwrap();
    // Partition 2: its first job fails once (after the others' completes were refused: a fail
    // is accepted there, and must not make the runner lease from it again), the rest keep a
    // result (refused there). Leased in the order added, four at a time.
    let ids = ids_per_partition(&q, 8, "s");
    for id in &ids[2] {
        q.add(&item(id)).await.unwrap();
    }
    let slot = key_slot(q.partitions()[2].prefix().as_bytes());
    let refusing = cluster
        .nodes()
        .iter()
        .find(|n| own_slots(n).iter().any(|&(a, b)| (a..=b).contains(&slot)))
        .expect("an owner");
    assert_eq!(refusing.command("CONFIG SET maxmemory 1").trim(), "+OK");

    let completed = Arc::new(Mutex::new(HashSet::new()));
    let ran = Arc::new(Mutex::new(HashSet::new()));
    let refused = Arc::new(tokio::sync::Notify::new());
    let done = Arc::new(tokio::sync::Notify::new());
    let (seen, told_refused, told_done) = (completed.clone(), refused.clone(), done.clone());
    let healthy: HashSet<String> = ids[1].iter().cloned().collect();
    let failing = ids[2][0].clone();
    let running = ran.clone();
    let worker = Worker::partitioned(&q, move |job: Job| {
        running.lock().unwrap().insert(job.id().to_owned());
        let fail = job.id() == failing && job.attempt() == 1;
        async move {
            if fail {
                tokio::time::sleep(Duration::from_millis(300)).await;
                return Err(leaseq::worker::JobError::new("once"));
            }
            Ok::<_, leaseq::worker::JobError>("kept".to_owned())
        }
    })
    .concurrency(4)
    .on_event(move |e| match e {
        Event::Completed { id, .. } => {
            let mut seen = seen.lock().unwrap();
            seen.insert(id.clone());
            if healthy.iter().all(|h| seen.contains(h)) {
                told_done.notify_one();
            }
        }
        Event::Error {
            during: "finish",
            error,
        } if error.code() == leaseq::ErrorCode::OutOfMemory => told_refused.notify_one(),
        _ => {}
    });
    let handle = worker.handle();
    let run = tokio::spawn(worker.run_until(std::future::pending()));
    // Partition 2's jobs ran, and their completes are refused.
    tokio::time::timeout(Duration::from_secs(60), refused.notified())
        .await
        .expect("partition 2's completes were refused");
    // Its failing job's fail is accepted meanwhile.
    let mut failed = false;
    for _ in 0..300 {
        if q.partitions()[2].count(State::Delayed).await.unwrap() == 1 {
            failed = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(failed, "the failing job's fail went through");
    // Work for partition 1 now: it runs and completes while partition 2 still refuses.
    for id in &ids[1] {
        q.add(&item(id)).await.unwrap();
    }
    tokio::time::timeout(Duration::from_secs(60), done.notified())
        .await
        .expect("partition 1's jobs completed while partition 2 refused its completes");
    assert!(
        !ids[2]
            .iter()
            .any(|id| completed.lock().unwrap().contains(id)),
        "no complete went through in partition 2 while it refused"
    );
    // Nothing more was leased there than the first four, the accepted fail notwithstanding.
    let ran_there: Vec<String> = ids[2]
        .iter()
        .filter(|id| ran.lock().unwrap().contains(*id))
        .cloned()
        .collect();
    assert_eq!(ran_there, ids[2][..4].to_vec());
    // Memory freed: partition 2's outcomes go through, and the runner leases its other jobs.
    assert_eq!(refusing.command("CONFIG SET maxmemory 0").trim(), "+OK");
    let all: HashSet<String> = ids[1].iter().chain(&ids[2]).cloned().collect();
    let mut finished = false;
    for _ in 0..600 {
        if all.is_subset(&completed.lock().unwrap()) {
            finished = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(finished, "{:?}", completed.lock().unwrap());
    handle.stop();
    run.await.unwrap().unwrap();
}

/// The batch finishes of the logical queue: each lease in its own partition, answers in the
/// order given; a lease of another queue, or more than 1000, is refused before anything is
/// sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batch_finishes_reach_each_leases_partition() {
    let client = client().await;
    let q = create(&client, "batches", 3).await;
    let ids = ids_per_partition(&q, 3, "b");
    for id in ids.iter().flatten() {
        q.add(&item(id).max_attempts(5)).await.unwrap();
    }
    let mut leases = q.lease_batch(9, TTL, Wait::No).await.unwrap();
    assert_eq!(leases.len(), 9);
    // Interleaved (partition 0, 1, 2, 0, 1, 2, ...), so that answers put back share by share
    // would come out in another order than the leases'.
    let part = |l: &leaseq::Lease| {
        q.partitions()
            .iter()
            .position(|p| p.prefix() == l.queue_prefix())
            .unwrap()
    };
    leases.sort_by_key(|l| {
        let p = part(l);
        let k = ids[p].iter().position(|id| id == l.id()).unwrap();
        (k, p)
    });
    let parts: Vec<usize> = leases.iter().map(part).collect();
    assert_eq!(parts, vec![0, 1, 2, 0, 1, 2, 0, 1, 2]);

    // A lease of another queue: refused, naming it, and nothing sent (the others stay held).
    let other = client.queue(&fresh_prefix("other")).unwrap();
    other.add(&item("o")).await.unwrap();
    let foreign = other.lease(TTL, Wait::No).await.unwrap().unwrap();
    let mixed: Vec<leaseq::Completion<'_>> =
        vec![(&leases[0], None), (&foreign, None), (&leases[1], None)];
    let err = q.complete_batch(&mixed).await.unwrap_err();
    assert_invalid(&err, "lease", "a foreign lease");
    // A bad keep time on a later partition's entry: refused before anything is sent.
    let bad: Vec<leaseq::Completion<'_>> = vec![
        (&leases[0], None),
        (&leases[1], Some((b"r".as_slice(), Some(Duration::ZERO)))),
    ];
    let err = q.complete_batch(&bad).await.unwrap_err();
    assert_invalid(&err, "keep_result_for", "a zero keep time");
    let err = q
        .fail_batch(&[
            (&leases[0], "e", "", Retry::Default),
            (&leases[1], "e", "", Retry::After(Duration::MAX)),
        ])
        .await
        .unwrap_err();
    assert_invalid(&err, "retry", "a retry delay out of range");
    assert_eq!(q.count_in(State::Leased).await.unwrap(), 9);

    // Renewed, in order: all held but the one completed meanwhile (in the middle).
    assert!(q.complete(&leases[4]).await.unwrap());
    let all: Vec<&leaseq::Lease> = leases.iter().collect();
    let renewed = q.renew_batch(&all, TTL).await.unwrap();
    assert_eq!(renewed.len(), 9);
    for (k, r) in renewed.iter().enumerate() {
        assert_eq!(*r == leaseq::RenewOutcome::Renewed, k != 4, "{k}: {r:?}");
    }

    // Failed: one of partition 0 retried, one of partition 1 dead; then completed: the rest,
    // with the completed one again (false) in the middle.
    let failed = q
        .fail_batch(&[
            (&leases[0], "boom", "Error", Retry::Default),
            (&leases[1], "boom", "Error", Retry::Never),
        ])
        .await
        .unwrap();
    assert!(
        matches!(failed[0], leaseq::FailOutcome::Retrying(_)),
        "{failed:?}"
    );
    assert_eq!(failed[1], leaseq::FailOutcome::Dead);
    let rest: Vec<leaseq::Completion<'_>> = leases[2..].iter().map(|l| (l, None)).collect();
    let done = q.complete_batch(&rest).await.unwrap();
    assert_eq!(done, vec![true, true, false, true, true, true, true]);
    assert_eq!(q.count_in(State::Leased).await.unwrap(), 0);
    assert_eq!(q.count_in(State::Dead).await.unwrap(), 1);

    // More than 1000: refused, naming the argument.
    let many: Vec<leaseq::Completion<'_>> = std::iter::repeat_n((&leases[0], None), 1001).collect();
    let err = q.complete_batch(&many).await.unwrap_err();
    assert_invalid(&err, "completions", "1001 completions");
    let many: Vec<&leaseq::Lease> = std::iter::repeat_n(&leases[0], 1001).collect();
    let err = q.renew_batch(&many, TTL).await.unwrap_err();
    assert_invalid(&err, "leases", "1001 leases");
}
