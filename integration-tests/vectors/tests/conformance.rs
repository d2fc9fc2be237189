//! The Rust runner of spec/vectors (format: spec/vectors/README.md), over `leaseq::blocking`.

use std::collections::HashMap;
use std::time::Duration;

use leaseq::blocking::{Client, Queue};
use leaseq::{Item, Lease, Wait};
use leaseq_harness::vectors::{check_state, data_bytes, data_json, flush, raw, same};
use leaseq_harness::RedisServer;
use serde_json::{json, Value as Json};

fn lease_json(lease: Option<Lease>) -> Json {
    lease.map_or(
        Json::Null,
        |l| json!({"id": l.id(), "data": data_json(l.data()), "count": l.count()}),
    )
}

fn str_field<'a>(step: &'a Json, name: &str) -> Result<&'a str, String> {
    step[name]
        .as_str()
        .ok_or_else(|| format!("step needs string `{name}`"))
}

fn ms(step: &Json, name: &str) -> Result<Duration, String> {
    step[name]
        .as_u64()
        .map(Duration::from_millis)
        .ok_or_else(|| format!("step needs number `{name}`"))
}

fn item(id: &str, data: &Json) -> Result<Result<Item, leaseq::Error>, String> {
    Ok(Item::with_id(id, data_bytes(data)?))
}

struct Runner<'a> {
    url: &'a str,
    prefix: String,
    queue: Queue,
    client: &'a Client,
    leases: HashMap<String, Lease>,
}

impl Runner<'_> {
    fn lease_named(&self, step: &Json) -> Result<Lease, String> {
        let name = str_field(step, "lease")?;
        self.leases
            .get(name)
            .cloned()
            .ok_or_else(|| format!("no lease named `{name}`"))
    }

    fn keep(&mut self, step: &Json, lease: &Option<Lease>) {
        if let (Some(name), Some(lease)) = (step["as"].as_str(), lease) {
            self.leases.insert(name.to_owned(), lease.clone());
        }
    }

    /// Runs a step: Ok(Some(result)) for an operation, Ok(None) for a step with no result.
    fn step(&mut self, step: &Json) -> Result<Option<Result<Json, leaseq::Error>>, String> {
        let q = self.queue.clone();
        let op = str_field(step, "do")?;
        let result: Result<Json, leaseq::Error> = match op {
            "add" => item(str_field(step, "id")?, &step["data"])?
                .and_then(|i| q.add(&i))
                .map(Json::from),
            "add_unique" => item(str_field(step, "id")?, &step["data"])?
                .and_then(|i| q.add_unique(&i))
                .map(|()| Json::Null),
            "add_batch" => {
                let mut items = Vec::new();
                for entry in step["items"].as_array().ok_or("add_batch needs `items`")? {
                    items.push(
                        item(str_field(entry, "id")?, &entry["data"])?
                            .map_err(|e| e.to_string())?,
                    );
                }
                q.add_batch(&items).map(Json::from)
            }
            "lease" => {
                let wait = match step.get("timeout_ms").and_then(Json::as_u64) {
                    None | Some(0) => Wait::No,
                    Some(t) => Wait::Timeout(Duration::from_millis(t)),
                };
                let got = q.lease(ms(step, "ttl_ms")?, wait);
                if let Ok(lease) = &got {
                    self.keep(step, lease);
                }
                got.map(lease_json)
            }
            "complete" => q.complete(&self.lease_named(step)?).map(Json::from),
            "complete_and_lease" => {
                let got = q.complete_and_lease(&self.lease_named(step)?, ms(step, "ttl_ms")?);
                if let Ok((_, next)) = &got {
                    self.keep(step, next);
                }
                got.map(
                    |(completed, next)| json!({"completed": completed, "next": lease_json(next)}),
                )
            }
            "renew" => q
                .renew(&self.lease_named(step)?, ms(step, "ttl_ms")?)
                .map(Json::from),
            "light_clean" | "deep_clean" => {
                let report = if op == "light_clean" {
                    q.light_clean()
                } else {
                    q.deep_clean()
                };
                report.map(|r| json!({"requeued": r.requeued, "removed": r.removed}))
            }
            "queue_len" => q.queue_len().map(Json::from),
            "processing_len" => q.processing_len().map(Json::from),
            "open_queue" => self
                .client
                .queue(str_field(step, "prefix")?)
                .map(|_| Json::Null),
            "raw" => {
                raw(
                    self.url,
                    &self.prefix,
                    step["command"].as_array().ok_or("raw needs `command`")?,
                )?;
                return Ok(None);
            }
            "sleep_ms" => {
                std::thread::sleep(ms(step, "ms")?);
                return Ok(None);
            }
            "state" => {
                let prefix = step["prefix"].as_str().unwrap_or(&self.prefix);
                check_state(self.url, prefix, &step["expect"])?;
                return Ok(None);
            }
            other => return Err(format!("unknown step `{other}`")),
        };
        Ok(Some(result))
    }
}

fn run_case(url: &str, client: &Client, case: &Json) -> Result<(), String> {
    flush(url)?;
    let prefix = case["prefix"].as_str().unwrap_or("{v}").to_owned();
    let queue = client.queue(&prefix).map_err(|e| e.to_string())?;
    let mut runner = Runner {
        url,
        prefix,
        queue,
        client,
        leases: HashMap::new(),
    };
    for (index, step) in case["steps"]
        .as_array()
        .ok_or("case needs `steps`")?
        .iter()
        .enumerate()
    {
        let at = |msg: String| {
            format!(
                "step {index} ({}): {msg}",
                step["do"].as_str().unwrap_or("?")
            )
        };
        let Some(result) = runner.step(step).map_err(at)? else {
            continue;
        };
        match (step.get("expect_error"), result) {
            (Some(code), Err(e)) if code.as_str() == Some(e.code().as_str()) => {}
            (Some(code), other) => return Err(at(format!("expected error {code}, got {other:?}"))),
            (None, Err(e)) => return Err(at(format!("unexpected error {}: {e}", e.code()))),
            (None, Ok(got)) => {
                let want = step.get("expect").unwrap_or(&Json::Null);
                if !same(want, &got).map_err(at)? {
                    return Err(at(format!("expected {want}, got {got}")));
                }
            }
        }
    }
    Ok(())
}

#[test]
fn every_vector_passes_in_rust() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../spec/vectors");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let server = RedisServer::start();
    let client = Client::connect(&server.url()).unwrap();
    let (mut passed, mut failures) = (0, Vec::new());
    for file in &files {
        let doc: Json = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
        assert_eq!(doc["version"], 1, "{}", file.display());
        for case in doc["cases"].as_array().unwrap() {
            match run_case(&server.url(), &client, case) {
                Ok(()) => passed += 1,
                Err(e) => failures.push(format!("rust: {}: {e}", case["name"])),
            }
        }
    }
    assert!(
        passed >= 40 || !failures.is_empty(),
        "only {passed} cases found"
    );
    assert!(
        failures.is_empty(),
        "{} passed, {} failed:\n{}",
        passed,
        failures.len(),
        failures.join("\n")
    );
    println!("rust vectors: {passed} passed, 0 failed");
}
