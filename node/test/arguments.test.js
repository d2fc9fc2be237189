'use strict'
// Bad input for each argument: a LeaseqError with code INVALID_ARGUMENT whose message names the
// argument; async methods reject (never throw synchronously), and nothing reaches Redis.

const assert = require('node:assert/strict')
const { after, before, describe, test } = require('node:test')

const { Client, Item } = require('..')
const { invalid } = require('./helpers/errors')
const { startRedis, uniquePrefix } = require('./helpers/redis')

const TTL = 30_000
const MAX_TTL_MS = 30 * 24 * 3600 * 1000

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
    assert.equal(await queue.count('waiting'), 0)
    assert.equal(await queue.count('delayed'), 0)
    assert.equal(await queue.count('dead'), 0)
    assert.equal(await queue.count('leased'), 1)
    assert.deepEqual(await queue.config(), {})
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
    for (const id of [null, 1, Buffer.from('id'), true]) {
      assert.throws(() => new Item('d', id), invalid('id'))
    }
    assert.throws(() => new Item('d', { id: 5 }), invalid('id'))
    assert.throws(() => new Item('d', { id: '' }), invalid('id'))
    assert.throws(() => new Item('d', ''), invalid('id'))
    assert.throws(() => new Item('d', 'a\u0000b'), invalid('id'))
    assert.throws(() => new Item('d', 'x'.repeat(513)), invalid('id'))
    assert.equal(new Item('d', 'x'.repeat(512)).id.length, 512)
  })

  test('new Item(data, options): types at once, values when added', async () => {
    const wrongTypes = {
      delayMs: '5',
      runAt: '2030-01-01',
      priority: '1',
      maxAttempts: null,
      backoff: 5,
      expiresAfterMs: true,
      keepResultForMs: [1],
    }
    for (const [name, value] of Object.entries(wrongTypes)) {
      assert.throws(() => new Item('d', { [name]: value }), invalid(name))
    }
    assert.throws(() => new Item('d', { delay: 5 }), invalid('delay'))
    assert.throws(() => new Item('d', { delayMs: -1 }), invalid('delayMs'))
    assert.throws(() => new Item('d', { delayMs: NaN }), invalid('delayMs'))
    assert.throws(() => new Item('d', { runAt: new Date(NaN) }), invalid('runAt'))
    assert.throws(() => new Item('d', { runAt: Infinity }), invalid('runAt'))
    assert.throws(() => new Item('d', { priority: 1.5 }), invalid('priority'))
    assert.throws(() => new Item('d', { maxAttempts: -1 }), invalid('maxAttempts'))
    assert.throws(() => new Item('d', { maxAttempts: 2 ** 32 }), invalid('maxAttempts'))
    assert.throws(() => new Item('d', { backoff: { type: 'fixed', delayMs: -1 } }), invalid('backoff'))
    assert.throws(() => new Item('d', { backoff: { type: 'fixed', delay: 1 } }), invalid('delay'))
    // Values only the core judges (its Item::validate): refused where the item is built, naming
    // the option, so that no add ever sees them and nothing is written.
    const refusedByTheCore = {
      priority: [{ priority: 1001 }, { priority: -1001 }],
      runAt: [{ runAt: new Date(-1000) }, { delayMs: 5, runAt: Date.now() }],
      delayMs: [{ delayMs: 11 * 365 * 86_400_000 }],
      keepResultForMs: [{ keepResultForMs: 0 }],
      expiresAfterMs: [{ expiresAfterMs: 11 * 365 * 86_400_000 }],
      backoff: [
        { backoff: { type: 'exponential', baseMs: 0, capMs: 10 } },
        { backoff: { type: 'exponential', baseMs: 10, capMs: 5 } },
        { backoff: { type: 'fixed', delayMs: 11 * 365 * 86_400_000 } },
      ],
    }
    for (const [name, list] of Object.entries(refusedByTheCore)) {
      for (const options of list) {
        assert.throws(() => new Item('d', options), invalid(name))
        await rejectsNaming(() => queue.add('d', options), name)
        await rejectsNaming(() => queue.addUnique('d', options), name)
      }
    }
    assert.equal(await queue.count('waiting'), 0)
    assert.equal(await queue.count('delayed'), 0)
  })

  test('a negative whole number is refused as negative, one too large as out of range, with the value', async () => {
    const says = (argument, reason) => (err) => {
      invalid(argument)(err)
      assert.equal(err.message, `invalid argument \`${argument}\`: ${reason}`)
      return true
    }
    assert.throws(() => new Item('d', { maxAttempts: -1 }), says('maxAttempts', 'must not be negative, got -1'))
    assert.throws(
      () => new Item('d', { maxAttempts: 2 ** 32 }),
      says('maxAttempts', 'is out of range, got 4294967296'),
    )
    await assert.rejects(queue.deadPurge(-1), says('n', 'must not be negative, got -1'))
    await assert.rejects(queue.list('waiting', { start: -3 }), says('start', 'must not be negative, got -3'))
    await assert.rejects(queue.setConfig({ capacity: -2 }), says('capacity', 'must not be negative, got -2'))
  })

  test('options of the wrong type, in every options object, name the option', async () => {
    const wrong = [
      [() => queue.setConfig({ capacity: '10' }), 'capacity'],
      [() => queue.setConfig({ eventsMaxLen: {} }), 'eventsMaxLen'],
      [() => queue.setConfig({ events: 'on' }), 'events'],
      [() => queue.setConfig({ groupConcurrency: [2] }), 'groupConcurrency'],
      [() => queue.setConfig({ rateLimit: { max: 'x', perMs: 1000 } }), 'rateLimit.max'],
      [() => queue.setConfig({ groupRateLimit: { max: 1, perMs: '1s' } }), 'groupRateLimit.perMs'],
      [() => queue.add('d', { timeoutMs: 'x' }), 'timeoutMs'],
      [() => queue.add('d', { group: 5 }), 'group'],
      [() => queue.add('d', { dependsOn: 'a' }), 'dependsOn'],
      [() => queue.addBatch([new Item('x')], { timeoutMs: {} }), 'timeoutMs'],
      [() => queue.lease({ timeoutMs: 'x' }), 'timeoutMs'],
      [() => queue.leaseBatch(2, { ttlMs: 'x' }), 'ttlMs'],
      [() => queue.waitResult('x', { timeoutMs: '5' }), 'timeoutMs'],
      [() => queue.list('waiting', { count: '5' }), 'count'],
      [() => queue.find('dead', { name: 5 }), 'name'],
      [() => queue.readEvents({ after: 5 }), 'after'],
      [() => queue.upsertSchedule('s', { everyMs: '1000' }), 'everyMs'],
      [() => queue.upsertSchedule('s', { everyMs: 1000, missed: true }), 'missed'],
    ]
    for (const [call, argument] of wrong) await rejectsNaming(call, argument)
  })

  test('queue.add(data, options)', async () => {
    await rejectsNaming(() => queue.add('d', { priority: '1' }), 'priority')
    await rejectsNaming(() => queue.add('d', 'id'), 'options')
    await rejectsNaming(() => queue.add(new Item('d'), { priority: 1 }), 'options')
  })

  test('Item.fromJson(value, id)', () => {
    assert.throws(() => Item.fromJson({}, 3), invalid('id'))
    assert.throws(() => Item.fromJson({}, ''), invalid('id'))
  })

  test('queue.add(item) and queue.addUnique(item)', async () => {
    for (const method of ['add', 'addUnique']) {
      for (const item of [undefined, null, 5, [1], { id: 'i', data: Buffer.from('x') }]) {
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
    for (const options of [null, 30_000, 'fast', [TTL], new Date()]) {
      await rejectsNaming(() => queue.lease(options), 'options')
    }
    for (const ttlMs of ['1000', null, 10n, 0, -1, NaN, Infinity, MAX_TTL_MS + 1, 1e300]) {
      await rejectsNaming(() => queue.lease({ ttlMs }), 'ttlMs')
    }
    for (const block of ['yes', 1, null]) {
      await rejectsNaming(() => queue.lease({ ttlMs: TTL, block }), 'block')
    }
    await rejectsNaming(() => queue.lease({ ttlMs: TTL, block: false, timeoutMs: 100 }), 'timeoutMs')
    for (const timeoutMs of ['100', null, -5, NaN, -Infinity, 1e300]) {
      await rejectsNaming(() => queue.lease({ ttlMs: TTL, timeoutMs }), 'timeoutMs')
      await rejectsNaming(() => queue.lease({ ttlMs: TTL, block: true, timeoutMs }), 'timeoutMs')
    }
    await rejectsNaming(() => queue.lease({ ttl: TTL }), 'ttl')
    await rejectsNaming(() => queue.lease({ ttlMs: TTL, timeout: 5 }), 'timeout')
  })

  test('queue.leaseBatch(n, options)', async () => {
    for (const n of [undefined, '2', null, 0, -1, 1.5, 1001, NaN, Infinity]) {
      await rejectsNaming(() => queue.leaseBatch(n), 'n')
    }
    await rejectsNaming(() => queue.leaseBatch(2, { ttlMs: 0 }), 'ttlMs')
    await rejectsNaming(() => queue.leaseBatch(2, { timeoutMs: -1 }), 'timeoutMs')
    await rejectsNaming(() => queue.leaseBatch(2, { block: true }), 'block')
    await rejectsNaming(() => queue.leaseBatch(2, 5), 'options')
  })

  test('queue.complete(lease)', async () => {
    for (const bad of [undefined, null, 'id', { id: lease.id, token: lease.token }]) {
      await rejectsNaming(() => queue.complete(bad), 'lease')
    }
  })

  test('queue.completeAndLease(lease, options)', async () => {
    await rejectsNaming(() => queue.completeAndLease(undefined, { ttlMs: TTL }), 'lease')
    await rejectsNaming(() => queue.completeAndLease({ ...lease }, { ttlMs: TTL }), 'lease')
    await rejectsNaming(() => queue.completeAndLease(lease, TTL), 'options')
    await rejectsNaming(() => queue.completeAndLease(lease, { ttlMs: 0 }), 'ttlMs')
    await rejectsNaming(() => queue.completeAndLease(lease, { ttlMs: -1 }), 'ttlMs')
    await rejectsNaming(() => queue.completeAndLease(lease, { ttlMs: TTL, block: true }), 'block')
  })

  test('queue.renew(lease, options) and renewOutcome', async () => {
    for (const method of ['renew', 'renewOutcome']) {
      await rejectsNaming(() => queue[method](undefined, TTL), 'lease')
      await rejectsNaming(() => queue[method]({ ...lease }, TTL), 'lease')
      for (const ttlMs of ['1000', null, 0, -1, NaN, MAX_TTL_MS + 1]) {
        await rejectsNaming(() => queue[method](lease, ttlMs), 'ttlMs')
        await rejectsNaming(() => queue[method](lease, { ttlMs }), 'ttlMs')
      }
      await rejectsNaming(() => queue[method](lease, { ttl: TTL }), 'ttl')
    }
    // The bounds are the core's (leaseq::ttl_from_millis): 30 days is the longest TTL, and a
    // fraction of a millisecond rounds up.
    assert.equal(await queue.renew(lease, MAX_TTL_MS), true)
    assert.equal(await queue.renewOutcome(lease, { ttlMs: TTL + 0.5 }), 'renewed')
    await rejectsNaming(() => queue.renew(lease, -0.5), 'ttlMs')
  })

  test('queue.complete(lease, options)', async () => {
    await rejectsNaming(() => queue.complete(lease, 'result'), 'options')
    await rejectsNaming(() => queue.complete(lease, { result: 5 }), 'result')
    await rejectsNaming(() => queue.complete(lease, { result: 'r', keepResultForMs: 0 }), 'keepResultForMs')
    await rejectsNaming(() => queue.complete(lease, { result: 'r', keepResultForMs: -1 }), 'keepResultForMs')
    await rejectsNaming(() => queue.complete(lease, { keepResultForMs: 1000 }), 'keepResultForMs')
    await rejectsNaming(() => queue.complete(lease, { keep: 1000 }), 'keep')
  })

  test('queue.fail(lease, error, options)', async () => {
    await rejectsNaming(() => queue.fail(undefined, 'boom'), 'lease')
    for (const error of [undefined, null, 5, { message: 'boom' }]) {
      await rejectsNaming(() => queue.fail(lease, error), 'error')
    }
    await rejectsNaming(() => queue.fail(lease, 'boom', 'never'), 'options')
    await rejectsNaming(() => queue.fail(lease, 'boom', { errorType: 5 }), 'errorType')
    for (const retry of ['always', 5, null, [], true]) {
      await rejectsNaming(() => queue.fail(lease, 'boom', { retry }), 'retry')
    }
    await rejectsNaming(() => queue.fail(lease, 'boom', { retry: { after: 5 } }), 'after')
    await rejectsNaming(() => queue.fail(lease, 'boom', { retry: { afterMs: '5' } }), 'afterMs')
    await rejectsNaming(() => queue.fail(lease, 'boom', { retry: { afterMs: -5 } }), 'retry')
    await rejectsNaming(() => queue.fail(lease, 'boom', { retry: { afterMs: 1e15 } }), 'retry')
  })

  test('queue.release(lease, options) and queue.progress(lease, value)', async () => {
    await rejectsNaming(() => queue.release(undefined), 'lease')
    await rejectsNaming(() => queue.release(lease, 5), 'options')
    await rejectsNaming(() => queue.release(lease, { delayMs: -1 }), 'delayMs')
    await rejectsNaming(() => queue.release(lease, { delayMs: '1' }), 'delayMs')
    await rejectsNaming(() => queue.release(lease, { delayMs: 1e15 }), 'delayMs')
    await rejectsNaming(() => queue.progress(undefined, 'x'), 'lease')
    for (const value of [undefined, null, 5, { p: 1 }]) {
      await rejectsNaming(() => queue.progress(lease, value), 'value')
    }
    await rejectsNaming(() => queue.progress(lease, Buffer.alloc(64 * 1024 + 1)), 'value')
  })

  test('ids, states and counts of the read API', async () => {
    for (const method of ['get', 'result', 'cancel']) {
      for (const id of [undefined, null, 5, ['x']]) {
        await rejectsNaming(() => queue[method](id), 'id')
      }
      await rejectsNaming(() => queue[method](''), 'id')
      await rejectsNaming(() => queue[method](Buffer.alloc(0)), 'id')
      await rejectsNaming(() => queue[method](Buffer.alloc(513, 0x61)), 'id')
    }
    await rejectsNaming(() => queue.waitResult('x'), 'timeoutMs')
    await rejectsNaming(() => queue.waitResult('x', '1000'), 'timeoutMs')
    await rejectsNaming(() => queue.waitResult('x', -1), 'timeoutMs')
    await rejectsNaming(() => queue.waitResult('x', {}), 'timeoutMs')
    await rejectsNaming(() => queue.waitResult('x', { timeoutMs: -1 }), 'timeoutMs')
    await rejectsNaming(() => queue.waitResult('x', { timeoutMs: 1, timeout: 1 }), 'timeout')
    await rejectsNaming(() => queue.waitResult('', 1), 'id')
    await rejectsNaming(() => queue.waitResult('', { timeoutMs: 1 }), 'id')
    for (const method of ['list', 'count']) {
      for (const state of [undefined, 5, 'running', 'finished']) {
        await rejectsNaming(() => queue[method](state), 'state')
      }
    }
    await rejectsNaming(() => queue.list('waiting', { count: 0 }), 'count')
    await rejectsNaming(() => queue.list('waiting', { count: 1001 }), 'count')
    await rejectsNaming(() => queue.list('waiting', { count: 1.5 }), 'count')
    await rejectsNaming(() => queue.list('waiting', { start: -1 }), 'start')
    await rejectsNaming(() => queue.list('waiting', { page: 1 }), 'page')
    await rejectsNaming(() => queue.deadRequeue('a'), 'ids')
    await rejectsNaming(() => queue.deadRequeue(['a', 5]), 'ids[1]')
    await rejectsNaming(() => queue.completeAndLease(lease, { keepResultForMs: 5 }), 'keepResultForMs')
    await rejectsNaming(() => queue.deadRequeue(['']), 'id')
    await rejectsNaming(() => queue.deadRequeue(Array.from({ length: 1001 }, (_, i) => `d${i}`)), 'ids')
    for (const method of ['deadRequeueOldest', 'deadPurge']) {
      for (const n of ['1', null, -1, 1.5, NaN]) {
        await rejectsNaming(() => queue[method](n), 'n')
      }
    }
  })

  test('queue.setConfig(config)', async () => {
    for (const config of [undefined, null, 5, []]) {
      await rejectsNaming(() => queue.setConfig(config), 'config')
    }
    await rejectsNaming(() => queue.setConfig({ retries: 3 }), 'retries')
    await rejectsNaming(() => queue.setConfig({ maxAttempts: -1 }), 'maxAttempts')
    await rejectsNaming(() => queue.setConfig({ maxAttempts: '3' }), 'maxAttempts')
    await rejectsNaming(() => queue.setConfig({ priority: 1001 }), 'priority')
    await rejectsNaming(() => queue.setConfig({ keepResultForMs: 0 }), 'keepResultForMs')
    await rejectsNaming(() => queue.setConfig({ deadMaxAgeMs: -1 }), 'deadMaxAgeMs')
    await rejectsNaming(() => queue.setConfig({ deadMaxCount: 0.5 }), 'deadMaxCount')
    await rejectsNaming(() => queue.setConfig({ stats: 1 }), 'stats')
    await rejectsNaming(() => queue.setConfig({ stats: 'on' }), 'stats')
    await rejectsNaming(() => queue.setConfig({ expiresAfterMs: 1e15 }), 'expiresAfterMs')
    await rejectsNaming(() => queue.setConfig({ backoff: 'fixed' }), 'backoff')
    await rejectsNaming(() => queue.setConfig({ backoff: { type: 'linear' } }), 'backoff')
    await rejectsNaming(() => queue.setConfig({ backoff: { type: 'fixed' } }), 'backoff')
    await rejectsNaming(() => queue.setConfig({ backoff: { type: 'fixed', delayMs: 1, baseMs: 1 } }), 'baseMs')
    await rejectsNaming(
      () => queue.setConfig({ backoff: { type: 'exponential', baseMs: 10, capMs: 1 } }),
      'backoff',
    )
    await rejectsNaming(
      () => queue.setConfig({ backoff: { type: 'exponential', baseMs: 1, capMs: 10, jitter: 1 } }),
      'jitter',
    )
    // A refused field stores nothing, not even the good ones beside it.
    await rejectsNaming(() => queue.setConfig({ maxAttempts: 3, priority: 5000 }), 'priority')
    assert.deepEqual(await queue.config(), {})
  })

  test('the refused calls changed nothing: the lease is still live', async () => {
    assert.equal(await queue.renew(lease, TTL), true)
  })
})
