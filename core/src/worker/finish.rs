//! The runner's way back (spec/PROTOCOL.md 13.1): its jobs' outcomes sent to Redis in
//! batches, each queue's share at once, completes leasing for the slots they free, and calls
//! Redis refuses for now retried aside, so that one queue's refusals hold back no other's.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::future::join_all;
use tokio::sync::{mpsc, OwnedSemaphorePermit};

use super::engine::{ladder, Done, Finished, Shared, Starter};
use super::event::Event;
use super::job::{Job, JobError, Outcome};
use crate::conn::Verdict;
use crate::error::Result;
use crate::job::FailOutcome;
use crate::lease::RenewOutcome;
use crate::policy::MAX_PAGE;
use crate::queue::Queue;

/// Sends outcomes as they arrive; outcomes that arrive together go in one batch per kind.
/// Completes go with a lease for the slots their jobs freed, in one round trip
/// (`complete_and_lease_batch`), when their queue may have those slots ([`super::queues::Turns`]: always for
/// one queue): a busy runner makes one call per batch of jobs, not two. Slots the call finds no
/// work for, and slots another queue's turn should get, go back to the lease loop.
///
/// Up to [`FINISH_CALLS_IN_FLIGHT`] batches are in flight at once: while Redis runs one, the
/// jobs the other leased run here, so that the client's work and Redis's overlap instead of
/// taking turns. Outcomes that arrive while a call is in flight wait for it to end, unless they
/// are enough for a second call (two fifths of the slots): smaller calls would cost Redis more
/// per item (spec/PROTOCOL.md 13.1). Outcomes enough for two calls with none in flight go as
/// two halves, one after the other ([`to_send`]): the second when the first call ends, or
/// [`HOLD_AT_MOST`] later, whichever comes first. Before each decision the loop lets the jobs
/// that are ready to run finish (it yields, again while a yield brought outcomes) and takes
/// their outcomes too, so that the jobs a reply started go out together on any runtime.
pub(super) async fn finish_loop(
    starter: Starter,
    done: mpsc::WeakUnboundedSender<Done>,
    mut rx: mpsc::UnboundedReceiver<Done>,
) {
    use futures_util::stream::{FuturesUnordered, StreamExt};
    // A second call goes out beside one in flight only with a batch worth a call: two fifths
    // of the slots (each carries about half of them when the two take turns).
    let second_at = (starter.shared.settings.concurrency * 2 / 5).max(1);
    let mut in_flight = FuturesUnordered::new();
    let mut pending: Vec<Finished> = Vec::new();
    let mut got: Vec<Done> = Vec::new();
    let mut held = false;
    let mut held_until = tokio::time::Instant::now();
    loop {
        tokio::select! {
            n = rx.recv_many(&mut got, MAX_PAGE), if pending.len() < MAX_PAGE => {
                if n == 0 {
                    break;
                }
                got.drain(..).for_each(|d| d.append_to(&mut pending));
            }
            Some(()) = in_flight.next(), if !in_flight.is_empty() => {}
            // A batch began waiting for Redis to accept a call: it no longer counts as in
            // flight, so the outcomes behind it may go.
            () = starter.shared.parked_now.notified(), if !in_flight.is_empty() => {}
            // A held half waits for its first half's call at most HOLD_AT_MOST: a call that
            // retries (UNAVAILABLE, OUT_OF_MEMORY) or waits on a hung server must not hold
            // every other outcome back with it.
            () = tokio::time::sleep_until(held_until), if held => held = false,
        }
        if !pending.is_empty() {
            // Let the jobs that are ready to run finish first: those a reply just started, or
            // those started beside the one whose outcome woke this loop. tokio's multi-thread
            // scheduler runs the task a job's outcome wakes next, before the job's siblings,
            // so without this the first outcome of a reply's jobs would go out alone, the rest
            // beside it a moment later, and the two calls would come back together from then
            // on (see `to_send`). A yield puts this loop behind them; again while a yield
            // brought outcomes (an outcome sent to the channel can end a yield early, by
            // waking this loop).
            loop {
                tokio::task::yield_now().await;
                let before = pending.len();
                take_ready(&mut rx, &mut pending);
                if pending.len() == before || pending.len() >= MAX_PAGE {
                    break;
                }
            }
        }
        let was_held = held;
        let active = in_flight
            .len()
            .saturating_sub(starter.shared.parked.load(Ordering::SeqCst));
        if let Some(mut batch) = to_send(&mut pending, active, second_at, &mut held) {
            // A page a call at most. The outcomes waiting never outnumber the runner's slots
            // (at most MAX_PAGE), so this only guards that bound.
            if batch.len() > MAX_PAGE {
                let rest = batch.split_off(MAX_PAGE);
                pending.splice(0..0, rest);
            }
            in_flight.push(finish_batch(&starter, &done, batch));
        }
        if held && !was_held {
            held_until = tokio::time::Instant::now() + HOLD_AT_MOST;
        }
    }
    if !pending.is_empty() {
        in_flight.push(finish_batch(&starter, &done, pending));
    }
    while in_flight.next().await.is_some() {}
}

