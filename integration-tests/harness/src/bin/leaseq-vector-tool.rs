//! The Redis-side steps of the conformance vectors, for runners in C, Python and Node:
//!
//! ```text
//! leaseq-vector-tool flush URL
//! leaseq-vector-tool raw URL PREFIX '["LPUSH", "{P}:queue", {"hex": "00ff"}]'
//! leaseq-vector-tool state URL PREFIX                 # prints the state as JSON
//! leaseq-vector-tool check URL PREFIX '{"queue": []}' # exit 1 with a message on mismatch
//! ```

use leaseq_harness::vectors;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["flush", url] => vectors::flush(url),
        ["raw", url, prefix, command] => serde_json::from_str::<Vec<serde_json::Value>>(command)
            .map_err(|e| format!("raw: bad JSON: {e}"))
            .and_then(|c| vectors::raw(url, prefix, &c)),
        ["state", url, prefix] => vectors::state(url, prefix).map(|s| println!("{s}")),
        ["check", url, prefix, expected] => serde_json::from_str(expected)
            .map_err(|e| format!("check: bad JSON: {e}"))
            .and_then(|e| vectors::check_state(url, prefix, &e)),
        _ => Err("usage: leaseq-vector-tool flush URL | raw URL PREFIX JSON | state URL PREFIX | check URL PREFIX JSON".into()),
    };
    if let Err(message) = result {
        eprintln!("{message}");
        std::process::exit(1);
    }
}
