//! `leaseq schedules`: add (cron with a time zone, every), list with next fire times (table and
//! JSON), bad input refused naming the argument with nothing written, fire, rm.

use crate::common;

use common::{code, json, run, stderr, stdout};
use leaseq_harness::RedisServer;

#[tokio::test]
async fn schedules_are_added_listed_fired_and_removed() {
    let server = RedisServer::start();
    let urls = vec![server.url()];
    let empty = run(&urls, &["schedules", "-q", "{jobs}"]);
    assert_eq!(code(&empty), 0, "{}", stderr(&empty));
    assert!(stderr(&empty).contains("no schedule"), "{}", stderr(&empty));

    let add = run(
        &urls,
        &[
            "schedules",
            "add",
            "-q",
            "{jobs}",
            "nightly",
            "--cron",
            "0 3 * * *",
            "--tz",
            "Europe/Berlin",
            "--data",
            "report",
            "--missed",
            "once",
            "--item-name",
            "report",
        ],
    );
    assert_eq!(code(&add), 0, "{}", stderr(&add));
    assert_eq!(stdout(&add).trim(), "added nightly");
    let again = run(
        &urls,
        &[
            "schedules",
            "add",
            "-q",
            "{jobs}",
            "nightly",
            "--cron",
            "0 4 * * *",
            "--tz",
            "Europe/Berlin",
        ],
    );
    assert_eq!(
        stdout(&again).trim(),
        "changed nightly",
        "{}",
        stderr(&again)
    );
    let every = run(
        &urls,
        &["schedules", "add", "-q", "{jobs}", "beat", "--every", "1m"],
    );
    assert_eq!(code(&every), 0, "{}", stderr(&every));

    // Refused, naming the argument, exit 2, nothing written.
    for (args, named) in [
        (vec!["--cron", "0 3 * *"], "cron"),
        (vec!["--cron", "0 3 * * *", "--tz", "Mars/Base"], "tz"),
        (vec!["--every", "10ms"], "every"),
        (vec!["--every", "1m", "--missed", "sometimes"], "missed"),
    ] {
        let mut argv = vec!["schedules", "add", "-q", "{jobs}", "bad"];
        argv.extend(args);
        let out = run(&urls, &argv);
        assert_eq!(code(&out), 2, "{argv:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(named), "{argv:?}: {}", stderr(&out));
    }

    let j = json(&run(&urls, &["schedules", "-q", "{jobs}", "--json"]));
    let list = j["schedules"].as_array().unwrap();
    assert_eq!(list.len(), 2, "{j}");
    let nightly = list.iter().find(|s| s["name"] == "nightly").unwrap();
    assert_eq!(nightly["cron"], "0 4 * * *");
    assert_eq!(nightly["tz"], "Europe/Berlin");
    assert_eq!(nightly["version"], 2);
    assert!(nightly["next_ms"].as_u64().unwrap() > j["now_ms"].as_u64().unwrap());
    let beat = list.iter().find(|s| s["name"] == "beat").unwrap();
    assert_eq!(beat["every_ms"], 60_000);
    let table = stdout(&run(&urls, &["schedules", "-q", "{jobs}"]));
    assert!(table.contains("0 4 * * * (Europe/Berlin)"), "{table}");
    assert!(table.contains("every 1m"), "{table}");

    let fired = json(&run(
        &urls,
        &["schedules", "fire", "-q", "{jobs}", "--json"],
    ));
    assert_eq!(
        (fired["due"].as_u64(), fired["fired"].as_u64()),
        (Some(2), Some(0)),
        "{fired}"
    );

    let rm = run(&urls, &["schedules", "rm", "-q", "{jobs}", "beat"]);
    assert_eq!(code(&rm), 0, "{}", stderr(&rm));
    let gone = run(&urls, &["schedules", "rm", "-q", "{jobs}", "beat"]);
    assert_eq!(code(&gone), 1, "{}", stderr(&gone));
}
