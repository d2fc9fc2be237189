// ES module entry point: the same classes as the CommonJS one (index.js).
import leaseq from './index.js'

export const {
  Client,
  ErrorCode,
  EventFollower,
  Item,
  Lease,
  LeaseqError,
  PartitionedQueue,
  Queue,
  RateLimitedError,
  ReleaseJob,
  RetryLaterError,
  UnrecoverableError,
  Worker,
  WorkerJob,
} = leaseq
export default leaseq
