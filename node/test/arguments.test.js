'use strict'
// Bad input for each argument: a LeaseqError with code INVALID_ARGUMENT whose message names the
// argument; async methods reject (never throw synchronously), and nothing reaches Redis.

const assert = require('node:assert/strict')
const { after, before, describe, test } = require('node:test')

const { Client, Item, LeaseqError } = require('..')
const { startRedis, uniquePrefix } = require('./helpers/redis')

const TTL = 30_000
const MAX_TTL_MS = 30 * 24 * 3600 * 1000

/** Asserts an INVALID_ARGUMENT error naming `argument`. */
function invalid(argument) {
  return (err) => {
    assert.ok(err instanceof LeaseqError, `expected a LeaseqError, got ${err && err.stack}`)
    assert.equal(err.code, 'INVALID_ARGUMENT', err.message)
    assert.ok(
      err.message.includes(`\`${argument}\``),
      `the message should name \`${argument}\`: ${err.message}`,
    )
    assert.equal(err.argument, argument)
    return true
  }
}

/** Calls an async method and checks it rejects (rather than throws) naming `argument`. */
async function rejectsNaming(call, argument) {
  let promise
  assert.doesNotThrow(() => {
    promise = call()
  }, 'async methods reject instead of throwing')
  assert.ok(promise instanceof Promise)
  await assert.rejects(promise, invalid(argument))
}

