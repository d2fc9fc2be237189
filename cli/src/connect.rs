//! Connecting: `--url` (repeatable), else `LEASEQ_URL`, else `REDIS_URL`.

use crate::args::ConnArgs;
use crate::fail::{Fail, Outcome};

/// Connects as the arguments and environment say; several URLs (or `--cluster`) mean a cluster.
pub async fn connect(args: &ConnArgs) -> Outcome<leaseq::Client> {
    let urls = urls(args)?;
    let client = if urls.len() > 1 || args.cluster {
        leaseq::Client::connect_cluster(&urls).await
    } else {
        leaseq::Client::connect(&urls[0]).await
    };
    let client = client.map_err(|e| match Fail::from(e) {
        Fail::Usage(m) => Fail::Usage(format!("--url: {m}")),
        other => other,
    })?;
    // Plain lines, not log records: a command's user must read them (a node of a cluster
    // reached without --cluster sees only its own slots).
    for warning in client.warnings() {
        tell!("leaseq: warning: {warning}");
    }
    Ok(client)
}

/// Whether the arguments and environment name a cluster (several URLs, or `--cluster`), as
/// [`connect`] reads them.
pub fn is_cluster(args: &ConnArgs) -> Outcome<bool> {
    Ok(args.cluster || urls(args)?.len() > 1)
}

fn urls(args: &ConnArgs) -> Outcome<Vec<String>> {
    let mut urls: Vec<String> = args
        .url
        .iter()
        .map(|u| u.trim().to_owned())
        .filter(|u| !u.is_empty())
        .collect();
    if urls.is_empty() {
        if let Ok(url) = std::env::var("REDIS_URL") {
            urls = url
                .split(',')
                .map(|u| u.trim().to_owned())
                .filter(|u| !u.is_empty())
                .collect();
        }
    }
    if urls.is_empty() {
        return Err(Fail::Usage(
            "no Redis to talk to: give --url redis://host:port (or set LEASEQ_URL or REDIS_URL)"
                .into(),
        ));
    }
    Ok(urls)
}
