//! `NativeClient`: a core `Client` as a JavaScript class.

use napi_derive::napi;

use crate::error::to_napi;
use crate::partitioned::NativePartitioned;
use crate::queue::NativeQueue;

/// A connection to Redis or Redis Cluster; `lib/client.js` wraps it as `Client`.
#[napi]
pub struct NativeClient {
    inner: leaseq::Client,
}

#[napi]
impl NativeClient {
    /// Connects to one Redis server.
    #[napi(factory)]
    pub async fn connect(url: String) -> napi::Result<NativeClient> {
        let inner = leaseq::Client::connect(&url).await.map_err(to_napi)?;
        Ok(NativeClient { inner })
    }

    /// Connects to a Redis Cluster through one or more of its nodes.
    #[napi(factory)]
    pub async fn cluster(urls: Vec<String>) -> napi::Result<NativeClient> {
        let inner = leaseq::Client::connect_cluster(&urls)
            .await
            .map_err(to_napi)?;
        Ok(NativeClient { inner })
    }

    /// The queue under `prefix`; validates the prefix, sends nothing.
    #[napi]
    pub fn queue(&self, prefix: String) -> napi::Result<NativeQueue> {
        let queue = self.inner.queue(&prefix).map_err(to_napi)?;
        Ok(NativeQueue::new(queue))
    }

    /// Creates (or opens) the partitioned queue `base` of `partitions` partitions.
    #[napi]
    pub async fn create_partitioned(
        &self,
        base: String,
        partitions: f64,
    ) -> napi::Result<NativePartitioned> {
        let partitions: usize = crate::convert::integer("partitions", partitions)?;
        let p = self
            .inner
            .create_partitioned(&base, partitions)
            .await
            .map_err(to_napi)?;
        Ok(NativePartitioned::new(p))
    }

    /// The partitioned queue `base` as stored (a plain queue there is one partition).
    #[napi]
    pub async fn partitioned(&self, base: String) -> napi::Result<NativePartitioned> {
        let p = self.inner.partitioned(&base).await.map_err(to_napi)?;
        Ok(NativePartitioned::new(p))
    }

    /// Ends waiting leases with `CLOSED`, and every later call too.
    #[napi]
    pub fn close(&self) {
        self.inner.close();
    }

    /// Whether `close` was called.
    #[napi(getter)]
    pub fn closed(&self) -> bool {
        self.inner.is_closed()
    }

    /// Whether this client talks to a Redis Cluster.
    #[napi(getter)]
    pub fn is_cluster(&self) -> bool {
        self.inner.is_cluster()
    }

    /// Server settings found at connect time that put items at risk.
    #[napi(getter)]
    pub fn warnings(&self) -> Vec<String> {
        self.inner.warnings().to_vec()
    }
}
