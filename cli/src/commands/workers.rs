//! `leaseq workers`: honest about the runner registry, which no leaseq version writes yet.

use crate::fail::{Fail, Outcome};
use crate::output;

/// Reports whether the reserved registry key `P:workers` exists; never invents workers.
/// Exits 1: there is no list of workers to show.
pub async fn workers(client: &leaseq::Client, queue: &str, json: bool) -> Outcome {
    let q = client.queue(queue)?;
    let exists = q.runner_registry_exists().await?;
    let message = if exists {
        format!(
            "`{queue}:workers` exists, but this leaseq version does not read the runner registry \
             yet; use a newer `leaseq`"
        )
    } else {
        format!(
            "no runner registry yet: leaseq's runners do not register themselves in this version \
             (the protocol reserves `{queue}:workers` for it). Leased items and their lease \
             expiry: `leaseq ls leased -q '{queue}'`"
        )
    };
    if json {
        output::json(&serde_json::json!({
            "registry": exists,
            "workers": serde_json::Value::Null,
            "message": message,
        }));
        return Ok(());
    }
    Err(Fail::NotFound(message))
}
