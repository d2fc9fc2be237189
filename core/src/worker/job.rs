//! What a handler receives (a [`Job`]) and what it returns (an [`Outcome`]).

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde::de::DeserializeOwned;
use tokio_util::sync::CancellationToken;

use crate::error::Result;
use crate::lease::{Lease, RenewOutcome};
use crate::policy::Retry;
use crate::queue::Queue;

pub use super::engine::Reply;

/// Why a runner told a handler to stop ([`Job::cancel_reason`]): the same reasons, in the same
/// words, in every language (spec/PROTOCOL.md, 13.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CancelReason {
    /// The handler ran past the runner's `job_timeout`: the attempt fails with a
    /// [`TIMEOUT_ERROR_TYPE`] error once the handler ends, or after `timeout_grace`.
    Timeout,
    /// The lease is lost ([`Job::is_lost`]): a renew or an outcome found it gone.
    LeaseLost,
    /// The runner's shutdown timeout passed (or the shutdown was forced) while the handler
    /// ran: its item is released (or failed, as configured) and the lease counts as lost.
    Shutdown,
}

impl CancelReason {
    /// Every reason's [`CancelReason::as_str`], in the order of their codes (1, 2, 3).
    pub const NAMES: [&'static str; 3] = ["timeout", "lease_lost", "shutdown"];

    /// The reason's name, the same in every language (Node in camelCase): `timeout`,
    /// `lease_lost` or `shutdown`.
    pub fn as_str(self) -> &'static str {
        Self::NAMES[usize::from(self.code()) - 1]
    }

    /// The reason's number (C's `LEASEQ_CANCEL_*`): 1 timeout, 2 lease lost, 3 shutdown; 0
    /// means not cancelled.
    pub fn code(self) -> u8 {
        match self {
            CancelReason::Timeout => 1,
            CancelReason::LeaseLost => 2,
            CancelReason::Shutdown => 3,
        }
    }

    fn from_code(code: u8) -> Option<CancelReason> {
        match code {
            1 => Some(CancelReason::Timeout),
            2 => Some(CancelReason::LeaseLost),
            3 => Some(CancelReason::Shutdown),
            _ => None,
        }
    }
}

