//! `leaseq workers`: the live runners of a queue, as they registered themselves
//! (spec/PROTOCOL.md, 13.2), and which of them does the housekeeping.

use crate::fail::Outcome;
use crate::output;

/// Lists the live runners: id, language, host and pid, concurrency, running jobs and counters.
/// An empty list is not an error: a queue may have no runner right now.
pub async fn workers(client: &leaseq::Client, queue: &str, json: bool) -> Outcome {
    // A partitioned queue's base: every partition's runners, each once.
    let found = super::partitions::Target::open(client, queue)
        .await?
        .runners()
        .await?;
    if json {
        let runners: Vec<serde_json::Value> = found
            .runners
            .iter()
            .map(|r| {
                serde_json::json!({
                    "id": r.id,
                    "expires_ms": r.expires_ms,
                    "housekeeper": r.housekeeper,
                    "info": r.info,
                })
            })
            .collect();
        output::json(&serde_json::json!({
            "now_ms": found.now_ms,
            "housekeeper": found.housekeeper,
            "workers": runners,
        }));
        return Ok(());
    }
    if found.runners.is_empty() {
        tell!("no live runner of `{queue}` (runners register themselves while they run)");
        return Ok(());
    }
    let num = |r: &leaseq::RunnerEntry, field: &str| {
        r.info
            .get(field)
            .and_then(|v| v.as_u64())
            .map_or("-".into(), |n| n.to_string())
    };
    let text = |r: &leaseq::RunnerEntry, field: &str| {
        r.info
            .get(field)
            .and_then(|v| v.as_str())
            .unwrap_or("-")
            .to_owned()
    };
    let rows: Vec<Vec<String>> = found
        .runners
        .iter()
        .map(|r| {
            let running = r
                .info
                .get("running")
                .and_then(|v| v.as_array())
                .map_or(0, Vec::len);
            vec![
                r.id.clone(),
                text(r, "language"),
                format!("{}/{}", running, num(r, "concurrency")),
                num(r, "completed"),
                num(r, "failed"),
                num(r, "dead"),
                num(r, "lost"),
                if r.housekeeper {
                    output::green("yes")
                } else {
                    String::new()
                },
            ]
        })
        .collect();
    output::table(
        &[
            "RUNNER",
            "LANGUAGE",
            "RUNNING",
            "COMPLETED",
            "FAILED",
            "DEAD",
            "LOST",
            "CLEANS",
        ],
        &rows,
    );
    Ok(())
}