/// Moves the outcomes already waiting in `rx` to `pending`, while it holds fewer than
/// [`MAX_PAGE`], without waiting for more.
fn take_ready(rx: &mut mpsc::UnboundedReceiver<Done>, pending: &mut Vec<Finished>) {
    while pending.len() < MAX_PAGE {
        match rx.try_recv() {
            Ok(done) => done.append_to(pending),
            Err(_) => break,
        }
    }
}

/// The batch of `pending` to send now, with `in_flight` calls in flight (see [`finish_loop`]).
/// With none in flight: everything, or its first half when there is enough for two calls, the
/// other half `held` until that call ends. With one in flight and nothing held: everything when
/// it is enough for a call. Else nothing yet.
///
/// Why the halves go one after the other: Redis reads the requests that arrived together in one
/// go and writes their replies together, so two calls sent at once come back at once, and their
/// jobs run while Redis waits, as with one call. Outcomes finish together when the jobs of both
/// calls crossed to another language in one go (a Node runner's, say): sent at once, they would
/// keep doing so. The second half sent when the first ends is read apart from the calls after
/// it, and from then on the two calls take turns.
fn to_send<T>(
    pending: &mut Vec<T>,
    in_flight: usize,
    second_at: usize,
    held: &mut bool,
) -> Option<Vec<T>> {
    if in_flight == 0 {
        *held = false;
        if pending.is_empty() {
            return None;
        }
        if pending.len() >= 2 * second_at {
            let rest = pending.split_off(pending.len() / 2);
            *held = true;
            return Some(std::mem::replace(pending, rest));
        }
        return Some(std::mem::take(pending));
    }
    if !*held && in_flight < FINISH_CALLS_IN_FLIGHT && pending.len() >= second_at {
        return Some(std::mem::take(pending));
    }
    None
}

/// How long [`finish_loop`] holds the second half of outcomes that finished together, at most,
/// when the first half's call has not ended by then. Long enough for Redis to have read the
/// first call before the second arrives (a call of 25 plain completes takes about 0.3 ms of
/// Redis's time), short enough that a call stuck in retries holds no other outcome back.
const HOLD_AT_MOST: Duration = Duration::from_millis(2);

/// How many batches of outcomes [`finish_loop`] has in flight at once.
const FINISH_CALLS_IN_FLIGHT: usize = 2;

/// Sends one batch of outcomes (see [`finish_loop`]): each queue's at once, so that a queue
/// whose calls Redis refuses for now holds back no other's ([`finish_queue`]).
async fn finish_batch(
    starter: &Starter,
    done: &mpsc::WeakUnboundedSender<Done>,
    batch: Vec<Finished>,
) {
    let shared = &starter.shared;
    let mut work: Vec<QueueWork> = Vec::new();
    for f in batch {
        let w = match work
            .iter()
            .position(|w| w.queue.prefix() == f.job.queue().prefix())
        {
            Some(k) => &mut work[k],
            None => {
                work.push(QueueWork::new(shared, f.job.queue()));
                work.last_mut().expect("just pushed")
            }
        };
        w.slots.extend(f.slot);
        match f.outcome {
            Outcome::Complete(value) => w.completes.push((f.job, value)),
            // Rate limited: the queue is held off, then the job released (no attempt).
            // Rate limited for its group: held and released in one call.
            Outcome::Fail(JobError {
                rate_limited: Some(d),
                rate_limited_group: true,
                ..
            }) => w.group_holds.push((f.job, d)),
            Outcome::Fail(JobError {
                rate_limited: Some(d),
                ..
            }) => {
                w.hold = Some(w.hold.map_or(d, |held| held.max(d)));
                w.releases.push((f.job, None));
            }
            Outcome::Fail(err) => w.fails.push((f.job, err)),
            Outcome::Release(delay) => w.releases.push((f.job, delay)),
        }
    }
    // A logical queue's partitions are held together (spec 5.25): the limit is the queue's.
    if let Some(d) = work.iter().filter_map(|w| w.hold).max() {
        let held: Vec<&str> = work
            .iter()
            .filter(|w| w.hold.is_some())
            .map(|w| w.queue.prefix())
            .collect();
        hold_the_others(shared, &held, d);
    }
    let parking = Parking::new(shared);
    let held = if work.len() == 1 {
        let w = work.pop().expect("one");
        vec![finish_queue(starter, done, &parking, w).await]
    } else {
        join_all(
            work.into_iter()
                .map(|w| finish_queue(starter, done, &parking, w)),
        )
        .await
    };
    // Jobs without a group held their queue: a partitioned queue's other partitions once for
    // the batch, with the longest of those holds.
    let held: Vec<(&str, Duration)> = held
        .iter()
        .flatten()
        .map(|(q, d)| (q.as_str(), *d))
        .collect();
    if let Some(longest) = held.iter().map(|(_, d)| *d).max() {
        let prefixes: Vec<&str> = held.iter().map(|(q, _)| *q).collect();
        hold_the_others(shared, &prefixes, longest);
    }
}