impl std::fmt::Display for CancelReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The `error_type` of the failure a timed-out attempt is recorded with (its message says the
/// timeout), the same in every language.
pub const TIMEOUT_ERROR_TYPE: &str = "timeout";

/// A leased item handed to a handler by a [`crate::worker::Worker`]. Cheap to clone.
///
/// A handler is *told* to stop through one token, [`Job::cancelled`] (or
/// [`Job::cancel_token`]), for every reason there is ([`CancelReason`]): its timeout passed,
/// its lease is lost, or the runner's shutdown timeout passed. The first reason is kept.
/// [`Job::lost`] resolves for a lost lease (and a shutdown) only.
#[derive(Debug, Clone)]
pub struct Job {
    inner: Arc<JobInner>,
}

#[derive(Debug)]
struct JobInner {
    /// The job's number in its runner ([`Job::seq`]).
    seq: u64,
    lease: Lease,
    queue: Queue,
    lost: CancellationToken,
    why_lost: std::sync::Mutex<Option<RenewOutcome>>,
    /// Cancelled with the first reason to tell the handler; `reason` holds its code.
    cancel: CancellationToken,
    reason: AtomicU8,
}

impl Job {
    pub(crate) fn new(queue: Queue, lease: Lease, seq: u64) -> Job {
        Job {
            inner: Arc::new(JobInner {
                seq,
                lease,
                queue,
                lost: CancellationToken::new(),
                why_lost: std::sync::Mutex::new(None),
                cancel: CancellationToken::new(),
                reason: AtomicU8::new(0),
            }),
        }
    }

    /// The job's number in its runner: no two jobs a runner started share one (a binding
    /// that runs handlers with [`Reply`] keys its jobs by it, and [`Handler::told`] names
    /// them by it).
    pub fn seq(&self) -> u64 {
        self.inner.seq
    }

    /// The item's id.
    pub fn id(&self) -> &str {
        self.inner.lease.id()
    }

    /// The item's id as Redis holds it (differs from [`Job::id`] only for ids that are not
    /// UTF-8).
    pub fn id_bytes(&self) -> &[u8] {
        self.inner.lease.id_bytes()
    }

    /// The item's data.
    pub fn data(&self) -> &[u8] {
        self.inner.lease.data()
    }

    /// The data parsed as JSON.
    pub fn json<T: DeserializeOwned>(&self) -> Result<T> {
        self.inner.lease.json()
    }

    /// Which attempt this is (1 for the first).
    pub fn attempt(&self) -> u64 {
        self.inner.lease.attempt()
    }

    /// The item's attempt limit (0: unlimited).
    pub fn max_attempts(&self) -> u32 {
        self.inner.lease.max_attempts()
    }

    /// The item's name, when it was added with one ([`crate::Item::name`]): a runner with
    /// [`super::Handlers`] runs the job with the handler of that name.
    pub fn name(&self) -> Option<&str> {
        self.inner.lease.name()
    }

    /// The lease the runner holds for this job; the runner renews, completes or fails it.
    pub fn lease(&self) -> &Lease {
        &self.inner.lease
    }

    /// The queue the job came from.
    pub fn queue(&self) -> &Queue {
        &self.inner.queue
    }

    /// The kept results of the items this job was added to wait for, in order
    /// ([`Queue::dependency_results`]): a flow's parent reads its children's results so, as
    /// BullMQ's `getChildrenValues` does. `(dependency id, result)`, the result `None` when none
    /// is kept. One round trip.
    pub async fn dependency_results(&self) -> Result<Vec<(String, Option<Vec<u8>>)>> {
        self.inner
            .queue
            .dependency_results(self.inner.lease.id_bytes())
            .await
    }

    /// Stores a small progress value on the item (at most 64 KiB), shown by `get`; false once
    /// the lease is lost.
    pub async fn progress(&self, value: &[u8]) -> Result<bool> {
        self.inner.queue.progress(&self.inner.lease, value).await
    }

    /// Whether the runner learned that this job's lease is gone: it expired and another worker
    /// may run the item, or it was cancelled or completed elsewhere, or the runner is shutting
    /// down past its timeout. The handler should stop; its outcome changes nothing unless it
    /// completes an item nobody else completed.
    pub fn is_lost(&self) -> bool {
        self.inner.lost.is_cancelled()
    }

    /// Resolves when the lease is lost (see [`Job::is_lost`]).
    pub async fn lost(&self) {
        self.inner.lost.cancelled().await
    }

    /// Why the lease was lost; `None` while it is held, and when a shutdown took it.
    pub fn lost_because(&self) -> Option<RenewOutcome> {
        *self
            .inner
            .why_lost
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// The token cancelled when the lease is lost, for `select!` or child tokens.
    pub fn lost_token(&self) -> CancellationToken {
        self.inner.lost.clone()
    }

    /// Whether the runner told the handler to stop: its timeout passed, its lease is lost, or
    /// the runner's shutdown timeout passed ([`Job::cancel_reason`] says which). The handler
    /// should stop; after a timeout its outcome no longer counts (the attempt fails with the
    /// timeout error).
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancel.is_cancelled()
    }

    /// Resolves when the handler is told to stop (see [`Job::is_cancelled`]).
    pub async fn cancelled(&self) {
        self.inner.cancel.cancelled().await
    }

    /// Why the handler was told to stop (the first reason); `None` until it is.
    pub fn cancel_reason(&self) -> Option<CancelReason> {
        CancelReason::from_code(self.inner.reason.load(Ordering::SeqCst))
    }

    /// The token cancelled when the handler is told to stop, for `select!`, child tokens or
    /// [`CancellationToken::run_until_cancelled`].
    pub fn cancel_token(&self) -> CancellationToken {
        self.inner.cancel.clone()
    }

    /// Tells the handler to stop for `reason` unless it was told already (the first reason is
    /// kept); true when this call told it.
    pub(crate) fn mark_cancelled(&self, reason: CancelReason) -> bool {
        let told = self
            .inner
            .reason
            .compare_exchange(0, reason.code(), Ordering::SeqCst, Ordering::SeqCst)
            .is_ok();
        self.inner.cancel.cancel();
        told
    }

    /// Marks the lease lost (idempotent) and tells the handler, unless a timeout told it first;
    /// `why` is `None` for a shutdown. Returns whether this call marked it lost.
    pub(crate) fn mark_lost(&self, why: Option<RenewOutcome>) -> bool {
        if self.inner.lost.is_cancelled() {
            return false;
        }
        *self
            .inner
            .why_lost
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = why;
        self.inner.lost.cancel();
        self.mark_cancelled(match why {
            Some(_) => CancelReason::LeaseLost,
            None => CancelReason::Shutdown,
        });
        true
    }
}

/// What became of a job, as its handler says.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Outcome {
    /// Done; the value is kept as the job's result when the runner keeps results.
    Complete(Option<Vec<u8>>),
    /// It failed: retried with the queue's backoff (or the error's delay), or dead when out of
    /// attempts or unrecoverable.
    Fail(JobError),
    /// Hand it back untouched (no attempt counted), to wait again now or after the delay.
    Release(Option<Duration>),
}

