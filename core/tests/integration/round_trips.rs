//! Round trips per operation, counted by the server: MONITOR lists each command a client sends
//! (commands a script runs show as `lua`), and INFO commandstats confirms the script calls.
//! (commandstats alone counts the commands run inside scripts too, so it cannot tell a round
//! trip from script work.)

use crate::common;

use std::time::Duration;

use common::{Env, Monitor, TTL};
use leaseq::{Item, Retry, State, Wait};

fn fcall_calls(env: &Env) -> u64 {
    let stats = env.server.as_ref().unwrap().command("INFO commandstats");
    stats
        .lines()
        .find_map(|l| l.strip_prefix("cmdstat_fcall:calls="))
        .map(|rest| rest.split(',').next().unwrap().parse().unwrap())
        .unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_operation_costs_the_documented_round_trips() {
    let env = Env::single("rt").await;
    let q = &env.queue;
    // Warm up: the first call loads the function library (FUNCTION LOAD), once for all.
    let warm = Item::new(vec![]);
    q.add(&warm).await.unwrap();
    q.add_unique(&Item::new(vec![])).await.unwrap();
    let l = q.lease(TTL, Wait::No).await.unwrap().unwrap();
    q.renew(&l, TTL).await.unwrap();
    let (_, l) = q.complete_and_lease(&l, TTL).await.unwrap();
    let l = l.unwrap();
    q.progress(&l, b"1").await.unwrap();
    q.release(&l, None).await.unwrap();
    let l = q.lease(TTL, Wait::No).await.unwrap().unwrap();
    q.fail(&l, "e", "", Retry::Never).await.unwrap();
    q.get("x").await.unwrap();
    q.list(State::Dead, 0, 10).await.unwrap();
    q.count(State::Dead).await.unwrap();
    q.stats().await.unwrap();
    q.cancel("x").await.unwrap();
    q.dead_purge(None).await.unwrap();
    q.add_batch(&[Item::new(vec![]), Item::new(vec![])])
        .await
        .unwrap();
    let two = q.lease_batch(2, TTL, Wait::No).await.unwrap();
    q.renew_batch(&[&two[0]], TTL).await.unwrap();
    q.fail_batch(&[(&two[0], "e", "", Retry::Never)])
        .await
        .unwrap();
    q.complete_batch(&[(&two[1], None)]).await.unwrap();
    q.complete_and_lease_batch(&[], 1, TTL).await.unwrap();
    q.dead_purge(None).await.unwrap();
    q.add(&Item::new(vec![])).await.unwrap();
    let l = q.lease(TTL, Wait::No).await.unwrap().unwrap();
    q.complete(&l).await.unwrap();
    q.light_clean().await.unwrap();

    let server = env.server.as_ref().unwrap();
    let mut monitor = Monitor::start(server.port());
    monitor.client_commands();
    server.command("CONFIG RESETSTAT");
    let expect = |what: &str, commands: &[&str], monitor: &mut Monitor| {
        assert_eq!(monitor.client_commands(), commands, "{what}");
    };

    q.add(&Item::with_id("a", b"1".to_vec()).unwrap())
        .await
        .unwrap();
    expect("add", &["fcall"], &mut monitor);
    q.add_unique(&Item::with_id("b", b"2".to_vec()).unwrap())
        .await
        .unwrap();
    expect("add_unique", &["fcall"], &mut monitor);
    let batch: Vec<Item> = (0..1000).map(|i| Item::new(vec![i as u8])).collect();
    q.add_batch(&batch).await.unwrap();
    expect("add_batch of 1000", &["fcall"], &mut monitor);
    let batch: Vec<Item> = (0..2500).map(|i| Item::new(vec![i as u8])).collect();
    q.add_batch(&batch).await.unwrap();
    // Three script calls (chunks of 1000), written together as one pipeline.
    expect(
        "add_batch of 2500",
        &["fcall", "fcall", "fcall"],
        &mut monitor,
    );

    let lease = q.lease(TTL, Wait::No).await.unwrap().unwrap();
    expect("lease", &["fcall"], &mut monitor);
    let waited = q
        .lease(TTL, Wait::Timeout(Duration::from_secs(5)))
        .await
        .unwrap()
        .unwrap();
    expect("blocking lease with items ready", &["fcall"], &mut monitor);
    q.renew(&lease, TTL).await.unwrap();
    expect("renew", &["fcall"], &mut monitor);
    q.complete(&lease).await.unwrap();
    expect("complete", &["fcall"], &mut monitor);
    q.complete_and_lease(&waited, TTL).await.unwrap();
    expect("complete_and_lease", &["fcall"], &mut monitor);
    q.queue_len().await.unwrap();
    expect("queue_len", &["fcall"], &mut monitor);

    // The lifecycle: one script call each.
    let lease = q.lease(TTL, Wait::No).await.unwrap().unwrap();
    monitor.client_commands();
    q.progress(&lease, b"50%").await.unwrap();
    expect("progress", &["fcall"], &mut monitor);
    q.get(lease.id()).await.unwrap();
    expect("get", &["fcall"], &mut monitor);
    q.fail(&lease, "e", "", Retry::Never).await.unwrap();
    expect("fail", &["fcall"], &mut monitor);
    q.list(State::Dead, 0, 100).await.unwrap();
    expect("list", &["fcall"], &mut monitor);
    q.count(State::Waiting).await.unwrap();
    expect("count", &["fcall"], &mut monitor);
    q.stats().await.unwrap();
    expect("stats", &["fcall"], &mut monitor);
    q.dead_requeue(&[lease.id()]).await.unwrap();
    expect("dead_requeue", &["fcall"], &mut monitor);
    let lease = q.lease(TTL, Wait::No).await.unwrap().unwrap();
    q.release(&lease, Some(Duration::from_secs(60)))
        .await
        .unwrap();
    monitor.client_commands();
    q.cancel(lease.id()).await.unwrap();
    expect("cancel", &["fcall"], &mut monitor);
    let batch = q.lease_batch(1000, TTL, Wait::No).await.unwrap();
    assert_eq!(batch.len(), 1000);
    expect("lease_batch of 1000", &["fcall"], &mut monitor);
    let refs: Vec<&leaseq::Lease> = batch.iter().collect();
    q.renew_batch(&refs, TTL).await.unwrap();
    expect("renew_batch of 1000", &["fcall"], &mut monitor);
    q.fail_batch(&[(&batch[0], "e", "", Retry::Never)])
        .await
        .unwrap();
    expect("fail_batch", &["fcall"], &mut monitor);
    let done: Vec<leaseq::Completion<'_>> = batch[1..501].iter().map(|l| (l, None)).collect();
    q.complete_batch(&done).await.unwrap();
    expect("complete_batch of 500", &["fcall"], &mut monitor);
    let done: Vec<leaseq::Completion<'_>> = batch[501..].iter().map(|l| (l, None)).collect();
    q.complete_and_lease_batch(&done, 50, TTL).await.unwrap();
    expect(
        "complete_and_lease_batch of 499 and 50",
        &["fcall"],
        &mut monitor,
    );

    // Light clean of 1201 ids that redis-work-queue workers took into processing: seven
    // batches of 200, not 1201 round trips.
    for _ in 0..1201 {
        env.foreign_lease().await.unwrap();
    }
    let leased = q.count(State::Leased).await.unwrap();
    assert_eq!(q.processing_len().await.unwrap(), 1201 + leased);
    monitor.client_commands();
    q.light_clean().await.unwrap();
    expect("light_clean of 1201", &["fcall"; 7], &mut monitor);

    assert_eq!(
        fcall_calls(&env),
        // adds 1+1+1+3, lease, blocking lease, renew, complete, complete_and_lease, queue_len
        6 + 6
            // lease, progress, get, fail, list, count, stats, dead_requeue, lease, release,
            // cancel, lease_batch, renew_batch, fail_batch, complete_batch,
            // complete_and_lease_batch
            + 16
            // count(leased) and processing_len before the light clean
            + 2
            // light clean
            + 7
    );
    assert_eq!(
        monitor.client_commands(),
        ["info"],
        "only the stats query itself"
    );

    // A blocking lease that has to wait: lease script, BLMOVE, lease script.
    let empty = env.client.queue(&common::fresh_prefix("rt-empty")).unwrap();
    let waiter = {
        let empty = empty.clone();
        tokio::spawn(async move { empty.lease(TTL, Wait::Forever).await })
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    // One BLMOVE on P:queue, one on P:wake, each on a connection of its own.
    assert_eq!(monitor.client_commands(), ["fcall", "blmove", "blmove"]);
    empty.add(&Item::new(vec![])).await.unwrap();
    waiter.await.unwrap().unwrap().unwrap();
    assert_eq!(
        monitor.client_commands(),
        ["fcall", "fcall"],
        "the add, then the lease"
    );

    // A server that lost the function library (FUNCTION FLUSH; a restart without persistence):
    // the refused call ran nothing, so the library is loaded and that call sent once more.
    let server = env.server.as_ref().unwrap();
    server.command("FUNCTION FLUSH");
    monitor.client_commands();
    let l = q.lease(TTL, Wait::No).await.unwrap().unwrap();
    assert_eq!(monitor.client_commands(), ["fcall", "function", "fcall"]);
    assert!(q.complete(&l).await.unwrap());
    server.command("FUNCTION FLUSH");
    monitor.client_commands();
    let many: Vec<Item> = (0..2500).map(|_| Item::new(vec![])).collect();
    assert_eq!(q.add_batch(&many).await.unwrap(), 2500);
    assert_eq!(
        monitor.client_commands(),
        ["fcall", "fcall", "fcall", "function", "fcall", "fcall", "fcall"],
        "three chunks refused, one load, the three sent again"
    );
}
