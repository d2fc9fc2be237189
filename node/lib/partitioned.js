// @ts-check
'use strict'
// `PartitionedQueue`: one logical queue stored as partitions (spec/PROTOCOL.md 5.25), a thin
// skin over the core's `Partitioned` (src/partitioned.rs) with the conversions of lib/queue.js.

const args = require('./args')
const { nativeAsync, nativeSync } = require('./errors')
const { CONSTRUCT: FOLLOWER, EventFollower } = require('./events')
const { Item, nativeItem } = require('./item')
const { toLease } = require('./lease')
const q = require('./queue')

/** Only `Client#createPartitioned` and `Client#partitioned` make partitioned queues. */
const CONSTRUCT = Symbol('leaseq.PartitionedQueue')
const LEASE_OPTIONS = Object.freeze(['ttlMs', 'timeoutMs'])

/** @type {(queue: PartitionedQueue) => import('../native').NativePartitioned} */
let nativeOf

/**
 * One logical queue stored as partitions, each a full queue on a hash tag of its own, so that a
 * Redis Cluster spreads them over its primaries. Items go to a partition by their group, else
 * where their dependencies are, else their id; leases rotate over the partitions; the reads see the
 * whole logical queue.
 */
class PartitionedQueue {
  /** @type {import('../native').NativePartitioned} */
  #native

  static {
    nativeOf = (queue) => queue.#native
  }

  /**
   * @param {symbol} key
   * @param {import('../native').NativePartitioned} native
   */
  constructor(key, native) {
    if (key !== CONSTRUCT) {
      throw new TypeError('partitioned queues come from Client#createPartitioned or Client#partitioned')
    }
    this.#native = native
  }

  /** The base that names the logical queue. */
  get base() {
    return this.#native.base
  }

  /**
   * The partitions' prefixes, in order.
   * @returns {string[]}
   */
  get partitions() {
    return this.#native.partitions
  }

  /**
   * The partitions as `Queue`s, in order: a `Worker` given this queue runs over them.
   * @returns {import('./queue').Queue[]}
   */
  partitionQueues() {
    return this.#native.partitionQueues().map(q.toQueue)
  }

