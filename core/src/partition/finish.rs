//! The calls bound to leases on a partitioned queue (spec/PROTOCOL.md 5.25): each lease is
//! finished in the partition that issued it, and a batch is split by partition, one call per
//! partition touched, sent at once.

use std::time::Duration;

use futures_util::future::try_join_all;

use super::Partitioned;
use crate::error::Result;
use crate::lease::{Lease, RenewOutcome};
use crate::ops::finish::{batch_size, check_result, check_retry, without_traces};
use crate::ops::{Completion, Failure};
use crate::queue::Queue;
use crate::{FailOutcome, Retry};

impl Partitioned {
    /// Completes `lease` in its own partition ([`crate::Queue::complete`]).
    pub async fn complete(&self, lease: &Lease) -> Result<bool> {
        self.queue_of(lease)?.complete(lease).await
    }

    /// Completes `lease` in its own partition keeping `result`
    /// ([`crate::Queue::complete_with_result`]: the same arguments and checks).
    pub async fn complete_with_result(
        &self,
        lease: &Lease,
        result: Option<&[u8]>,
        keep_for: Option<Duration>,
    ) -> Result<bool> {
        self.queue_of(lease)?
            .complete_with_result(lease, result, keep_for)
            .await
    }

    /// Records a failed attempt of `lease` in its own partition ([`crate::Queue::fail`]:
    /// retried or dead by `retry`, only while the lease is held).
    pub async fn fail(
        &self,
        lease: &Lease,
        error: &str,
        error_type: &str,
        retry: Retry,
    ) -> Result<FailOutcome> {
        self.queue_of(lease)?
            .fail(lease, error, error_type, retry)
            .await
    }

    /// Like [`Partitioned::fail`], keeping `trace` with the item
    /// ([`crate::Queue::fail_with_trace`]).
    pub async fn fail_with_trace(
        &self,
        lease: &Lease,
        error: &str,
        error_type: &str,
        retry: Retry,
        trace: Option<&str>,
    ) -> Result<FailOutcome> {
        self.queue_of(lease)?
            .fail_with_trace(lease, error, error_type, retry, trace)
            .await
    }

    /// Completes up to 1000 leases ([`crate::Queue::complete_batch`]), each in its own
    /// partition: one call per partition touched, sent at once. Returns, in order, whether each
    /// completed its item. Everything is checked before anything is sent (`completions`: at
    /// most 1000; `lease`: each a lease of this queue; `result`, `keep_result_for`), so a
    /// refusal sends nothing. Not atomic across partitions: when one call
    /// fails, the others may have run (a complete sent again answers false).
    pub async fn complete_batch(&self, completions: &[Completion<'_>]) -> Result<Vec<bool>> {
        batch_size("completions", completions.len())?;
        for (_, result) in completions {
            check_result(*result)?;
        }
        self.per_partition(
            completions,
            |c| c.0,
            |q, part| async move { q.complete_batch(&part).await },
        )
        .await
    }

    /// Extends up to 1000 leases ([`crate::Queue::renew_batch`]), each in its own partition,
    /// as [`Partitioned::complete_batch`] sends them. Returns each lease's outcome, in order.
    pub async fn renew_batch(&self, leases: &[&Lease], ttl: Duration) -> Result<Vec<RenewOutcome>> {
        batch_size("leases", leases.len())?;
        crate::lease::ttl_millis(ttl)?;
        self.per_partition(
            leases,
            |l| *l,
            |q, part| async move { q.renew_batch(&part, ttl).await },
        )
        .await
    }

    /// Fails up to 1000 leases ([`crate::Queue::fail_batch`]), each in its own partition, as
    /// [`Partitioned::complete_batch`] sends them. Returns each failure's outcome, in order.
    pub async fn fail_batch(
        &self,
        failures: &[(&Lease, &str, &str, Retry)],
    ) -> Result<Vec<FailOutcome>> {
        self.fail_batch_with_traces(&without_traces(failures)).await
    }

    /// Like [`Partitioned::fail_batch`], each failure with its trace
    /// ([`crate::Queue::fail_batch_with_traces`]).
    pub async fn fail_batch_with_traces(
        &self,
        failures: &[Failure<'_>],
    ) -> Result<Vec<FailOutcome>> {
        batch_size("failures", failures.len())?;
        for failure in failures {
            check_retry(failure.3)?;
        }
        self.per_partition(
            failures,
            |f| f.0,
            |q, part| async move { q.fail_batch_with_traces(&part).await },
        )
        .await
    }

    /// Splits `entries` by the partition of each one's lease (`lease_of`; every lease checked
    /// before anything is sent), sends each partition its share with `call`, at once, and puts
    /// the answers back in the order of `entries`.
    async fn per_partition<'e, E, T, F, Fut>(
        &'e self,
        entries: &[E],
        lease_of: impl Fn(&E) -> &Lease,
        call: F,
    ) -> Result<Vec<T>>
    where
        E: Clone,
        F: Fn(&'e Queue, Vec<E>) -> Fut,
        Fut: std::future::Future<Output = Result<Vec<T>>>,
    {
        // Each entry's partition, and each partition's entries by their places in `entries`.
        let mut shares: Vec<(usize, Vec<usize>)> = Vec::new();
        for (k, entry) in entries.iter().enumerate() {
            let queue = self.queue_of(lease_of(entry))?;
            let p = self
                .partitions
                .iter()
                .position(|q| std::ptr::eq(q, queue))
                .expect("queue_of answers a partition");
            match shares.iter_mut().find(|(i, _)| *i == p) {
                Some((_, places)) => places.push(k),
                None => shares.push((p, vec![k])),
            }
        }
        let answers = try_join_all(shares.iter().map(|(p, places)| {
            let part: Vec<E> = places.iter().map(|&k| entries[k].clone()).collect();
            call(&self.partitions[*p], part)
        }))
        .await?;
        let mut out: Vec<Option<T>> = std::iter::repeat_with(|| None)
            .take(entries.len())
            .collect();
        for ((_, places), answer) in shares.iter().zip(answers) {
            for (&k, value) in places.iter().zip(answer) {
                out[k] = Some(value);
            }
        }
        Ok(out
            .into_iter()
            .map(|v| v.expect("every partition answers each of its entries"))
            .collect())
    }
}
