'use strict'
// Every method of Client, Queue, Item and Lease on a throwaway redis-server.

const assert = require('node:assert/strict')
const { after, before, describe, test } = require('node:test')

const { Client, Item, Lease, Queue } = require('..')
const { startRedis, uniquePrefix } = require('./helpers/redis')

const TTL = 30_000

/** Resolves after `ms`; only used to let a 1 ms lease lapse, never to measure anything. */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

describe('Client and Queue', { timeout: 30_000 }, () => {
  let redis
  let client
  before(async () => {
    redis = await startRedis()
    client = await Client.connect(redis.url)
  })
  after(async () => {
    await client.close()
    await redis.stop()
  })

  const freshQueue = (name) => client.queue(uniquePrefix(name))

  test('connect gives an open single-server client', () => {
    assert.equal(client.closed, false)
    assert.equal(client.isCluster, false)
    assert.ok(Array.isArray(client.warnings))
    for (const warning of client.warnings) assert.equal(typeof warning, 'string')
  })

  test('queue keeps its prefix and is a Queue', () => {
    const queue = client.queue('{emails}')
    assert.ok(queue instanceof Queue)
    assert.equal(queue.prefix, '{emails}')
  })

  test('new Item picks distinct random ids, or keeps the one given', () => {
    const a = new Item(Buffer.from('x'))
    const b = new Item(Buffer.from('x'))
    assert.match(a.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    assert.notEqual(a.id, b.id)
    const c = new Item('text', 'my-id')
    assert.equal(c.id, 'my-id')
    assert.deepEqual(c.data, Buffer.from('text'))
    const bytes = new Uint8Array([9, 1, 2, 3, 9]).subarray(1, 4)
    assert.deepEqual(new Item(bytes).data, Buffer.from([1, 2, 3]))
    const reused = Buffer.from('before')
    const item = new Item(reused)
    reused.write('after!')
    assert.equal(item.data.toString(), 'before', 'an item keeps its own copy of the data')
  })

  test('Item.fromJson and json() round trip', () => {
    const item = Item.fromJson({ to: 'ada', n: [1, 2] }, 'json-id')
    assert.equal(item.id, 'json-id')
    assert.equal(item.data.toString(), '{"to":"ada","n":[1,2]}')
    assert.deepEqual(item.json(), { to: 'ada', n: [1, 2] })
    assert.match(Item.fromJson('s').id, /^[0-9a-f-]{36}$/)
  })

  test('add adds once per id; lease returns the item with its bytes intact', async () => {
    const queue = freshQueue('add')
    const data = Buffer.from([0, 1, 0xff, 0xfe, 0x80, 0])
    assert.equal(await queue.add(new Item(data, 'a')), true)
    assert.equal(await queue.add(new Item('other', 'a')), false)
    assert.equal(await queue.queueLen(), 1)
    const lease = await queue.lease({ ttlMs: TTL })
    assert.ok(lease instanceof Lease)
    assert.equal(lease.id, 'a')
    assert.ok(Buffer.isBuffer(lease.data))
    assert.deepEqual(lease.data, data)
    assert.equal(lease.count, 1)
    assert.match(lease.token, /^\S+$/)
    assert.equal(await queue.queueLen(), 0)
    assert.equal(await queue.count('leased'), 1)
    // Still not complete: the id is taken until then.
    assert.equal(await queue.add(new Item('again', 'a')), false)
    assert.equal(await queue.complete(lease), true)
    assert.equal(await queue.count('leased'), 0)
    assert.equal(await queue.add(new Item('again', 'a')), true)
  })

  test('queueLen counts what waits at every priority; processingLen what is leased', async () => {
    const queue = freshQueue('lengths')
    await queue.add(new Item('low', { id: 'low', priority: -5 }))
    await queue.add(new Item('mid', 'mid'))
    await queue.add(new Item('high', { id: 'high', priority: 5 }))
    assert.deepEqual([await queue.queueLen(), await queue.processingLen()], [3, 0])
    const lease = await queue.lease({ ttlMs: TTL })
    assert.equal(lease.id, 'high')
    assert.deepEqual([await queue.queueLen(), await queue.processingLen()], [2, 1])
    assert.equal(await queue.queueLen(), await queue.count('waiting'))
    await queue.complete(lease)
    assert.deepEqual([await queue.queueLen(), await queue.processingLen()], [2, 0])
  })

  test('addUnique adds without checking and resolves to undefined', async () => {
    const queue = freshQueue('unique')
    assert.equal(await queue.addUnique(new Item('u')), undefined)
    assert.equal(await queue.addUnique(new Item('u')), undefined)
    assert.equal(await queue.queueLen(), 2)
  })

  test('addBatch counts what it added and skips existing ids', async () => {
    const queue = freshQueue('batch')
    assert.equal(await queue.addBatch([]), 0)
    const items = Array.from({ length: 25 }, (_, i) => new Item(`data ${i}`, `id-${i}`))
    assert.equal(await queue.addBatch(items), 25)
    assert.equal(await queue.addBatch([new Item('x', 'id-3'), new Item('y', 'id-new')]), 1)
    assert.equal(await queue.queueLen(), 26)
    const seen = new Set()
    for (;;) {
      const lease = await queue.lease({ ttlMs: TTL })
      if (!lease) break
      seen.add(`${lease.id}=${lease.data}`)
      assert.equal(await queue.complete(lease), true)
    }
    assert.equal(seen.size, 26)
    assert.ok(seen.has('id-3=data 3'), 'the existing item kept its data')
    assert.ok(seen.has('id-new=y'))
  })

  test('lease on an empty queue resolves to null, with and without waiting', async () => {
    const queue = freshQueue('empty')
    assert.equal(await queue.lease({ ttlMs: TTL }), null)
    assert.equal(await queue.lease(), null)
    assert.equal(await queue.lease({ timeoutMs: 0 }), null)
    assert.equal(await queue.lease({ ttlMs: TTL, timeoutMs: 50 }), null)
    // The deprecated `block` option still works as it did.
    assert.equal(await queue.lease({ ttlMs: TTL, block: false }), null)
    assert.equal(await queue.lease({ ttlMs: TTL, block: true, timeoutMs: 0 }), null)
    assert.equal(await queue.lease({ ttlMs: TTL, block: true, timeoutMs: 50 }), null)
  })

  test('a blocking lease takes an item added while it waits', async () => {
    const queue = freshQueue('wait')
    const pending = queue.lease({ ttlMs: TTL, timeoutMs: 20_000 })
    await queue.add(new Item('late', 'late-id'))
    const lease = await pending
    assert.equal(lease.id, 'late-id')
    assert.equal(await queue.complete(lease), true)
  })

  test('completeAndLease completes and hands over the next lease, then null', async () => {
    const queue = freshQueue('cal')
    await queue.addBatch([new Item('1', 'one'), new Item('2', 'two')])
    const first = await queue.lease({ ttlMs: TTL })
    const step = await queue.completeAndLease(first, { ttlMs: TTL })
    assert.equal(step.completed, true)
    assert.ok(step.next instanceof Lease)
    assert.notEqual(step.next.id, first.id)
    const last = await queue.completeAndLease(step.next, { ttlMs: TTL })
    assert.deepEqual(last, { completed: true, next: null })
    // Completing again is a late complete: false, not an error.
    assert.deepEqual(await queue.completeAndLease(first, { ttlMs: TTL }), {
      completed: false,
      next: null,
    })
    assert.equal(await queue.processingLen(), 0)
  })

  test('renew keeps a live lease; an expired one loses to the next holder (fencing)', async () => {
    const queue = freshQueue('renew')
    await queue.add(new Item('r', 'r'))
    const live = await queue.lease({ ttlMs: TTL })
    assert.equal(await queue.renew(live, TTL), true)
    assert.equal(await queue.complete(live), true)
    assert.equal(await queue.renew(live, TTL), false, 'a complete item cannot be renewed')

    await queue.add(new Item('s', 's'))
    const lapsed = await queue.lease({ ttlMs: 1 })
    await sleep(20)
    assert.equal(await queue.renew(lapsed, TTL), false, 'an expired lease cannot be renewed')
    assert.deepEqual(await queue.lightClean(), { requeued: 1, removed: 0, promoted: 0, dead: 0 })
    const second = await queue.lease({ ttlMs: TTL })
    assert.equal(second.id, 's')
    assert.equal(second.count, 2)
    assert.notEqual(second.token, lapsed.token)
    assert.equal(await queue.renew(lapsed, TTL), false, 'the old token no longer renews')
    assert.equal(await queue.renew(second, TTL), true)
    assert.equal(await queue.complete(second), true)
    assert.equal(await queue.complete(lapsed), false, 'exactly one complete wins')
  })

  test('lightClean and deepClean report what they did', async () => {
    const queue = freshQueue('clean')
    assert.deepEqual(await queue.lightClean(), { requeued: 0, removed: 0, promoted: 0, dead: 0 })
    assert.deepEqual(await queue.deepClean(), { requeued: 0, removed: 0, promoted: 0, dead: 0 })
    await queue.add(new Item('c', 'c'))
    await queue.lease({ ttlMs: 1 })
    await sleep(20)
    const report = await queue.deepClean()
    assert.deepEqual(report, { requeued: 1, removed: 0, promoted: 0, dead: 0 })
    assert.equal(await queue.queueLen(), 1)
    assert.equal(await queue.processingLen(), 0)
  })

  test('lease.json() parses JSON data', async () => {
    const queue = freshQueue('json')
    await queue.add(Item.fromJson({ hello: 'world' }))
    const lease = await queue.lease({ ttlMs: TTL })
    assert.deepEqual(lease.json(), { hello: 'world' })
  })

  test('queues of one client are independent', async () => {
    const a = freshQueue('indep-a')
    const b = freshQueue('indep-b')
    await a.add(new Item('x'))
    assert.equal(await a.queueLen(), 1)
    assert.equal(await b.queueLen(), 0)
  })

  test('close ends the client for every queue; close is idempotent', async () => {
    const other = await Client.connect(redis.url)
    const queue = other.queue(uniquePrefix('close'))
    await queue.add(new Item('z'))
    await other.close()
    assert.equal(other.closed, true)
    await assert.rejects(queue.queueLen(), { code: 'CLOSED' })
    await assert.rejects(queue.add(new Item('z')), { code: 'CLOSED' })
    await assert.rejects(other.queue('{later}').lease({ ttlMs: TTL }), { code: 'CLOSED' })
    await other.close()
    // The queue itself is untouched.
    assert.equal(await client.queue(queue.prefix).queueLen(), 1)
  })

  test('classes are not for constructing by hand', () => {
    assert.throws(() => new Lease(), TypeError)
    assert.throws(() => new Queue(), TypeError)
    assert.throws(() => new Client(), TypeError)
  })
})
