// @ts-check
'use strict'
// The npm package `leaseq`: a work queue on Redis with fenced, expiring leases.
// Types: index.d.ts. The protocol lives in the Rust core; this layer only converts arguments
// and maps errors (lib/errors.js).

const { Client } = require('./lib/client')
const { ErrorCode, LeaseqError } = require('./lib/errors')
const { EventFollower } = require('./lib/events')
const { Item } = require('./lib/item')
const { Lease } = require('./lib/lease')
const { PartitionedQueue } = require('./lib/partitioned')
const { Queue } = require('./lib/queue')
const {
  RateLimitedError,
  ReleaseJob,
  RetryLaterError,
  UnrecoverableError,
  Worker,
  WorkerJob,
} = require('./lib/worker')

module.exports = {
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
}
