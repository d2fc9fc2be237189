'use strict'
// Client.cluster on a throwaway 3-primary Redis Cluster.

const assert = require('node:assert/strict')
const { after, before, describe, test } = require('node:test')

const { Client, Item, LeaseqError } = require('..')
const { startRedis } = require('./helpers/redis')

const TTL = 30_000

describe('Redis Cluster', { timeout: 60_000 }, () => {
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

  test('the client knows it talks to a cluster', () => {
    assert.equal(client.isCluster, true)
    assert.equal(client.closed, false)
  })

  test('a prefix without a {hash tag} is refused', () => {
    assert.throws(
      () => client.queue('emails'),
      (err) => err instanceof LeaseqError && err.code === 'INVALID_ARGUMENT' && /`prefix`/.test(err.message),
    )
  })

  test('queues on several slots work end to end, blocking leases too', async () => {
    const prefixes = ['{alpha}', '{beta}', '{gamma}', '{delta}']
    for (const prefix of prefixes) {
      const queue = client.queue(prefix)
      const waiting = queue.lease({ ttlMs: TTL, timeoutMs: 20_000 })
      assert.equal(await queue.add(new Item(`for ${prefix}`, 'first')), true)
      assert.equal(await queue.addBatch([new Item('b1'), new Item('b2')]), 2)
      const first = await waiting
      assert.ok(first)
      const { completed, next } = await queue.completeAndLease(first, { ttlMs: TTL })
      assert.equal(completed, true)
      assert.ok(next)
      assert.equal(await queue.renew(next, TTL), true)
      assert.equal(await queue.complete(next), true)
      assert.equal(await queue.queueLen(), 1)
      assert.equal(await queue.processingLen(), 0)
      assert.deepEqual(await queue.lightClean(), { requeued: 0, removed: 0, promoted: 0, dead: 0 })
      assert.deepEqual(await queue.deepClean(), { requeued: 0, removed: 0, promoted: 0, dead: 0 })
    }
  })

  test('close ends a blocking wait on a cluster too', async () => {
    const other = await Client.cluster(cluster.urls.slice(0, 1))
    const pending = other.queue('{waits}').lease({ ttlMs: TTL, timeoutMs: Infinity })
    await other.queue('{waits-elsewhere}').queueLen()
    await other.close()
    await assert.rejects(pending, { code: 'CLOSED' })
  })
})
