use std::time::Duration;

use leaseq::{Client, Error, ErrorCode, Item, Wait};

#[tokio::main]
async fn main() -> leaseq::Result<()> {
    let url = std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    let client = Client::connect(&url).await?;
    let queue = client.queue("{errors}")?;

    // An argument the core refuses is named, and nothing is sent to Redis.
    match queue.lease(Duration::ZERO, Wait::No).await {
        Err(Error::InvalidArgument { argument, reason }) => {
            println!("refused: {argument} {reason}"); // refused: ttl must be greater than zero
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    let err = Item::with_id("", "no id").unwrap_err();
    println!("{}: {err}", err.code()); // INVALID_ARGUMENT: invalid argument `id`: ...

    // Ordinary outcomes are values, not errors: an id that exists is `false`.
    assert!(queue.add(&Item::with_id("once", "x")?).await?);
    assert!(!queue.add(&Item::with_id("once", "x again")?).await?);

    // The codes are the same in every language (spec/errors.md); some say "try again".
    client.close();
    let err = queue.count(leaseq::State::Waiting).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::Closed);
    println!(
        "{} ({}), retryable: {}",
        err.code(),
        err.code().number(),
        err.is_retryable()
    ); // CLOSED (6), retryable: false
    Ok(())
}