describe('argument checks', { timeout: 30_000 }, () => {
  let redis
  let client
  let queue
  let lease
  before(async () => {
    redis = await startRedis()
    client = await Client.connect(redis.url)
    queue = client.queue(uniquePrefix('args'))
    await queue.add(new Item('held', 'held'))
    lease = await queue.lease({ ttlMs: TTL })
    assert.ok(lease)
  })
  after(async () => {
    // Nothing any bad call did reached Redis: the one leased item is all there is.
    assert.equal(await queue.queueLen(), 0)
    assert.equal(await queue.processingLen(), 1)
    await client.close()
    await redis.stop()
  })

  test('Client.connect(url)', async () => {
    for (const url of [undefined, null, 42, ['redis://127.0.0.1'], {}]) {
      await rejectsNaming(() => Client.connect(url), 'url')
    }
    await rejectsNaming(() => Client.connect('not a url'), 'url')
    await rejectsNaming(() => Client.connect('http://127.0.0.1:1'), 'url')
  })

  test('Client.cluster(urls)', async () => {
    await rejectsNaming(() => Client.cluster(redis.url), 'urls')
    await rejectsNaming(() => Client.cluster(undefined), 'urls')
    await rejectsNaming(() => Client.cluster([]), 'urls')
    await rejectsNaming(() => Client.cluster([redis.url, 7]), 'urls[1]')
    await rejectsNaming(() => Client.cluster(['not a url']), 'urls')
  })

  test('client.queue(prefix)', () => {
    for (const prefix of [undefined, null, 5, Buffer.from('p')]) {
      assert.throws(() => client.queue(prefix), invalid('prefix'))
    }
    assert.throws(() => client.queue(''), invalid('prefix'))
    assert.throws(() => client.queue('a\nb'), invalid('prefix'))
    assert.throws(() => client.queue('x'.repeat(1025)), invalid('prefix'))
  })

  test('new Item(data, id)', () => {
    for (const data of [undefined, null, 1, {}, [1, 2], true]) {
      assert.throws(() => new Item(data), invalid('data'))
    }
    for (const id of [null, 1, {}, Buffer.from('id')]) {
      assert.throws(() => new Item('d', id), invalid('id'))
    }
    assert.throws(() => new Item('d', ''), invalid('id'))
    assert.throws(() => new Item('d', 'a\u0000b'), invalid('id'))
    assert.throws(() => new Item('d', 'x'.repeat(513)), invalid('id'))
    assert.equal(new Item('d', 'x'.repeat(512)).id.length, 512)
  })

  test('Item.fromJson(value, id)', () => {
    assert.throws(() => Item.fromJson({}, 3), invalid('id'))
    assert.throws(() => Item.fromJson({}, ''), invalid('id'))
  })

  test('queue.add(item) and queue.addUnique(item)', async () => {
    for (const method of ['add', 'addUnique']) {
      for (const item of [undefined, null, 'data', Buffer.from('x'), { id: 'i', data: Buffer.from('x') }]) {
        await rejectsNaming(() => queue[method](item), 'item')
      }
    }
  })

  test('queue.addBatch(items)', async () => {
    await rejectsNaming(() => queue.addBatch(undefined), 'items')
    await rejectsNaming(() => queue.addBatch(new Item('x')), 'items')
    await rejectsNaming(() => queue.addBatch([new Item('x'), 'y']), 'items[1]')
    await rejectsNaming(() => queue.addBatch([null]), 'items[0]')
  })

  test('queue.lease(options)', async () => {
    for (const options of [undefined, null, 30_000, 'fast', [TTL]]) {
      await rejectsNaming(() => queue.lease(options), 'options')
    }
    await rejectsNaming(() => queue.lease({}), 'ttlMs')
    for (const ttlMs of ['1000', null, 10n, 0, -1, NaN, Infinity, MAX_TTL_MS + 1, 1e300]) {
      await rejectsNaming(() => queue.lease({ ttlMs }), 'ttlMs')
    }
    for (const block of ['yes', 1, null]) {
      await rejectsNaming(() => queue.lease({ ttlMs: TTL, block }), 'block')
    }
    await rejectsNaming(() => queue.lease({ ttlMs: TTL, timeoutMs: 100 }), 'timeoutMs')
    await rejectsNaming(() => queue.lease({ ttlMs: TTL, block: false, timeoutMs: 100 }), 'timeoutMs')
    for (const timeoutMs of ['100', null, -5, NaN, Infinity, 1e300]) {
      await rejectsNaming(() => queue.lease({ ttlMs: TTL, block: true, timeoutMs }), 'timeoutMs')
    }
    await rejectsNaming(() => queue.lease({ ttl: TTL }), 'ttl')
    await rejectsNaming(() => queue.lease({ ttlMs: TTL, timeout: 5 }), 'timeout')
  })

  test('queue.complete(lease)', async () => {
    for (const bad of [undefined, null, 'id', { id: lease.id, token: lease.token }]) {
      await rejectsNaming(() => queue.complete(bad), 'lease')
    }
  })

  test('queue.completeAndLease(lease, options)', async () => {
    await rejectsNaming(() => queue.completeAndLease(undefined, { ttlMs: TTL }), 'lease')
    await rejectsNaming(() => queue.completeAndLease({ ...lease }, { ttlMs: TTL }), 'lease')
    await rejectsNaming(() => queue.completeAndLease(lease), 'options')
    await rejectsNaming(() => queue.completeAndLease(lease, TTL), 'options')
    await rejectsNaming(() => queue.completeAndLease(lease, {}), 'ttlMs')
    await rejectsNaming(() => queue.completeAndLease(lease, { ttlMs: 0 }), 'ttlMs')
    await rejectsNaming(() => queue.completeAndLease(lease, { ttlMs: -1 }), 'ttlMs')
    await rejectsNaming(() => queue.completeAndLease(lease, { ttlMs: TTL, block: true }), 'block')
  })

  test('queue.renew(lease, ttlMs)', async () => {
    await rejectsNaming(() => queue.renew(undefined, TTL), 'lease')
    await rejectsNaming(() => queue.renew({ ...lease }, TTL), 'lease')
    for (const ttlMs of [undefined, '1000', 0, -1, NaN, MAX_TTL_MS + 1]) {
      await rejectsNaming(() => queue.renew(lease, ttlMs), 'ttlMs')
    }
  })

  test('the refused calls changed nothing: the lease is still live', async () => {
    assert.equal(await queue.renew(lease, TTL), true)
  })
})