/// A handler's failure: a message, a type that groups failures (an exception class, say) and
/// whether to retry. Made with [`JobError::new`], [`JobError::unrecoverable`] or from any
/// error, then [`JobError::with_type`] and [`JobError::retry_after`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct JobError {
    /// The message stored with the item (at most 4096 bytes are kept).
    pub message: String,
    /// A name for the kind of failure; may be empty.
    pub error_type: String,
    /// How to retry: the queue's backoff by default, [`Retry::Never`] for unrecoverable.
    pub retry: Retry,
    /// Set by [`JobError::rate_limited`]: the queue is held off this long
    /// ([`Queue::rate_limit`]) and the job released, no attempt charged, instead of failed.
    pub rate_limited: Option<Duration>,
    /// With `rate_limited`: set by [`JobError::rate_limited_group`], the hold is of the job's
    /// group only ([`Queue::rate_limit_group`]), or of the queue when the job has no group.
    pub rate_limited_group: bool,
    /// The failure's traceback, stack or error chain, kept with the item as its `trace` (at
    /// most 16 KiB are kept; spec/PROTOCOL.md 5.6) and shown by `get`. Set by
    /// [`JobError::with_trace`], and by the conversion from a `std::error::Error` that has a
    /// source (the chain of causes).
    pub trace: Option<String>,
}

impl JobError {
    /// A failure retried with the queue's backoff.
    pub fn new(message: impl Into<String>) -> JobError {
        JobError {
            message: message.into(),
            error_type: String::new(),
            retry: Retry::Default,
            rate_limited: None,
            rate_limited_group: false,
            trace: None,
        }
    }

    /// Not a failure: the handler was rate limited (an API answered 429). The runner holds
    /// every client's leases of the queue off for `hold` ([`Queue::rate_limit`]; a runner over
    /// a partitioned queue, [`crate::worker::Worker::partitioned`], holds every partition) and releases
    /// the job, which runs again after the hold without being charged an attempt
    /// (spec/PROTOCOL.md, 13.1). A hold out of bounds (zero, or more than a day) is cut to
    /// them.
    pub fn rate_limited(hold: Duration) -> JobError {
        JobError {
            rate_limited: Some(hold),
            ..JobError::new(format!("rate limited for {hold:?}"))
        }
    }

    /// Not a failure: the handler was rate limited for the job's **group** (an API that limits
    /// per customer or tenant answered 429). The runner holds that group off for `hold`
    /// ([`Queue::rate_limit_group`]) and releases the job in the same call, no attempt charged;
    /// the queue's other groups go on (spec/PROTOCOL.md 5.21). A job without a group holds the
    /// whole queue off, as [`JobError::rate_limited`] (of a partitioned queue, run by
    /// [`crate::worker::Worker::partitioned`]: every partition). A hold out of bounds is cut to them.
    pub fn rate_limited_group(hold: Duration) -> JobError {
        JobError {
            rate_limited_group: true,
            ..JobError::rate_limited(hold)
        }
    }

    /// The failure a timed-out attempt is recorded with: type [`TIMEOUT_ERROR_TYPE`], retried
    /// with the queue's backoff (or dead when out of attempts), its message naming `timeout`.
    pub fn timed_out(timeout: Duration) -> JobError {
        JobError::new(format!("the job ran past its timeout of {timeout:?}"))
            .with_type(TIMEOUT_ERROR_TYPE)
    }

    /// A failure that sends the job straight to the dead letters.
    pub fn unrecoverable(message: impl Into<String>) -> JobError {
        JobError {
            retry: Retry::Never,
            ..JobError::new(message)
        }
    }

    /// A handler's return value that could not be encoded as a result (a binding's encoding:
    /// JSON of a Python set, of a JavaScript `BigInt` or circular object, a string that is not
    /// valid Unicode): a failed attempt like any other, retried with the queue's backoff, whose
    /// message says so and gives `why`. Set the type with [`JobError::with_type`] (the language's
    /// error class: `TypeError`, say). Bindings call it where they convert the return value, so
    /// every language words it alike (spec/PROTOCOL.md, 13.1).
    pub fn unencodable_result(why: impl std::fmt::Display) -> JobError {
        JobError::new(format!("the handler's result cannot be encoded: {why}"))
    }

    /// Sets the failure's trace: a traceback, a stack or an error chain, kept with the item
    /// (the last failure's replaces the previous one; at most 16 KiB are kept).
    pub fn with_trace(mut self, trace: impl Into<String>) -> JobError {
        self.trace = Some(trace.into());
        self
    }

    /// Sets the failure's type name.
    pub fn with_type(mut self, error_type: impl Into<String>) -> JobError {
        self.error_type = error_type.into();
        self
    }

    /// Retries after `delay` instead of the backoff (while attempts are left).
    pub fn retry_after(mut self, delay: Duration) -> JobError {
        self.retry = Retry::After(delay);
        self
    }
}

