'use strict'
// Many workers in one process, a blocking lease that leaves the event loop and the client free,
// and close() ending waits. No timing numbers are asserted: only order and outcomes.

const assert = require('node:assert/strict')
const { after, before, describe, test } = require('node:test')

const { Client, Item, LeaseqError } = require('..')
const { makeConsumer } = require('./helpers/consumer')
const { startRedis, uniquePrefix } = require('./helpers/redis')
const resp = require('./helpers/resp')

const TTL = 60_000

describe('concurrency', { timeout: 60_000 }, () => {
  let redis
  let admin
  before(async () => {
    redis = await startRedis()
    admin = await resp.connect(redis.url)
  })
  after(async () => {
    admin.close()
    await redis.stop()
  })

  /** Resolves once Redis shows `count` clients blocked in BLMOVE (asked, never timed). */
  async function blockedInRedis(count) {
    for (let attempt = 0; attempt < 1000; attempt++) {
      const list = await admin.command('CLIENT', 'LIST')
      // Blocked right now (flag b): an idle connection keeps `cmd=blmove` from an earlier wait.
      const blocked = list
        .split('\n')
        .filter((line) => / flags=[A-Za-z]*b/.test(line) && / cmd=blmove /.test(line)).length
      if (blocked >= count) return
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    assert.fail(`fewer than ${count} clients ever blocked in BLMOVE`)
  }

  test('50 workers complete every item exactly once', async () => {
    const ITEMS = 1000
    const WORKERS = 50
    const client = await Client.connect(redis.url)
    const queue = client.queue(uniquePrefix('workers'))
    const completions = new Map()
    let completedCount = 0
    let allCompleted
    const finished = new Promise((resolve) => {
      allCompleted = resolve
    })
    const record = (lease, completed) => {
      assert.equal(lease.count, 1, 'no item should be leased twice')
      if (!completed) return
      completions.set(lease.id, (completions.get(lease.id) || 0) + 1)
      completedCount += 1
      if (completedCount === ITEMS) allCompleted()
    }

    // Half the workers complete and lease in one call, half in two: both paths run.
    // The test closes the client once every item is complete: calls then in flight (a blocking
    // wait, or a worker's next non-blocking lease) end with CLOSED, sent nowhere.
    const worker = async (index) => {
      try {
        for (;;) {
          let lease = await queue.lease({ ttlMs: TTL, timeoutMs: Infinity })
          while (lease) {
            if (index % 2 === 0) {
              const { completed, next } = await queue.completeAndLease(lease, { ttlMs: TTL })
              record(lease, completed)
              lease = next
            } else {
              record(lease, await queue.complete(lease))
              lease = await queue.lease({ ttlMs: TTL })
            }
          }
        }
      } catch (err) {
        if (err instanceof LeaseqError && err.code === 'CLOSED' && completedCount === ITEMS) return
        throw err
      }
    }
    const workers = Array.from({ length: WORKERS }, (_, i) => worker(i))

    // Add while the workers wait: batches, single adds and unique adds.
    const ids = []
    for (let start = 0; start < ITEMS; start += 100) {
      const batch = Array.from({ length: 80 }, (_, i) => new Item(`job ${start + i}`, `job-${start + i}`))
      ids.push(...batch.map((item) => item.id))
      assert.equal(await queue.addBatch(batch), 80)
      const singles = Array.from({ length: 20 }, (_, i) => new Item(`job ${start + 80 + i}`))
      ids.push(...singles.map((item) => item.id))
      await Promise.all(singles.map((item, i) => (i % 2 ? queue.add(item) : queue.addUnique(item))))
    }

    await finished
    await client.close()
    await Promise.all(workers)

    assert.equal(completions.size, ITEMS)
    for (const id of ids) assert.equal(completions.get(id), 1, `item ${id} completed once`)
    const observer = await Client.connect(redis.url)
    const check = observer.queue(queue.prefix)
    assert.equal(await check.queueLen(), 0)
    assert.equal(await check.processingLen(), 0)
    await observer.close()
  })

  test('a blocking lease leaves the event loop and the client free', async () => {
    const client = await Client.connect(redis.url)
    const waiting = client.queue(uniquePrefix('waiting'))
    const other = client.queue(uniquePrefix('other'))
    const events = []
    const leased = waiting.lease({ ttlMs: TTL, timeoutMs: Infinity }).then((lease) => {
      events.push('lease')
      return lease
    })
    await blockedInRedis(1)

    await new Promise((resolve) => setTimeout(resolve, 10))
    events.push('timer')
    assert.equal(await other.add(new Item('x', 'x')), true)
    events.push('add')
    assert.equal(await other.queueLen(), 1)
    events.push('queueLen')
    const lease = await other.lease({ ttlMs: TTL })
    assert.equal(await other.complete(lease), true)
    events.push('complete')
    // 200 calls at once, on the same client, while the wait goes on.
    const results = await Promise.all(Array.from({ length: 200 }, () => waiting.queueLen()))
    assert.deepEqual(new Set(results), new Set([0]))
    events.push('concurrent')
    assert.deepEqual(events, ['timer', 'add', 'queueLen', 'complete', 'concurrent'])

    assert.equal(await waiting.add(new Item('wake', 'wake')), true)
    const woken = await leased
    assert.equal(woken.id, 'wake')
    assert.deepEqual(events, ['timer', 'add', 'queueLen', 'complete', 'concurrent', 'lease'])
    assert.equal(await waiting.complete(woken), true)
    await client.close()
  })

  test('close() rejects pending blocking leases with CLOSED and takes nothing', async () => {
    const client = await Client.connect(redis.url)
    const prefix = uniquePrefix('closing')
    const queue = client.queue(prefix)
    const forever = queue.lease({ ttlMs: TTL, timeoutMs: Infinity })
    const bounded = queue.lease({ ttlMs: TTL, timeoutMs: 600_000 })
    const elsewhere = client.queue(uniquePrefix('closing-other')).lease({ ttlMs: TTL, timeoutMs: Infinity })
    await blockedInRedis(3)

    await client.close()
    await Promise.all(
      [forever, bounded, elsewhere].map((pending) =>
        assert.rejects(pending, (err) => {
          assert.ok(err instanceof LeaseqError)
          assert.equal(err.code, 'CLOSED')
          return true
        }),
      ),
    )
    await assert.rejects(queue.lease({ ttlMs: TTL, timeoutMs: Infinity }), { code: 'CLOSED' })

    // The abandoned waits left the queue alone: an item added now stays queued.
    const observer = await Client.connect(redis.url)
    const check = observer.queue(prefix)
    await check.add(new Item('after close'))
    assert.equal(await check.queueLen(), 1)
    assert.equal(await check.processingLen(), 0)
    await observer.close()
  })

  test('a process whose lease was waiting exits by itself once the client is closed', async () => {
    const consumer = makeConsumer()
    try {
      consumer.write(
        'closing.js',
        `const { Client } = require('leaseq')
        ;(async () => {
          const client = await Client.connect(process.env.REDIS_URL)
          const waiting = client.queue('{exit}').lease({ ttlMs: 1000, timeoutMs: Infinity })
          await client.queue('{exit-other}').queueLen()
          await client.close()
          await waiting.catch((err) => console.log(err.code))
          // Nothing else: the process must end on its own, with no handle left open.
        })()`,
      )
      const result = await consumer.run('closing.js', { REDIS_URL: redis.url })
      assert.equal(result.code, 0, result.stderr)
      assert.equal(result.stdout.trim(), 'CLOSED')
    } finally {
      consumer.remove()
    }
  })
})
