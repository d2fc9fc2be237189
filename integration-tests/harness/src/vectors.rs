//! The language-neutral half of the conformance vectors (spec/vectors/README.md): the steps
//! that act on Redis directly (`raw`, `state`, the empty start of each case). Every runner uses
//! these, through the library (Rust) or the `leaseq-vector-tool` binary (C, Python, Node), so
//! only the queue operations themselves are written per language.

use std::collections::BTreeMap;

use redis::Value;
use serde_json::{json, Map, Value as Json};

/// Decodes a vector data value: a JSON string (its UTF-8 bytes) or `{"hex": "..."}`.
pub fn data_bytes(value: &Json) -> Result<Vec<u8>, String> {
    match value {
        Json::String(s) => Ok(s.as_bytes().to_vec()),
        Json::Object(o) => {
            let hex = o
                .get("hex")
                .and_then(Json::as_str)
                .ok_or("data object needs \"hex\"")?;
            (0..hex.len())
                .step_by(2)
                .map(|i| {
                    u8::from_str_radix(hex.get(i..i + 2).unwrap_or("x"), 16)
                        .map_err(|e| e.to_string())
                })
                .collect()
        }
        other => Err(format!(
            "data must be a string or {{\"hex\": ...}}, not {other}"
        )),
    }
}

/// Encodes bytes the way vectors write them: a string when they are UTF-8, otherwise hex.
pub fn data_json(bytes: &[u8]) -> Json {
    match std::str::from_utf8(bytes) {
        Ok(s) => Json::String(s.to_owned()),
        Err(_) => json!({ "hex": bytes.iter().map(|b| format!("{b:02x}")).collect::<String>() }),
    }
}

fn connect(url: &str) -> Result<redis::Connection, String> {
    redis::Client::open(url)
        .and_then(|c| c.get_connection())
        .map_err(|e| format!("connect {url}: {e}"))
}

/// Empties the server (each case starts on an empty database).
pub fn flush(url: &str) -> Result<(), String> {
    redis::cmd("FLUSHALL")
        .query::<()>(&mut connect(url)?)
        .map_err(|e| e.to_string())
}

/// Runs one raw command; `{P}` in any argument becomes the prefix. Arguments are vector data
/// values, so a command can carry any bytes.
pub fn raw(url: &str, prefix: &str, command: &[Json]) -> Result<(), String> {
    let mut args = Vec::new();
    for arg in command {
        let bytes = data_bytes(arg)?;
        let text = String::from_utf8_lossy(&bytes);
        args.push(if text.contains("{P}") {
            text.replace("{P}", prefix).into_bytes()
        } else {
            bytes
        });
    }
    let (name, rest) = args.split_first().ok_or("raw needs a command")?;
    let mut cmd = redis::cmd(&String::from_utf8_lossy(name));
    for a in rest {
        cmd.arg(a.as_slice());
    }
    cmd.query::<Value>(&mut connect(url)?)
        .map(drop)
        .map_err(|e| format!("raw {command:?}: {e}"))
}

fn escape_glob(text: &str) -> String {
    text.chars()
        .flat_map(|c| {
            let escape = matches!(c, '*' | '?' | '[' | ']' | '\\').then_some('\\');
            escape.into_iter().chain(std::iter::once(c))
        })
        .collect()
}

