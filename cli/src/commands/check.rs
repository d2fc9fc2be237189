//! `leaseq check`: what the server offers a queue, what is wrong, and how to fix it.

use serde::Serialize;

use crate::fail::{Fail, Outcome};
use crate::output::{self, green, red, yellow};

/// One finding.
#[derive(Debug, Serialize)]
struct Finding {
    /// What was checked.
    check: &'static str,
    /// ok, warning or problem.
    level: &'static str,
    /// What was found.
    found: String,
    /// How to fix it, when something is wrong.
    fix: Option<String>,
}

/// One partition's findings, for a partitioned queue's base.
#[derive(Debug, Serialize)]
struct PartitionFindings {
    /// The partition's prefix.
    queue: String,
    /// What was found on the primary that serves it.
    findings: Vec<Finding>,
}

/// Runs the checks; exits 1 when one found a problem (warnings alone exit 0). On a partitioned
/// queue's base, every partition's (each may live on another primary): the text shows each under
/// its prefix, the JSON is a list of `{queue, findings}`.
pub async fn check(client: &leaseq::Client, queue: &str, json: bool) -> Outcome {
    let target = super::partitions::Target::open(client, queue).await?;
    let partitions = match &target {
        super::partitions::Target::Plain(_) => None,
        super::partitions::Target::Partitioned(p) => Some(p.partitions()),
    };
    let Some(parts) = partitions else {
        let findings = findings(&client.server_report(queue).await?, queue);
        if json {
            output::json(&findings);
        } else {
            print_findings(&findings);
        }
        return verdict(&findings, queue);
    };
    let mut all = Vec::with_capacity(parts.len() + 1);
    let mut servers = Vec::with_capacity(parts.len());
    for part in parts {
        let report = client.server_report(part.prefix()).await?;
        all.push(PartitionFindings {
            queue: part.prefix().to_owned(),
            findings: findings(&report, part.prefix()),
        });
        servers.push(report);
    }
    // The base's own finding, last: how the partitions spread over the servers.
    all.push(PartitionFindings {
        queue: queue.to_owned(),
        findings: vec![spread(&servers)],
    });
    if json {
        output::json(&all);
    } else {
        for (i, p) in all.iter().enumerate() {
            if i > 0 {
                say!("");
            }
            let what = if i + 1 < all.len() {
                "partition"
            } else {
                "queue"
            };
            say!("{what} {}", p.queue);
            print_findings(&p.findings);
        }
    }
    let problems: usize = all.iter().map(|p| problems(&p.findings)).sum();
    if problems > 0 {
        return Err(Fail::NotFound(format!(
            "{problems} problem(s) found for queue `{queue}` (over its {} partitions)",
            servers.len()
        )));
    }
    Ok(())
}

/// How many findings are problems.
fn problems(findings: &[Finding]) -> usize {
    findings.iter().filter(|f| f.level == "problem").count()
}

/// Exit 1 (naming the queue) when a finding is a problem.
fn verdict(findings: &[Finding], queue: &str) -> Outcome {
    match problems(findings) {
        0 => Ok(()),
        n => Err(Fail::NotFound(format!(
            "{n} problem(s) found for queue `{queue}`"
        ))),
    }
}

/// The findings as text: a line each, and the fix below.
fn print_findings(findings: &[Finding]) {
    for f in findings {
        let level = match f.level {
            "ok" => green("ok     "),
            "warning" => yellow("warning"),
            _ => red("problem"),
        };
        say!("{level}  {:<13} {}", f.check, f.found);
        if let Some(fix) = &f.fix {
            say!("         {:<13} fix: {fix}", "");
        }
    }
}

/// How a partitioned queue's partitions spread over the servers that hold them (one report
/// each, in partition order): a warning when a server holds more of them than an even spread
/// over the cluster's primaries would give it, since its core then limits the queue.
fn spread(servers: &[leaseq::ServerReport]) -> Finding {
    let mut held: Vec<(&str, Vec<usize>)> = Vec::new();
    for (i, r) in servers.iter().enumerate() {
        let Some(id) = r.server_id() else {
            return Finding {
                check: "partitions",
                level: "warning",
                found: format!("partition {i}'s server did not say which it is (INFO refused)"),
                fix: None,
            };
        };
        match held.iter_mut().find(|(s, _)| *s == id) {
            Some((_, parts)) => parts.push(i),
            None => held.push((id, vec![i])),
        }
    }
    let count = servers.len();
    let primaries = servers.iter().find_map(|r| r.cluster_primaries);
    let found = match primaries {
        Some(n) => format!(
            "{count} partitions over {} of the cluster's {n} primaries",
            held.len()
        ),
        None => format!("{count} partitions over {} server(s)", held.len()),
    };
    let fair = primaries.map(|n| count.div_ceil((n as usize).clamp(1, count)));
    let crowded: Vec<String> = held
        .iter()
        .filter(|(_, parts)| fair.is_some_and(|fair| parts.len() > fair))
        .map(|(id, parts)| {
            let at = servers[parts[0]]
                .port
                .map_or(String::new(), |p| format!(" (port {p})"));
            let list: Vec<String> = parts.iter().map(usize::to_string).collect();
            format!(
                "node {}{at} holds partitions {}",
                short(id),
                list.join(", ")
            )
        })
        .collect();
    if crowded.is_empty() {
        return Finding {
            check: "partitions",
            level: "ok",
            found,
            fix: None,
        };
    }
    Finding {
        check: "partitions",
        level: "warning",
        found: format!("{found}; {}", crowded.join("; ")),
        fix: Some(
            "move a crowded node's partition slots (`cluster slot` above) to a primary with \
             fewer, with `redis-cli --cluster reshard`: one node's core serves them all now"
                .into(),
        ),
    }
}

