//! Dead letters: `dead requeue` and `dead purge` (`dead ls` is `ls dead`).

use crate::fail::{Fail, Outcome};
use crate::output;

/// Most ids one `dead requeue` call takes (the core's batch bound).
const MAX_IDS: usize = 1000;

/// `leaseq dead requeue`: the ids given, the `oldest` N, or all.
pub async fn requeue(
    client: &leaseq::Client,
    queue: &str,
    ids: &[String],
    oldest: Option<u64>,
    all: bool,
    json: bool,
) -> Outcome {
    let q = client.queue(queue)?;
    let n = if !ids.is_empty() {
        if ids.len() > MAX_IDS {
            return Err(Fail::Usage(format!(
                "ids: at most {MAX_IDS} at once (use --oldest N or --all for more); nothing was \
                 written"
            )));
        }
        let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
        q.dead_requeue(&ids).await?
    } else if oldest.is_some() || all {
        q.dead_requeue_oldest(oldest).await?
    } else {
        return Err(Fail::Usage(
            "say which dead letters: ids, --oldest N or --all".into(),
        ));
    };
    report(json, "requeued", n);
    Ok(())
}

/// `leaseq dead purge`: the `oldest` N, or all.
pub async fn purge(
    client: &leaseq::Client,
    queue: &str,
    oldest: Option<u64>,
    json: bool,
) -> Outcome {
    let q = client.queue(queue)?;
    let n = q.dead_purge(oldest).await?;
    report(json, "purged", n);
    Ok(())
}

fn report(json: bool, what: &str, n: u64) {
    if json {
        output::json(&serde_json::json!({ what: n }));
    } else {
        println!("{what} {n}");
    }
}
