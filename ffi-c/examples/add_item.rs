//! Adds one item from Rust, for the C tests' interop check:
//!
//! ```sh
//! cargo run -p leaseq-ffi --example add_item -- URL PREFIX ID DATA
//! ```
//!
//! DATA is taken as it is, or as hex bytes when written `hex:00ff...` (so it may hold NUL).
//! Prints `added` or `exists`; exits with 1 on an error, 2 on a usage error.

use leaseq::blocking::Client;
use leaseq::Item;

fn decode(data: &str) -> Option<Vec<u8>> {
    let Some(hex) = data.strip_prefix("hex:") else {
        return Some(data.as_bytes().to_vec());
    };
    if hex.len() % 2 != 0 {
        return None;
    }
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [url, prefix, id, data] = args.as_slice() else {
        eprintln!("usage: add_item URL PREFIX ID DATA   (DATA may be hex:00ff...)");
        std::process::exit(2);
    };
    let Some(data) = decode(data) else {
        eprintln!("add_item: DATA after hex: must be pairs of hex digits");
        std::process::exit(2);
    };
    let result = Client::connect(url)
        .and_then(|client| client.queue(prefix))
        .and_then(|queue| queue.add(&Item::with_id(id.as_str(), data)?));
    match result {
        Ok(added) => println!("{}", if added { "added" } else { "exists" }),
        Err(err) => {
            eprintln!("add_item: {err} ({})", err.code());
            std::process::exit(1);
        }
    }
}