/// The first 12 characters of a node id or run id, as tools print them.
fn short(id: &str) -> &str {
    id.get(..12).unwrap_or(id)
}

/// What the server that serves queue `queue` offers it (its report `r`).
fn findings(r: &leaseq::ServerReport, queue: &str) -> Vec<Finding> {
    let mut findings = Vec::new();
    let mut add = |check, level, found: String, fix: Option<String>| {
        findings.push(Finding {
            check,
            level,
            found,
            fix,
        })
    };
    let (min_major, min_minor) = leaseq::MIN_REDIS_VERSION;
    match r.version_parts() {
        Some(v) if v >= (min_major, min_minor) => {
            add("version", "ok", r.version.clone().unwrap_or_default(), None)
        }
        Some(_) => add(
            "version",
            "problem",
            r.version.clone().unwrap_or_default(),
            Some(format!(
                "leaseq needs Redis {min_major}.{min_minor} or newer (BLMOVE); upgrade the server"
            )),
        ),
        None => add("version", "warning", "not reported".into(), None),
    }
    match r.maxmemory_policy.as_deref() {
        Some("noeviction") => add("eviction", "ok", "maxmemory-policy noeviction".into(), None),
        Some(p) => add(
            "eviction",
            "problem",
            format!("maxmemory-policy {p}: Redis may evict queue keys and lose items"),
            Some("CONFIG SET maxmemory-policy noeviction (and put it in redis.conf)".into()),
        ),
        None => add(
            "eviction",
            "warning",
            "CONFIG GET refused: the policy is unknown".into(),
            Some("ask the provider to confirm maxmemory-policy noeviction".into()),
        ),
    }
    match (r.appendonly, r.save.as_deref()) {
        (Some(true), _) => add("persistence", "ok", "appendonly yes".into(), None),
        (Some(false), Some(save)) if !save.is_empty() => add(
            "persistence",
            "warning",
            format!("RDB snapshots only (save {save}): a crash loses the items since the last one"),
            Some("CONFIG SET appendonly yes for every write to survive a crash".into()),
        ),
        (Some(false), _) => add(
            "persistence",
            "warning",
            "no persistence: a restart loses every item".into(),
            Some(
                "CONFIG SET appendonly yes (or a save schedule) unless the queue is disposable"
                    .into(),
            ),
        ),
        (None, _) => add(
            "persistence",
            "warning",
            "CONFIG GET refused: unknown".into(),
            None,
        ),
    }
    match &r.denied {
        Some(denied) if denied.is_empty() => add(
            "acl",
            "ok",
            format!(
                "user `{}` may run every command leaseq sends on `{queue}:*`",
                r.user.clone().unwrap_or_default()
            ),
            None,
        ),
        Some(denied) => add(
            "acl",
            "problem",
            denied
                .iter()
                .map(|(cmd, why)| format!("{cmd}: {why}"))
                .collect::<Vec<_>>()
                .join("; "),
            Some(format!(
                "ACL SETUSER {} ~{queue}:* +@read +@write +@scripting +blmove +scan",
                r.user.clone().unwrap_or("<user>".into())
            )),
        ),
        None => add(
            "acl",
            "warning",
            "could not check (ACL DRYRUN needs Redis 7 and the right to run ACL)".into(),
            None,
        ),
    }
    let slot = format!(
        "slot {} ({})",
        r.slot,
        match &r.hash_tag {
            Some(tag) => format!("hash tag `{tag}`: every key of the queue is in it"),
            None => "no hash tag: keys spread over many slots".into(),
        }
    );
    if r.hash_tag.is_none() {
        add(
            "cluster slot",
            "warning",
            slot,
            Some(format!(
                "fine on one server; for a cluster, use a prefix with a hash tag, e.g. `{{{queue}}}`"
            )),
        );
    } else {
        add("cluster slot", "ok", slot, None);
    }
    let at = r.port.map_or(String::new(), |p| format!(" at port {p}"));
    let server = match (&r.node_id, &r.run_id) {
        (Some(node), _) => format!("cluster node {}{at}", short(node)),
        (None, Some(run)) => format!("run id {}{at}", short(run)),
        (None, None) => "not reported".into(),
    };
    add("server", "ok", server, None);
    findings
}