  /**
   * Partition `i` as a `Queue` (sends nothing): for what only a queue offers (groups,
   * renew, release, progress). An index out of range is refused (`INVALID_ARGUMENT`
   * naming `partition`).
   * @param {number} i
   * @returns {import('./queue').Queue}
   */
  partition(i) {
    const n = args.number('partition', i, q.WHOLE)
    return q.toQueue(nativeSync(() => this.#native.partition(n)))
  }

  /**
   * The index of the partition `item` goes to (sends nothing): by its group, else its first
   * dependency, else its id, as `add` routes it.
   * @param {import('./item').Item} item
   * @returns {number}
   */
  partitionOf(item) {
    const n = nativeItem(args.instance('item', item, Item))
    return nativeSync(() => this.#native.partitionOf(n))
  }

  /**
   * The partition that issued `lease`, as a `Queue` (sends nothing): where to renew, release
   * or report progress on it. A lease of another queue is refused (`INVALID_ARGUMENT` naming
   * `lease`).
   * @param {import('./lease').Lease} lease
   * @returns {import('./queue').Queue}
   */
  queueOf(lease) {
    const l = q.requireLease(lease)
    return q.toQueue(nativeSync(() => this.#native.queueOf(l)))
  }

  /**
   * Adds `item` to its partition unless an item with its id exists there; resolves to whether
   * it was added. The arguments are `Queue#add`'s (a full bounded partition: `FULL`, after
   * waiting up to `timeoutMs` for room when it is given).
   * @param {import('./item').Item | Buffer | Uint8Array | string} item an `Item`, or data for a new one
   * @param {import('../index').AddOptions | import('../index').AddDataOptions} [options]
   *   `timeoutMs`; with data also the new item's id and options
   * @returns {Promise<boolean>}
   */
  async add(item, options) {
    const [n, timeoutMs] = q.addArgs(item, options)
    return nativeAsync(() => this.#native.add(n, timeoutMs))
  }

  /**
   * Adds an item to its partition, routed as `add` routes it, without checking whether its id
   * exists there, as `Queue#addUnique` does: for fresh (random) ids only.
   * @param {import('./item').Item | Buffer | Uint8Array | string} item
   * @param {import('../index').ItemOptions} [options]
   * @returns {Promise<void>}
   */
  async addUnique(item, options) {
    const n = q.toItem(item, options)
    return nativeAsync(() => this.#native.addUnique(n))
  }

  /**
   * Adds every item whose id does not exist yet in its partition: one call per partition
   * touched, sent at once. Resolves to how many were added. The arguments are
   * `Queue#addBatch`'s (each partition's share waits up to `timeoutMs` for room).
   * @param {import('./item').Item[]} items
   * @param {import('../index').AddOptions} [options]
   * @returns {Promise<number>}
   */
  async addBatch(items, options) {
    const [natives, timeoutMs] = q.addBatchArgs(items, options)
    return nativeAsync(() => this.#native.addBatch(natives, timeoutMs))
  }

  /**
   * Adds `parent` and its children as `Queue#addFlow` does, every item of the flow to one
   * partition: the one `parent` routes to by its group, else its id. Resolves to how many were
   * added. A dependency on an item outside the flow that is in another partition is refused
   * (`depends_on`), as is an item whose group lives in another partition (`group`).
   * @param {import('./item').Item} parent
   * @param {Array<import('./item').Item | import('../index').FlowChild>} children
   * @returns {Promise<number>}
   */
  async addFlow(parent, children) {
    const [p, items, parents] = q.addFlowArgs(parent, children)
    return nativeAsync(() => this.#native.addFlow(p, items, parents))
  }

  /**
   * Leases one item from any partition, asked in a rotating order (null when none); with
   * `timeoutMs` it waits on every partition at once.
   * @param {import('../index').LeaseBatchOptions} [options]
   * @returns {Promise<import('./lease').Lease | null>}
   */
  async lease(options) {
    const o = args.optionalOptions('options', options, LEASE_OPTIONS)
    const ttlMs = args.optionalNumber('ttlMs', o.ttlMs)
    const timeoutMs = args.optionalNumber('timeoutMs', o.timeoutMs)
    return toLease(await nativeAsync(() => this.#native.lease(ttlMs, timeoutMs)))
  }

  /**
   * Leases up to `n` items (1 to 1000) from as many partitions as it takes.
   * @param {number} n
   * @param {import('../index').LeaseBatchOptions} [options]
   * @returns {Promise<import('./lease').Lease[]>}
   */
  async leaseBatch(n, options) {
    const count = args.number('n', n, q.WHOLE)
    const o = args.optionalOptions('options', options, q.BATCH_OPTIONS)
    const ttlMs = args.optionalNumber('ttlMs', o.ttlMs)
    const timeoutMs = args.optionalNumber('timeoutMs', o.timeoutMs)
    const leased = await nativeAsync(() => this.#native.leaseBatch(count, ttlMs, timeoutMs))
    return leased.map((parts) => /** @type {import('./lease').Lease} */ (toLease(parts)))
  }

  /**
   * Completes `lease` in its own partition (keeping `result`, if given, as `Queue#complete`).
   * @param {import('./lease').Lease} lease
   * @param {import('../index').CompleteOptions} [options]
   * @returns {Promise<boolean>}
   */
  async complete(lease, options) {
    const l = q.requireLease(lease)
    const o = args.optionalOptions('options', options, q.COMPLETE_OPTIONS)
    const result = o.result === undefined ? undefined : args.bytes('result', o.result)
    const keep = args.optionalNumber('keepResultForMs', o.keepResultForMs)
    return nativeAsync(() => this.#native.complete(l, result, keep))
  }

  /**
   * Records a failed attempt of `lease` in its own partition, as `Queue#fail` (the same
   * arguments and answer): retried after its backoff while attempts remain, else dead.
   * @param {import('./lease').Lease} lease
   * @param {string | Error} error a message, or an Error (its message; its name is the
   *   default `errorType`)
   * @param {import('../index').FailOptions} [options]
   * @returns {Promise<import('../index').FailOutcome>}
   */
  async fail(lease, error, options) {
    const a = q.failArgs(lease, error, options)
    const outcome = await nativeAsync(() => this.#native.fail(...a))
    return /** @type {import('../index').FailOutcome} */ (outcome)
  }

  /**
   * Completes many leases (at most 1000), each in its own partition, as `Queue#completeBatch`
   * (the same entries and answer): one call per partition touched, sent at once. Resolves to
   * whether each completed its item, in the order given. Everything is checked before anything
   * is sent: a lease of another queue is refused (`INVALID_ARGUMENT` naming `lease`).
   * @param {Array<import('./lease').Lease | import('../index').Completion>} completions
   * @returns {Promise<boolean[]>}
   */
  async completeBatch(completions) {
    const [leases, results, keeps] = q.completionParts(completions)
    return nativeAsync(() => this.#native.completeBatch(leases, results, keeps))
  }

  /**
   * Extends many leases (at most 1000), each in its own partition, as `completeBatch` sends
   * them; resolves to each one's outcome, in the order given.
   * @param {import('./lease').Lease[]} leases
   * @param {{ ttlMs?: number }} [options]
   * @returns {Promise<import('../index').RenewOutcome[]>}
   */
  async renewBatch(leases, options) {
    const [natives, ttlMs] = q.renewBatchArgs(leases, options)
    const outcomes = await nativeAsync(() => this.#native.renewBatch(natives, ttlMs))
    return /** @type {import('../index').RenewOutcome[]} */ (outcomes)
  }

  /**
   * Fails many leases (at most 1000), each in its own partition as `Queue#failBatch` would
   * (the same failures and answers), sent as `completeBatch` sends them; resolves to the
   * outcomes, in the order given.
   * @param {import('../index').Failure[]} failures
   * @returns {Promise<import('../index').FailOutcome[]>}
   */
  async failBatch(failures) {
    const [parts, leases] = q.failureParts(failures)
    const outcomes = await nativeAsync(() => this.#native.failBatch(parts, leases))
    return /** @type {import('../index').FailOutcome[]} */ (outcomes)
  }

  /**
   * Item `id` from whichever partition holds it, or null.
   * @param {string | Buffer | Uint8Array} id
   * @returns {Promise<import('../index').Job | null>}
   */
  async get(id) {
    const i = args.id('id', id)
    const job = await nativeAsync(() => this.#native.get(i))
    return job ? q.toJob(job) : null
  }

  /**
   * Cancels item `id` in whichever partition holds it; the state it was in, or null.
   * @param {string | Buffer | Uint8Array} id
   * @returns {Promise<import('../index').JobState | null>}
   */
  async cancel(id) {
    const i = args.id('id', id)
    const was = await nativeAsync(() => this.#native.cancel(i))
    return /** @type {import('../index').JobState | null} */ (was ?? null)
  }

  /**
   * The result kept for item `id`, or null.
   * @param {string | Buffer | Uint8Array} id
   * @returns {Promise<import('../index').JobResult | null>}
   */
  async result(id) {
    const i = args.id('id', id)
    return q.toResult(await nativeAsync(() => this.#native.result(i)))
  }

  /**
   * Makes the delayed item `id` wait now, as `Queue#promote` does, in whichever partition holds
   * it (its id's first, then the others at once). Resolves to whether it was delayed.
   * @param {string | Uint8Array} id
   * @returns {Promise<boolean>}
   */
  async promote(id) {
    const i = args.id('id', id)
    return nativeAsync(() => this.#native.promote(i))
  }

  /**
   * What item `id` waits for (its dependencies, those still pending) and what waits for it, as
   * `Queue#dependencies` answers, from whichever partition holds it (an item and its
   * dependencies share one). Empty lists when no partition knows of any.
   * @param {string | Uint8Array} id
   * @returns {Promise<import('../index').Dependencies>}
   */
  async dependencies(id) {
    const i = args.id('id', id)
    return q.toDependencies(await nativeAsync(() => this.#native.dependencies(i)))
  }

  /**
   * The kept results of the items `id` was added to wait for, in order, as
   * `Queue#dependencyResults` answers, from whichever partition holds it. A result is null
   * when none is kept.
   * @param {string | Uint8Array} id
   * @returns {Promise<import('../index').DependencyResult[]>}
   */
  async dependencyResults(id) {
    const i = args.id('id', id)
    return q.toDependencyResults(await nativeAsync(() => this.#native.dependencyResults(i)))
  }

  /**
   * Waits up to `timeoutMs` for item `id`'s result, as `Queue#waitResult` does, where the item
   * is: looked up in every partition at once first, then waited for there (in every partition
   * when it is in none yet). Null when the time passes first; a job that dies rejects with
   * code `DEAD`.
   * @param {string | Uint8Array} id
   * @param {number | { timeoutMs: number }} timeoutMs the timeout, or `{ timeoutMs }`
   * @returns {Promise<import('../index').JobResult | null>}
   */
  async waitResult(id, timeoutMs) {
    const i = args.id('id', id)
    const timeout = q.waitTimeout(timeoutMs)
    return q.toResult(await nativeAsync(() => this.#native.waitResult(i, timeout)))
  }

  /**
   * Pauses group `group` in its partition, where all its items live, as `Queue#pauseGroup`
   * does. Resolves to whether it was running.
   * @param {string} group
   * @returns {Promise<boolean>}
   */
  async pauseGroup(group) {
    const g = args.string('group', group)
    return nativeAsync(() => this.#native.pauseGroup(g))
  }

  /**
   * Resumes group `group` in its partition. Resolves to whether it was paused.
   * @param {string} group
   * @returns {Promise<boolean>}
   */
  async resumeGroup(group) {
    const g = args.string('group', group)
    return nativeAsync(() => this.#native.resumeGroup(g))
  }

  /**
   * Sets group `group`'s limit in its partition, as `Queue#setGroupLimit` does (1 to 1000; left
   * out or null: the queue's `groupConcurrency`).
   * @param {string} group
   * @param {number | null} [limit]
   * @returns {Promise<void>}
   */
  async setGroupLimit(group, limit) {
    const g = args.string('group', group)
    const n = limit === null ? undefined : args.optionalNumber('limit', limit, q.WHOLE)
    return nativeAsync(() => this.#native.setGroupLimit(g, n))
  }

  /**
   * Holds group `group`'s leases off for `durationMs` in its partition, as
   * `Queue#rateLimitGroup` does. Resolves to how long, in ms.
   * @param {string} group
   * @param {number} durationMs
   * @returns {Promise<number>}
   */
  async rateLimitGroup(group, durationMs) {
    const g = args.string('group', group)
    const ms = args.number('durationMs', durationMs)
    return nativeAsync(() => this.#native.rateLimitGroup(g, ms))
  }

  /**
   * Group `group`, read in its partition, which holds all of it.
   * @param {string} group
   * @returns {Promise<import('../index').GroupInfo>}
   */
  async group(group) {
    const g = args.string('group', group)
    return q.toGroup(await nativeAsync(() => this.#native.group(g)))
  }

  /**
   * The logical queue's figures (`total`) and each partition's (`partitions`).
   * @returns {Promise<import('../index').PartitionedStats>}
   */
  async stats() {
    const s = await nativeAsync(() => this.#native.stats())
    return { total: q.toStats(s.total), partitions: s.partitions.map(q.toStats) }
  }

  /**
   * How many items are in `state`, summed over the partitions.
   * @param {import('../index').ListState} state
   * @returns {Promise<number>}
   */
  async count(state) {
    const s = args.string('state', state)
    return nativeAsync(() => this.#native.count(s))
  }

  /**
   * A page of the logical queue's items in `state`: partition 0's, then 1's, and so on.
   * @param {import('../index').ListState} state
   * @param {{ start?: number, count?: number }} [options]
   * @returns {Promise<import('../index').ListEntry[]>}
   */
  async list(state, options) {
    const s = args.string('state', state)
    const o = args.optionalOptions('options', options, q.LIST_OPTIONS)
    const start = args.optionalNumber('start', o.start, q.WHOLE)
    const count = args.optionalNumber('count', o.count, q.WHOLE)
    const entries = await nativeAsync(() => this.#native.list(s, start, count))
    return entries.map(q.toEntry)
  }

  /**
   * The items of `state` with a name or an error type, as `Queue#find`, over the positions
   * `list` numbers (partition 0's, then 1's, and so on): one call looks in the one partition
   * that holds `start`, and `next` goes on in it, or at the next partition's first position
   * once this one's end is reached.
   * @param {import('../index').ListState} state
   * @param {{ name?: string, errorType?: string, start?: number, count?: number }} [options]
   * @returns {Promise<import('../index').Found>}
   */
  async find(state, options) {
    const a = q.findArgs(state, options)
    return q.toFound(await nativeAsync(() => this.#native.find(...a)))
  }

  /**
   * For each item name met in the last 60 minutes, how many of its jobs completed, failed and
   * went dead, as `Queue#countsByName` answers, summed over the partitions (sorted by name, as
   * a queue's are). Null while
   * no partition counts (`setConfig({ stats: true })` turns the counters on).
   * @returns {Promise<import('../index').NameCounts[] | null>}
   */
  async countsByName() {
    return q.toNameCounts(await nativeAsync(() => this.#native.countsByName()))
  }

  /**
   * Whether the logical queue exists: whether any partition does (`Queue#exists`). False for a
   * partitioned queue created and never used, whose layout is all there is.
   * @returns {Promise<boolean>}
   */
  async exists() {
    return nativeAsync(() => this.#native.exists())
  }

  /**
   * How many items wait, at every priority, summed over the partitions (`Queue#queueLen`).
   * @returns {Promise<number>}
   */
  async queueLen() {
    return nativeAsync(() => this.#native.queueLen())
  }

  /**
   * How many items are being processed, summed over the partitions (`Queue#processingLen`).
   * @returns {Promise<number>}
   */
  async processingLen() {
    return nativeAsync(() => this.#native.processingLen())
  }

  /**
   * Pauses every partition; resolves to whether any was running.
   * @returns {Promise<boolean>}
   */
  async pause() {
    return nativeAsync(() => this.#native.pause())
  }

  /**
   * Resumes every partition; resolves to whether any was paused.
   * @returns {Promise<boolean>}
   */
  async resume() {
    return nativeAsync(() => this.#native.resume())
  }

  /**
   * Whether the logical queue is paused: every partition is (also `stats().total.paused`).
   * @returns {Promise<boolean>}
   */
  async isPaused() {
    return nativeAsync(() => this.#native.isPaused())
  }

  /**
   * Holds every partition's leases off for `durationMs`, as `Queue#rateLimit` does for one
   * queue: a handler was rate limited, and the limit is the logical queue's. A longer hold
   * already in place in a partition is kept there. Resolves to the longest hold now in place,
   * in ms (also `stats().total.rateLimitedForMs`).
   * @param {number} durationMs
   * @returns {Promise<number>}
   */
  async rateLimit(durationMs) {
    const ms = args.number('durationMs', durationMs)
    return nativeAsync(() => this.#native.rateLimit(ms))
  }

  /**
   * Puts these dead items (ids as strings or Buffers) back to waiting, attempts reset, each in
   * the partition that holds it. Resolves to how many.
   * @param {Array<string | Uint8Array>} ids
   * @returns {Promise<number>}
   */
  async deadRequeue(ids) {
    const i = q.deadIds(ids)
    return nativeAsync(() => this.#native.deadRequeue(i))
  }

  /**
   * Like `deadRequeue`, resolving to whether each id was requeued, in order (false: not a dead
   * letter: no such item, or one in another state; an id given twice is false the second time).
   * @param {Array<string | Uint8Array>} ids
   * @returns {Promise<boolean[]>}
   */
  async deadRequeueEach(ids) {
    const i = q.deadIds(ids)
    return nativeAsync(() => this.#native.deadRequeueEach(i))
  }

  /**
   * Requeues the `n` oldest dead items of the logical queue, by time of death over every
   * partition (all of them when `n` is left out). Resolves to how many.
   * @param {number} [n]
   * @returns {Promise<number>}
   */
  async deadRequeueOldest(n) {
    const count = q.deadCount(n)
    return nativeAsync(() => this.#native.deadRequeueOldest(count))
  }

  /**
   * Deletes the `n` oldest dead items of the logical queue, by time of death over every
   * partition (all of them when `n` is left out). Resolves to how many.
   * @param {number} [n]
   * @returns {Promise<number>}
   */
  async deadPurge(n) {
    const count = q.deadCount(n)
    return nativeAsync(() => this.#native.deadPurge(count))
  }

  /**
   * The stored configuration of partition 0, which `setConfig` gives every partition alike:
   * only the fields stored (the others take the defaults). A partition's own, set alone, is
   * `partition(i).config()`.
   * @returns {Promise<import('../index').QueueConfig>}
   */
  async config() {
    return q.toConfig(await nativeAsync(() => this.#native.config()))
  }

  /**
   * Stores the fields given in every partition (limits such as `capacity` then hold per
   * partition); the others keep their stored value.
   * @param {import('../index').QueueConfig} config
   * @returns {Promise<void>}
   */
  async setConfig(config) {
    const parts = q.configParts(config)
    return nativeAsync(() => this.#native.setConfig(parts))
  }

  /**
   * Removes every partition's stored configuration: the defaults apply again.
   * @returns {Promise<void>}
   */
  async resetConfig() {
    return nativeAsync(() => this.#native.resetConfig())
  }

  /**
   * A light clean of every partition at once, as `Queue#lightClean` cleans one; the reports
   * summed.
   * @returns {Promise<import('../index').CleanReport>}
   */
  async lightClean() {
    return nativeAsync(() => this.#native.lightClean())
  }

  /**
   * A deep clean of every partition, one after another, as `Queue#deepClean` cleans one; the
   * reports summed. Walks every key of each partition: run it rarely.
   * @returns {Promise<import('../index').CleanReport>}
   */
  async deepClean() {
    return nativeAsync(() => this.#native.deepClean())
  }

  /**
   * `Queue#upsertSchedule` in partition 0, where the queue's recurring jobs live (the items
   * they add go there). Resolves to whether it is new.
   * @param {string} name
   * @param {import('../index').ScheduleOptions} schedule
   * @returns {Promise<boolean>}
   */
  async upsertSchedule(name, schedule) {
    const [n, parts, item] = q.scheduleArgs(name, schedule)
    return nativeAsync(() => this.#native.upsertSchedule(n, parts, item))
  }

  /**
   * `Queue#removeSchedule` in partition 0. Resolves to whether there was one.
   * @param {string} name
   * @returns {Promise<boolean>}
   */
  async removeSchedule(name) {
    const n = args.string('name', name)
    return nativeAsync(() => this.#native.removeSchedule(n))
  }

  /**
   * `Queue#getSchedule` in partition 0: the recurring job `name`, or null.
   * @param {string} name
   * @returns {Promise<import('../index').ScheduleInfo | null>}
   */
  async getSchedule(name) {
    const n = args.string('name', name)
    const info = await nativeAsync(() => this.#native.getSchedule(n))
    return info ? q.toScheduleInfo(info) : null
  }

  /**
   * `Queue#schedules` in partition 0: a page of the recurring jobs by next fire time.
   * @param {{ start?: number, count?: number }} [options]
   * @returns {Promise<import('../index').SchedulePage>}
   */
  async schedules(options) {
    const o = args.optionalOptions('options', options, q.LIST_OPTIONS)
    const start = args.optionalNumber('start', o.start, q.WHOLE)
    const count = args.optionalNumber('count', o.count, q.WHOLE)
    return q.toSchedulePage(await nativeAsync(() => this.#native.schedules(start, count)))
  }

  /**
   * `Queue#fireDueSchedules` in partition 0, as a runner over the queue fires them: for a
   * process without a runner. Resolves to what it did.
   * @returns {Promise<import('../index').FireReport>}
   */
  async fireDueSchedules() {
    return q.toFireReport(await nativeAsync(() => this.#native.fireDueSchedules()))
  }

  /**
   * Follows every partition's event stream at once, from now or after `after`: an
   * `EventFollower`, as `Queue#events` gives. Each entry names its `partition`; each
   * partition's entries come in their order, and across partitions the earliest of those read
   * first, with no order beyond that. `after` is a follower's `position` (one id per partition,
   * joined by `,`) or one id for every partition (`'0-0'`: every entry still kept).
   * @param {{ after?: string }} [options]
   * @returns {EventFollower}
   */
  events(options) {
    const after = q.followerAfter(options)
    return new EventFollower(FOLLOWER, () => this.#native.events(after))
  }
}

/**
 * @param {import('../native').NativePartitioned} native
 * @returns {PartitionedQueue}
 */
function toPartitioned(native) {
  return new PartitionedQueue(CONSTRUCT, native)
}

module.exports = {
  PartitionedQueue,
  nativeOf: (/** @type {PartitionedQueue} */ p) => nativeOf(p),
  toPartitioned,
}