/// One queue's share of a batch of outcomes, with the slots its jobs freed.
struct QueueWork {
    queue: Queue,
    index: usize,
    slots: Vec<OwnedSemaphorePermit>,
    completes: Vec<(Job, Option<Vec<u8>>)>,
    fails: Vec<(Job, JobError)>,
    releases: Vec<(Job, Option<Duration>)>,
    group_holds: Vec<(Job, Duration)>,
    /// The longest "rate limited" hold of its jobs.
    hold: Option<Duration>,
}

impl QueueWork {
    fn new(shared: &Shared, queue: &Queue) -> QueueWork {
        QueueWork {
            queue: queue.clone(),
            index: shared.index_of(queue),
            slots: Vec::new(),
            completes: Vec::new(),
            fails: Vec::new(),
            releases: Vec::new(),
            group_holds: Vec::new(),
            hold: None,
        }
    }
}

/// A batch of outcomes while one of its calls waits for Redis to accept it: counted in
/// [`Shared::parked`] from the first refusal until the batch ends.
struct Parking<'a> {
    shared: &'a Shared,
    parked: AtomicBool,
}

impl<'a> Parking<'a> {
    fn new(shared: &'a Shared) -> Parking<'a> {
        Parking {
            shared,
            parked: AtomicBool::new(false),
        }
    }

    fn park(&self) {
        if !self.parked.swap(true, Ordering::SeqCst) {
            self.shared.parked.fetch_add(1, Ordering::SeqCst);
            self.shared.parked_now.notify_one();
        }
    }
}

impl Drop for Parking<'_> {
    fn drop(&mut self) {
        if self.parked.load(Ordering::SeqCst) {
            self.shared.parked.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

/// Where a finishing call goes ([`finish_call`]): its queue, the batch it belongs to, and the
/// slots its queue's jobs freed, kept for the leases a complete may bring, given up (with the
/// lease) once Redis refuses a call.
struct Calls<'a> {
    index: usize,
    parking: &'a Parking<'a>,
    /// The queue's jobs of this batch: parked with the calls, so that their leases are renewed
    /// while Redis refuses them ([`Shared::parked_jobs`]).
    jobs: Vec<Job>,
    slots: Mutex<Vec<OwnedSemaphorePermit>>,
    refused: AtomicBool,
}

impl Calls<'_> {
    /// Whether a call here was refused: a complete then leases nothing.
    fn refused(&self) -> bool {
        self.refused.load(Ordering::SeqCst)
    }

    /// A call was refused for now: the queue leases nothing more until these calls end, its
    /// slots go back to the lease loop, and the batch no longer counts as in flight.
    fn refuse(&self, shared: &Shared) {
        if !self.refused.swap(true, Ordering::SeqCst) {
            shared.refusing[self.index].fetch_add(1, Ordering::SeqCst);
            let mut parked = shared.parked_jobs.lock().unwrap_or_else(|e| e.into_inner());
            parked.extend(self.jobs.iter().map(|j| (j.seq(), j.clone())));
        }
        self.slots.lock().unwrap_or_else(|e| e.into_inner()).clear();
        self.parking.park();
    }

    fn take_slot(&self) -> Option<OwnedSemaphorePermit> {
        self.slots.lock().unwrap_or_else(|e| e.into_inner()).pop()
    }
}

/// The queue's calls of this batch ended: one fewer refused for its lease loop.
impl Drop for Calls<'_> {
    fn drop(&mut self) {
        let shared = self.parking.shared;
        if !self.refused() {
            return;
        }
        {
            let mut parked = shared.parked_jobs.lock().unwrap_or_else(|e| e.into_inner());
            for job in &self.jobs {
                parked.remove(&job.seq());
            }
        }
        if shared.refusing[self.index].fetch_sub(1, Ordering::SeqCst) == 1 {
            shared.unrefused.notify_waiters();
        }
    }
}

