'use strict'
// Partitioned queues (spec/PROTOCOL.md 5.25) on a throwaway 3-primary Redis Cluster:
// creation and opening, adds split over the partitions, reads of the logical queue, leases from
// every partition finished in their own.

const assert = require('node:assert/strict')
const { randomUUID } = require('node:crypto')
const { after, before, describe, test } = require('node:test')

const { Client, Item, LeaseqError, PartitionedQueue, Worker } = require('..')
const { startRedis } = require('./helpers/redis')

const TTL = 30_000

/** A base no other test uses, with a hash tag. */
const fresh = () => `{p-${randomUUID().slice(0, 8)}}`
const items = (n) => Array.from({ length: n }, (_, i) => new Item('x', { id: `i${i}` }))
/** @param {string} argument */
const invalid = (argument) => (err) =>
  err instanceof LeaseqError && err.code === 'INVALID_ARGUMENT' && err.argument === argument

describe('partitioned queues', { timeout: 60_000 }, () => {
  let cluster
  let client
  before(async () => {
    cluster = await startRedis({ cluster: true })
    client = await Client.cluster(cluster.urls)
  })
  after(async () => {
    await client.close()
    await cluster.stop()
  })

  test('create, open, and a count that differs is refused', async () => {
    const base = fresh()
    const q = await client.createPartitioned(base, 3)
    assert.ok(q instanceof PartitionedQueue)
    assert.equal(q.base, base)
    assert.equal(q.partitions.length, 3)
    assert.equal(new Set(q.partitions).size, 3)
    assert.deepEqual((await client.partitioned(base)).partitions, q.partitions)
    await assert.rejects(client.createPartitioned(base, 4), invalid('partitions'))
    await assert.rejects(client.createPartitioned(fresh(), 0), invalid('partitions'))
    const plain = fresh()
    assert.deepEqual((await client.partitioned(plain)).partitions, [plain])
  })

  test('adds spread over the partitions and the reads see the logical queue', async () => {
    const q = await client.createPartitioned(fresh(), 3)
    assert.equal(await q.addBatch(items(60)), 60)
    assert.equal(await q.add(new Item('x', { id: 'i0' })), false)
    assert.equal(await q.add('data', { id: 'extra' }), true)
    const stats = await q.stats()
    assert.equal(stats.total.waiting, 61)
    assert.equal(stats.partitions.length, 3)
    assert.equal(stats.partitions.reduce((sum, s) => sum + s.waiting, 0), 61)
    assert.ok(stats.partitions.every((s) => s.waiting > 0))
    assert.ok(stats.total.now instanceof Date)
    for (const [i, prefix] of q.partitions.entries()) {
      assert.equal(await client.queue(prefix).count('waiting'), stats.partitions[i].waiting)
    }
    assert.equal(await q.count('waiting'), 61)
    assert.equal((await q.list('waiting', { count: 1000 })).length, 61)
    assert.equal((await q.get('i5')).id, 'i5')
    assert.equal(await q.get('missing'), null)
    assert.equal(await q.cancel('i5'), 'waiting')
    assert.equal(await q.get('i5'), null)
  })

  test('leases come from every partition and finish in their own', async () => {
    const q = await client.createPartitioned(fresh(), 3)
    await q.addBatch(items(30))
    const leases = await q.leaseBatch(30, { ttlMs: TTL })
    assert.equal(leases.length, 30)
    assert.equal(new Set(leases.map((l) => l.id)).size, 30)
    const [first, ...rest] = leases
    assert.equal(await q.complete(first, { result: 'done' }), true)
    assert.equal((await q.result(first.id)).data.toString(), 'done')
    for (const lease of rest) assert.equal(await q.complete(lease), true)
    assert.equal((await q.stats()).total.leased, 0)
    assert.equal(await q.lease({ ttlMs: TTL }), null)
    // A waiting lease is answered by an add to whichever partition.
    const waiting = q.lease({ ttlMs: TTL, timeoutMs: 20_000 })
    await q.add(new Item('late', { id: 'late' }))
    assert.equal((await waiting).id, 'late')
    // A lease of another queue is refused, naming it.
    const other = client.queue(fresh())
    await other.add(new Item('z'))
    const foreign = await other.lease({ ttlMs: TTL })
    await assert.rejects(q.complete(foreign), invalid('lease'))
  })

  test('pause holds every partition', async () => {
    const q = await client.createPartitioned(fresh(), 3)
    await q.addBatch(items(3))
    assert.equal(await q.pause(), true)
    assert.equal((await q.stats()).total.paused, true)
    assert.equal(await q.lease({ ttlMs: TTL }), null)
    assert.equal(await q.resume(), true)
    assert.equal((await q.leaseBatch(3, { ttlMs: TTL })).length, 3)
  })
})

describe('a Worker over a partitioned queue', { timeout: 60_000 }, () => {
  let cluster
  let client
  before(async () => {
    cluster = await startRedis({ cluster: true })
    client = await Client.cluster(cluster.urls)
  })
  after(async () => {
    await client.close()
    await cluster.stop()
  })

  test('runs every item of every partition, each finished in its own', async () => {
    const q = await client.createPartitioned(fresh(), 3)
    await q.addBatch(items(12))
    assert.deepEqual(
      q.partitionQueues().map((p) => p.prefix),
      q.partitions,
    )
    const seen = new Map()
    const worker = new Worker(q, async (job) => {
      seen.set(job.id, job.queuePrefix)
    }, { concurrency: 4 })
    const stopWhenDrained = async () => {
      const { total } = await q.stats()
      if (total.waiting + total.leased === 0) await worker.close()
    }
    worker.on('completed', () => void stopWhenDrained())
    const report = await worker.run()
    assert.equal(report.completed, 12)
    assert.equal(seen.size, 12)
    assert.ok([...seen.values()].every((prefix) => q.partitions.includes(prefix)))
    assert.equal(new Set(seen.values()).size, 3, 'jobs came from every partition')
  })
})
