'use strict'
// Jobs by name (issue 29; spec/PROTOCOL.md 3.2, 5.12 and 13.1) through the Node binding, on a
// throwaway redis-server: an item's `name` added, leased, read back and counted; bad names
// refused where the item is made; a Worker with an object of handlers by name, with and
// without a fallback, and a bad table refused before anything runs.

const assert = require('node:assert/strict')
const { after, before, describe, test } = require('node:test')

const { Client, Item, Worker } = require('..')
const { invalid } = require('./helpers/errors')
const { startRedis, uniquePrefix } = require('./helpers/redis')
const resp = require('./helpers/resp')

describe('jobs by name', { timeout: 60_000 }, () => {
  let redis
  let client
  let admin
  before(async () => {
    redis = await startRedis()
    client = await Client.connect(redis.url)
    admin = await resp.connect(redis.url)
  })
  after(async () => {
    admin.close()
    await client.close()
    await redis.stop()
  })

  test('a named item is kept, leased with its name and read back; one without has none', async () => {
    const queue = client.queue(uniquePrefix('names'))
    assert.equal(await queue.add(new Item('hi', { id: 'm1', name: 'sendEmail' })), true)
    await queue.addUnique(Item.fromJson({ w: 10 }, { id: 'r1', name: 'resize', priority: -1 }))
    assert.equal(await queue.addBatch([new Item('', { id: 'b1', name: 'send_email', priority: -2 })]), 1)
    await queue.add('plain', { id: 'p1', priority: -3 })
    assert.equal((await queue.get('m1')).name, 'sendEmail', 'used as given, not converted')
    assert.equal((await queue.get('p1')).name, null)
    const leases = await queue.leaseBatch(4)
    assert.deepEqual(
      leases.map((l) => [l.id, l.name]),
      [
        ['m1', 'sendEmail'],
        ['r1', 'resize'],
        ['b1', 'send_email'],
        ['p1', null],
      ],
    )
    // A retry keeps the name: the next lease of the item carries it again.
    await queue.fail(leases[0], 'smtp down', { retry: { afterMs: 0 } })
    const again = await queue.lease()
    assert.deepEqual([again.id, again.count, again.name], ['m1', 2, 'sendEmail'])
    const job = await queue.get('m1')
    assert.deepEqual([job.state, job.name], ['leased', 'sendEmail'])
  })

  test('a bad name is refused naming `name`, and nothing is written', async () => {
    const prefix = uniquePrefix('names-bad')
    const queue = client.queue(prefix)
    for (const bad of ['', 'line\nbreak', 'x'.repeat(257), 'é'.repeat(129)]) {
      assert.throws(() => new Item('', { id: 'a', name: bad }), invalid('name'), JSON.stringify(bad))
      await assert.rejects(queue.add('', { id: 'a', name: bad }), invalid('name'))
    }
    assert.throws(() => new Item('', { name: 42 }), invalid('name'), 'not a string')
    assert.equal((await queue.get('a')), null)
    assert.deepEqual(await admin.command('KEYS', `${prefix}*`), [], 'no key written')
    // 256 bytes is the longest name taken.
    assert.equal(await queue.add('', { id: 'b', name: 'é'.repeat(128) }), true)
  })

  test('countsByName is null while the counters are off, else counts by name', async () => {
    const queue = client.queue(uniquePrefix('names-counts'))
    assert.equal(await queue.countsByName(), null, 'off by default')
    await queue.add('', { id: 'e1', name: 'email' })
    await queue.complete(await queue.lease())
    assert.equal(await queue.countsByName(), null, 'nothing counted while off')
    await queue.setConfig({ stats: true })
    assert.deepEqual(await queue.countsByName(), [], 'on, nothing counted yet')
    await queue.addBatch([
      new Item('', { id: 'e2', name: 'email' }),
      new Item('', { id: 'r1', name: 'resize', maxAttempts: 1 }),
      new Item('', { id: 'p1' }),
    ])
    const [e2, r1, p1] = await queue.leaseBatch(3)
    await queue.complete(e2)
    assert.equal(await queue.fail(r1, 'too big'), 'dead')
    await queue.complete(p1)
    assert.deepEqual(await queue.countsByName(), [
      { name: 'email', completed: 1, failed: 0, dead: 0 },
      { name: 'resize', completed: 0, failed: 1, dead: 1 },
    ])
    assert.equal((await queue.stats()).lastHour.completed, 2, 'the unnamed item is in the totals only')
  })

  /** Runs `worker` until `n` jobs completed or went dead; resolves to its report. */
  async function runUntil(worker, n) {
    let settled = 0
    const one = () => {
      if (++settled === n) worker.close()
    }
    worker.on('completed', one).on('dead', one)
    return worker.run()
  }

  test('handlers by name: each name its handler; an unknown name and no name dead, NoHandler, no handler called', async () => {
    const queue = client.queue(uniquePrefix('names-run'))
    await queue.addBatch([
      new Item('a@example.com', { id: 'm1', name: 'sendEmail' }),
      new Item('640', { id: 'r1', name: 'resize' }),
      new Item('?', { id: 'u1', name: 'unknown', maxAttempts: 5 }),
      new Item('?', { id: 'n1', maxAttempts: 5 }),
    ])
    const calls = []
    const worker = new Worker(
      queue,
      {
        sendEmail: async (job) => {
          calls.push(['sendEmail', job.id, job.name])
          return `mailed ${job.data}`
        },
        resize: async (job) => {
          calls.push(['resize', job.id, job.name])
          return `resized to ${job.data}`
        },
      },
      { handleSignals: false, housekeeping: false },
    )
    const report = await runUntil(worker, 4)
    assert.deepEqual(
      calls.sort(),
      [
        ['resize', 'r1', 'resize'],
        ['sendEmail', 'm1', 'sendEmail'],
      ],
      'only the named jobs reached a handler',
    )
    assert.deepEqual([report.completed, report.dead, report.retried], [2, 2, 0])
    assert.equal((await queue.result('m1')).data.toString(), 'mailed a@example.com')
    assert.equal((await queue.result('r1')).data.toString(), 'resized to 640')
    const unknown = await queue.get('u1')
    assert.deepEqual([unknown.state, unknown.errorType, unknown.attempts], ['dead', 'NoHandler', 1], 'no retry')
    assert.match(unknown.error, /"unknown"/)
    assert.match(unknown.error, /sendEmail, resize/)
    const nameless = await queue.get('n1')
    assert.deepEqual([nameless.state, nameless.errorType], ['dead', 'NoHandler'])
    assert.match(nameless.error, /no name/)
  })

  test('handlers by name with a fallback: the fallback takes every job no name takes', async () => {
    const queue = client.queue(uniquePrefix('names-fallback'))
    await queue.addBatch([
      new Item('', { id: 'm1', name: 'sendEmail' }),
      new Item('', { id: 'u1', name: 'unknown' }),
      new Item('', { id: 'n1' }),
    ])
    const calls = []
    const worker = new Worker(
      queue,
      { sendEmail: async (job) => void calls.push(['sendEmail', job.id]) },
      {
        fallback: async (job) => void calls.push(['fallback', job.id, job.name]),
        handleSignals: false,
        housekeeping: false,
      },
    )
    const report = await runUntil(worker, 3)
    assert.deepEqual(calls.sort(), [
      ['fallback', 'n1', null],
      ['fallback', 'u1', 'unknown'],
      ['sendEmail', 'm1'],
    ])
    assert.deepEqual([report.completed, report.dead], [3, 0])

    // A fallback alone takes every job.
    await queue.add('', { id: 'x1', name: 'anything' })
    const alone = []
    const only = new Worker(queue, {}, { fallback: async (job) => void alone.push(job.id), handleSignals: false })
    assert.equal((await runUntil(only, 1)).completed, 1)
    assert.deepEqual(alone, ['x1'])
  })

  test('a bad table of handlers is refused naming `handlers` before anything runs', async () => {
    const queue = client.queue(uniquePrefix('names-table'))
    await queue.add('', { id: 'a', name: 'sendEmail' })
    const fn = async () => {
      throw new Error('no handler may run')
    }
    for (const table of [{}, { '': fn }, { 'line\nbreak': fn }, { ['x'.repeat(257)]: fn }]) {
      const worker = new Worker(queue, table, { handleSignals: false })
      assert.throws(() => worker.run(), invalid('handlers'), JSON.stringify(Object.keys(table)))
    }
    assert.throws(() => new Worker(queue, { sendEmail: 'not a function' }), invalid('handlers'))
    assert.throws(() => new Worker(queue, null), invalid('handler'))
    assert.throws(() => new Worker(queue, [fn]), invalid('handler'))
    assert.throws(() => new Worker(queue, { sendEmail: fn }, { fallback: 'no' }), invalid('fallback'))
    assert.throws(() => new Worker(queue, fn, { fallback: fn }), invalid('fallback'), 'one function takes every job')
    const item = await queue.get('a')
    assert.deepEqual([item.state, item.attempts], ['waiting', 0], 'nothing leased')
  })
})