/// Sends one queue's outcomes of a batch, in order: its hold (before the releases, so that the
/// released jobs are not leased again at once), its completes (leasing for the slots its jobs
/// freed, when its turn says so), fails, releases, and releases with a group's hold. Returns
/// the queue's prefix and hold when a job without a group held it ([`hold_the_others`]).
async fn finish_queue(
    starter: &Starter,
    done: &mpsc::WeakUnboundedSender<Done>,
    parking: &Parking<'_>,
    w: QueueWork,
) -> Option<(String, Duration)> {
    let shared = &starter.shared;
    let i = w.index;
    let jobs = (w.completes.iter().map(|(j, _)| j))
        .chain(w.fails.iter().map(|(j, _)| j))
        .chain(w.releases.iter().map(|(j, _)| j))
        .chain(w.group_holds.iter().map(|(j, _)| j))
        .cloned()
        .collect();
    let at = Calls {
        index: i,
        parking,
        jobs,
        slots: Mutex::new(w.slots),
        refused: AtomicBool::new(false),
    };
    let queue = &w.queue;
    if let Some(d) = w.hold {
        let d = d.clamp(Duration::from_millis(1), crate::policy::MAX_RATE_WINDOW);
        finish_call(shared, &at, |_| queue.rate_limit(d)).await;
    }
    if !w.completes.is_empty() {
        let free = at.slots.lock().unwrap_or_else(|e| e.into_inner()).len();
        let lease = if shared.handle.is_stopping() || free == 0 {
            0
        } else {
            shared.turns().grant(i, free, std::time::Instant::now())
        };
        if let Some(leases) = send_completes(shared, &at, queue, w.completes, lease).await {
            if lease > 0 && !at.refused() {
                if leases.len() < lease {
                    shared.turns().short(i);
                }
                for lease in leases {
                    let job = shared.job(i, lease);
                    match (at.take_slot(), done.upgrade()) {
                        (Some(slot), Some(tx)) if !shared.handle.is_stopping() => {
                            starter.start(job, slot, tx)
                        }
                        // Leased as the shutdown began: hand it straight back.
                        _ => send_release(shared, &at, job, None).await,
                    }
                }
                starter.handler.delivered();
            }
        }
    }
    // The slots no lease took go back to the lease loop, whose order decides.
    at.slots.lock().unwrap_or_else(|e| e.into_inner()).clear();
    if !w.fails.is_empty() {
        send_fails(shared, &at, queue, w.fails).await;
    }
    for (job, delay) in w.releases {
        send_release(shared, &at, job, delay).await;
    }
    let mut held: Option<Duration> = None;
    for (job, d) in w.group_holds {
        let d = d.clamp(Duration::from_millis(1), crate::policy::MAX_RATE_WINDOW);
        if send_release_holding_group(shared, &at, job, d).await {
            held = Some(held.map_or(d, |h| h.max(d)));
        }
    }
    held.map(|d| (queue.prefix().to_owned(), d))
}

