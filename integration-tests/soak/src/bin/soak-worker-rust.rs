//! The Rust soak worker and producer (README.md): leaseq's async API.

use std::time::Duration;

use leaseq::{Client, FailOutcome, Retry, Wait};
use leaseq_soak::{produce, Args, Behaviour, Dice, Recorder, FAILURE, FAILURE_TYPE, SLOW, TTL};

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args = Args::from_env();
    let client = Client::connect(&args.url).await.expect("connect");
    if let Some((first, count)) = args.produce {
        produce(&client, &args, first, count).await;
        return;
    }
    let recorder = Recorder::new(&client, &args);
    let queues: Vec<_> = args
        .queues
        .iter()
        .map(|p| (p.clone(), client.queue(p).unwrap()))
        .collect();
    let mut dice = Dice::new();
    for turn in 0.. {
        let (name, queue) = &queues[turn % queues.len()];
        let Some(lease) = queue
            .lease(TTL, Wait::Timeout(Duration::from_millis(100)))
            .await
            .expect("lease")
        else {
            continue;
        };
        recorder.record("exec", name, lease.id()).await;
        let behaviour = Behaviour::from_roll(dice.below(100));
        if behaviour == Behaviour::Drop {
            continue;
        }
        if matches!(behaviour, Behaviour::Fail | Behaviour::FailForGood) {
            let retry = if behaviour == Behaviour::Fail {
                Retry::After(Duration::from_millis(20))
            } else {
                Retry::Never
            };
            let outcome = queue
                .fail(&lease, FAILURE, FAILURE_TYPE, retry)
                .await
                .expect("fail");
            if behaviour == Behaviour::FailForGood && matches!(outcome, FailOutcome::Retrying(_)) {
                recorder.violation("fail without retry was retried").await;
            }
            continue;
        }
        if matches!(behaviour, Behaviour::Slow | Behaviour::RenewLate) {
            tokio::time::sleep(SLOW).await;
        }
        if behaviour == Behaviour::RenewLate && queue.renew(&lease, TTL).await.expect("renew") {
            recorder.violation("renew after expiry returned true").await;
        }
        if queue.complete(&lease).await.expect("complete") {
            recorder.record("win", name, lease.id()).await;
        }
        if behaviour == Behaviour::Twice && queue.complete(&lease).await.expect("complete") {
            recorder.violation("second complete returned true").await;
        }
    }
}