/// The queue's state as vectors describe it (spec/vectors/README.md, `state`): `queue` and
/// `processing` (list order, head first), `leased` (ids with a lease key, sorted), `items` (id ->
/// data), `attempts` (id -> the `attempts` field of each job hash), `tracked`, `delayed` and
/// `dead` (members of `P:leased`, `P:delayed`, `P:dead` by score), `prio` (level -> list),
/// `lease_counts` (protocol v1's hash), `results` (id -> a kept result's attempts, data,
/// whether it kept a time added, and name), `keys` (every key under the prefix, as the part after
/// `<prefix>:`, sorted).
pub fn state(url: &str, prefix: &str) -> Result<Json, String> {
    let mut conn = connect(url)?;
    let pattern = format!("{}:*", escape_glob(prefix));
    let keys: Vec<Vec<u8>> = redis::cmd("SCAN")
        .cursor_arg(0)
        .arg("MATCH")
        .arg(&pattern)
        .arg("COUNT")
        .arg(1000)
        .clone()
        .iter(&mut conn)
        .map_err(|e| e.to_string())?
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    let skip = prefix.len() + 1;
    let mut suffixes: Vec<String> = keys
        .iter()
        .map(|k| String::from_utf8_lossy(&k[skip..]).into_owned())
        .collect();
    suffixes.sort();
    let list = |conn: &mut redis::Connection, name: &str| -> Result<Json, String> {
        let ids: Vec<Vec<u8>> = redis::cmd("LRANGE")
            .arg(format!("{prefix}:{name}"))
            .arg(0)
            .arg(-1)
            .query(conn)
            .map_err(|e| e.to_string())?;
        Ok(Json::Array(ids.iter().map(|i| data_json(i)).collect()))
    };
    let zset = |conn: &mut redis::Connection, name: &str| -> Result<Json, String> {
        let ids: Vec<Vec<u8>> = redis::cmd("ZRANGE")
            .arg(format!("{prefix}:{name}"))
            .arg(0)
            .arg(-1)
            .query(conn)
            .map_err(|e| e.to_string())?;
        Ok(Json::Array(ids.iter().map(|i| data_json(i)).collect()))
    };
    let queue = list(&mut conn, "queue")?;
    let processing = list(&mut conn, "processing")?;
    let mut items = Map::new();
    let mut leased = Vec::new();
    let mut attempts = Map::new();
    let mut prio = Map::new();
    let mut results = Map::new();
    for suffix in &suffixes {
        if let Some(id) = suffix.strip_prefix("item:") {
            let data: Option<Vec<u8>> = redis::cmd("GET")
                .arg(format!("{prefix}:{suffix}"))
                .query(&mut conn)
                .unwrap_or(None);
            items.insert(id.to_owned(), data.map_or(Json::Null, |d| data_json(&d)));
        } else if let Some(id) = suffix.strip_prefix("lease:") {
            leased.push(Json::String(id.to_owned()));
        } else if let Some(id) = suffix.strip_prefix("job:") {
            let n: Option<i64> = redis::cmd("HGET")
                .arg(format!("{prefix}:{suffix}"))
                .arg("attempts")
                .query(&mut conn)
                .unwrap_or(None);
            attempts.insert(id.to_owned(), Json::from(n.unwrap_or(0)));
        } else if let Some(id) = suffix.strip_prefix("result:") {
            let kept: Vec<Vec<u8>> = redis::cmd("LRANGE")
                .arg(format!("{prefix}:{suffix}"))
                .arg(0)
                .arg(-1)
                .query(&mut conn)
                .map_err(|e| e.to_string())?;
            let part = |i: usize| kept.get(i).cloned().unwrap_or_default();
            let text = |i: usize| String::from_utf8_lossy(&part(i)).into_owned();
            results.insert(
                id.to_owned(),
                json!({
                    "attempts": text(1).parse::<i64>().unwrap_or(-1),
                    "data": data_json(&part(2)),
                    "added": text(3).parse::<u64>().is_ok_and(|t| t > 0),
                    "item_name": text(4),
                }),
            );
        } else if let Some(level) = suffix.strip_prefix("prio:") {
            prio.insert(level.to_owned(), list(&mut conn, suffix)?);
        }
    }
    let counts: BTreeMap<String, i64> = redis::cmd("HGETALL")
        .arg(format!("{prefix}:lease_count"))
        .query(&mut conn)
        .map_err(|e| e.to_string())?;
    Ok(json!({
        "queue": queue,
        "processing": processing,
        "held": list(&mut conn, "held")?,
        "leased": leased,
        "items": items,
        "attempts": attempts,
        "tracked": zset(&mut conn, "leased")?,
        "delayed": zset(&mut conn, "delayed")?,
        "dead": zset(&mut conn, "dead")?,
        "prio": prio,
        "lease_counts": counts,
        "results": results,
        "keys": suffixes,
    }))
}

/// Compares the fields `expected` names with the actual state; data values compare as bytes.
pub fn check_state(url: &str, prefix: &str, expected: &Json) -> Result<(), String> {
    let actual = state(url, prefix)?;
    let expected = expected.as_object().ok_or("state expects an object")?;
    for (field, want) in expected {
        let got = actual
            .get(field)
            .ok_or_else(|| format!("unknown state field `{field}`"))?;
        if !same(want, got)? {
            return Err(format!("state `{field}`: expected {want}, got {got}"));
        }
    }
    Ok(())
}

/// Equality where data values (`"text"` or `{"hex": ...}`) compare by their bytes.
pub fn same(want: &Json, got: &Json) -> Result<bool, String> {
    Ok(match (want, got) {
        (Json::Array(a), Json::Array(b)) => {
            a.len() == b.len()
                && a.iter()
                    .zip(b)
                    .map(|(x, y)| same(x, y))
                    .collect::<Result<Vec<_>, _>>()?
                    .iter()
                    .all(|&s| s)
        }
        (Json::Object(a), Json::Object(b)) if !a.contains_key("hex") && !b.contains_key("hex") => {
            a.len() == b.len()
                && a.iter().all(|(k, v)| {
                    b.get(k)
                        .map(|w| same(v, w).unwrap_or(false))
                        .unwrap_or(false)
                })
        }
        (Json::String(_) | Json::Object(_), Json::String(_) | Json::Object(_)) => {
            data_bytes(want)? == data_bytes(got)?
        }
        _ => want == got,
    })
}