impl<E: std::error::Error> From<E> for JobError {
    /// The error's message and type name; an error with a source keeps its chain of causes as
    /// the trace (the error, then a `caused by: ` line per source).
    fn from(err: E) -> JobError {
        let name = std::any::type_name::<E>();
        let error =
            JobError::new(err.to_string()).with_type(name.rsplit("::").next().unwrap_or(name));
        match error_chain(&err) {
            Some(chain) => error.with_trace(chain),
            None => error,
        }
    }
}

/// `err` and its sources, one a line (`caused by: ` before each source); `None` without a
/// source.
fn error_chain(err: &dyn std::error::Error) -> Option<String> {
    let mut source = err.source()?;
    let mut chain = err.to_string();
    loop {
        chain.push_str("\ncaused by: ");
        chain.push_str(&source.to_string());
        match source.source() {
            Some(next) => source = next,
            None => return Some(chain),
        }
    }
}

/// A handler's success value, kept as the job's result when it is not empty. Its values are
/// bytes already, so this conversion cannot fail: a Rust handler that encodes a value itself
/// (`serde_json::to_vec`, say) returns the encoding's error as its `Err`, or
/// [`JobError::unencodable_result`] to word it as the bindings do.
pub trait IntoResultValue {
    /// The bytes to keep, or `None` to keep nothing.
    fn into_result_value(self) -> Option<Vec<u8>>;
}

impl IntoResultValue for () {
    fn into_result_value(self) -> Option<Vec<u8>> {
        None
    }
}

impl IntoResultValue for Vec<u8> {
    fn into_result_value(self) -> Option<Vec<u8>> {
        Some(self)
    }
}

impl IntoResultValue for String {
    fn into_result_value(self) -> Option<Vec<u8>> {
        Some(self.into_bytes())
    }
}

impl IntoResultValue for Option<Vec<u8>> {
    fn into_result_value(self) -> Option<Vec<u8>> {
        self
    }
}

impl<T: IntoResultValue, E: Into<JobError>> From<std::result::Result<T, E>> for Outcome {
    fn from(r: std::result::Result<T, E>) -> Outcome {
        match r {
            Ok(v) => Outcome::Complete(v.into_result_value()),
            Err(e) => Outcome::Fail(e.into()),
        }
    }
}

/// A boxed handler future.
pub type HandlerFuture = Pin<Box<dyn Future<Output = Outcome> + Send + 'static>>;

/// Runs one job. Implemented for every `Fn(Job) -> impl Future<Output = R>` where `R` is an
/// [`Outcome`] or a `Result<T, E>` (`T`: `()`, bytes or a string; `E` into [`JobError`]).
pub trait Handler: Send + Sync + 'static {
    /// Starts the job; the future's output is its outcome.
    fn call(&self, job: Job) -> HandlerFuture;

    /// Called by the engine after it has started a batch of jobs (what one lease call brought):
    /// every [`Handler::call`] of the batch came before it. A binding that hands jobs to
    /// another thread (a JavaScript event loop) queues them in `call` and wakes that thread once
    /// here, so that many jobs cross in one wake-up. The default does nothing.
    fn delivered(&self) {}

    /// Whether the engine runs jobs with [`Handler::start`] instead of [`Handler::call`]
    /// (default false). A binding whose handlers run on another thread (a JavaScript event
    /// loop) says true: the engine then spends no task and no channel on a job while it runs,
    /// and the binding hands many outcomes back at once ([`Reply::send_all`]).
    fn replies(&self) -> bool {
        false
    }

    /// Starts `job` (for a handler whose [`Handler::replies`] is true); its outcome goes back
    /// through `reply`, from any thread, whenever the handler ends. A reply dropped unsent
    /// fails the attempt (the handler ended without an outcome). The default runs
    /// [`Handler::call`]'s future on a task of its own and sends what it returns.
    fn start(&self, job: Job, reply: Reply) {
        let fut = self.call(job);
        tokio::spawn(async move { reply.send(fut.await) });
    }

    /// Called when the runner tells a job's handler to stop ([`Job::cancel_reason`] says why:
    /// the first reason), for a handler that runs jobs with [`Handler::start`] and so has no
    /// future waiting on [`Job::cancelled`]: once per job, and once more when the job's lease
    /// is lost after its timeout told it ([`Job::is_lost`] is then true). It may come for a
    /// job whose outcome was sent already. Keep it quick: it runs on the runtime's threads.
    /// The default does nothing.
    fn told(&self, job: &Job) {
        let _ = job;
    }
}

impl<F, Fut, R> Handler for F
where
    F: Fn(Job) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = R> + Send + 'static,
    R: Into<Outcome>,
{
    fn call(&self, job: Job) -> HandlerFuture {
        let fut = self(job);
        Box::pin(async move { fut.await.into() })
    }
}
