//! Changing items: `add` and `cancel`.

use std::io::Read;

use leaseq::{Backoff, Item};

use crate::args::AddArgs;
use crate::fail::{queue_must_exist, Fail, Outcome};
use crate::output;

/// `leaseq add`: validates everything first, then one round trip.
pub async fn add(client: &leaseq::Client, args: &AddArgs) -> Outcome {
    let data: Vec<u8> = if let Some(text) = &args.data {
        text.clone().into_bytes()
    } else if let Some(text) = &args.json_data {
        let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
            Fail::Usage(format!("--json: not valid JSON ({e}); nothing was written"))
        })?;
        serde_json::to_vec(&value).expect("a parsed JSON value serializes")
    } else if let Some(path) = &args.file {
        let mut buf = Vec::new();
        let read = if path.as_os_str() == "-" {
            std::io::stdin().read_to_end(&mut buf)
        } else {
            std::fs::File::open(path).and_then(|mut f| f.read_to_end(&mut buf))
        };
        read.map_err(|e| {
            Fail::Usage(format!(
                "--file: cannot read {} ({e}); nothing was written",
                path.display()
            ))
        })?;
        buf
    } else {
        unreachable!("clap requires one of --data, --json, --file")
    };
    let mut item = match &args.id {
        Some(id) => Item::with_id(id.clone(), data)?,
        None => Item::new(data),
    };
    if let Some(d) = args.delay {
        item = item.delay(d);
    }
    if let Some(p) = args.priority {
        item = item.priority(p);
    }
    if let Some(m) = args.max_attempts {
        item = item.max_attempts(m);
    }
    if let Some(e) = args.expires_after {
        item = item.expires_after(e);
    }
    if let Some(k) = args.keep_result_for {
        item = item.keep_result_for(k);
    }
    if let Some(g) = &args.group {
        item = item.group(g.clone());
    }
    if let Some(n) = &args.name {
        item = item.name(n.clone());
    }
    if !args.depends_on.is_empty() {
        item = item.depends_on(args.depends_on.iter().cloned());
    }
    if let Some(p) = &args.on_dependency_failure {
        item = item.on_dependency_failure(leaseq::OnDependencyFailure::parse(p)?);
    }
    if let Some(b) = args.backoff_fixed {
        item = item.backoff(Backoff::Fixed(b));
    }
    // On a partitioned queue's base, to the item's partition (spec 5.25): the base itself is
    // no partition, and no runner of the queue would lease what was added there.
    let wait = args
        .wait_for_room
        .map(|d| leaseq::Wait::from_timeout(Some(d)));
    let added = super::partitions::Target::open(client, &args.queue.queue)
        .await?
        .add(&item, wait)
        .await?;
    if added {
        say!("{}", item.id());
        Ok(())
    } else {
        Err(Fail::NotFound(format!(
            "an item `{}` already exists in `{}`: nothing was added (ids are unique while their \
             item exists)",
            item.id(),
            args.queue.queue
        )))
    }
}

/// `leaseq cancel ID`.
pub async fn cancel(client: &leaseq::Client, queue: &str, id: &str, json: bool) -> Outcome {
    let q = client.queue(queue)?;
    let was = super::partitions::Target::open(client, queue)
        .await?
        .cancel(id)
        .await?;
    if json {
        output::json(&serde_json::json!({"id": id, "was": was.map(|s| s.to_string())}));
    }
    match was {
        Some(leaseq::State::Leased) if !json => {
            say!("{id}: leased; marked cancelled, its holder's next call drops it")
        }
        // Its id stays in the waiting list (removing it there would cost a scan of the list)
        // until a lease reaches it (spec 5.9): the counts include it till then (`ls` skips it).
        // An item waiting in a group leaves no such id; the reply does not tell them apart.
        Some(leaseq::State::Waiting) if !json => say!(
            "{id}: was waiting; removed (`stats` may count its id as waiting until a lease \
             reaches it and drops it)"
        ),
        Some(state) if !json => say!("{id}: was {state}; removed"),
        Some(_) => {}
        None => {
            queue_must_exist(&q, queue).await?;
            return Err(Fail::NotFound(format!("no item `{id}` in queue `{queue}`")));
        }
    }
    Ok(())
}
