//! Dependencies and flows (spec/PROTOCOL.md 5.24): a report built from two parts, added in one
//! call; the parts run first, the report reads their results, and an email waits for the report.
use std::time::Duration;

use leaseq::{Client, Flow, Item, State, Wait};

#[tokio::main]
async fn main() -> leaseq::Result<()> {
    let url = std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    let client = Client::connect(&url).await?;
    let queue = client.queue("{reports}")?;

    // A flow: the parent and its children (which may have children of their own), one call.
    let report = Item::with_id("report", "march")?;
    let parts = [
        Flow::new(Item::with_id("part-eu", "eu")?),
        Item::with_id("part-us", "us")?.into(),
    ];
    queue.add_flow(&report, &parts).await?;
    // Any item may wait for others of its queue; by default it dies if one of them dies.
    queue
        .add(&Item::with_id("email", "send the report")?.depends_on(["report"]))
        .await?;
    let waits = queue.dependencies("email").await?;
    println!("email waits for {:?}", waits.pending); // email waits for ["report"]
    assert_eq!(queue.count(State::Blocked).await?, 2);

    let ttl = Duration::from_secs(30);
    while let Some(lease) = queue.lease(ttl, Wait::No).await? {
        match lease.id() {
            "report" => {
                // The children's kept results, in order, one round trip.
                let parts = queue.dependency_results(lease.id()).await?;
                let sums: Vec<String> = parts
                    .iter()
                    .map(|(id, r)| {
                        format!(
                            "{id}={}",
                            String::from_utf8_lossy(r.as_deref().unwrap_or_default())
                        )
                    })
                    .collect();
                println!("report from {}", sums.join(", "));
                queue.complete(&lease).await?;
            }
            "email" => {
                println!("email sent after the report");
                queue.complete(&lease).await?;
            }
            _ => {
                let region = String::from_utf8_lossy(lease.data()).into_owned();
                println!("part {region}");
                let total = format!("{} sales", region.len() * 21);
                queue
                    .complete_with_result(&lease, Some(total.as_bytes()), None)
                    .await?;
            }
        }
    }
    Ok(())
}
