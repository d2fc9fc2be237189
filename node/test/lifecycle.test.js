'use strict'
// The job lifecycle (protocol v2) through the Node API: item options, priorities, delays,
// retries with backoff, dead letters, kept results, progress, cancel, incarnations, the read
// API, the queue's configuration and batch leases; on a throwaway redis-server.

const assert = require('node:assert/strict')
const { after, before, describe, test } = require('node:test')

const { Client, Item, Lease, LeaseqError } = require('..')
const { startRedis, uniquePrefix } = require('./helpers/redis')
const resp = require('./helpers/resp')

const TTL = 30_000
const HOUR = 3_600_000

/** Resolves after `ms`: only to let a short lease lapse, never to measure anything. */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

describe('job lifecycle', { timeout: 60_000 }, () => {
  let redis
  let client
  let admin
  /** Every unhandled rejection while these tests run: there must be none. */
  const unhandled = []
  const onUnhandled = (reason) => unhandled.push(reason)

  before(async () => {
    process.on('unhandledRejection', onUnhandled)
    redis = await startRedis()
    client = await Client.connect(redis.url)
    admin = await resp.connect(redis.url)
  })
  after(async () => {
    // Let any stray rejection of the tests' own calls reach the event loop first.
    await sleep(20)
    process.off('unhandledRejection', onUnhandled)
    admin.close()
    await client.close()
    await redis.stop()
    assert.deepEqual(unhandled, [], 'no unhandled rejections')
  })

  const freshQueue = (name) => client.queue(uniquePrefix(name))

  /** Resolves once Redis shows `count` clients blocked (flag b) in `command`. */
  async function blockedInRedis(count, command) {
    for (;;) {
      const list = String(await admin.command('CLIENT', 'LIST')).split('\n')
      const blocked = list.filter((l) => / flags=[A-Za-z]*b/.test(l) && l.includes(` cmd=${command} `))
      if (blocked.length >= count) return
      await sleep(5)
    }
  }

  test('a lease carries its attempt, incarnation, max attempts and backoff', async () => {
    const queue = freshQueue('lease-fields')
    await queue.add('x', { id: 'a' })
    const lease = await queue.lease()
    assert.ok(lease instanceof Lease)
    assert.equal(lease.id, 'a')
    assert.deepEqual(lease.idBytes, Buffer.from('a'))
    assert.equal(lease.attempt, 1)
    assert.equal(lease.count, 1)
    assert.equal(typeof lease.incarnation, 'string')
    assert.ok(lease.incarnation.length > 0)
    assert.equal(lease.maxAttempts, 25, 'the protocol default')
    assert.deepEqual(lease.backoff, { type: 'exponential', baseMs: 1000, capMs: HOUR, jitter: true })
    assert.throws(() => {
      lease.token = 'forged'
    }, TypeError)

    await queue.add('y', {
      id: 'b',
      maxAttempts: 4,
      backoff: { type: 'fixed', delayMs: 1500 },
    })
    const b = await queue.lease()
    assert.equal(b.maxAttempts, 4)
    assert.deepEqual(b.backoff, { type: 'fixed', delayMs: 1500 })
    assert.notEqual(b.incarnation, lease.incarnation)
  })

  test('lease defaults come from the core: a 30 s TTL and no wait', async () => {
    const queue = freshQueue('defaults')
    assert.equal(await queue.lease(), null, 'an empty queue: null at once, without options')
    await queue.add('x', { id: 'a' })
    const lease = await queue.lease()
    const job = await queue.get('a')
    assert.equal(job.state, 'leased')
    assert.ok(job.leaseTtlMs > 20_000 && job.leaseTtlMs <= 30_000, `TTL ${job.leaseTtlMs}`)
    assert.equal(await queue.renew(lease), true)
    assert.ok((await queue.get('a')).leaseTtlMs <= 30_000)
    assert.equal(await queue.renew(lease, { ttlMs: 120_000 }), true)
    assert.ok((await queue.get('a')).leaseTtlMs > 60_000)
    assert.equal(await queue.renew(lease, 90_000), true, 'a number is the TTL')
    assert.ok((await queue.get('a')).leaseTtlMs <= 90_000)
  })

  test('timeoutMs: Infinity waits until an item comes', async () => {
    const queue = freshQueue('forever')
    let settled = false
    const pending = queue.lease({ timeoutMs: Infinity }).finally(() => {
      settled = true
    })
    await blockedInRedis(1, 'blmove')
    assert.equal(settled, false)
    await queue.add('late', { id: 'late' })
    const lease = await pending
    assert.equal(lease.id, 'late')
    assert.equal(await queue.complete(lease), true)
  })

  test('priorities: higher first, FIFO within one; add(data, options) and Item options agree', async () => {
    const queue = freshQueue('prio')
    await queue.add('low', { id: 'low', priority: -5 })
    await queue.add(new Item('plain', 'plain'))
    await queue.add(new Item('high-1', { id: 'high-1', priority: 7 }))
    await queue.addUnique('high-2', { id: 'high-2', priority: 7 })
    await queue.addBatch([new Item('top', { id: 'top', priority: 1000 })])
    assert.equal(await queue.count('waiting'), 5)
    const waiting = await queue.list('waiting')
    assert.deepEqual(
      waiting.map((e) => e.id),
      ['top', 'high-1', 'high-2', 'plain', 'low'],
    )
    for (const e of waiting) {
      assert.equal(e.at, null)
      assert.equal(e.attempts, 0)
      assert.equal(e.error, null)
    }
    const order = []
    for (let lease = await queue.lease(); lease; lease = await queue.lease()) {
      order.push(lease.id)
      await queue.complete(lease)
    }
    assert.deepEqual(order, ['top', 'high-1', 'high-2', 'plain', 'low'])
    assert.equal((await queue.get('low')), null)
  })

  test('delays: delayMs, runAt as a Date or a number; a past time runs now', async () => {
    const queue = freshQueue('delays')
    const inAnHour = new Date(Date.now() + HOUR)
    assert.equal(await queue.add('d', { id: 'by-delay', delayMs: HOUR }), true)
    assert.equal(await queue.add(new Item('d', { id: 'by-date', runAt: inAnHour })), true)
    assert.equal(await queue.add('d', { id: 'by-number', runAt: inAnHour.getTime() }), true)
    assert.equal(await queue.add('d', { id: 'past', runAt: new Date(Date.now() - HOUR) }), true)
    assert.equal(await queue.count('delayed'), 3)
    const delayed = await queue.list('delayed')
    assert.deepEqual(delayed.map((e) => e.id).sort(), ['by-date', 'by-delay', 'by-number'])
    for (const e of delayed) assert.ok(e.at instanceof Date && e.at.getTime() > Date.now() + HOUR / 2)
    const job = await queue.get('by-date')
    assert.equal(job.state, 'delayed')
    assert.ok(job.dueAt instanceof Date)
    // Server clock against ours: the same host, so within a few seconds.
    assert.ok(Math.abs(job.dueAt.getTime() - inAnHour.getTime()) < 5_000, `${job.dueAt} vs ${inAnHour}`)
    assert.ok(job.addedAt instanceof Date)
    const lease = await queue.lease()
    assert.equal(lease.id, 'past', 'only the item due already is leased')
    assert.equal(await queue.lease(), null)
    assert.equal(await queue.add('again', { id: 'by-delay' }), false, 'a delayed id exists')
  })

  test('complete with a result; result, waitResult and get read it', async () => {
    const queue = freshQueue('results')
    await queue.add('x', { id: 'r' })
    const lease = await queue.lease()
    assert.equal(await queue.result('r'), null)
    assert.equal(await queue.waitResult('r', { timeoutMs: 0 }), null)
    const waiting = queue.waitResult('r', { timeoutMs: 30_000 })
    await blockedInRedis(1, 'blmove')
    const bytes = Buffer.from([0, 0xff, 1])
    assert.equal(await queue.complete(lease, { result: bytes, keepResultForMs: HOUR }), true)
    const got = await waiting
    assert.deepEqual(got.data, bytes)
    assert.equal(got.attempts, 1)
    assert.ok(got.finishedAt instanceof Date)
    assert.deepEqual(await queue.result('r'), got)
    const job = await queue.get('r')
    assert.equal(job.state, 'done')
    assert.deepEqual(job.result, got)
    assert.equal(job.data.length, 0)
    assert.equal(await queue.complete(lease, { result: 'again' }), false, 'once per incarnation')
    assert.deepEqual((await queue.result('r')).data, bytes, 'the first result stays')

    await queue.add('y', { id: 's' })
    assert.equal(await queue.complete(await queue.lease(), { result: 'text' }), true)
    assert.equal((await queue.result('s')).data.toString(), 'text')
    assert.equal(await queue.result('never-added'), null)
  })

  test('a done job shows what its kept result knows: attempts, time added, name', async () => {
    const queue = freshQueue('kept')
    await queue.add('x', { id: 'twice', maxAttempts: 3 })
    assert.equal(await queue.fail(await queue.lease(), 'flaky', { retry: { afterMs: 0 } }), 'retrying')
    const second = await queue.lease()
    assert.equal(second.attempt, 2)
    assert.equal(await queue.complete(second, { result: 'out' }), true)
    const result = await queue.result('twice')
    assert.equal(result.attempts, 2)
    assert.equal(result.name, null)
    assert.ok(result.addedAt instanceof Date && result.addedAt <= result.finishedAt)
    const job = await queue.get('twice')
    assert.equal(job.state, 'done')
    assert.equal(job.attempts, 2)
    assert.deepEqual([job.addedAt, job.finishedAt], [result.addedAt, result.finishedAt])
    await queue.add('y', { id: 'plain' })
    assert.equal(await queue.complete(await queue.lease(), { result: 'out' }), true)
    assert.equal((await queue.result('plain')).addedAt, null, 'added without options: unknown')
  })

  test('exists tells a mistyped queue from an empty one; deadRequeueEach names what was not dead', async () => {
    const queue = freshQueue('exists')
    assert.equal(await queue.exists(), false)
    assert.equal(await queue.count('waiting'), 0)
    await queue.add('x', { id: 'd', maxAttempts: 1 })
    await queue.add('y', { id: 'w' })
    assert.equal(await queue.exists(), true)
    assert.equal(await queue.fail(await queue.lease(), 'boom', { retry: 'never' }), 'dead')
    assert.deepEqual(await queue.deadRequeueEach(['nosuch', 'd', 'w']), [false, true, false])
    assert.equal(await queue.count('dead'), 0)
  })

  test('fail: retry after the backoff, after a given delay, never; an Error gives its name', async () => {
    const queue = freshQueue('fail')
    await queue.add('x', { id: 'f', backoff: { type: 'fixed', delayMs: HOUR } })
    let lease = await queue.lease()
    assert.equal(await queue.fail(lease, new RangeError('out of range')), 'retrying')
    let job = await queue.get('f')
    assert.equal(job.state, 'delayed')
    assert.equal(job.error, 'out of range')
    assert.equal(job.errorType, 'RangeError')
    assert.ok(job.dueAt.getTime() > Date.now() + HOUR / 2, 'the backoff delays it')
    assert.equal(await queue.fail(lease, 'again'), 'expired', 'a lease fails once; nobody holds it now')

    await queue.add('x', { id: 'g' })
    lease = await queue.lease()
    assert.equal(await queue.fail(lease, 'busy', { errorType: 'Busy', retry: { afterMs: 0 } }), 'retrying')
    job = await queue.get('g')
    assert.equal(job.state, 'waiting')
    assert.equal(job.errorType, 'Busy')
    lease = await queue.lease()
    assert.equal(lease.id, 'g')
    assert.equal(lease.attempt, 2)
    const err = new Error('broken')
    assert.equal(await queue.fail(lease, err, { errorType: 'Custom', retry: 'never' }), 'dead')
    job = await queue.get('g')
    assert.equal(job.state, 'dead')
    assert.equal(job.errorType, 'Custom', 'errorType wins over the Error name')
    assert.equal(typeof job.deadReason, 'string')
    assert.ok(job.finishedAt instanceof Date)

    await queue.add('x', { id: 'h', maxAttempts: 1 })
    lease = await queue.lease()
    assert.equal(await queue.fail(lease, 'last', { retry: 'default' }), 'dead', 'out of attempts')
    const dead = await queue.list('dead')
    assert.deepEqual(dead.map((e) => e.id), ['g', 'h'])
    assert.deepEqual(
      dead.map((e) => [e.error, e.errorType, e.attempts]),
      [
        ['broken', 'Custom', 2],
        ['last', '', 1],
      ],
    )
    for (const e of dead) assert.ok(e.at instanceof Date)
  })

  test('release hands the item back (now or later) and gives the attempt back', async () => {
    const queue = freshQueue('release')
    await queue.add('x', { id: 'a' })
    let lease = await queue.lease()
    assert.equal(await queue.release(lease), true)
    assert.equal(await queue.release(lease), false, 'no longer held')
    assert.equal((await queue.get('a')).state, 'waiting')
    lease = await queue.lease()
    assert.equal(lease.attempt, 1, 'the released attempt does not count')
    assert.equal(await queue.release(lease, { delayMs: HOUR }), true)
    assert.equal((await queue.get('a')).state, 'delayed')
    assert.equal(await queue.lease(), null)
  })

  test('progress is stored on the leased item', async () => {
    const queue = freshQueue('progress')
    await queue.add('x', { id: 'a' })
    const lease = await queue.lease()
    assert.equal((await queue.get('a')).progress, null)
    assert.equal(await queue.progress(lease, JSON.stringify({ pct: 40 })), true)
    assert.deepEqual(JSON.parse((await queue.get('a')).progress.toString()), { pct: 40 })
    assert.equal(await queue.progress(lease, Buffer.from([1, 2])), true)
    assert.deepEqual((await queue.get('a')).progress, Buffer.from([1, 2]))
    assert.equal(await queue.complete(lease), true)
    assert.equal(await queue.progress(lease, 'late'), false)
  })

  test('renewOutcome says why a lease is lost: expired, taken, completed, cancelled, older incarnation', async () => {
    const queue = freshQueue('outcomes')
    await queue.add('x', { id: 'a' })
    const a = await queue.lease({ ttlMs: 1 })
    await sleep(30)
    assert.equal(await queue.renewOutcome(a, { ttlMs: TTL }), 'expired')
    const b = await queue.lease()
    assert.equal(b.attempt, 2)
    assert.equal(await queue.renewOutcome(a), 'taken')
    assert.equal(await queue.renew(a), false)
    assert.equal(await queue.renewOutcome(b, TTL), 'renewed')
    assert.equal(await queue.complete(b), true)
    assert.equal(await queue.renewOutcome(b), 'completed')

    assert.equal(await queue.add('v2', { id: 'a' }), true)
    assert.equal(await queue.complete(b), false)
    assert.equal(await queue.renewOutcome(b), 'older_incarnation')
    const c = await queue.lease()
    assert.notEqual(c.incarnation, b.incarnation)
    assert.equal(await queue.cancel('a'), 'leased')
    assert.equal(await queue.renewOutcome(c), 'cancelled')
    assert.equal(await queue.complete(c), false)
  })

  test('cancel removes waiting, delayed and dead items and says where they were', async () => {
    const queue = freshQueue('cancel')
    await queue.add('x', { id: 'x' })
    assert.equal(await queue.fail(await queue.lease(), 'e', { retry: 'never' }), 'dead')
    await queue.add('w', { id: 'w' })
    await queue.add('d', { id: 'd', delayMs: HOUR })
    assert.equal(await queue.count('dead'), 1)
    assert.equal(await queue.cancel('w'), 'waiting')
    assert.equal(await queue.cancel('d'), 'delayed')
    assert.equal(await queue.cancel('x'), 'dead')
    assert.equal(await queue.cancel('x'), null)
    assert.equal(await queue.cancel('never-added'), null)
    for (const id of ['w', 'd', 'x']) assert.equal(await queue.get(id), null)
    for (const state of ['delayed', 'leased', 'dead']) assert.equal(await queue.count(state), 0)
    // A cancelled waiting id stays in its list until a lease (or a clean) drops it.
    assert.equal(await queue.lease(), null)
    assert.equal(await queue.count('waiting'), 0)
  })

  test('dead letters: requeue by id, requeue the oldest, purge', async () => {
    const queue = freshQueue('dead')
    for (let i = 0; i < 5; i++) await queue.add(`d${i}`, { id: `d${i}` })
    for (let i = 0; i < 5; i++) {
      assert.equal(await queue.fail(await queue.lease(), `e${i}`, { retry: 'never' }), 'dead')
    }
    assert.equal(await queue.deadRequeue([]), 0)
    assert.equal(await queue.deadRequeue(['d0', 'not-dead']), 1)
    const requeued = await queue.get('d0')
    assert.equal(requeued.state, 'waiting')
    assert.equal(requeued.attempts, 0, 'attempts reset')
    assert.equal(await queue.deadRequeueOldest(1), 1)
    assert.equal((await queue.get('d1')).state, 'waiting')
    assert.equal(await queue.deadPurge(1), 1)
    assert.equal(await queue.get('d2'), null)
    assert.equal(await queue.deadRequeueOldest(0), 0)
    assert.equal(await queue.deadRequeueOldest(), 2, 'all the rest')
    assert.equal(await queue.count('dead'), 0)
    for (let i = 0; i < 4; i++) await queue.fail(await queue.lease(), 'again', { retry: 'never' })
    assert.equal(await queue.deadPurge(), 4)
    assert.equal(await queue.count('dead'), 0)
  })

  test('get describes every field; an unknown id is null', async () => {
    const queue = freshQueue('get')
    assert.equal(await queue.get('nope'), null)
    await queue.add(Buffer.from([7, 8]), { id: 'j', priority: 3, maxAttempts: 9 })
    let job = await queue.get('j')
    assert.deepEqual(Object.keys(job).sort(), [
      'addedAt',
      'attempts',
      'cancelled',
      'data',
      'deadReason',
      'dependsOn',
      'dueAt',
      'error',
      'errorType',
      'finishedAt',
      'group',
      'id',
      'idBytes',
      'leaseExpiresAt',
      'leaseTtlMs',
      'leasedAt',
      'maxAttempts',
      'name',
      'onDependencyFailure',
      'partition',
      'priority',
      'progress',
      'result',
      'state',
      'trace',
    ])
    assert.equal(job.id, 'j')
    assert.equal(job.state, 'waiting')
    assert.deepEqual(job.data, Buffer.from([7, 8]))
    assert.equal(job.attempts, 0)
    assert.equal(job.maxAttempts, 9)
    assert.equal(job.priority, 3)
    assert.equal(job.cancelled, false)
    assert.equal(job.group, null, 'no group given')
    assert.equal(job.name, null, 'no name given')
    assert.deepEqual([job.dependsOn, job.onDependencyFailure], [[], null], 'no dependencies given')
    assert.equal(job.partition, null, 'read from a plain queue')
    for (const field of ['error', 'errorType', 'trace', 'deadReason', 'progress', 'result', 'leasedAt', 'leaseTtlMs']) {
      assert.equal(job[field], null, field)
    }
    await queue.lease({ ttlMs: 60_000 })
    job = await queue.get('j')
    assert.equal(job.state, 'leased')
    assert.equal(job.attempts, 1)
    assert.ok(job.leasedAt instanceof Date)
    assert.ok(job.leaseExpiresAt instanceof Date)
    assert.ok(job.leaseExpiresAt > job.leasedAt)
    assert.ok(job.leaseTtlMs > 0 && job.leaseTtlMs <= 60_000)
  })

  test('list pages with start and count; count per state', async () => {
    const queue = freshQueue('list')
    await queue.addBatch(Array.from({ length: 12 }, (_, i) => new Item(`${i}`, `i${i}`)))
    assert.equal(await queue.count('waiting'), 12)
    const page = await queue.list('waiting', { start: 5, count: 3 })
    assert.deepEqual(page.map((e) => e.id), ['i5', 'i6', 'i7'])
    assert.equal((await queue.list('waiting', { start: 10 })).length, 2)
    assert.deepEqual(await queue.list('leased'), [])
    await queue.leaseBatch(2)
    const leased = await queue.list('leased', { count: 1000 })
    assert.equal(leased.length, 2)
    for (const e of leased) assert.ok(e.at instanceof Date)
    assert.equal(await queue.count('leased'), 2)
  })

  test('leaseBatch leases up to n in order; an empty queue gives []', async () => {
    const queue = freshQueue('batch')
    assert.deepEqual(await queue.leaseBatch(3), [])
    await queue.addBatch([
      new Item('a', { id: 'a' }),
      new Item('b', { id: 'b' }),
      new Item('c', { id: 'c', priority: 1 }),
      new Item('d', { id: 'd' }),
    ])
    const first = await queue.leaseBatch(3, { ttlMs: 60_000 })
    assert.deepEqual(first.map((l) => l.id), ['c', 'a', 'b'])
    for (const lease of first) assert.ok(lease instanceof Lease)
    assert.equal(new Set(first.map((l) => l.token)).size, 3)
    const rest = await queue.leaseBatch(10, { timeoutMs: 10 })
    assert.deepEqual(rest.map((l) => [l.id, l.data.toString()]), [['d', 'd']])
    for (const lease of [...first, ...rest]) assert.equal(await queue.complete(lease), true)
  })

  test('batch finishes: completeBatch, renewBatch, failBatch, completeAndLeaseBatch', async () => {
    const queue = freshQueue('finish-batch')
    await queue.addBatch(Array.from({ length: 8 }, (_, i) => new Item(`${i}`, `b${i}`)))
    const [a, b, c, d] = await queue.leaseBatch(4)
    assert.deepEqual(await queue.renewBatch([a, b], { ttlMs: 60_000 }), ['renewed', 'renewed'])
    assert.deepEqual(await queue.renewBatch([]), [])
    assert.deepEqual(
      await queue.completeBatch([a, { lease: b, result: 'rb', keepResultForMs: HOUR }]),
      [true, true],
    )
    assert.equal((await queue.result('b1')).data.toString(), 'rb')
    assert.deepEqual(await queue.completeBatch([a]), [false], 'once per incarnation')
    assert.deepEqual(await queue.renewBatch([a, c]), ['completed', 'renewed'])
    assert.deepEqual(
      await queue.failBatch([
        { lease: c, error: new TypeError('t'), retry: 'never' },
        { lease: d, error: 'later', errorType: 'Slow', retry: { afterMs: HOUR } },
        { lease: a, error: 'late' },
      ]),
      ['dead', 'retrying', 'completed'],
    )
    assert.equal((await queue.get('b2')).errorType, 'TypeError')
    assert.equal((await queue.get('b3')).state, 'delayed')
    const [e] = await queue.leaseBatch(1)
    const step = await queue.completeAndLeaseBatch([{ lease: e, result: 're' }], 2, { ttlMs: 60_000 })
    assert.deepEqual(step.completed, [true])
    assert.deepEqual(step.leases.map((l) => l.id), ['b5', 'b6'])
    for (const l of step.leases) assert.ok(l instanceof Lease)
    const last = await queue.completeAndLeaseBatch(step.leases, 5)
    assert.deepEqual(last.completed, [true, true])
    assert.deepEqual(last.leases.map((l) => l.id), ['b7'])
    assert.deepEqual(await queue.completeBatch(last.leases), [true])
  })

  test('batch finishes refuse bad arguments, sending nothing', async () => {
    const queue = freshQueue('finish-batch-args')
    await queue.add('x', { id: 'x' })
    const lease = await queue.lease()
    const naming = (argument) => (err) => {
      assert.ok(err instanceof LeaseqError)
      assert.equal(err.code, 'INVALID_ARGUMENT')
      assert.equal(err.argument, argument, err.message)
      return true
    }
    await assert.rejects(queue.completeBatch(lease), naming('completions'))
    await assert.rejects(queue.completeBatch([{ lease: 'x' }]), naming('lease'))
    await assert.rejects(queue.completeBatch([{ lease, result: 5 }]), naming('result'))
    await assert.rejects(queue.completeBatch([{ lease, keepResultForMs: 5 }]), naming('keepResultForMs'))
    await assert.rejects(queue.completeBatch([{ lease, extra: 1 }]), naming('extra'))
    await assert.rejects(queue.renewBatch([lease, {}]), naming('leases[1]'))
    await assert.rejects(queue.renewBatch([lease], { ttlMs: 0 }), naming('ttlMs'))
    await assert.rejects(queue.failBatch([{ lease, error: 5 }]), naming('error'))
    await assert.rejects(queue.failBatch([{ lease, error: 'e', retry: 'maybe' }]), naming('retry'))
    await assert.rejects(queue.failBatch('x'), naming('failures'))
    await assert.rejects(queue.completeAndLeaseBatch([lease]), naming('n'))
    await assert.rejects(queue.completeAndLeaseBatch([lease], { n: 1 }), naming('n'))
    await assert.rejects(queue.completeAndLeaseBatch([lease], 1001), naming('n'))
    await assert.rejects(queue.completeAndLeaseBatch([lease], -1), naming('n'))
    await assert.rejects(queue.completeAndLeaseBatch([lease], 1, { n: 1 }), naming('n'))
    await assert.rejects(queue.completeAndLeaseBatch([{ lease, keepResultForMs: 5 }], 1), naming('keepResultForMs'))
    const many = Array.from({ length: 1001 }, () => lease)
    await assert.rejects(queue.completeBatch(many), naming('completions'))
    assert.equal(await queue.renewOutcome(lease), 'renewed', 'the lease is untouched')
    assert.equal(await queue.complete(lease), true)
  })

  test('stats: counts, the oldest waiting item, the last hour', async () => {
    const queue = freshQueue('stats')
    await queue.setConfig({ stats: true })
    await queue.add('a', { id: 'a' })
    await queue.add('b', { id: 'b', delayMs: HOUR })
    await queue.add('c', { id: 'c' })
    await queue.add('d', { id: 'd' })
    await queue.complete(await queue.lease())
    await queue.fail(await queue.lease(), 'x', { retry: 'never' })
    const stats = await queue.stats()
    assert.equal(stats.waiting, 1)
    assert.equal(stats.delayed, 1)
    assert.equal(stats.leased, 0)
    assert.equal(stats.dead, 1)
    assert.equal(stats.processing, 0)
    assert.ok(stats.now instanceof Date)
    assert.ok(stats.oldestWaitingMs === null || stats.oldestWaitingMs >= 0)
    assert.equal(stats.minutes.length, 60)
    assert.equal(stats.lastHour.completed, 1)
    assert.equal(stats.lastHour.failed, 1)
    assert.equal(stats.lastHour.dead, 1)
    const summed = stats.minutes.reduce((n, m) => n + m.completed, 0)
    assert.equal(summed, stats.lastHour.completed)
  })

  test('stats: counters are off (null) until the configuration turns them on', async () => {
    const queue = freshQueue('counters')
    await queue.add('a', { id: 'a' })
    assert.equal(await queue.complete(await queue.lease()), true)
    const off = await queue.stats()
    // Not counted, which is not the same as nothing happened: null, never zeros.
    assert.equal(off.minutes, null)
    assert.equal(off.lastHour, null)
    assert.equal((await queue.config()).stats, undefined)
    await queue.setConfig({ stats: true })
    assert.equal((await queue.config()).stats, true)
    await queue.add('b', { id: 'b' })
    assert.equal(await queue.complete(await queue.lease()), true)
    const on = await queue.stats()
    assert.equal(on.lastHour.completed, 1, 'b only: a was completed while counters were off')
    assert.equal(on.minutes.reduce((n, m) => n + m.completed, 0), 1)
    await queue.setConfig({ stats: false })
    assert.equal((await queue.config()).stats, false)
    assert.equal((await queue.stats()).lastHour, null)
  })

  test('config: set, read back, applied to new items, reset', async () => {
    const queue = freshQueue('config')
    assert.deepEqual(await queue.config(), {})
    await queue.setConfig({})
    assert.deepEqual(await queue.config(), {})
    const config = {
      maxAttempts: 1,
      backoff: { type: 'exponential', baseMs: 500, capMs: 60_000, jitter: false },
      priority: 4,
      expiresAfterMs: HOUR,
      keepResultForMs: 2 * HOUR,
      deadMaxCount: 50,
      deadMaxAgeMs: 24 * HOUR,
      stats: true,
    }
    await queue.setConfig(config)
    assert.deepEqual(await queue.config(), config)
    await queue.setConfig({ backoff: { type: 'fixed', delayMs: 250 } })
    assert.deepEqual((await queue.config()).backoff, { type: 'fixed', delayMs: 250 })
    assert.equal((await queue.config()).maxAttempts, 1, 'other fields keep their stored value')
    await queue.setConfig({ backoff: { type: 'exponential', baseMs: 100, capMs: 200 } })
    assert.equal((await queue.config()).backoff.jitter, true, "jitter's default is the core's")

    await queue.add('x', { id: 'cfg' })
    const lease = await queue.lease()
    assert.equal(lease.maxAttempts, 1)
    assert.equal(await queue.fail(lease, 'once'), 'dead', 'the stored maxAttempts applies')
    await queue.resetConfig()
    assert.deepEqual(await queue.config(), {})
  })

  test("a non-UTF-8 id added by another client is leased and completed by its bytes", async () => {
    const queue = freshQueue('bytes')
    const id = Buffer.from([0xff, 0xfe, 0x41])
    const prefix = Buffer.from(queue.prefix)
    await admin.command('SET', Buffer.concat([prefix, Buffer.from(':item:'), id]), 'payload')
    await admin.command('LPUSH', Buffer.concat([prefix, Buffer.from(':queue')]), id)
    const lease = await queue.lease()
    assert.deepEqual(lease.idBytes, id)
    assert.equal(lease.id, '\ufffd\ufffdA', 'id shows the bytes lossily')
    assert.equal(lease.data.toString(), 'payload')
    assert.equal(await queue.renewOutcome(lease), 'renewed')
    assert.equal(await queue.complete(lease), true)
    assert.equal(await queue.count('leased'), 0)
    const keys = await admin.command('KEYS', `${queue.prefix}*`)
    assert.deepEqual(keys.filter((k) => !k.includes(':rate:')), [], 'nothing left of it')
  })

  test('a non-UTF-8 id is read, requeued, cancelled and awaited by its bytes', async () => {
    const queue = freshQueue('bytes-read')
    const id = Buffer.from([0x6a, 0xff, 0xfe])
    const prefix = Buffer.from(queue.prefix)
    await admin.command('SET', Buffer.concat([prefix, Buffer.from(':item:'), id]), 'payload')
    await admin.command('LPUSH', Buffer.concat([prefix, Buffer.from(':queue')]), id)
    const job = await queue.get(id)
    assert.equal(job.state, 'waiting')
    assert.deepEqual(job.idBytes, id)
    let lease = await queue.lease()
    assert.equal(await queue.fail(lease, 'boom', { retry: 'never' }), 'dead')
    const [entry] = await queue.list('dead')
    assert.deepEqual(entry.idBytes, id)
    await assert.rejects(queue.waitResult(id, { timeoutMs: 0 }), (err) => err.code === 'DEAD')
    assert.equal(await queue.deadRequeue([entry.idBytes, 'nope']), 1)
    const waiter = queue.waitResult(id, { timeoutMs: Infinity })
    await queue.add('n', { id: 'next' })
    lease = await queue.lease()
    assert.deepEqual(lease.idBytes, id)
    const { completed, next } = await queue.completeAndLease(lease, { result: 'kept', keepResultForMs: 60_000 })
    assert.equal(completed, true)
    assert.equal(next.id, 'next')
    const result = await waiter
    assert.equal(result.data.toString(), 'kept', 'the forever wait ended with the result')
    assert.equal((await queue.result(id)).data.toString(), 'kept')
    assert.equal(await queue.result('j\ufffd\ufffd'), null, 'its lossy reading is another id')
    const pttl = await admin.command('PTTL', Buffer.concat([prefix, Buffer.from(':result:'), id]))
    assert.ok(pttl > 0 && pttl <= 60_000)
    assert.equal(await queue.cancel(Buffer.from('next')), 'leased')
  })

  test('waitResult rejects with DEAD when the job dies, saying why', async () => {
    const queue = freshQueue('dead-wait')
    await queue.add('x', { id: 'doomed' })
    // A death writes no result: the forever wait ends with the death, not at a deadline.
    const waiter = queue.waitResult('doomed', { timeoutMs: Infinity })
    const lease = await queue.lease()
    assert.equal(await queue.fail(lease, new RangeError('too far'), { retry: 'never' }), 'dead')
    await assert.rejects(waiter, (err) => {
      assert.ok(err instanceof LeaseqError)
      assert.equal(err.code, 'DEAD')
      assert.equal(err.retryable, false)
      assert.match(err.message, /doomed/)
      assert.match(err.message, /RangeError: too far/)
      return true
    })
    // Requeued, it is waited for again.
    assert.equal(await queue.deadRequeue(['doomed']), 1)
    assert.equal(await queue.waitResult('doomed', { timeoutMs: 0 }), null)
  })

  test('completeAndLease without a result keeps none; waitResult with timeoutMs 0 only reads', async () => {
    const queue = freshQueue('cal')
    await queue.add('a', { id: 'a' })
    const lease = await queue.lease()
    const { completed, next } = await queue.completeAndLease(lease)
    assert.equal(completed, true)
    assert.equal(next, null)
    assert.equal(await queue.waitResult('a', { timeoutMs: 0 }), null)
  })

  test('a lease acts only on the queue that leased it', async () => {
    const one = freshQueue('own-1')
    const two = freshQueue('own-2')
    await one.add('x', { id: 'a' })
    const lease = await one.lease()
    await assert.rejects(two.complete(lease), (err) => {
      assert.ok(err instanceof LeaseqError)
      assert.equal(err.code, 'INVALID_ARGUMENT')
      assert.equal(err.argument, 'lease')
      return true
    })
    assert.equal(await one.complete(lease), true)
  })

  test('errors are rejections of the returned promise, never unhandled', async () => {
    const queue = freshQueue('rejections')
    const calls = [
      () => queue.add(5),
      () => queue.add('x', { priority: 5000 }),
      () => queue.lease({ ttlMs: -1 }),
      () => queue.leaseBatch(0),
      () => queue.fail(null, 'x'),
      () => queue.list('finished'),
      () => queue.setConfig({ priority: 'high' }),
      () => queue.waitResult('', { timeoutMs: 1 }),
    ]
    const results = await Promise.allSettled(calls.map((call) => call()))
    for (const r of results) {
      assert.equal(r.status, 'rejected')
      assert.ok(r.reason instanceof LeaseqError)
      assert.equal(r.reason.code, 'INVALID_ARGUMENT')
    }
  })

  test('the job browser: done items listed and counted, find by error type, promote', async () => {
    const queue = freshQueue('browse')
    for (const id of ['i0', 'i1', 'i2', 'i3']) await queue.add('x', { id })
    assert.equal(await queue.complete(await queue.lease(), { result: 'kept' }), true)
    const done = await queue.list('done')
    assert.deepEqual(done.map((e) => e.id), ['i0'])
    assert.equal(done[0].attempts, 1)
    assert.ok(done[0].at instanceof Date)
    assert.equal(done[0].name, null)
    assert.equal(await queue.count('done'), 1)
    for (const kind of ['Timeout', 'Other', 'Timeout']) {
      assert.equal(await queue.fail(await queue.lease(), 'no', { errorType: kind, retry: 'never' }), 'dead')
    }
    const found = await queue.find('dead', { errorType: 'Timeout' })
    assert.deepEqual(found.entries.map((e) => e.id), ['i1', 'i3'])
    assert.equal(found.next, null)
    assert.equal(found.examined, 3)
    const one = await queue.find('dead', { errorType: 'Timeout', count: 1 })
    assert.deepEqual(one.entries.map((e) => e.id), ['i1'])
    assert.equal(one.next, 1)
    const rest = await queue.find('dead', { errorType: 'Timeout', start: one.next })
    assert.deepEqual(rest.entries.map((e) => e.id), ['i3'])
    assert.deepEqual((await queue.find('dead', { name: 'nosuch' })).entries, [])
    await assert.rejects(queue.find('dead', { count: 1001 }), (e) => e instanceof LeaseqError && e.code === 'INVALID_ARGUMENT')
    await assert.rejects(queue.find('dead', { bogus: 1 }), LeaseqError)
    await queue.add('x', { id: 'later', delayMs: HOUR })
    assert.equal(await queue.promote('i1'), false)
    assert.equal(await queue.promote('later'), true)
    assert.equal((await queue.get('later')).state, 'waiting')
    assert.equal(await queue.promote(Buffer.from('later')), false)
  })
})
