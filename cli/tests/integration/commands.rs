//! Every command of `leaseq` against a throwaway redis-server (and a local cluster), through the
//! binary as a user runs it; `--json` outputs checked field by field.

use crate::common;

use std::time::Duration;

use common::{code, json, run, stderr, stdout};
use leaseq::{Backoff, Client, Item, QueueConfig, State, Wait};
use leaseq_harness::{RedisCluster, RedisServer};

async fn client(server: &RedisServer) -> Client {
    Client::connect(&server.url()).await.unwrap()
}

#[tokio::test]
async fn add_get_ls_cancel() {
    let server = RedisServer::start();
    let urls = vec![server.url()];
    let out = run(
        &urls,
        &[
            "add",
            "-q",
            "{jobs}",
            "--id",
            "a",
            "--data",
            "hello",
            "--priority",
            "-5",
            "--max-attempts",
            "3",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "a");
    // The same id again adds nothing and says so.
    let again = run(&urls, &["add", "-q", "{jobs}", "--id", "a", "--data", "x"]);
    assert_eq!(code(&again), 1);
    assert!(
        stderr(&again).contains("already exists"),
        "{}",
        stderr(&again)
    );

    let got = json(&run(&urls, &["get", "-q", "{jobs}", "a", "--json"]));
    assert_eq!(got["id"], "a");
    assert_eq!(got["state"], "waiting");
    assert_eq!(got["data_preview"], "hello");
    assert_eq!(got["data_len"], 5);
    assert_eq!(got["priority"], -5);
    assert_eq!(got["max_attempts"], 3);
    assert_eq!(got["attempts"], 0);

    let json_add = run(
        &urls,
        &[
            "add",
            "-q",
            "{jobs}",
            "--id",
            "b",
            "--json",
            "{\"n\": 1}",
            "--delay",
            "1h",
        ],
    );
    assert_eq!(code(&json_add), 0, "{}", stderr(&json_add));
    let b = json(&run(&urls, &["get", "-q", "{jobs}", "b", "--json"]));
    assert_eq!(b["state"], "delayed");
    assert_eq!(b["data_preview"], "{\"n\":1}");

    let waiting = json(&run(&urls, &["ls", "waiting", "-q", "{jobs}", "--json"]));
    assert_eq!(
        waiting,
        serde_json::json!([{"id": "a", "at": null, "attempts": 0, "error": null, "error_type": null, "name": null, "reason": null, "partition": null}])
    );
    let delayed = json(&run(&urls, &["ls", "delayed", "-q", "{jobs}", "--json"]));
    assert_eq!(delayed[0]["id"], "b");
    assert!(delayed[0]["at"].as_u64().unwrap() > 0);

    let table = stdout(&run(&urls, &["ls", "waiting", "-q", "{jobs}"]));
    assert!(table.starts_with("ID"), "{table}");
    assert!(
        !table.contains('\x1b'),
        "no colour when not on a terminal: {table:?}"
    );

    let cancelled = json(&run(&urls, &["cancel", "-q", "{jobs}", "b", "--json"]));
    assert_eq!(cancelled, serde_json::json!({"id": "b", "was": "delayed"}));
    let gone = run(&urls, &["get", "-q", "{jobs}", "b"]);
    assert_eq!(code(&gone), 1);
    assert_eq!(code(&run(&urls, &["cancel", "-q", "{jobs}", "b"])), 1);

    // A cancelled waiting item's id stays in its list, counted, until a lease drops it; `ls`
    // skips it, and says that more follow a page that it left short.
    // (`a` waits at priority -5; `c`, at -9, comes after it.)
    let c = run(
        &urls,
        &[
            "add",
            "-q",
            "{jobs}",
            "--id",
            "c",
            "--data",
            "c",
            "--priority",
            "-9",
        ],
    );
    assert_eq!(code(&c), 0, "{}", stderr(&c));
    let cancelled = run(&urls, &["cancel", "-q", "{jobs}", "a"]);
    assert!(
        stdout(&cancelled).contains("may count its id as waiting"),
        "{}",
        stdout(&cancelled)
    );
    let waiting = json(&run(&urls, &["ls", "waiting", "-q", "{jobs}", "--json"]));
    let ids: Vec<&str> = waiting
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["c"]);
    let first = run(&urls, &["ls", "waiting", "-q", "{jobs}", "--limit", "1"]);
    assert!(!stdout(&first).contains("\nc "), "{}", stdout(&first));
    assert!(
        stderr(&first).contains("(more follow: --start 1)"),
        "{}",
        stderr(&first)
    );
    // An item waiting in a group is counted as waiting but not listed (`leaseq group` shows
    // it): no page follows the last listed one for it.
    let grouped = run(
        &urls,
        &[
            "add", "-q", "{jobs}", "--id", "g", "--data", "g", "--group", "tenant",
        ],
    );
    assert_eq!(code(&grouped), 0, "{}", stderr(&grouped));
    let first_json = run(
        &urls,
        &["ls", "waiting", "-q", "{jobs}", "--limit", "1", "--json"],
    );
    assert_eq!(stdout(&first_json).trim(), "[]");
    assert!(
        stderr(&first_json).contains("(more follow: --start 1)"),
        "{}",
        stderr(&first_json)
    );
    let second = run(
        &urls,
        &[
            "ls", "waiting", "-q", "{jobs}", "--limit", "1", "--start", "1",
        ],
    );
    assert!(stdout(&second).contains("\nc "), "{}", stdout(&second));
    assert!(
        !stderr(&second).contains("more follow"),
        "{}",
        stderr(&second)
    );
    // The whole list, and what `stats` counts that it does not show: `g` in its group, `a`'s
    // stale id.
    let all = run(&urls, &["ls", "waiting", "-q", "{jobs}"]);
    assert!(
        stderr(&all).contains("(2 more counted as waiting: items waiting in groups"),
        "{}",
        stderr(&all)
    );
    // A grouped item's cancel leaves no stale id behind: one fewer counted at once.
    assert_eq!(code(&run(&urls, &["cancel", "-q", "{jobs}", "g"])), 0);
    let all = run(&urls, &["ls", "waiting", "-q", "{jobs}"]);
    assert!(
        stderr(&all).contains("(1 more counted as waiting"),
        "{}",
        stderr(&all)
    );
}

