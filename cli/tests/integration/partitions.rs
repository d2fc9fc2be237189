//! `leaseq create --partitions` and the commands on a partitioned queue's base (spec 5.25):
//! `stats` shows the queue and each partition, `ls`, `get` and `cancel` reach every partition.

use crate::common;

use common::{code, json, run, stderr, stdout, Served};
use leaseq::{Client, Item};
use leaseq_harness::{RedisCluster, RedisServer};

#[tokio::test]
async fn a_partitioned_queue_is_created_and_read_as_one() {
    let server = RedisServer::start();
    let urls = vec![server.url()];
    let created = json(&run(
        &urls,
        &["create", "-q", "{p}", "--partitions", "3", "--json"],
    ));
    let prefixes: Vec<String> = created["partitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap().to_owned())
        .collect();
    assert_eq!(prefixes.len(), 3);
    assert!(
        prefixes.iter().all(|p| p.starts_with("{p~")),
        "{prefixes:?}"
    );
    // The same count again is fine; another one is refused, naming the argument.
    let again = run(&urls, &["create", "-q", "{p}", "--partitions", "3"]);
    assert_eq!(code(&again), 0, "{}", stderr(&again));
    let other = run(&urls, &["create", "-q", "{p}", "--partitions", "2"]);
    assert_eq!(code(&other), 2);
    assert!(stderr(&other).contains("partitions"), "{}", stderr(&other));

    // Listed once, by its base, before anything is added (only its layout exists) ...
    let listed = || {
        assert_eq!(stdout(&run(&urls, &["queues"])), "{p}  (3 partitions)\n");
        let names = json(&run(&urls, &["queues", "--json"]));
        assert_eq!(names, serde_json::json!(["{p}"]));
    };
    listed();
    // Its schedules (kept in partition 0) are named by the base.
    let none = run(&urls, &["schedules", "-q", "{p}"]);
    assert_eq!(code(&none), 0, "{}", stderr(&none));
    assert!(
        stderr(&none).contains("no schedule in `{p}`"),
        "{}",
        stderr(&none)
    );

    let client = Client::connect(&server.url()).await.unwrap();
    let q = client.partitioned("{p}").await.unwrap();
    let items: Vec<Item> = (0..30)
        .map(|i| Item::with_id(format!("i{i}"), "x").unwrap())
        .collect();
    assert_eq!(q.add_batch(&items).await.unwrap(), 30);
    // ... and after: its partitions, which now hold keys, are not listed as queues of their own.
    listed();

    let s = json(&run(&urls, &["stats", "-q", "{p}", "--json"]));
    assert_eq!(s["waiting"], 30);
    let parts = s["partitions"].as_array().unwrap();
    assert_eq!(parts.len(), 3);
    let sum: u64 = parts.iter().map(|p| p["waiting"].as_u64().unwrap()).sum();
    assert_eq!(sum, 30);
    assert_eq!(parts[1]["queue"], prefixes[1].as_str());
    let table = stdout(&run(&urls, &["stats", "-q", "{p}"]));
    for name in std::iter::once("{p}").chain(prefixes.iter().map(String::as_str)) {
        assert!(
            table
                .lines()
                .any(|l| l.split_whitespace().next() == Some(name)),
            "{name} in\n{table}"
        );
    }
    // One partition paused by hand: the queue's row says how many, and the note names it.
    assert!(q.partitions()[1].pause().await.unwrap());
    let out = run(&urls, &["stats", "-q", "{p}"]);
    let row: Vec<String> = stdout(&out)
        .lines()
        .find(|l| l.split_whitespace().next() == Some("{p}"))
        .unwrap()
        .split_whitespace()
        .map(str::to_owned)
        .collect();
    assert_eq!(row[12], "1/3", "{row:?}");
    assert!(stderr(&out).contains(&prefixes[1]), "{}", stderr(&out));
    assert!(q.partitions()[1].resume().await.unwrap());
    let listed = json(&run(
        &urls,
        &["ls", "waiting", "-q", "{p}", "--limit", "100", "--json"],
    ));
    assert_eq!(listed.as_array().unwrap().len(), 30);
    // Each entry names the partition it lives in, in the JSON and in the table.
    for entry in listed.as_array().unwrap() {
        let id = entry["id"].as_str().unwrap();
        assert_eq!(
            entry["partition"],
            prefixes[q.partition_of_id(id)].as_str(),
            "{id}"
        );
    }
    let table = stdout(&run(&urls, &["ls", "waiting", "-q", "{p}", "--limit", "3"]));
    let mut lines = table.lines();
    assert!(
        lines.next().unwrap().starts_with("ID  PARTITION  NAME"),
        "{table}"
    );
    for line in lines {
        let cells: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(cells[1], prefixes[q.partition_of_id(cells[0])], "{table}");
    }
    // A plain queue's JSON has no `partitions`.
    let plain_item = Item::new("x");
    client
        .queue("{plain}")
        .unwrap()
        .add(&plain_item)
        .await
        .unwrap();
    let plain = json(&run(&urls, &["stats", "-q", "{plain}", "--json"]));
    assert!(plain.get("partitions").is_none(), "{plain}");
    // Nor does its item name a partition.
    let got = json(&run(
        &urls,
        &["get", "-q", "{plain}", plain_item.id(), "--json"],
    ));
    assert_eq!(got["state"], "waiting");
    assert!(got["partition"].is_null(), "{got}");
    let text = stdout(&run(&urls, &["get", "-q", "{plain}", plain_item.id()]));
    assert!(!text.contains("partition"), "{text}");

    // Each id is found in its own partition, wherever that is, and says which.
    for id in ["i3", "i17", "i29"] {
        let got = json(&run(&urls, &["get", "-q", "{p}", id, "--json"]));
        assert_eq!(got["state"], "waiting", "{id}");
        let at = q.partition_of_id(id);
        assert_eq!(got["partition"], prefixes[at].as_str(), "{id}");
    }
    let text = stdout(&run(&urls, &["get", "-q", "{p}", "i29"]));
    let at = q.partition_of_id("i29");
    assert!(
        text.lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>()
                == ["partition", prefixes[at].as_str()]),
        "{text}"
    );
    let cancelled = run(&urls, &["cancel", "-q", "{p}", "i17"]);
    assert_eq!(code(&cancelled), 0, "{}", stderr(&cancelled));
    assert_eq!(code(&run(&urls, &["get", "-q", "{p}", "i17"])), 1);

    // Found by discovery: the base, with its partitions inside it, and never them beside it.
    let all = json(&run(&urls, &["stats", "--json"]));
    let names: Vec<&str> = all
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["queue"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["{plain}", "{p}"]); // sorted by prefix
    assert_eq!(all[1]["partitions"].as_array().unwrap().len(), 3);

    // /metrics: each partition's series, joined to its queue by leaseq_partition.
    let served = Served::start(&urls, "metrics", &[]);
    let text = reqwest::get(format!("{}metrics", served.base))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    for (i, prefix) in prefixes.iter().enumerate() {
        let info =
            format!(r#"leaseq_partition{{queue="{prefix}",base="{{p}}",partition="{i}"}} 1"#);
        assert!(text.contains(&info), "{info} in\n{text}");
        assert!(
            text.contains(&format!(
                r#"leaseq_jobs{{queue="{prefix}",state="waiting"}}"#
            )),
            "{prefix}'s own series in\n{text}"
        );
    }
    assert!(!text.contains(r#"leaseq_jobs{queue="{p}""#), "{text}");
}

/// The commands that write reach every partition (or the item's) through the base: an item
/// added there is one the queue's runners lease, a pause stops them all, a config reaches each,
/// and dead letters are taken from each; hold, tree, check and clean work on the base too.
/// Nothing is ever written under the base itself.
#[tokio::test]
async fn the_commands_that_write_reach_the_partitions_through_the_base() {
    let server = RedisServer::start();
    let urls = vec![server.url()];
    let created = run(&urls, &["create", "-q", "{w}", "--partitions", "3"]);
    assert_eq!(code(&created), 0, "{}", stderr(&created));
    let client = Client::connect(&server.url()).await.unwrap();
    let q = client.partitioned("{w}").await.unwrap();

    for id in ["a", "b", "c", "d"] {
        let added = run(&urls, &["add", "-q", "{w}", "--id", id, "--data", "x"]);
        assert_eq!(code(&added), 0, "{}", stderr(&added));
    }
    assert_eq!(q.stats().await.unwrap().total.waiting, 4);
    for id in ["a", "b", "c", "d"] {
        let home = &q.partitions()[q.partition_of_id(id)];
        assert!(
            home.get(id).await.unwrap().is_some(),
            "{id} in its partition"
        );
    }

    let paused = run(&urls, &["pause", "-q", "{w}"]);
    assert_eq!(code(&paused), 0, "{}", stderr(&paused));
    for part in q.partitions() {
        assert!(part.is_paused().await.unwrap(), "{}", part.prefix());
    }
    assert!(run(&urls, &["resume", "-q", "{w}"]).status.success());
    assert!(!q.stats().await.unwrap().total.paused);

    let set = run(
        &urls,
        &[
            "config",
            "set",
            "-q",
            "{w}",
            "--max-attempts",
            "7",
            "--json",
        ],
    );
    assert_eq!(code(&set), 0, "{}", stderr(&set));
    let shown = json(&set);
    let views = shown["partitions"].as_array().unwrap();
    assert_eq!(views.len(), 3);
    for (view, part) in views.iter().zip(q.partitions()) {
        assert_eq!(view["queue"], part.prefix());
        assert_eq!(view["stored"]["max_attempts"], 7, "{view}");
        assert_eq!(part.config().await.unwrap().max_attempts, Some(7));
    }
    // The same in every partition: one table; one partition set apart: each its own.
    let shown = stdout(&run(&urls, &["config", "-q", "{w}"]));
    assert!(shown.starts_with("every partition of {w} (3):"), "{shown}");
    assert_eq!(shown.matches("max-attempts").count(), 1, "{shown}");
    q.partitions()[2]
        .set_config(&leaseq::QueueConfig::new().max_attempts(9))
        .await
        .unwrap();
    let shown = stdout(&run(&urls, &["config", "-q", "{w}"]));
    assert_eq!(shown.matches("max-attempts").count(), 3, "{shown}");
    assert!(
        shown.contains(&format!("partition 2: {}", q.partitions()[2].prefix())),
        "{shown}"
    );
    q.partitions()[2]
        .set_config(&leaseq::QueueConfig::new().max_attempts(7))
        .await
        .unwrap();

    // Every item dead, then two requeued by id, the rest by --all, then purged.
    all_dead(&q, 4).await;
    let by_id = json(&run(
        &urls,
        &["dead", "requeue", "-q", "{w}", "a", "d", "--json"],
    ));
    assert_eq!(by_id["requeued"], 2, "{by_id}");
    let rest = json(&run(
        &urls,
        &["dead", "requeue", "-q", "{w}", "--all", "--json"],
    ));
    assert_eq!(rest["requeued"], 2, "{rest}");
    assert_eq!(q.stats().await.unwrap().total.waiting, 4);
    all_dead(&q, 4).await;
    let purged = json(&run(
        &urls,
        &["dead", "purge", "-q", "{w}", "--all", "--json"],
    ));
    assert_eq!(purged["purged"], 4, "{purged}");

    // A group's commands act in the group's partition, which holds all its items.
    let added = run(
        &urls,
        &[
            "add", "-q", "{w}", "--id", "g1", "--group", "tenant", "--data", "x",
        ],
    );
    assert_eq!(code(&added), 0, "{}", stderr(&added));
    let home = &q.partitions()[q
        .partition_of(&leaseq::Item::new(Vec::new()).group("tenant"))
        .unwrap()];
    let paused = run(&urls, &["group", "pause", "-q", "{w}", "tenant", "--json"]);
    assert_eq!(code(&paused), 0, "{}", stderr(&paused));
    assert_eq!(json(&paused)["changed"], true);
    assert!(home.group("tenant").await.unwrap().paused);
    let limited = run(
        &urls,
        &["group", "limit", "-q", "{w}", "tenant", "4", "--json"],
    );
    assert_eq!(code(&limited), 0, "{}", stderr(&limited));
    let shown = json(&run(&urls, &["group", "-q", "{w}", "tenant", "--json"]));
    assert_eq!(shown["waiting"], 1, "{shown}");
    assert_eq!(shown["limit"], 4, "{shown}");
    assert_eq!(shown["paused"], true, "{shown}");
    // It says which partition holds the group.
    assert_eq!(shown["partition"], home.prefix(), "{shown}");
    let text = stdout(&run(&urls, &["group", "-q", "{w}", "tenant"]));
    assert!(
        text.contains(&format!("in  partition {}\n", home.prefix())),
        "{text}"
    );
    assert!(run(&urls, &["group", "resume", "-q", "{w}", "tenant"])
        .status
        .success());
    assert!(!home.group("tenant").await.unwrap().paused);
    let held = run(&urls, &["hold", "-q", "{w}", "--group", "tenant", "10s"]);
    assert_eq!(code(&held), 0, "{}", stderr(&held));
    assert!(home
        .group("tenant")
        .await
        .unwrap()
        .rate_limited_for
        .is_some());

    // The whole queue's hold: every partition (spec 5.25).
    let held = run(&urls, &["hold", "-q", "{w}", "10s", "--json"]);
    assert_eq!(code(&held), 0, "{}", stderr(&held));
    assert!(json(&held)["held_for_ms"].as_u64().unwrap() > 5000);
    for part in q.partitions() {
        assert!(
            part.stats().await.unwrap().rate_limited_for.is_some(),
            "{}",
            part.prefix()
        );
    }
    // A tree: each item where it lives, a dependant with its dependency's partition.
    q.add(&leaseq::Item::with_id("t1", "x").unwrap().group("tenant"))
        .await
        .unwrap();
    q.add(&leaseq::Item::with_id("t2", "x").unwrap().depends_on(["t1"]))
        .await
        .unwrap();
    let tree = json(&run(&urls, &["tree", "-q", "{w}", "t2", "--json"]));
    assert_eq!(tree["state"], "blocked", "{tree}");
    assert_eq!(tree["children"][0]["id"], "t1", "{tree}");
    assert_eq!(tree["children"][0]["dependants"], 1, "{tree}");
    let missing = run(&urls, &["tree", "-q", "{w}", "nobody"]);
    assert_eq!(code(&missing), 1, "{}", stderr(&missing));
    // A check: every partition's server, each under its prefix.
    let checked = run(&urls, &["check", "-q", "{w}", "--json"]);
    let checked = json(&checked);
    let checked = checked.as_array().expect("a list per partition");
    assert_eq!(checked.len(), q.partitions().len() + 1, "{checked:?}");
    for (part, found) in q.partitions().iter().zip(checked) {
        assert_eq!(found["queue"], part.prefix(), "{found}");
        assert!(found["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["check"] == "cluster slot" && f["level"] == "ok"));
    }
    // Last, the base's own finding: how the partitions spread over the servers (one here).
    let base = checked.last().unwrap();
    assert_eq!(base["queue"], "{w}", "{base}");
    assert_eq!(base["findings"][0]["check"], "partitions", "{base}");
    assert_eq!(base["findings"][0]["level"], "ok", "{base}");
    assert_eq!(
        base["findings"][0]["found"], "3 partitions over 1 server(s)",
        "{base}"
    );
    // A clean: every partition's due delayed items promoted.
    let before = q.count_in(leaseq::State::Waiting).await.unwrap();
    for part in q.partitions() {
        let item = leaseq::Item::new("x").delay(std::time::Duration::from_millis(1));
        part.add(&item).await.unwrap();
    }
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    let cleaned = run(&urls, &["clean", "-q", "{w}", "--once"]);
    assert_eq!(code(&cleaned), 0, "{}", stderr(&cleaned));
    assert_eq!(
        q.count_in(leaseq::State::Waiting).await.unwrap(),
        before + q.partitions().len() as u64
    );
    assert_eq!(q.count_in(leaseq::State::Delayed).await.unwrap(), 0);
    // The base itself holds no queue, only its layout: everything went to the partitions.
    let keys = server.command("KEYS {w}:*");
    assert_eq!(keys.trim(), "*1", "one key under the base");
    assert_eq!(server.command("EXISTS {w}:partitions").trim(), ":1");
}

/// Leases `n` items of `q` and fails each for good: `n` dead letters.
async fn all_dead(q: &leaseq::Partitioned, n: usize) {
    for _ in 0..n {
        let lease = q
            .lease(std::time::Duration::from_secs(30), leaseq::Wait::No)
            .await
            .unwrap()
            .unwrap();
        q.fail(&lease, "e", "", leaseq::Retry::Never).await.unwrap();
    }
}

/// `leaseq events` on a base: every partition's entries, each naming its partition (`p<i>`
/// in text, `partition` in JSON), a page's position resuming where it stopped, and a position
/// of the wrong count of ids refused.
#[tokio::test]
async fn events_on_a_base_read_every_partition() {
    let server = RedisServer::start();
    let urls = vec![server.url()];
    let client = Client::connect(&server.url()).await.unwrap();
    let q = client.create_partitioned("{ev}", 3).await.unwrap();
    q.set_config(&leaseq::QueueConfig::new().events(true))
        .await
        .unwrap();
    let ids: Vec<String> = (0..6).map(|i| format!("e{i}")).collect();
    for id in &ids {
        q.add(&Item::with_id(id.as_str(), "x").unwrap())
            .await
            .unwrap();
    }
    let page = json(&run(
        &urls,
        &["events", "-q", "{ev}", "--json", "--limit", "4"],
    ));
    let events = page["events"].as_array().unwrap();
    assert_eq!(events.len(), 4, "{page}");
    for e in events {
        let id = e["job_id"].as_str().unwrap();
        assert_eq!(
            e["partition"].as_u64().unwrap() as usize,
            q.partition_of_id(id),
            "{e}"
        );
    }
    let position = page["position"].as_str().unwrap().to_owned();
    assert_eq!(position.split(',').count(), 3, "{position}");
    // The rest, after the position: the other two, and together every id once.
    let rest = json(&run(
        &urls,
        &["events", "-q", "{ev}", "--after", &position, "--json"],
    ));
    let mut seen: Vec<String> = events
        .iter()
        .chain(rest["events"].as_array().unwrap())
        .map(|e| e["job_id"].as_str().unwrap().to_owned())
        .collect();
    seen.sort();
    assert_eq!(seen, ids);
    // Text: the partition after the entry's id; a full page says how to go on.
    let out = run(&urls, &["events", "-q", "{ev}", "--limit", "2"]);
    assert!(stdout(&out).contains("  p"), "{}", stdout(&out));
    assert!(stderr(&out).contains("--after "), "{}", stderr(&out));
    let bad = run(&urls, &["events", "-q", "{ev}", "--after", "1-0,2-0"]);
    assert_eq!(code(&bad), 2, "{}", stderr(&bad));
    assert!(stderr(&bad).contains("after"), "{}", stderr(&bad));
}

/// A finding of `check`'s JSON for a partitioned base: entry `i`'s finding `name`.
fn finding<'a>(checked: &'a serde_json::Value, i: usize, name: &str) -> &'a serde_json::Value {
    checked[i]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["check"] == name)
        .unwrap_or_else(|| panic!("no `{name}` in {}", checked[i]))
}

#[tokio::test]
async fn check_says_which_primary_holds_each_partition_and_warns_when_one_is_crowded() {
    let cluster = RedisCluster::start();
    let urls = cluster.urls();
    let created = run(&urls, &["create", "-q", "{s}", "--partitions", "3"]);
    assert_eq!(code(&created), 0, "{}", stderr(&created));
    let checked = json(&run(&urls, &["check", "-q", "{s}", "--json"]));
    // Each partition names its primary, by node id and port; the layout put one on each.
    let port_of = |checked: &serde_json::Value, i: usize| -> u16 {
        let found = finding(checked, i, "server")["found"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(found.starts_with("cluster node "), "{found}");
        found.rsplit(' ').next().unwrap().parse().unwrap()
    };
    let ports: Vec<u16> = (0..3).map(|i| port_of(&checked, i)).collect();
    let mut distinct = ports.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(distinct.len(), 3, "{checked}");
    let spread = finding(&checked, 3, "partitions");
    assert_eq!(spread["level"], "ok", "{spread}");
    assert_eq!(
        spread["found"], "3 partitions over 3 of the cluster's 3 primaries",
        "{spread}"
    );

    // Partition 1's slot moved to partition 0's primary (it holds no key yet): that primary's
    // core now serves two thirds of the queue, and check says so.
    let client = Client::connect_cluster(&urls).await.unwrap();
    let q = client.partitioned("{s}").await.unwrap();
    let slot = leaseq::key_slot(format!("{}:queue", q.partitions()[1].prefix()).as_bytes());
    let node = |port: u16| {
        cluster
            .nodes()
            .iter()
            .find(|n| n.port() == port)
            .expect("a node of the cluster")
    };
    let (from, to) = (node(ports[1]), node(ports[0]));
    assert_eq!(
        from.command(&format!("CLUSTER COUNTKEYSINSLOT {slot}"))
            .trim(),
        ":0"
    );
    let to_id = to.command("CLUSTER MYID").trim().to_owned();
    for n in [to, from]
        .into_iter()
        .chain(cluster.nodes().iter().filter(|n| n.port() == ports[2]))
    {
        let set = n.command(&format!("CLUSTER SETSLOT {slot} NODE {to_id}"));
        assert_eq!(set.trim(), "+OK", "{set}");
    }
    let checked = json(&run(&urls, &["check", "-q", "{s}", "--json"]));
    assert_eq!(port_of(&checked, 1), ports[0], "{checked}");
    let spread = finding(&checked, 3, "partitions");
    assert_eq!(spread["level"], "warning", "{spread}");
    let found = spread["found"].as_str().unwrap();
    assert!(
        found.starts_with("3 partitions over 2 of the cluster's 3 primaries"),
        "{found}"
    );
    assert!(
        found.contains(&format!("(port {}) holds partitions 0, 1", ports[0])),
        "{found}"
    );
    assert!(
        spread["fix"].as_str().unwrap().contains("reshard"),
        "{spread}"
    );
    // Warnings alone exit 0; the text shows the base's finding under the queue's name.
    let text = run(&urls, &["check", "-q", "{s}"]);
    assert_eq!(code(&text), 0, "{}", stderr(&text));
    assert!(stdout(&text).contains("queue {s}\n"), "{}", stdout(&text));
    assert!(
        stdout(&text).contains("warning  partitions"),
        "{}",
        stdout(&text)
    );
}