/// Sends one finishing call, again after a pause while Redis refuses it without running it
/// (`UNAVAILABLE`, `OUT_OF_MEMORY`): never after a lost reply, whose call may have run
/// (spec/PROTOCOL.md, 13.1). A shutdown bounds the tries: once its timeout has passed since it
/// began, or it is forced, a call still refused is given up (its lease, no longer renewed,
/// expires and the item runs again), so that a primary that stays over `maxmemory` or down
/// cannot keep the runner from stopping.
///
/// A refusal also parks the call ([`Calls::refuse`]): its queue leases nothing more here until
/// a finish there goes through, and the batch stops counting as in flight, so that one queue
/// (a partition whose primary is over `maxmemory` or failing over) holds back no other's
/// outcomes. `call` is told whether a call here was refused already (a complete then leases
/// nothing: its slots went back).
async fn finish_call<T, F, Fut>(shared: &Shared, at: &Calls<'_>, mut call: F) -> Option<T>
where
    F: FnMut(bool) -> Fut,
    Fut: std::future::Future<Output = Result<T>>,
{
    let mut ladder = ladder();
    loop {
        match call(at.refused()).await {
            Ok(v) => {
                shared.worked("finish");
                return Some(v);
            }
            Err(e) => {
                let resend = Verdict::of(&e).not_run();
                shared.failed("finish", e);
                if !resend {
                    return None;
                }
                let give_up = shared.give_up_at();
                let past = give_up.is_some_and(|at| std::time::Instant::now() >= at);
                if past || shared.handle.is_forced() {
                    return None;
                }
                at.refuse(shared);
                // A shutdown that begins during the pause cuts it: the next pause counts
                // towards the shutdown's timeout.
                let handle = &shared.handle;
                ladder
                    .pause(give_up, async {
                        if give_up.is_some() {
                            handle.forced().await
                        } else {
                            handle.stopping().await
                        }
                    })
                    .await;
            }
        }
    }
}

/// `jobs` (each with its outcome) by the queue they came from, in the order first met.
pub(super) fn by_queue<T>(jobs: Vec<(Job, T)>) -> Vec<(Queue, Vec<(Job, T)>)> {
    let mut out: Vec<(Queue, Vec<(Job, T)>)> = Vec::new();
    for (job, value) in jobs {
        match out
            .iter_mut()
            .find(|(q, _)| q.prefix() == job.queue().prefix())
        {
            Some((_, list)) => list.push((job, value)),
            None => out.push((job.queue().clone(), vec![(job, value)])),
        }
    }
    out
}

/// Completes `completes` (jobs of `queue`) and, when `lease` > 0, leases up to that many items
/// in the same round trip (no wait). Returns the new leases (none when the call's reply was
/// lost).
async fn send_completes(
    shared: &Shared,
    at: &Calls<'_>,
    queue: &Queue,
    completes: Vec<(Job, Option<Vec<u8>>)>,
    lease: usize,
) -> Option<Vec<crate::Lease>> {
    let s = &shared.settings;
    let keep = s.keep_results;
    let items: Vec<crate::ops::Completion<'_>> = completes
        .iter()
        .map(|(job, value)| {
            let result = match value {
                Some(v) if keep => Some((v.as_slice(), s.keep_result_for)),
                _ => None,
            };
            (job.lease(), result)
        })
        .collect();
    let (items, ttl) = (&items, s.lease_ttl);
    // Once refused, a complete leases nothing: its slots went back to the lease loop.
    let (done, leases) = finish_call(shared, at, |refused| async move {
        if lease == 0 || refused {
            let done = queue.complete_batch(items).await?;
            Ok((done, Vec::new()))
        } else {
            queue.complete_and_lease_batch(items, lease, ttl).await
        }
    })
    .await?;
    for ((job, _), completed) in completes.iter().zip(done) {
        if completed {
            shared.emit(Event::Completed {
                id: job.id().to_owned(),
                attempt: job.attempt(),
            });
        } else {
            lost_at_finish(shared, job);
        }
    }
    Some(leases)
}

/// A finish found the lease no longer held (the reply does not say why: reported as expired),
/// unless a renew reported it lost already.
fn lost_at_finish(shared: &Shared, job: &Job) {
    shared.lose(job, Some(RenewOutcome::Expired));
}

async fn send_fails(shared: &Shared, at: &Calls<'_>, queue: &Queue, fails: Vec<(Job, JobError)>) {
    let items: Vec<crate::Failure<'_>> = fails
        .iter()
        .map(|(job, e)| {
            (
                job.lease(),
                e.message.as_str(),
                e.error_type.as_str(),
                e.retry,
                e.trace.as_deref(),
            )
        })
        .collect();
    let Some(outcomes) = finish_call(shared, at, |_| queue.fail_batch_with_traces(&items)).await
    else {
        return;
    };
    for ((job, err), outcome) in fails.iter().zip(outcomes) {
        let (id, attempt, error) = (job.id().to_owned(), job.attempt(), err.message.clone());
        match outcome {
            FailOutcome::Retrying(retry_in) => shared.emit(Event::Retrying {
                id,
                attempt,
                error,
                retry_in,
            }),
            FailOutcome::Dead => shared.emit(Event::Dead { id, attempt, error }),
            FailOutcome::NotHeld(why) => shared.lose(job, Some(why)),
        }
    }
}

async fn send_release(shared: &Shared, at: &Calls<'_>, job: Job, delay: Option<Duration>) {
    let released = finish_call(shared, at, |_| job.queue().release(job.lease(), delay)).await;
    report_release(shared, &job, released);
}

/// What a release call answered (`None`: no answer, the call's outcome unknown): the event, or
/// the lease found lost.
fn report_release(shared: &Shared, job: &Job, released: Option<bool>) {
    match released {
        Some(true) => shared.emit(Event::Released {
            id: job.id().to_owned(),
            attempt: job.attempt(),
        }),
        Some(false) => lost_at_finish(shared, job),
        None => {}
    }
}

/// Releases a job whose handler was rate limited for its group, holding the group (or the
/// queue, for a job without one) off for `hold` in the same call (spec/PROTOCOL.md 5.21).
/// Returns whether it held the queue: a partitioned queue's other partitions are then held too
/// ([`hold_the_others`], once per batch).
async fn send_release_holding_group(
    shared: &Shared,
    at: &Calls<'_>,
    job: Job,
    hold: Duration,
) -> bool {
    let released = finish_call(shared, at, |_| {
        job.queue().release_holding_group(job.lease(), hold)
    })
    .await;
    report_release(shared, &job, released.map(|(released, _)| released));
    matches!(released, Some((true, true)))
}

/// For a runner over one logical queue's partitions ([`super::options::Settings::one_logical_queue`]): holds
/// every partition but those of `held` off for `hold` (spec/PROTOCOL.md 5.25, "Runners"), each
/// in a call of its own, once, not waited for: a partition that refuses writes (a failover,
/// over maxmemory) must not hold back the runner's outcomes. A refusal is reported as a
/// `finish` error.
fn hold_the_others(shared: &Arc<Shared>, held: &[&str], hold: Duration) {
    if !shared.settings.one_logical_queue {
        return;
    }
    let hold = hold.clamp(Duration::from_millis(1), crate::policy::MAX_RATE_WINDOW);
    for queue in &shared.queues {
        if held.contains(&queue.prefix()) {
            continue;
        }
        let (queue, shared) = (queue.clone(), shared.clone());
        tokio::spawn(async move {
            if let Err(e) = queue.rate_limit(hold).await {
                shared.failed("finish", e);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::to_send;

    #[test]
    fn outcomes_go_out_whole_or_in_two_halves_one_after_the_other_and_wait_beside_a_call_until_they_fill_one(
    ) {
        let mut held = false;
        // Nothing in flight: everything goes.
        let mut pending: Vec<u32> = (0..7).collect();
        assert_eq!(
            to_send(&mut pending, 0, 4, &mut held),
            Some((0..7).collect())
        );
        assert!(pending.is_empty() && !held);
        // Enough for two calls: the first half goes, the other waits for it to end, whatever
        // arrives meanwhile.
        let mut pending: Vec<u32> = (0..10).collect();
        assert_eq!(
            to_send(&mut pending, 0, 4, &mut held),
            Some(vec![0, 1, 2, 3, 4])
        );
        assert_eq!(pending, vec![5, 6, 7, 8, 9]);
        assert!(held);
        pending.extend(10..20);
        assert_eq!(to_send(&mut pending, 1, 4, &mut held), None);
        assert_eq!(pending.len(), 15);
        // It ended: the held half goes, with what arrived (in two halves again when that is
        // enough for two calls).
        assert_eq!(
            to_send(&mut pending, 0, 4, &mut held),
            Some((5..12).collect())
        );
        assert_eq!(pending, (12..20).collect::<Vec<_>>());
        assert_eq!(
            to_send(&mut pending, 0, 4, &mut held),
            Some((12..16).collect())
        );
        assert_eq!(
            to_send(&mut pending, 0, 4, &mut held),
            Some((16..20).collect())
        );
        assert!(!held);
        // One call in flight, nothing held: a batch worth a call goes beside it; fewer wait for
        // it to end.
        let mut pending: Vec<u32> = (0..3).collect();
        assert_eq!(to_send(&mut pending, 1, 4, &mut held), None);
        assert_eq!(pending, vec![0, 1, 2]);
        pending.push(3);
        assert_eq!(
            to_send(&mut pending, 1, 4, &mut held),
            Some(vec![0, 1, 2, 3])
        );
        // Two in flight: nothing more, however many wait.
        let mut pending: Vec<u32> = (0..100).collect();
        assert_eq!(to_send(&mut pending, 2, 4, &mut held), None);
        assert_eq!(pending.len(), 100);
        // Nothing pending: nothing to send.
        assert_eq!(to_send(&mut Vec::<u32>::new(), 0, 4, &mut held), None);
    }
}