#[tokio::test]
async fn add_reads_a_file_of_any_bytes_and_shows_them_escaped() {
    let server = RedisServer::start();
    let urls = vec![server.url()];
    let dir = std::env::temp_dir().join(format!("leaseq-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("payload.bin");
    std::fs::write(&path, b"<script>alert(1)</script>\xff\x00").unwrap();
    let out = run(
        &urls,
        &[
            "add",
            "-q",
            "bin",
            "--id",
            "f",
            "--file",
            path.to_str().unwrap(),
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let q = client(&server).await.queue("bin").unwrap();
    assert_eq!(
        q.get("f").await.unwrap().unwrap().data,
        b"<script>alert(1)</script>\xff\x00"
    );
    let got = json(&run(&urls, &["get", "-q", "bin", "f", "--json"]));
    assert_eq!(got["data_preview"], "<script>alert(1)</script>\\xff\\x00");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn bad_input_names_the_argument_and_writes_nothing() {
    let server = RedisServer::start();
    let urls = vec![server.url()];
    for (args, argument) in [
        (
            vec!["add", "-q", "jobs", "--data", "x", "--priority", "5000"],
            "priority",
        ),
        (vec!["add", "-q", "jobs", "--data", "x", "--id", ""], "id"),
        (vec!["add", "-q", "jobs:item:x", "--data", "x"], "prefix"),
        (vec!["add", "-q", "jobs", "--json", "{not json"], "--json"),
        (
            vec!["add", "-q", "jobs", "--data", "x", "--delay", "soon"],
            "--delay",
        ),
        (vec!["ls", "finished", "-q", "jobs"], "finished"),
        (
            vec!["ls", "waiting", "-q", "jobs", "--limit", "1001"],
            "--limit",
        ),
        (vec!["dead", "purge", "-q", "jobs"], "--oldest N or --all"),
        // A negative count or duration says so, naming the argument, written either way.
        (
            vec!["dead", "purge", "-q", "jobs", "--oldest=-1"],
            "'--oldest <OLDEST>': must not be negative, got -1",
        ),
        (
            vec!["dead", "purge", "-q", "jobs", "--oldest", "-1"],
            "'--oldest <OLDEST>': must not be negative, got -1",
        ),
        (
            vec!["ls", "waiting", "-q", "jobs", "--start", "-3"],
            "'--start <START>': must not be negative",
        ),
        (
            vec!["add", "-q", "jobs", "--data", "x", "--delay", "-5s"],
            "'--delay <DELAY>': must not be negative",
        ),
        (vec!["hold", "-q", "jobs", "-1s"], "must not be negative"),
        // The dashboard checks its queues before it serves.
        (
            vec![
                "dashboard",
                "--listen",
                "127.0.0.1:0",
                "-q",
                "jobs",
                "-q",
                "",
            ],
            "-q: invalid argument `prefix`",
        ),
        (
            vec!["create", "-q", "{jobs}", "--partitions=-2"],
            "'--partitions <PARTITIONS>': must not be negative",
        ),
        (
            vec!["config", "set", "-q", "jobs", "--capacity", "lots"],
            "`lots` is not a whole number",
        ),
    ] {
        let out = run(&urls, &args);
        assert_eq!(code(&out), 2, "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(argument),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    assert_eq!(server.command("DBSIZE").trim().trim_start_matches(':'), "0");
    let no_url = std::process::Command::new(common::BIN)
        .args(["queues"])
        .env_remove("LEASEQ_URL")
        .env_remove("REDIS_URL")
        .output()
        .unwrap();
    assert_eq!(code(&no_url), 2);
    assert!(stderr(&no_url).contains("--url"), "{}", stderr(&no_url));
}

#[tokio::test]
async fn unreachable_redis_exits_3_and_says_what_to_do() {
    let out = run(&["redis://127.0.0.1:1".to_owned()], &["queues"]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert!(stderr(&out).contains("--url"), "{}", stderr(&out));
}

#[tokio::test]
async fn redis_url_from_the_environment() {
    let server = RedisServer::start();
    let q = client(&server).await.queue("env").unwrap();
    q.add(&Item::new(b"x".to_vec())).await.unwrap();
    let out = std::process::Command::new(common::BIN)
        .args(["queues", "--json"])
        .env_remove("LEASEQ_URL")
        .env("REDIS_URL", server.url())
        .output()
        .unwrap();
    assert_eq!(json(&out), serde_json::json!(["env"]));
}

#[tokio::test]
async fn stats_and_queues() {
    let server = RedisServer::start();
    let urls = vec![server.url()];
    let c = client(&server).await;
    let q = c.queue("a*[1]").unwrap();
    // Counters are off unless the queue's configuration turns them on; "ab" leaves them off.
    q.set_config(&QueueConfig::new().stats(true)).await.unwrap();
    for i in 0..3 {
        q.add(&Item::with_id(format!("{i}"), b"x".to_vec()).unwrap())
            .await
            .unwrap();
    }
    let lease = q
        .lease(Duration::from_secs(30), Wait::No)
        .await
        .unwrap()
        .unwrap();
    assert!(q.complete(&lease).await.unwrap());
    common::dead(&q, "d", b"x", "boom", "Boom").await;
    c.queue("ab")
        .unwrap()
        .add(&Item::new(b"x".to_vec()))
        .await
        .unwrap();

    let found = json(&run(&urls, &["queues", "--json"]));
    assert_eq!(found, serde_json::json!(["a*[1]", "ab"]));
    // The glob characters of --starting-with match themselves only.
    let starting = json(&run(&urls, &["queues", "--starting-with", "a*", "--json"]));
    assert_eq!(starting, serde_json::json!(["a*[1]"]));

    let s = json(&run(&urls, &["stats", "-q", "a*[1]", "--json"]));
    assert_eq!(s["queue"], "a*[1]");
    assert_eq!(s["waiting"], 2);
    assert_eq!(s["dead"], 1);
    assert_eq!(s["leased"], 0);
    assert_eq!(s["counters"], true);
    assert_eq!(s["last_hour"]["completed"], 1);
    assert_eq!(s["last_hour"]["dead"], 1);
    assert_eq!(s["last_hour"]["failed"], 1);
    assert_eq!(s["last_minute"]["completed"], 1);
    assert_eq!(s["minutes"].as_array().unwrap().len(), 60);
    // Each minute carries its time: consecutive minutes, the last the one that holds `now`.
    let minutes = s["minutes"].as_array().unwrap();
    let now = s["now"].as_u64().unwrap();
    let last = minutes[59]["start_ms"].as_u64().unwrap();
    assert!(last <= now && now < last + 60_000, "{last} {now}");
    assert_eq!(minutes[0]["start_ms"].as_u64().unwrap(), last - 59 * 60_000);
    let iso = minutes[59]["start"].as_str().unwrap();
    assert!(iso.ends_with(":00Z") && iso.len() == 20, "{iso}");
    assert_eq!(
        humantime::parse_rfc3339(iso).unwrap(),
        std::time::UNIX_EPOCH + Duration::from_millis(last)
    );
    assert!(
        s["last_hour"].get("start_ms").is_none(),
        "a sum has no time"
    );

    let all = json(&run(&urls, &["stats", "--json"]));
    assert_eq!(all.as_array().unwrap().len(), 2);
    // A queue that does not count says so: null, never zeros.
    let ab = &all[1];
    assert_eq!(ab["queue"], "ab");
    assert_eq!(ab["waiting"], 1);
    assert_eq!(ab["counters"], false);
    for field in ["last_minute", "last_hour", "minutes"] {
        assert!(ab[field].is_null(), "{field}: {ab}");
    }
    let out = run(&urls, &["stats"]);
    let table = stdout(&out);
    assert_eq!(
        counted(&table, "ab"),
        ["off", "off", "off", "off"],
        "{table}"
    );
    assert_eq!(
        counted(&table, "a*[1]"),
        ["1/1", "1/1", "1/1", "0/0"],
        "{table}"
    );
    let note = stderr(&out);
    assert!(
        note.contains("counters off for: ab;")
            && note.contains("`leaseq config set -q ab --stats on`"),
        "{note}"
    );
    // Once every queue counts, no footnote.
    assert_eq!(
        code(&run(&urls, &["config", "set", "-q", "ab", "--stats", "on"])),
        0
    );
    let out = run(&urls, &["stats"]);
    let table = stdout(&out);
    assert_eq!(
        counted(&table, "ab"),
        ["0/0", "0/0", "0/0", "0/0"],
        "{table}"
    );
    assert!(!stderr(&out).contains("counters off"), "{}", stderr(&out));
}

/// The done, failed, died and expired columns of `queue`'s row of a `stats` table.
fn counted(table: &str, queue: &str) -> Vec<String> {
    let row = table
        .lines()
        .find(|l| l.starts_with(&format!("{queue} ")))
        .unwrap_or_else(|| panic!("no row for {queue}: {table}"));
    row.split_whitespace()
        .skip(8)
        .take(4)
        .map(str::to_owned)
        .collect()
}

/// The cells of `queue`'s row of a `stats` table, split on whitespace.
fn stats_row(table: &str, queue: &str) -> Vec<String> {
    table
        .lines()
        .find(|l| l.starts_with(&format!("{queue} ")))
        .unwrap_or_else(|| panic!("no row for {queue}: {table}"))
        .split_whitespace()
        .map(str::to_owned)
        .collect()
}

#[tokio::test]
async fn pause_and_resume_say_what_changed_and_stats_show_it() {
    let server = RedisServer::start();
    let urls = vec![server.url()];
    let q = client(&server).await.queue("{jobs}").unwrap();
    q.add(&Item::with_id("a", b"x".to_vec()).unwrap())
        .await
        .unwrap();

    let out = run(&urls, &["pause", "-q", "{jobs}"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        stdout(&out).trim(),
        "{jobs}: paused; nothing is leased until `leaseq resume -q '{jobs}'`"
    );
    assert!(q.is_paused().await.unwrap());
    assert!(q
        .lease(Duration::from_secs(30), Wait::No)
        .await
        .unwrap()
        .is_none());
    // Again: nothing changes, and it says so; still exit 0.
    let again = run(&urls, &["pause", "-q", "{jobs}", "--json"]);
    assert_eq!(code(&again), 0, "{}", stderr(&again));
    assert_eq!(
        json(&again),
        serde_json::json!({"queue": "{jobs}", "paused": true, "changed": false})
    );
    let text = run(&urls, &["pause", "-q", "{jobs}"]);
    assert_eq!(
        stdout(&text).trim(),
        "{jobs}: already paused; nothing changed"
    );

    let s = json(&run(&urls, &["stats", "-q", "{jobs}", "--json"]));
    assert_eq!(s["paused"], true);
    assert!(s["capacity"].is_null(), "{s}");
    assert_eq!(s["waiting"], 1, "a paused queue's items still wait");
    let out = run(&urls, &["stats"]);
    let row = stats_row(&stdout(&out), "{jobs}");
    assert_eq!(row[12..], ["paused", "-", "-"], "{row:?}");
    assert!(
        stderr(&out).contains(
            "paused (nothing is leased): {jobs}; resume with `leaseq resume -q '{jobs}'`"
        ),
        "{}",
        stderr(&out)
    );

    let out = run(&urls, &["resume", "-q", "{jobs}"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "{jobs}: resumed; leasing goes on");
    assert!(!q.is_paused().await.unwrap());
    let again = run(&urls, &["resume", "-q", "{jobs}", "--json"]);
    assert_eq!(code(&again), 0, "{}", stderr(&again));
    assert_eq!(
        json(&again),
        serde_json::json!({"queue": "{jobs}", "paused": false, "changed": false})
    );
    let out = run(&urls, &["stats"]);
    let row = stats_row(&stdout(&out), "{jobs}");
    assert_eq!(row[12..], ["no", "-", "-"], "{row:?}");
    assert!(!stderr(&out).contains("paused"), "{}", stderr(&out));
    assert_eq!(
        json(&run(&urls, &["stats", "-q", "{jobs}", "--json"]))["paused"],
        false
    );
    let lease = q
        .lease(Duration::from_secs(30), Wait::No)
        .await
        .unwrap()
        .expect("leasing goes on once resumed");
    assert_eq!(lease.id(), "a");
}

#[tokio::test]
async fn a_name_is_added_and_shown_and_a_bad_one_refused() {
    let server = RedisServer::start();
    let urls = vec![server.url()];
    let q = client(&server).await.queue("{jobs}").unwrap();
    // A name, given with --name, shows in `get` too; a bad one is refused naming it.
    let out = run(
        &urls,
        &[
            "add",
            "-q",
            "{jobs}",
            "--id",
            "n1",
            "--data",
            "x",
            "--name",
            "send_email",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let got = json(&run(&urls, &["get", "-q", "{jobs}", "n1", "--json"]));
    assert_eq!(got["name"], "send_email");
    let text = stdout(&run(&urls, &["get", "-q", "{jobs}", "n1"]));
    assert!(
        text.lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>() == ["name", "send_email"]),
        "{text}"
    );
    let out = run(
        &urls,
        &[
            "add", "-q", "{jobs}", "--id", "n2", "--data", "x", "--name", "",
        ],
    );
    assert_ne!(code(&out), 0);
    assert!(stderr(&out).contains("`name`"), "{}", stderr(&out));
    assert!(q.get("n2").await.unwrap().is_none(), "nothing written");
    // `ls` shows names, and lists done items while their results are kept, with the name their
    // result kept.
    let ls = stdout(&run(&urls, &["ls", "waiting", "-q", "{jobs}"]));
    assert!(ls.lines().next().unwrap().contains("NAME"), "{ls}");
    assert!(
        ls.lines()
            .any(|l| l.split_whitespace().take(2).eq(["n1", "send_email"])),
        "{ls}"
    );
    let lease = q
        .lease(Duration::from_secs(30), Wait::No)
        .await
        .unwrap()
        .unwrap();
    assert!(q
        .complete_with_result(&lease, Some(b"ok"), None)
        .await
        .unwrap());
    let done = json(&run(&urls, &["ls", "done", "-q", "{jobs}", "--json"]));
    assert_eq!(done[0]["id"], "n1", "{done}");
    assert_eq!(done[0]["name"], "send_email", "{done}");
}

#[tokio::test]
async fn groups_are_added_shown_paused_resumed_and_limited() {
    let server = RedisServer::start();
    let urls = vec![server.url()];
    let q = client(&server).await.queue("{jobs}").unwrap();
    for id in ["a1", "a2", "a3"] {
        let out = run(
            &urls,
            &[
                "add", "-q", "{jobs}", "--id", id, "--data", "x", "--group", "acme",
            ],
        );
        assert_eq!(code(&out), 0, "{}", stderr(&out));
    }
    let out = run(
        &urls,
        &[
            "add",
            "-q",
            "{jobs}",
            "--id",
            "b1",
            "--data",
            "y",
            "--group",
            "beta corp",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    // `get` shows the group, in JSON and as text; an item without one shows none.
    let got = json(&run(&urls, &["get", "-q", "{jobs}", "a1", "--json"]));
    assert_eq!(got["group"], "acme");
    assert_eq!(got["state"], "waiting");
    let text = stdout(&run(&urls, &["get", "-q", "{jobs}", "b1"]));
    assert!(
        text.lines().any(|l| l.trim() == "group  beta corp"),
        "{text}"
    );
    assert_eq!(
        q.get("a1").await.unwrap().unwrap().group.as_deref(),
        Some("acme")
    );
    stdout(&run(
        &urls,
        &["add", "-q", "{jobs}", "--id", "p", "--data", "z"],
    ));
    assert!(json(&run(&urls, &["get", "-q", "{jobs}", "p", "--json"]))["group"].is_null());
    // Stats count grouped items as waiting.
    assert_eq!(
        json(&run(&urls, &["stats", "-q", "{jobs}", "--json"]))["waiting"],
        5
    );

    let info = |name: &str| json(&run(&urls, &["group", "-q", "{jobs}", name, "--json"]));
    assert_eq!(
        info("acme"),
        serde_json::json!({"queue": "{jobs}", "group": "acme", "partition": null, "waiting": 3, "leased": 0,
                           "limit": 1, "paused": false, "rate_limited_for_ms": null})
    );
    // Strict FIFO per group by default: one of acme's items leased, and the group shows it.
    let mut leases = Vec::new();
    while let Some(l) = q.lease(Duration::from_secs(30), Wait::No).await.unwrap() {
        leases.push(l);
    }
    let ids: Vec<&str> = leases.iter().map(|l| l.id()).collect();
    assert_eq!(
        ids.iter().filter(|i| i.starts_with('a')).count(),
        1,
        "{ids:?}"
    );
    let acme = info("acme");
    assert_eq!(
        (acme["waiting"].clone(), acme["leased"].clone()),
        (2.into(), 1.into())
    );
    let table = stdout(&run(&urls, &["group", "-q", "{jobs}", "acme"]));
    assert!(
        table.lines().any(|l| l.trim() == "leased  1 of 1 at once"),
        "{table}"
    );
    assert!(
        table.lines().any(|l| l.trim() == "state  running"),
        "{table}"
    );
    assert!(
        table.lines().any(|l| l.trim() == "rate  not limited"),
        "{table}"
    );
    for l in &leases {
        assert!(q.complete(l).await.unwrap());
    }
    // A group nobody used reads as empty, with the limit that would apply; a group named like
    // a subcommand is shown with --queue before it.
    let named_pause = run(&urls, &["group", "-q", "{jobs}", "pause", "--json"]);
    assert_eq!(code(&named_pause), 0, "{}", stderr(&named_pause));
    assert_eq!(json(&named_pause)["group"], "pause");
    assert_eq!(json(&named_pause)["waiting"], 0);

    // Pause: nothing of the group is leased, the rest goes on; saying so, and again.
    let out = run(&urls, &["group", "pause", "-q", "{jobs}", "acme"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        stdout(&out).trim(),
        "{jobs}: group acme paused; none of its items is leased until `leaseq group resume -q '{jobs}' acme`"
    );
    let again = run(&urls, &["group", "pause", "-q", "{jobs}", "acme", "--json"]);
    assert_eq!(code(&again), 0, "{}", stderr(&again));
    assert_eq!(
        json(&again),
        serde_json::json!({"queue": "{jobs}", "group": "acme", "paused": true, "changed": false})
    );
    assert!(q.group("acme").await.unwrap().paused);
    let shown = run(&urls, &["group", "-q", "{jobs}", "acme"]);
    assert!(stdout(&shown).lines().any(|l| l.trim() == "state  paused"));
    assert!(
        stderr(&shown).contains("resume with `leaseq group resume -q '{jobs}' acme`"),
        "{}",
        stderr(&shown)
    );
    assert!(q
        .lease(Duration::from_secs(30), Wait::No)
        .await
        .unwrap()
        .is_none());
    let out = run(&urls, &["group", "resume", "-q", "{jobs}", "acme"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        stdout(&out).trim(),
        "{jobs}: group acme resumed; its items are leased again"
    );
    let again = run(
        &urls,
        &["group", "resume", "-q", "{jobs}", "acme", "--json"],
    );
    assert_eq!(json(&again)["changed"], false);
    let lease = q
        .lease(Duration::from_secs(30), Wait::No)
        .await
        .unwrap()
        .expect("the group is leased from once resumed");
    assert_eq!(lease.id(), "a2");

    // Limit: the group's own, shown; refused values write nothing; `none` removes it, and the
    // queue's group concurrency (config set) applies.
    let out = run(
        &urls,
        &["group", "limit", "-q", "{jobs}", "acme", "2", "--json"],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(json(&out)["limit"], 2);
    assert_eq!(json(&out)["leased"], 1);
    assert_eq!(q.group("acme").await.unwrap().limit, 2);
    for bad in ["0", "1001"] {
        let out = run(&urls, &["group", "limit", "-q", "{jobs}", "acme", bad]);
        assert_eq!(code(&out), 2, "{bad}: {}", stderr(&out));
        assert!(stderr(&out).contains("`limit`"), "{bad}: {}", stderr(&out));
        assert_eq!(q.group("acme").await.unwrap().limit, 2, "{bad}");
    }
    let out = run(&urls, &["group", "limit", "-q", "{jobs}", "acme", "many"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("none"), "{}", stderr(&out));
    let out = run(
        &urls,
        &["group", "limit", "-q", "{jobs}", "acme", "none", "--json"],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(json(&out)["limit"], 1);
    let out = run(
        &urls,
        &[
            "config",
            "set",
            "-q",
            "{jobs}",
            "--group-concurrency",
            "4",
            "--json",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(json(&out)["stored"]["group_concurrency"], 4);
    assert_eq!(q.config().await.unwrap().group_concurrency, Some(4));
    assert_eq!(info("acme")["limit"], 4);
    let table = stdout(&run(&urls, &["config", "-q", "{jobs}"]));
    assert!(
        table
            .lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>() == ["group-concurrency", "4", "4"]),
        "{table}"
    );
    let out = run(
        &urls,
        &["config", "set", "-q", "{jobs}", "--group-concurrency", "0"],
    );
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("--group-concurrency"),
        "{}",
        stderr(&out)
    );
    assert_eq!(q.config().await.unwrap().group_concurrency, Some(4));

    // A bad group name is refused naming `group`, before anything is written.
    let before = server.command("DBSIZE");
    let long = "g".repeat(300);
    for bad in ["", long.as_str(), "a\nb"] {
        let out = run(&urls, &["group", "pause", "-q", "{jobs}", bad]);
        assert_eq!(code(&out), 2, "{bad:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("`group`"),
            "{bad:?}: {}",
            stderr(&out)
        );
        let add = run(
            &urls,
            &["add", "-q", "{jobs}", "--data", "x", "--group", bad],
        );
        assert_eq!(code(&add), 2, "{bad:?}: {}", stderr(&add));
        assert!(
            stderr(&add).contains("`group`"),
            "{bad:?}: {}",
            stderr(&add)
        );
    }
    assert_eq!(server.command("DBSIZE"), before);
}

#[tokio::test]
async fn a_bounded_queue_refuses_adds_past_its_capacity_with_exit_5() {
    let server = RedisServer::start();
    let urls = vec![server.url()];
    let q = client(&server).await.queue("{jobs}").unwrap();
    let add = |id: &str| run(&urls, &["add", "-q", "{jobs}", "--id", id, "--data", "x"]);

    // No bound by default.
    let fresh = json(&run(&urls, &["config", "-q", "{jobs}", "--json"]));
    assert!(fresh["stored"]["capacity"].is_null());
    assert!(fresh["effective"]["capacity"].is_null());
    let table = stdout(&run(&urls, &["config", "-q", "{jobs}"]));
    assert!(
        table
            .lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>()
                == ["capacity", "-", "none", "(default)"]),
        "{table}"
    );

    let out = run(
        &urls,
        &["config", "set", "-q", "{jobs}", "--capacity", "2", "--json"],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let set = json(&out);
    assert_eq!(set["stored"]["capacity"], 2);
    assert_eq!(set["effective"]["capacity"], 2);
    assert_eq!(q.config().await.unwrap().capacity, Some(2));
    let table = stdout(&run(&urls, &["config", "-q", "{jobs}"]));
    assert!(
        table
            .lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>() == ["capacity", "2", "2"]),
        "{table}"
    );

    assert_eq!(code(&add("a")), 0);
    let delayed = run(
        &urls,
        &[
            "add", "-q", "{jobs}", "--id", "b", "--data", "x", "--delay", "1h",
        ],
    );
    assert_eq!(code(&delayed), 0, "{}", stderr(&delayed));
    // Waiting and delayed items count: the third add is refused and writes nothing.
    let full = add("c");
    assert_eq!(code(&full), 5, "{}", stderr(&full));
    assert!(
        stderr(&full).contains("full") && stderr(&full).contains("--capacity"),
        "{}",
        stderr(&full)
    );
    assert!(stdout(&full).is_empty(), "{}", stdout(&full));
    assert!(q.get("c").await.unwrap().is_none());
    // Waiting for room that never comes ends the same way.
    let waited = run(
        &urls,
        &[
            "add",
            "-q",
            "{jobs}",
            "--id",
            "c",
            "--data",
            "x",
            "--wait-for-room",
            "200ms",
        ],
    );
    assert_eq!(code(&waited), 5, "{}", stderr(&waited));
    assert!(q.get("c").await.unwrap().is_none());

    let s = json(&run(&urls, &["stats", "-q", "{jobs}", "--json"]));
    assert_eq!(s["capacity"], 2);
    assert_eq!(s["paused"], false);
    let row = stats_row(&stdout(&run(&urls, &["stats", "-q", "{jobs}"])), "{jobs}");
    assert_eq!(row[12..], ["no", "2/2", "-"], "{row:?}");

    // An add that waits gets in once a lease makes room, whenever that happens.
    let waiting = std::process::Command::new(common::BIN)
        .args([
            "--url",
            &urls[0],
            "add",
            "-q",
            "{jobs}",
            "--id",
            "d",
            "--data",
            "x",
            "--wait-for-room",
            "1h",
        ])
        .env("NO_COLOR", "1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let lease = q
        .lease(Duration::from_secs(30), Wait::No)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(lease.id(), "a");
    let out = waiting.wait_with_output().unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "d");
    assert_eq!(q.get("d").await.unwrap().unwrap().state, State::Waiting);

    // Refused capacities name the option and write nothing: 0, and one below what it holds.
    for bad in ["0", "1"] {
        let out = run(&urls, &["config", "set", "-q", "{jobs}", "--capacity", bad]);
        assert_eq!(code(&out), 2, "{bad}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("--capacity"),
            "{bad}: {}",
            stderr(&out)
        );
        assert_eq!(q.config().await.unwrap().capacity, Some(2), "{bad}");
    }
    // Reset removes the bound.
    let reset = json(&run(&urls, &["config", "reset", "-q", "{jobs}", "--json"]));
    assert!(reset["effective"]["capacity"].is_null());
    assert_eq!(code(&add("e")), 0);
}

/// The RATE LIMIT cell of `queue`'s row of a `stats` table (the last column).
fn rate_cell(table: &str, queue: &str) -> String {
    stats_row(table, queue)[14..].join(" ")
}

#[tokio::test]
async fn a_rate_limit_is_set_by_config_and_stats_show_when_it_holds_leases_off() {
    let server = RedisServer::start();
    let urls = vec![server.url()];
    let q = client(&server).await.queue("{jobs}").unwrap();

    // No limit by default.
    let fresh = json(&run(&urls, &["config", "-q", "{jobs}", "--json"]));
    assert!(fresh["stored"]["rate_limit"].is_null(), "{fresh}");
    assert!(fresh["effective"]["rate_limit"].is_null(), "{fresh}");
    let table = stdout(&run(&urls, &["config", "-q", "{jobs}"]));
    assert!(
        table
            .lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>()
                == ["rate-limit", "-", "none", "(default)"]),
        "{table}"
    );

    // One lease an hour: the first lease fills the window.
    let out = run(
        &urls,
        &[
            "config",
            "set",
            "-q",
            "{jobs}",
            "--rate-limit",
            "1/1h",
            "--json",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let set = json(&out);
    let limit = serde_json::json!({"max": 1, "per_ms": 3_600_000});
    assert_eq!(set["stored"]["rate_limit"], limit, "{set}");
    assert_eq!(set["effective"]["rate_limit"], limit, "{set}");
    assert_eq!(
        q.config().await.unwrap().rate_limit,
        Some(leaseq::RateLimit::new(1, Duration::from_secs(3600)))
    );
    let table = stdout(&run(&urls, &["config", "-q", "{jobs}"]));
    assert!(
        table
            .lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>() == ["rate-limit", "1/1h", "1/1h"]),
        "{table}"
    );

    for id in ["a", "b"] {
        q.add(&Item::with_id(id, b"x".to_vec()).unwrap())
            .await
            .unwrap();
    }
    // Below the limit: shown, not limited.
    let s = json(&run(&urls, &["stats", "-q", "{jobs}", "--json"]));
    assert_eq!(s["rate_limit"], limit, "{s}");
    assert!(s["rate_limited_for_ms"].is_null(), "{s}");
    let table = stdout(&run(&urls, &["stats", "-q", "{jobs}"]));
    assert_eq!(rate_cell(&table, "{jobs}"), "1/1h", "{table}");

    // At it: the next lease gets nothing, and stats say for how long.
    let first = q.lease(Duration::from_secs(30), Wait::No).await.unwrap();
    assert_eq!(first.expect("the window's one lease").id(), "a");
    assert!(q
        .lease(Duration::from_secs(30), Wait::No)
        .await
        .unwrap()
        .is_none());
    let s = json(&run(&urls, &["stats", "-q", "{jobs}", "--json"]));
    let left = s["rate_limited_for_ms"].as_u64().expect("limited");
    assert!(left > 0 && left <= 3_600_000, "{s}");
    let table = stdout(&run(&urls, &["stats", "-q", "{jobs}"]));
    let cell = rate_cell(&table, "{jobs}");
    assert!(cell.starts_with("1/1h, limited for "), "{table}");

    // Refused values name the option and write nothing; a malformed one is a usage error.
    for bad in ["0/1s", "10/0s", "10/2d", "1000000001/1s"] {
        let out = run(
            &urls,
            &["config", "set", "-q", "{jobs}", "--rate-limit", bad],
        );
        assert_eq!(code(&out), 2, "{bad}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("--rate-limit") && stderr(&out).contains("nothing was written"),
            "{bad}: {}",
            stderr(&out)
        );
    }
    let out = run(
        &urls,
        &["config", "set", "-q", "{jobs}", "--rate-limit", "lots"],
    );
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("1000/1s"), "{}", stderr(&out));
    assert_eq!(
        q.config().await.unwrap().rate_limit,
        Some(leaseq::RateLimit::new(1, Duration::from_secs(3600)))
    );

    // Reset removes the limit (the window already counted runs out by itself).
    let reset = json(&run(&urls, &["config", "reset", "-q", "{jobs}", "--json"]));
    assert!(reset["effective"]["rate_limit"].is_null(), "{reset}");
    let s = json(&run(&urls, &["stats", "-q", "{jobs}", "--json"]));
    assert!(s["rate_limit"].is_null(), "{s}");
}

#[tokio::test]
async fn hold_holds_every_lease_off_and_keeps_a_longer_hold() {
    let server = RedisServer::start();
    let urls = vec![server.url()];
    let q = client(&server).await.queue("{jobs}").unwrap();
    q.add(&Item::with_id("a", b"x".to_vec()).unwrap())
        .await
        .unwrap();

    let out = run(&urls, &["hold", "-q", "{jobs}", "1h"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        stdout(&out).trim(),
        "{jobs}: held off; nothing is leased, by any client, for 1h"
    );
    // Without a rate limit too: nothing is leased.
    assert!(q
        .lease(Duration::from_secs(30), Wait::No)
        .await
        .unwrap()
        .is_none());
    let s = json(&run(&urls, &["stats", "-q", "{jobs}", "--json"]));
    assert!(s["rate_limit"].is_null(), "{s}");
    let left = s["rate_limited_for_ms"].as_u64().expect("held off");
    assert!(left > 0 && left <= 3_600_000, "{s}");
    let table = stdout(&run(&urls, &["stats", "-q", "{jobs}"]));
    assert!(
        rate_cell(&table, "{jobs}").starts_with("limited for "),
        "{table}"
    );

    // A shorter hold keeps the longer one, and says so; `rate-limit` is the same command.
    let out = run(&urls, &["rate-limit", "-q", "{jobs}", "1s", "--json"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let held = json(&out);
    assert_eq!(held["queue"], "{jobs}");
    assert!(held["group"].is_null(), "{held}");
    let ms = held["held_for_ms"].as_u64().expect("a duration");
    assert!(ms > 1000 && ms <= 3_600_000, "{held}");
    let out = run(&urls, &["hold", "-q", "{jobs}", "30s"]);
    assert!(
        stdout(&out).starts_with("{jobs}: already held off longer; nothing is leased for "),
        "{}",
        stdout(&out)
    );

    // A duration of 0 or over a day is refused, naming it.
    for bad in ["0s", "2d"] {
        let out = run(&urls, &["hold", "-q", "{jobs}", bad]);
        assert_eq!(code(&out), 2, "{bad}: {}", stderr(&out));
        assert!(stderr(&out).contains("duration"), "{bad}: {}", stderr(&out));
    }
    let out = run(&urls, &["hold", "-q", "{jobs}", "soon"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
}

#[tokio::test]
async fn a_group_rate_limit_is_set_by_config_and_group_shows_when_it_holds_a_group_off() {
    let server = RedisServer::start();
    let urls = vec![server.url()];
    let q = client(&server).await.queue("{jobs}").unwrap();

    // No limit by default.
    let fresh = json(&run(&urls, &["config", "-q", "{jobs}", "--json"]));
    assert!(fresh["stored"]["group_rate_limit"].is_null(), "{fresh}");
    assert!(fresh["effective"]["group_rate_limit"].is_null(), "{fresh}");
    let table = stdout(&run(&urls, &["config", "-q", "{jobs}"]));
    assert!(
        table
            .lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>()
                == ["group-rate-limit", "-", "none", "(default)"]),
        "{table}"
    );

    // One lease of each group an hour.
    let out = run(
        &urls,
        &[
            "config",
            "set",
            "-q",
            "{jobs}",
            "--group-rate-limit",
            "1/1h",
            "--json",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let set = json(&out);
    let limit = serde_json::json!({"max": 1, "per_ms": 3_600_000});
    assert_eq!(set["stored"]["group_rate_limit"], limit, "{set}");
    assert_eq!(set["effective"]["group_rate_limit"], limit, "{set}");
    assert!(set["stored"]["rate_limit"].is_null(), "{set}");
    assert_eq!(
        q.config().await.unwrap().group_rate_limit,
        Some(leaseq::RateLimit::new(1, Duration::from_secs(3600)))
    );
    let table = stdout(&run(&urls, &["config", "-q", "{jobs}"]));
    assert!(
        table
            .lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>()
                == ["group-rate-limit", "1/1h", "1/1h"]),
        "{table}"
    );

    // acme's first lease fills its window, beta's its own; then acme's next item waits while
    // an item of beta's and a plain one are leased.
    for (id, group) in [("a1", "acme"), ("a2", "acme"), ("b1", "beta")] {
        q.add(&Item::with_id(id, b"x".to_vec()).unwrap().group(group))
            .await
            .unwrap();
    }
    let mut leased = Vec::new();
    while let Some(l) = q.lease(Duration::from_secs(30), Wait::No).await.unwrap() {
        leased.push(l);
    }
    let mut ids: Vec<&str> = leased.iter().map(|l| l.id()).collect();
    ids.sort();
    assert_eq!(ids, ["a1", "b1"]);
    for l in &leased {
        assert!(q.complete(l).await.unwrap());
    }
    q.add(&Item::with_id("p", b"x".to_vec()).unwrap())
        .await
        .unwrap();
    let next = q.lease(Duration::from_secs(30), Wait::No).await.unwrap();
    assert_eq!(
        next.as_ref().map(|l| l.id()),
        Some("p"),
        "not a2: acme is at its limit"
    );
    assert!(q
        .lease(Duration::from_secs(30), Wait::No)
        .await
        .unwrap()
        .is_none());
    let acme = json(&run(&urls, &["group", "-q", "{jobs}", "acme", "--json"]));
    let left = acme["rate_limited_for_ms"].as_u64().expect("limited");
    assert!(left > 0 && left <= 3_600_000, "{acme}");
    assert_eq!(acme["waiting"], 1, "{acme}");
    let table = stdout(&run(&urls, &["group", "-q", "{jobs}", "acme"]));
    assert!(
        table
            .lines()
            .any(|l| l.trim().starts_with("rate  limited for ")),
        "{table}"
    );
    // beta used its one lease too, but is only limited once a lease meets it at the limit.
    let beta = json(&run(&urls, &["group", "-q", "{jobs}", "beta", "--json"]));
    assert!(beta["rate_limited_for_ms"].is_null(), "{beta}");
    // The queue itself is not limited.
    let s = json(&run(&urls, &["stats", "-q", "{jobs}", "--json"]));
    assert!(s["rate_limited_for_ms"].is_null(), "{s}");

    // Refused values name the option and write nothing; a malformed one is a usage error.
    for bad in ["0/1s", "10/0s", "10/2d", "1000000001/1s"] {
        let out = run(
            &urls,
            &["config", "set", "-q", "{jobs}", "--group-rate-limit", bad],
        );
        assert_eq!(code(&out), 2, "{bad}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("--group-rate-limit")
                && stderr(&out).contains("nothing was written"),
            "{bad}: {}",
            stderr(&out)
        );
    }
    let out = run(
        &urls,
        &[
            "config",
            "set",
            "-q",
            "{jobs}",
            "--group-rate-limit",
            "lots",
        ],
    );
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("1000/1s"), "{}", stderr(&out));
    assert_eq!(
        q.config().await.unwrap().group_rate_limit,
        Some(leaseq::RateLimit::new(1, Duration::from_secs(3600)))
    );

    // Reset removes the limit (the windows already counted run out by themselves).
    let reset = json(&run(&urls, &["config", "reset", "-q", "{jobs}", "--json"]));
    assert!(reset["effective"]["group_rate_limit"].is_null(), "{reset}");
    assert_eq!(q.config().await.unwrap().group_rate_limit, None);
}

#[tokio::test]
async fn hold_group_holds_one_group_off_and_the_queue_goes_on() {
    let server = RedisServer::start();
    let urls = vec![server.url()];
    let q = client(&server).await.queue("{jobs}").unwrap();
    for (id, group) in [("a1", Some("acme")), ("b1", Some("beta")), ("p", None)] {
        let item = Item::with_id(id, b"x".to_vec()).unwrap();
        q.add(&match group {
            Some(g) => item.group(g),
            None => item,
        })
        .await
        .unwrap();
    }

    let out = run(&urls, &["hold", "-q", "{jobs}", "--group", "acme", "1h"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        stdout(&out).trim(),
        "{jobs}: group acme held off; none of its items is leased, by any client, for 1h; the \
         rest of the queue goes on"
    );
    // Without a group rate limit too: acme waits, the rest is leased.
    let mut leased = Vec::new();
    while let Some(l) = q.lease(Duration::from_secs(30), Wait::No).await.unwrap() {
        leased.push(l);
    }
    let mut ids: Vec<&str> = leased.iter().map(|l| l.id()).collect();
    ids.sort();
    assert_eq!(ids, ["b1", "p"]);
    let acme = json(&run(&urls, &["group", "-q", "{jobs}", "acme", "--json"]));
    let left = acme["rate_limited_for_ms"].as_u64().expect("held off");
    assert!(left > 0 && left <= 3_600_000, "{acme}");
    assert_eq!(acme["waiting"], 1, "{acme}");
    let s = json(&run(&urls, &["stats", "-q", "{jobs}", "--json"]));
    assert!(
        s["rate_limited_for_ms"].is_null(),
        "the queue is not held: {s}"
    );

    // A shorter hold keeps the longer one, and says so; `rate-limit` is the same command.
    let out = run(
        &urls,
        &[
            "rate-limit",
            "-q",
            "{jobs}",
            "--group",
            "acme",
            "1s",
            "--json",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let held = json(&out);
    assert_eq!(held["queue"], "{jobs}");
    assert_eq!(held["group"], "acme");
    let ms = held["held_for_ms"].as_u64().expect("a duration");
    assert!(ms > 1000 && ms <= 3_600_000, "{held}");
    let out = run(&urls, &["hold", "-q", "{jobs}", "--group", "acme", "30s"]);
    assert!(
        stdout(&out).starts_with(
            "{jobs}: group acme already held off longer; none of its items is leased for "
        ),
        "{}",
        stdout(&out)
    );

    // A duration of 0 or over a day is refused naming it, a bad group naming `group`: nothing
    // is written.
    let before = server.command("DBSIZE");
    for bad in ["0s", "2d"] {
        let out = run(&urls, &["hold", "-q", "{jobs}", "--group", "beta", bad]);
        assert_eq!(code(&out), 2, "{bad}: {}", stderr(&out));
        assert!(stderr(&out).contains("duration"), "{bad}: {}", stderr(&out));
    }
    let long = "g".repeat(300);
    for bad in ["", long.as_str(), "a\nb"] {
        let out = run(&urls, &["hold", "-q", "{jobs}", "--group", bad, "1m"]);
        assert_eq!(code(&out), 2, "{bad:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("`group`"),
            "{bad:?}: {}",
            stderr(&out)
        );
    }
    assert_eq!(server.command("DBSIZE"), before);
    assert!(
        json(&run(&urls, &["group", "-q", "{jobs}", "beta", "--json"]))["rate_limited_for_ms"]
            .is_null()
    );
}

#[tokio::test]
async fn config_shows_sets_and_resets_what_every_client_reads() {
    let server = RedisServer::start();
    let urls = vec![server.url()];
    let q = client(&server).await.queue("{jobs}").unwrap();

    // Nothing stored: every default applies, counters off.
    let fresh = json(&run(&urls, &["config", "-q", "{jobs}", "--json"]));
    assert_eq!(fresh["queue"], "{jobs}");
    assert!(fresh["stored"]
        .as_object()
        .unwrap()
        .values()
        .all(|v| v.is_null()));
    assert_eq!(fresh["effective"]["stats"], false);
    assert_eq!(fresh["effective"]["max_attempts"], 25);
    assert_eq!(fresh["effective"]["keep_result_for_ms"], 86_400_000);
    assert_eq!(fresh["effective"]["group_concurrency"], 1);
    assert!(fresh["effective"]["expires_after_ms"].is_null());
    assert_eq!(
        fresh["effective"]["backoff"],
        serde_json::json!({"kind": "exponential", "base_ms": 1000, "cap_ms": 3_600_000, "jitter": true})
    );
    let table = stdout(&run(&urls, &["config", "-q", "{jobs}"]));
    assert!(table.starts_with("SETTING"), "{table}");
    assert!(
        table
            .lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>() == ["stats", "-", "off", "(default)"]),
        "{table}"
    );
    assert_eq!(server.command("DBSIZE").trim().trim_start_matches(':'), "0");

    let out = run(
        &urls,
        &[
            "config",
            "set",
            "-q",
            "{jobs}",
            "--stats",
            "on",
            "--max-attempts",
            "3",
            "--priority",
            "-5",
            "--backoff",
            "exp:2s:1m:no-jitter",
            "--expires-after",
            "1h",
            "--keep-result-for",
            "2d",
            "--dead-max-count",
            "7",
            "--dead-max-age",
            "3d",
            "--json",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let set = json(&out);
    assert_eq!(set["stored"]["stats"], true);
    assert_eq!(set["effective"]["priority"], -5);
    // What another client reads.
    let secs = Duration::from_secs;
    assert_eq!(
        q.config().await.unwrap(),
        QueueConfig::new()
            .stats(true)
            .max_attempts(3)
            .priority(-5)
            .backoff(Backoff::Exponential {
                base: secs(2),
                cap: secs(60),
                jitter: false
            })
            .expires_after(secs(3600))
            .keep_result_for(secs(2 * 86_400))
            .dead_max_count(7)
            .dead_max_age(secs(3 * 86_400))
    );
    // Items added from now on take the queue's priority; the queue counts.
    let id = stdout(&run(&urls, &["add", "-q", "{jobs}", "--data", "x"]));
    let got = json(&run(&urls, &["get", "-q", "{jobs}", id.trim(), "--json"]));
    assert_eq!(got["priority"], -5);
    let lease = q
        .lease(Duration::from_secs(30), Wait::No)
        .await
        .unwrap()
        .unwrap();
    assert!(q.complete(&lease).await.unwrap());
    let s = json(&run(&urls, &["stats", "-q", "{jobs}", "--json"]));
    assert_eq!(s["counters"], true);
    assert_eq!(s["last_hour"]["completed"], 1);
    // The table shows the stored value as given, and that it applies.
    let table = stdout(&run(&urls, &["config", "-q", "{jobs}"]));
    assert!(
        table
            .lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>()
                == ["backoff", "exp:2s:1m:no-jitter", "exp:2s:1m:no-jitter"]),
        "{table}"
    );

    // A refused value names its option and writes nothing, not even the valid ones beside it.
    for (args, option) in [
        (vec!["--keep-result-for", "0"], "--keep-result-for"),
        (vec!["--priority", "5000"], "--priority"),
        (vec!["--backoff", "exp:0s:1h"], "--backoff"),
        (vec!["--backoff", "linear:1s"], "--backoff"),
        (vec!["--expires-after", "11y"], "--expires-after"),
        (vec!["--dead-max-age", "soon"], "--dead-max-age"),
        (vec!["--stats", "maybe"], "--stats"),
        (vec!["--max-attempts", "-1"], "--max-attempts"),
    ] {
        let mut all = vec!["config", "set", "-q", "{jobs}", "--stats", "off"];
        if option == "--stats" {
            all.truncate(4);
        }
        all.extend(&args);
        let out = run(&urls, &all);
        assert_eq!(code(&out), 2, "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(option), "{args:?}: {}", stderr(&out));
        assert_eq!(q.config().await.unwrap().stats, Some(true), "{args:?}");
    }
    let nothing = run(&urls, &["config", "set", "-q", "{jobs}"]);
    assert_eq!(code(&nothing), 2);
    assert!(stderr(&nothing).contains("--stats"), "{}", stderr(&nothing));

    // Turned off: stats says so at once.
    let off = run(&urls, &["config", "set", "-q", "{jobs}", "--stats", "off"]);
    assert_eq!(code(&off), 0, "{}", stderr(&off));
    let s = json(&run(&urls, &["stats", "-q", "{jobs}", "--json"]));
    assert_eq!(s["counters"], false);
    assert!(s["last_hour"].is_null());

    // Reset: nothing stored, the defaults apply again.
    let reset = json(&run(&urls, &["config", "reset", "-q", "{jobs}", "--json"]));
    assert!(reset["stored"]
        .as_object()
        .unwrap()
        .values()
        .all(|v| v.is_null()));
    assert_eq!(reset["effective"], fresh["effective"]);
    assert_eq!(q.config().await.unwrap(), QueueConfig::new());
}

#[tokio::test]
async fn dead_letters_ls_requeue_purge() {
    let server = RedisServer::start();
    let urls = vec![server.url()];
    let q = client(&server).await.queue("jobs").unwrap();
    for id in ["d1", "d2", "d3", "d4"] {
        common::dead(&q, id, b"x", &format!("{id} failed"), "Timeout").await;
    }
    let ls = json(&run(&urls, &["dead", "ls", "-q", "jobs", "--json"]));
    let ids: Vec<&str> = ls
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["d1", "d2", "d3", "d4"]);
    assert_eq!(ls[0]["error"], "d1 failed");
    assert_eq!(ls[0]["error_type"], "Timeout");
    assert_eq!(ls[0]["attempts"], 1);
    assert_eq!(
        ls[0]["reason"], "failed without retry",
        "why it died, as `get` says"
    );
    let table = run(&urls, &["dead", "ls", "-q", "jobs"]);
    let out = String::from_utf8_lossy(&table.stdout);
    assert!(
        out.contains("REASON") && out.contains("failed without retry"),
        "{out}"
    );

    // An id that is not a dead letter is named (exit 1); the others are requeued.
    let out = run(
        &urls,
        &["dead", "requeue", "-q", "jobs", "d2", "nope", "--json"],
    );
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert_eq!(
        json(&out),
        serde_json::json!({"requeued": 1, "not_dead": [{"id": "nope", "state": null}]})
    );
    assert!(
        stderr(&out).contains("`nope` (no such item)"),
        "{}",
        stderr(&out)
    );
    assert_eq!(q.get("d2").await.unwrap().unwrap().state, State::Waiting);
    let r = json(&run(
        &urls,
        &["dead", "requeue", "-q", "jobs", "--oldest", "1", "--json"],
    ));
    assert_eq!(r, serde_json::json!({"requeued": 1}));
    assert_eq!(q.get("d1").await.unwrap().unwrap().state, State::Waiting);
    let p = json(&run(
        &urls,
        &["dead", "purge", "-q", "jobs", "--all", "--json"],
    ));
    assert_eq!(p, serde_json::json!({"purged": 2}));
    assert_eq!(q.count(State::Dead).await.unwrap(), 0);
    assert!(q.get("d3").await.unwrap().is_none());
}

#[tokio::test]
async fn workers_lists_live_runners() {
    let server = RedisServer::start();
    let urls = vec![server.url()];
    let out = run(&urls, &["workers", "-q", "jobs"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stderr(&out).contains("no live runner"), "{}", stderr(&out));

    let client = leaseq::Client::connect(&urls[0]).await.unwrap();
    let q = client.queue("jobs").unwrap();
    let mut options = leaseq::worker::WorkerOptions::new();
    options.concurrency = Some(7);
    options.heartbeat = Some(std::time::Duration::from_millis(100));
    let worker = leaseq::worker::Worker::new(q.clone(), |_job: leaseq::worker::Job| async {
        Ok::<(), leaseq::worker::JobError>(())
    })
    .options(options);
    let handle = worker.handle();
    let run_task = tokio::spawn(worker.run_until(std::future::pending()));
    while q.runners().await.unwrap().housekeeper.is_none() {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let j = json(&run(&urls, &["workers", "-q", "jobs", "--json"]));
    let list = j["workers"].as_array().unwrap();
    assert_eq!(list.len(), 1, "{j}");
    assert_eq!(list[0]["info"]["concurrency"], 7);
    assert_eq!(list[0]["info"]["language"], "rust");
    assert_eq!(list[0]["housekeeper"], true);
    assert_eq!(j["housekeeper"], list[0]["id"]);
    let table = run(&urls, &["workers", "-q", "jobs"]);
    assert!(stdout(&table).contains("0/7"), "{}", stdout(&table));
    handle.stop();
    run_task.await.unwrap().unwrap();
}

#[tokio::test]
async fn check_finds_eviction_and_acl_problems() {
    let server = RedisServer::start();
    let urls = vec![server.url()];
    let ok = run(&urls, &["check", "-q", "{jobs}", "--json"]);
    assert_eq!(code(&ok), 0, "{}", stderr(&ok));
    let findings = json(&ok);
    let level = |f: &serde_json::Value, name: &str| {
        f.as_array()
            .unwrap()
            .iter()
            .find(|x| x["check"] == name)
            .unwrap()["level"]
            .clone()
    };
    assert_eq!(level(&findings, "eviction"), "ok");
    assert_eq!(level(&findings, "acl"), "ok");
    // The harness runs without persistence: a warning, not a problem.
    assert_eq!(level(&findings, "persistence"), "warning");

    server.command("CONFIG SET maxmemory-policy allkeys-lru");
    server.command("ACL SETUSER ro on >pw ~* +@read +acl +info +config");
    let ro = vec![server.url().replace("redis://", "redis://ro:pw@")];
    let bad = run(&ro, &["check", "-q", "{jobs}"]);
    assert_eq!(code(&bad), 1);
    let text = stdout(&bad);
    assert!(text.contains("allkeys-lru"), "{text}");
    assert!(
        text.contains("CONFIG SET maxmemory-policy noeviction"),
        "{text}"
    );
    assert!(text.contains("ACL SETUSER ro"), "{text}");
    assert!(stderr(&bad).contains("2 problem(s)"), "{}", stderr(&bad));
}

#[tokio::test]
async fn clean_once_recovers_an_expired_lease_and_the_daemon_stops_on_sigterm() {
    let server = RedisServer::start();
    let urls = vec![server.url()];
    let q = client(&server).await.queue("jobs").unwrap();
    q.add(&Item::with_id("x", b"x".to_vec()).unwrap())
        .await
        .unwrap();
    let lease = q
        .lease(Duration::from_millis(1), Wait::No)
        .await
        .unwrap()
        .unwrap();
    drop(lease);
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert_eq!(q.count(State::Leased).await.unwrap(), 1);
    let out = run(&urls, &["clean", "-q", "jobs", "--once"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stderr(&out).contains("requeued=1"), "{}", stderr(&out));
    assert_eq!(q.count(State::Waiting).await.unwrap(), 1);

    let mut daemon = std::process::Command::new(common::BIN)
        .args([
            "--url",
            &urls[0],
            "clean",
            "-q",
            "jobs",
            "--every",
            "100ms",
            "--deep-every",
            "0",
        ])
        .env("NO_COLOR", "1")
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait for a pass to be logged, then ask it to stop.
    let mut log = std::io::BufReader::new(daemon.stderr.take().unwrap());
    let mut seen = String::new();
    while !seen.contains("cleaned") {
        let mut line = String::new();
        assert!(
            std::io::BufRead::read_line(&mut log, &mut line).unwrap() > 0,
            "{seen}"
        );
        seen.push_str(&line);
    }
    std::process::Command::new("kill")
        .args(["-TERM", &daemon.id().to_string()])
        .status()
        .unwrap();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut log, &mut rest).unwrap();
    let status = daemon.wait().unwrap();
    assert!(status.success(), "{status:?} {rest}");
    assert!(
        rest.contains("cleaner stopped") && rest.contains("SIGTERM"),
        "{rest}"
    );
}

#[test]
fn a_cluster_through_several_urls() {
    let cluster = RedisCluster::start();
    let urls = cluster.urls();
    let out = run(
        &urls,
        &["add", "-q", "{c}jobs", "--id", "one", "--data", "x"],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let other = run(&urls, &["add", "-q", "{other}", "--data", "y"]);
    assert_eq!(code(&other), 0, "{}", stderr(&other));
    assert_eq!(
        json(&run(&urls, &["queues", "--json"])),
        serde_json::json!(["{c}jobs", "{other}"])
    );
    let s = json(&run(&urls, &["stats", "-q", "{c}jobs", "--json"]));
    assert_eq!(s["waiting"], 1);
    assert_eq!(
        json(&run(&urls, &["get", "-q", "{c}jobs", "one", "--json"]))["state"],
        "waiting"
    );
    // Whether a queue exists is one EXISTS of its keys, all in its slot: a typo exits 6.
    let typo = run(&urls, &["stats", "-q", "{c}jbos"]);
    assert_eq!(code(&typo), 6, "{}", stderr(&typo));
    assert_eq!(code(&run(&urls, &["get", "-q", "{c}jobs", "nope"])), 1);
    // One URL with --cluster works too.
    let one = run(
        &urls[..1],
        &["--cluster", "ls", "waiting", "-q", "{c}jobs", "--json"],
    );
    assert_eq!(json(&one)[0]["id"], "one");
    // A prefix without a hash tag cannot be a cluster queue: refused before sending.
    let bad = run(&urls, &["add", "-q", "plain", "--data", "x"]);
    assert_eq!(code(&bad), 2);
    assert!(stderr(&bad).contains("hash tag"), "{}", stderr(&bad));
    let check = json(&run(&urls, &["check", "-q", "{c}jobs", "--json"]));
    let slot = check
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["check"] == "cluster slot")
        .unwrap();
    assert!(slot["found"]
        .as_str()
        .unwrap()
        .contains(&leaseq::key_slot(b"c").to_string()));
}

#[tokio::test]
async fn get_shows_the_last_failures_trace_line_by_line() {
    let server = RedisServer::start();
    let urls = vec![server.url()];
    let q = client(&server).await.queue("jobs").unwrap();
    q.add(
        &leaseq::Item::with_id("t", b"x".to_vec())
            .unwrap()
            .max_attempts(1),
    )
    .await
    .unwrap();
    let lease = q
        .lease(std::time::Duration::from_secs(30), leaseq::Wait::No)
        .await
        .unwrap()
        .unwrap();
    let trace = "Error: boom\n    at handler (job.js:7:11)\n\x1b[31mred\x1b[0m";
    q.fail_with_trace(&lease, "boom", "Error", leaseq::Retry::Never, Some(trace))
        .await
        .unwrap();
    let got = json(&run(&urls, &["get", "-q", "jobs", "t", "--json"]));
    assert_eq!(got["trace"], trace, "{got}");
    let text = stdout(&run(&urls, &["get", "-q", "jobs", "t"]));
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.trim_end().ends_with("trace"))
        .unwrap_or_else(|| panic!("no trace heading:\n{text}"));
    assert_eq!(
        &lines[at + 1..],
        [
            "    Error: boom",
            "        at handler (job.js:7:11)",
            // A terminal's escape sequences are shown, not obeyed.
            "    \\x1b[31mred\\x1b[0m",
        ],
        "{text}"
    );
}

#[tokio::test]
async fn an_unknown_queue_and_unknown_ids_are_told_from_empty_ones() {
    let server = RedisServer::start();
    let urls = vec![server.url()];
    let c = client(&server).await;
    // A queue that exists but is empty: zeros, exit 0.
    let empty = c.queue("{empty}").unwrap();
    empty
        .set_config(&QueueConfig::new().max_attempts(3))
        .await
        .unwrap();
    let out = run(&urls, &["stats", "-q", "{empty}", "--json"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(json(&out)["waiting"], 0);
    assert_eq!(code(&run(&urls, &["ls", "waiting", "-q", "{empty}"])), 0);
    assert_eq!(
        code(&run(&urls, &["dead", "purge", "-q", "{empty}", "--all"])),
        0
    );

    // A mistyped queue: exit 6 and a message that says so, for every command that reads it.
    for args in [
        vec!["stats", "-q", "{emtpy}"],
        vec!["stats", "-q", "{emtpy}", "--json"],
        vec!["ls", "dead", "-q", "{emtpy}"],
        vec!["dead", "ls", "-q", "{emtpy}"],
        vec!["get", "-q", "{emtpy}", "x"],
        vec!["cancel", "-q", "{emtpy}", "x"],
        vec!["dead", "requeue", "-q", "{emtpy}", "x"],
        vec!["dead", "requeue", "-q", "{emtpy}", "--all"],
        vec!["dead", "purge", "-q", "{emtpy}", "--all"],
    ] {
        let out = run(&urls, &args);
        assert_eq!(code(&out), 6, "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("no queue `{emtpy}`"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    // The table is not printed for a queue that is not there, nor a hint that would create it.
    let out = run(&urls, &["stats", "-q", "{emtpy}"]);
    assert_eq!(stdout(&out), "", "{}", stderr(&out));
    assert!(!stderr(&out).contains("config set"), "{}", stderr(&out));
    // A write to a queue that is not there does it (pausing a queue before its producers start
    // is fine), and says that the queue is new; to one that exists, it says nothing of it.
    for args in [
        vec!["pause", "-q", "{typo1}"],
        vec!["hold", "-q", "{typo2}", "5s"],
        vec!["config", "set", "-q", "{typo3}", "--max-attempts", "4"],
    ] {
        let out = run(&urls, &args);
        assert_eq!(code(&out), 0, "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("existed before this (a typo?"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    let out = run(&urls, &["pause", "-q", "{empty}"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(!stderr(&out).contains("existed before"), "{}", stderr(&out));

    // Ids that are not dead letters are named, with what they are; exit 1.
    let q = c.queue("{jobs}").unwrap();
    common::dead(&q, "d", b"x", "boom", "Boom").await;
    q.add(&Item::with_id("w", b"x".to_vec()).unwrap())
        .await
        .unwrap();
    let out = run(
        &urls,
        &["dead", "requeue", "-q", "{jobs}", "d", "nosuch", "w", "d"],
    );
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "requeued 1");
    let said = stderr(&out);
    assert!(
        said.contains("`nosuch` (no such item)") && said.contains("`w` (is waiting)"),
        "{said}"
    );
    assert!(
        !said.contains("`d`"),
        "a repeated id is not reported: {said}"
    );
    let out = run(
        &urls,
        &["dead", "requeue", "-q", "{jobs}", "nosuch", "--json"],
    );
    assert_eq!(code(&out), 1);
    assert_eq!(
        json(&out),
        serde_json::json!({"requeued": 0, "not_dead": [{"id": "nosuch", "state": null}]})
    );
    let out = run(&urls, &["get", "-q", "{jobs}", "nosuch"]);
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).contains("no item `nosuch`"),
        "{}",
        stderr(&out)
    );
}

#[tokio::test]
async fn get_of_a_completed_job_shows_what_its_kept_result_knows() {
    let server = RedisServer::start();
    let urls = vec![server.url()];
    let c = client(&server).await;
    let q = c.queue("{jobs}").unwrap();
    q.add(&Item::with_id("r", b"in".to_vec()).unwrap().max_attempts(3))
        .await
        .unwrap();
    let ttl = Duration::from_secs(30);
    let first = q.lease(ttl, Wait::No).await.unwrap().unwrap();
    q.fail(&first, "flaky", "", leaseq::Retry::After(Duration::ZERO))
        .await
        .unwrap();
    let second = q.lease(ttl, Wait::No).await.unwrap().unwrap();
    assert!(q
        .complete_with_result(&second, Some(b"out"), None)
        .await
        .unwrap());
    let kept = q.result("r").await.unwrap().unwrap();
    assert_eq!(kept.attempts, 2);

    let got = json(&run(&urls, &["get", "-q", "{jobs}", "r", "--json"]));
    assert_eq!(got["state"], "done");
    assert_eq!(got["attempts"], 2, "{got}");
    assert_eq!(got["added_at"].as_u64(), kept.added_at);
    assert!(kept.added_at.is_some());
    assert_eq!(got["finished_at"].as_u64(), Some(kept.finished_at));
    assert_eq!(got["data_kept"], false);
    assert_eq!(got["result"], "out");

    let table = stdout(&run(&urls, &["get", "-q", "{jobs}", "r"]));
    let line = |name: &str| {
        table
            .lines()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap_or_else(|| panic!("no `{name}` in {table}"))
            .to_owned()
    };
    assert!(line("attempts").trim_end().ends_with(" 2"), "{table}");
    assert!(!line("added").contains(" -"), "{table}");
    assert!(line("data").contains("not kept"), "{table}");
    assert!(!table.contains("0 bytes"), "{table}");
}

/// Dependencies (spec 5.24): `add --depends-on`, `get` shows them, `ls blocked`, `tree` shows
/// the tree with each item's state (ids escaped), and a bad policy is refused.
#[tokio::test]
async fn dependencies_in_add_get_ls_and_tree() {
    let server = RedisServer::start();
    let urls = vec![server.url()];
    let client = client(&server).await;
    let q = client.queue("{jobs}").unwrap();
    q.add_flow(
        &Item::with_id("report", "r").unwrap(),
        &[
            leaseq::Flow::new(Item::with_id("part\\eu", "eu").unwrap()),
            Item::with_id("part-us", "us").unwrap().into(),
        ],
    )
    .await
    .unwrap();
    let out = run(
        &urls,
        &[
            "add",
            "-q",
            "{jobs}",
            "--id",
            "email",
            "--data",
            "e",
            "--depends-on",
            "report",
            "--on-dependency-failure",
            "run",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let got = json(&run(&urls, &["get", "-q", "{jobs}", "email", "--json"]));
    assert_eq!(got["state"], "blocked");
    assert_eq!(got["depends_on"], serde_json::json!(["report"]));
    assert_eq!(got["on_dependency_failure"], "run");
    let text = stdout(&run(&urls, &["get", "-q", "{jobs}", "email"]));
    assert!(
        text.lines()
            .any(|l| l.trim() == "depends on  report (if one fails: run; `leaseq tree` shows them)"),
        "{text}"
    );
    let listed = json(&run(&urls, &["ls", "-q", "{jobs}", "blocked", "--json"]));
    assert_eq!(listed.as_array().unwrap().len(), 2, "{listed}");

    // The US part completes; the tree shows what is left, each id escaped.
    let lease = q
        .lease(Duration::from_secs(30), Wait::No)
        .await
        .unwrap()
        .unwrap();
    let lease2 = q
        .lease(Duration::from_secs(30), Wait::No)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(lease2.id(), "part-us");
    assert!(q.complete(&lease2).await.unwrap());
    let tree = stdout(&run(&urls, &["tree", "-q", "{jobs}", "email"]));
    assert_eq!(
        tree.lines().collect::<Vec<_>>(),
        [
            "email  blocked  (waits for 1)",
            "└─ report  blocked  (waits for 1)",
            "   ├─ part\\\\eu  leased",
            "   └─ part-us  gone",
        ],
        "{tree}"
    );
    let tree = json(&run(&urls, &["tree", "-q", "{jobs}", "report", "--json"]));
    assert_eq!(tree["pending"], serde_json::json!(["part\\eu"]));
    assert_eq!(tree["dependants"], 1);
    assert_eq!(tree["children"][1]["state"], "gone");
    drop(lease);

    let bad = run(
        &urls,
        &[
            "add",
            "-q",
            "{jobs}",
            "--data",
            "x",
            "--on-dependency-failure",
            "maybe",
        ],
    );
    assert_eq!(code(&bad), 2, "{}", stderr(&bad));
    assert!(
        stderr(&bad).contains("on_dependency_failure"),
        "{}",
        stderr(&bad)
    );
    let missing = run(&urls, &["tree", "-q", "{jobs}", "nothing"]);
    assert_eq!(code(&missing), 1, "{}", stderr(&missing));
}

/// Output piped into a reader that went away (`leaseq ... | head -1`, the reader gone before
/// the command printed) ends quietly: no panic, exit 0.
#[tokio::test]
async fn a_closed_pipe_ends_the_output_without_a_panic() {
    let server = RedisServer::start();
    let c = client(&server).await;
    c.queue("piped")
        .unwrap()
        .add(&leaseq::Item::new("x"))
        .await
        .unwrap();
    for args in [
        &["config", "-q", "piped"][..],
        &["ls", "-q", "piped", "waiting"],
    ] {
        let mut child = std::process::Command::new(common::BIN)
            .arg("--url")
            .arg(server.url())
            .args(args)
            .env("NO_COLOR", "1")
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // The reader goes away before the command prints anything.
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
    }
}
