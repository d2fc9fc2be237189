'use strict'
// Pause and resume, bounded queues and rate limits (issue 25) through the Node binding, on a throwaway
// redis-server. The waits run while this test's own event loop goes on calling the queue.

const assert = require('node:assert/strict')
const { after, before, describe, test } = require('node:test')

const { Client, Item } = require('..')
const { isCode } = require('./helpers/errors')
const { startRedis, uniquePrefix } = require('./helpers/redis')
const resp = require('./helpers/resp')

/** How many connections wait in a blocking command (leaseq's waits are BLMOVE). */
async function blockedClients(admin) {
  const list = String(await admin.command('CLIENT', 'LIST'))
  return list.split('\n').filter((line) => /\bflags=\w*b/.test(line)).length
}

/** Resolves once more than `moreThan` connections are blocked: a wait is under way. */
async function untilBlocked(admin, moreThan) {
  while ((await blockedClients(admin)) <= moreThan) {
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

describe('pause, resume and bounded queues', { timeout: 60_000 }, () => {
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

  test('a paused queue leases nothing, keeps adding, and leases again once resumed', async () => {
    const queue = client.queue(uniquePrefix('pause'))
    assert.equal(await queue.isPaused(), false)
    assert.equal(await queue.pause(), true, 'it was running')
    assert.equal(await queue.pause(), false, 'already paused')
    assert.equal(await queue.isPaused(), true)
    assert.equal(await queue.add(new Item('', 'a')), true, 'adds go on while paused')
    assert.equal(await queue.lease(), null)
    const stats = await queue.stats()
    assert.equal(stats.paused, true)
    assert.equal(stats.waiting, 1)
    assert.equal(await queue.resume(), true, 'it was paused')
    assert.equal(await queue.resume(), false)
    assert.equal((await queue.stats()).paused, false)
    assert.equal((await queue.lease()).id, 'a')
  })

  test('a waiting lease is woken by resume', async () => {
    const queue = client.queue(uniquePrefix('wake'))
    await queue.pause()
    await queue.add(new Item('', 'a'))
    const before = await blockedClients(admin)
    let settled = false
    const pending = queue.lease({ timeoutMs: 60_000 }).finally(() => (settled = true))
    await untilBlocked(admin, before)
    assert.equal(settled, false, 'nothing is leased while paused')
    assert.equal(await queue.resume(), true)
    assert.equal((await pending).id, 'a')
  })

  test('a full queue rejects adds with FULL and writes nothing', async () => {
    const prefix = uniquePrefix('full')
    const queue = client.queue(prefix)
    await queue.setConfig({ capacity: 2 })
    assert.deepEqual(await queue.config(), { capacity: 2 })
    assert.equal((await queue.stats()).capacity, 2)
    await queue.add(new Item('', 'a'))
    await queue.add('', { id: 'd', delayMs: 60_000 })
    const keys = async () => (await admin.command('KEYS', `${prefix}*`)).map(String).sort()
    const before = await keys()
    await assert.rejects(queue.add(new Item('', 'c')), isCode('FULL'))
    await assert.rejects(queue.add('', { id: 'c' }), isCode('FULL'))
    await assert.rejects(queue.addBatch([new Item('', 'e')]), isCode('FULL'))
    assert.deepEqual(await keys(), before, 'nothing written')
    assert.ok(await queue.lease(), 'a lease makes room')
    assert.equal(await queue.add(new Item('', 'c')), true)
  })

  test('a batch fits whole or not at all', async () => {
    const queue = client.queue(uniquePrefix('batch'))
    await queue.setConfig({ capacity: 3 })
    await queue.add(new Item('', 'a'))
    const batch = ['b', 'c', 'd'].map((id) => new Item('', id))
    await assert.rejects(queue.addBatch(batch), isCode('FULL'))
    assert.equal(await queue.queueLen(), 1)
    assert.equal(await queue.addBatch(batch.slice(0, 2)), 2)
  })

  test('an add with timeoutMs gets room after a lease, the event loop free meanwhile', async () => {
    const queue = client.queue(uniquePrefix('room'))
    await queue.setConfig({ capacity: 1 })
    await queue.add(new Item('', 'a'))
    const before = await blockedClients(admin)
    let settled = false
    const pending = queue.add('', { id: 'b', timeoutMs: 60_000 }).finally(() => (settled = true))
    await untilBlocked(admin, before)
    assert.equal(settled, false, 'no room yet')
    assert.equal((await queue.lease()).id, 'a')
    assert.equal(await pending, true)
    assert.equal(await queue.count('waiting'), 1)
  })

  test('an add with timeoutMs gives up with FULL', async () => {
    const queue = client.queue(uniquePrefix('giveup'))
    await queue.setConfig({ capacity: 1 })
    await queue.add(new Item('', 'a'))
    await assert.rejects(queue.add(new Item('', 'b'), { timeoutMs: 100 }), isCode('FULL'))
    await assert.rejects(queue.addBatch([new Item('', 'b')], { timeoutMs: 100 }), isCode('FULL'))
    assert.equal(await queue.queueLen(), 1)
  })

  test('capacity is checked by the core, naming it', async () => {
    const queue = client.queue(uniquePrefix('capacity'))
    await queue.addBatch(['a', 'b', 'c'].map((id) => new Item('', id)))
    for (const capacity of [0, 2, -1, 1.5]) {
      await assert.rejects(queue.setConfig({ capacity }), (err) => {
        isCode('INVALID_ARGUMENT')(err)
        assert.equal(err.argument, 'capacity', err.message)
        return true
      })
    }
    assert.deepEqual(await queue.config(), {})
    await queue.setConfig({ capacity: 3 })
    assert.deepEqual(await queue.config(), { capacity: 3 })
  })

  test("an Item's own options stay with the Item", async () => {
    const queue = client.queue(uniquePrefix('opts'))
    await assert.rejects(queue.add(new Item('x'), { delayMs: 5 }), (err) => {
      isCode('INVALID_ARGUMENT')(err)
      assert.equal(err.argument, 'options')
      return true
    })
    assert.equal(await queue.queueLen(), 0)
  })

  test('a rate limit round-trips and counts the leases of its window', async () => {
    const queue = client.queue(uniquePrefix('rate'))
    await queue.setConfig({ rateLimit: { max: 2, perMs: 60_000 } })
    assert.deepEqual(await queue.config(), { rateLimit: { max: 2, perMs: 60_000 } })
    await queue.addBatch(['a', 'b', 'c'].map((id) => new Item('', id)))
    assert.deepEqual((await queue.leaseBatch(2)).map((l) => l.id), ['a', 'b'])
    assert.equal(await queue.lease(), null, 'the window is used up')
    const { rateLimitedForMs } = await queue.stats()
    assert.ok(rateLimitedForMs > 0 && rateLimitedForMs <= 60_000, `${rateLimitedForMs}`)
  })

  test('a rate limit is checked by the core, naming it', async () => {
    const queue = client.queue(uniquePrefix('rate-bad'))
    for (const rateLimit of [
      { max: 0, perMs: 1000 },
      { max: 1, perMs: 0 },
      { max: 1, perMs: 2 * 86_400_000 },
      { max: 1.5, perMs: 1000 },
      { max: 1 },
    ]) {
      await assert.rejects(queue.setConfig({ rateLimit }), (err) => {
        isCode('INVALID_ARGUMENT')(err)
        assert.match(err.argument, /^rateLimit/, err.message)
        return true
      })
    }
    await assert.rejects(queue.rateLimit(0), (err) => {
      isCode('INVALID_ARGUMENT')(err)
      assert.equal(err.argument, 'durationMs', err.message)
      return true
    })
    assert.deepEqual(await queue.config(), {})
  })

  test('rateLimit holds every lease off, and stats shows it', async () => {
    const queue = client.queue(uniquePrefix('hold'))
    await queue.add(new Item('', 'a'))
    assert.equal((await queue.stats()).rateLimitedForMs, null)
    assert.ok((await queue.rateLimit(60_000)) >= 60_000)
    assert.ok((await queue.rateLimit(10)) > 50_000, 'a longer hold is kept')
    assert.equal(await queue.lease(), null)
    const other = await Client.connect(redis.url)
    try {
      assert.equal(await other.queue(queue.prefix).lease(), null, 'every client is held off')
    } finally {
      await other.close()
    }
    assert.ok((await queue.stats()).rateLimitedForMs > 50_000)
    assert.equal(await queue.add(new Item('', 'b')), true, 'adds go on')
  })
})

describe('groups', { timeout: 60_000 }, () => {
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

  const grouped = (id, group) => new Item(id, { id, group })
  const leasedIds = async (queue, n = 10) => (await queue.leaseBatch(n)).map((l) => l.id)

  /** @param {string} argument */
  function names(argument) {
    return (err) => {
      isCode('INVALID_ARGUMENT')(err)
      assert.equal(err.argument, argument, err.message)
      return true
    }
  }

  test('a group leases one at a time, in order', async () => {
    const queue = client.queue(uniquePrefix('group-fifo'))
    await queue.addBatch(['a1', 'a2', 'a3'].map((id) => grouped(id, 'acme')))
    const first = await queue.lease()
    assert.equal(first.id, 'a1')
    assert.equal(await queue.lease(), null, 'one leased at a time (default limit 1)')
    assert.deepEqual(await queue.group('acme'), {
      waiting: 2,
      leased: 1,
      limit: 1,
      paused: false,
      rateLimitedForMs: null,
    })
    assert.equal(await queue.complete(first), true)
    assert.deepEqual(await leasedIds(queue), ['a2'], 'the next, in order')
  })

  test('groups take turns, whatever their size', async () => {
    const queue = client.queue(uniquePrefix('group-turns'))
    await queue.setConfig({ groupConcurrency: 100 })
    await queue.addBatch(Array.from({ length: 20 }, (_, i) => grouped(`big${i}`, 'big')))
    await queue.add(grouped('small', 'small'))
    assert.deepEqual((await leasedIds(queue, 2)).sort(), ['big0', 'small'])
  })

  test('pauseGroup and resumeGroup', async () => {
    const queue = client.queue(uniquePrefix('group-pause'))
    await queue.add(grouped('a', 'paused'))
    await queue.add(grouped('b', 'running'))
    assert.equal(await queue.pauseGroup('paused'), true)
    assert.equal(await queue.pauseGroup('paused'), false, 'already paused')
    assert.deepEqual(await leasedIds(queue), ['b'], 'the rest of the queue goes on')
    assert.equal((await queue.group('paused')).paused, true)
    assert.equal(await queue.resumeGroup('paused'), true)
    assert.equal(await queue.resumeGroup('paused'), false)
    assert.deepEqual(await leasedIds(queue), ['a'])
  })

  test("setGroupLimit and the queue's groupConcurrency", async () => {
    const queue = client.queue(uniquePrefix('group-limit'))
    await queue.addBatch(Array.from({ length: 6 }, (_, i) => grouped(`x${i}`, 'acme')))
    await queue.setGroupLimit('acme', 3)
    assert.equal((await queue.group('acme')).limit, 3)
    const leases = await queue.leaseBatch(10)
    assert.deepEqual(leases.map((l) => l.id), ['x0', 'x1', 'x2'])
    await queue.setGroupLimit('acme')
    assert.equal((await queue.group('acme')).limit, 1, "back to the queue's default")
    await queue.setGroupLimit('acme', 2)
    await queue.setGroupLimit('acme', null)
    assert.equal((await queue.group('acme')).limit, 1, 'null removes it too')
    await queue.setConfig({ groupConcurrency: 4 })
    assert.deepEqual(await queue.config(), { groupConcurrency: 4 })
    assert.equal(await queue.complete(leases[0]), true)
    assert.deepEqual(await leasedIds(queue), ['x3', 'x4'], 'a slot freed: up to four at once now')
    for (const limit of [0, 1001, 1.5]) {
      await assert.rejects(queue.setGroupLimit('acme', limit), names('limit'))
      await assert.rejects(queue.setConfig({ groupConcurrency: limit }), names('groupConcurrency'))
    }
  })

  test('a group rate limit round-trips and gives every group its own window', async () => {
    const queue = client.queue(uniquePrefix('group-rate'))
    const groupRateLimit = { max: 1, perMs: 60_000 }
    await queue.setConfig({ groupRateLimit, groupConcurrency: 10 })
    assert.deepEqual(await queue.config(), { groupConcurrency: 10, groupRateLimit })
    await queue.addBatch([grouped('a1', 'a'), grouped('a2', 'a'), grouped('b1', 'b'), grouped('b2', 'b')])
    await queue.add(new Item('', 'plain'))
    assert.deepEqual((await leasedIds(queue)).sort(), ['a1', 'b1', 'plain'], 'one lease per group per window')
    assert.equal(await queue.lease(), null, 'both windows are used up')
    for (const g of ['a', 'b']) {
      const info = await queue.group(g)
      assert.equal(info.waiting, 1)
      assert.ok(info.rateLimitedForMs > 0 && info.rateLimitedForMs <= 60_000, `${g}: ${info.rateLimitedForMs}`)
    }
    assert.equal((await queue.stats()).rateLimitedForMs, null, 'the queue itself is not limited')
  })

  test('a group rate limit is checked by the core, naming it', async () => {
    const queue = client.queue(uniquePrefix('group-rate-bad'))
    for (const groupRateLimit of [
      { max: 0, perMs: 1000 },
      { max: 1, perMs: 0 },
      { max: 1, perMs: 2 * 86_400_000 },
      { max: 1.5, perMs: 1000 },
      { max: 1 },
    ]) {
      await assert.rejects(queue.setConfig({ groupRateLimit }), (err) => {
        isCode('INVALID_ARGUMENT')(err)
        assert.match(err.argument, /^groupRateLimit/, err.message)
        return true
      })
    }
    await assert.rejects(queue.setConfig({ groupRateLimit: { max: 0, perMs: 1000 } }), names('groupRateLimit'))
    for (const durationMs of [0, 2 * 86_400_000, -1]) {
      await assert.rejects(queue.rateLimitGroup('acme', durationMs), names('durationMs'))
    }
    assert.deepEqual(await queue.config(), {})
    assert.deepEqual(await admin.command('KEYS', `${queue.prefix}*`), [], 'nothing written')
  })

  test('rateLimitGroup holds one group off while the rest of the queue is leased', async () => {
    const queue = client.queue(uniquePrefix('group-hold'))
    await queue.addBatch([grouped('a1', 'a'), grouped('b1', 'b'), grouped('b2', 'b'), new Item('', 'plain')])
    assert.equal((await queue.group('a')).rateLimitedForMs, null, 'not held yet')
    assert.ok((await queue.rateLimitGroup('a', 60_000)) >= 60_000)
    assert.ok((await queue.rateLimitGroup('a', 10)) > 50_000, 'a longer hold is kept')
    const leases = await queue.leaseBatch(10)
    assert.deepEqual(leases.map((l) => l.id).sort(), ['b1', 'plain'], 'group b and the plain item go on')
    const other = await Client.connect(redis.url)
    try {
      assert.equal(await other.queue(queue.prefix).lease(), null, 'every client is held off group a')
    } finally {
      await other.close()
    }
    await queue.complete(leases.find((l) => l.id === 'b1'))
    assert.deepEqual(await leasedIds(queue), ['b2'], 'group b goes on leasing')
    const a = await queue.group('a')
    assert.ok(a.rateLimitedForMs > 50_000 && a.rateLimitedForMs <= 60_000, `${a.rateLimitedForMs}`)
    assert.deepEqual({ ...a, rateLimitedForMs: 0 }, {
      waiting: 1,
      leased: 0,
      limit: 1,
      paused: false,
      rateLimitedForMs: 0,
    })
    assert.equal((await queue.group('b')).rateLimitedForMs, null, 'only group a is held')
    assert.equal((await queue.stats()).rateLimitedForMs, null, 'the queue is not held')
    assert.equal(await queue.add(grouped('a2', 'a')), true, 'adds to the held group go on')
  })

  test('get shows the group', async () => {
    const queue = client.queue(uniquePrefix('group-get'))
    await queue.add(grouped('a', 'acme'))
    await queue.add(new Item('', 'plain'))
    const job = await queue.get('a')
    assert.equal(job.group, 'acme')
    assert.equal(job.data.toString(), 'a')
    assert.equal((await queue.get('plain')).group, null)
  })

  test('a bad group is refused naming group, with nothing written', async () => {
    const queue = client.queue(uniquePrefix('group-bad'))
    for (const group of ['', 'a\nb', 'x'.repeat(257), 5]) {
      assert.throws(() => new Item('', { group }), names('group'))
      for (const call of ['pauseGroup', 'resumeGroup', 'group', 'setGroupLimit']) {
        await assert.rejects(queue[call](group), names('group'))
      }
      await assert.rejects(queue.rateLimitGroup(group, 1000), names('group'))
    }
    const keys = await admin.command('KEYS', `${queue.prefix}*`)
    assert.deepEqual(keys, [], 'nothing written')
  })
})
