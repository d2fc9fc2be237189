'use strict'
// The event stream (spec/PROTOCOL.md 14) from Node: the config switch and bounds, a page
// (`readEvents`), and a follower in both of its forms (async iterator, EventEmitter) that
// waits off the event loop, ends on close, and lets the process exit.

const assert = require('node:assert/strict')
const { execFile } = require('node:child_process')
const path = require('node:path')
const { after, before, describe, test } = require('node:test')

const { Client, EventFollower, Item, LeaseqError } = require('..')
const { startRedis, uniquePrefix } = require('./helpers/redis')

describe('events', { timeout: 60_000 }, () => {
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

  /** A queue with its events on. */
  async function eventsQueue(name) {
    const queue = client.queue(uniquePrefix(name))
    await queue.setConfig({ events: true, eventsMaxLen: 500, eventsMaxAgeMs: 60_000 })
    return queue
  }

  test('the switch and its bounds are stored config fields', async () => {
    const queue = client.queue(uniquePrefix('ev'))
    await queue.setConfig({ events: true, eventsMaxLen: 1234, eventsMaxAgeMs: 120_000 })
    const config = await queue.config()
    assert.equal(config.events, true)
    assert.equal(config.eventsMaxLen, 1234)
    assert.equal(config.eventsMaxAgeMs, 120_000)
    await assert.rejects(queue.setConfig({ eventsMaxAgeMs: 10 }), (err) => {
      assert.ok(err instanceof LeaseqError)
      assert.equal(err.code, 'INVALID_ARGUMENT')
      assert.equal(err.argument, 'eventsMaxAgeMs')
      return true
    })
    await assert.rejects(queue.setConfig({ events: 'yes' }), { code: 'INVALID_ARGUMENT', argument: 'events' })
  })

  test('readEvents gives a page of transitions with the new fields, and where the stream ends', async () => {
    const queue = await eventsQueue('ev')
    await queue.add(new Item('x', { id: 'a', name: 'mail' }))
    const lease = await queue.lease()
    await queue.fail(lease, 'boom', { retry: 'never' })
    const page = await queue.readEvents({ after: '0-0' })
    assert.equal(page.on, true)
    assert.deepEqual(
      page.events.map((e) => [e.event, e.jobId, e.attempt]),
      [
        ['added', 'a', 0],
        ['leased', 'a', 1],
        ['failed', 'a', 1],
        ['dead', 'a', 1],
      ],
    )
    const [added, leased, failed] = page.events
    assert.equal(added.name, 'mail')
    assert.ok(added.time instanceof Date)
    assert.match(added.id, /^\d+-\d+$/)
    assert.equal(failed.error, 'boom')
    assert.notEqual(leased.inc, '')
    assert.equal(page.last, page.events[3].id)
    // From now: nothing yet, only where now is.
    const now = await queue.readEvents()
    assert.deepEqual(now.events, [])
    assert.equal(now.last, page.last)
    // One page at a time: `count`, then on after its last entry.
    const first = await queue.readEvents({ after: '0-0', count: 1 })
    assert.deepEqual(first.events.map((e) => e.event), ['added'])
    const next = await queue.readEvents({ after: first.events[0].id, count: 1 })
    assert.deepEqual(next.events.map((e) => e.event), ['leased'])
  })

  test('a bad position is refused naming `after`, as is a bad count', async () => {
    const queue = await eventsQueue('ev')
    await assert.rejects(queue.readEvents({ after: 'nonsense' }), { code: 'INVALID_ARGUMENT', argument: 'after' })
    await assert.rejects(queue.readEvents({ count: 0 }), { code: 'INVALID_ARGUMENT', argument: 'count' })
    const follower = queue.events({ after: 'nonsense' })
    await assert.rejects(follower.ready, { code: 'INVALID_ARGUMENT', argument: 'after' })
    await assert.rejects(follower.next(), { code: 'INVALID_ARGUMENT', argument: 'after' })
    follower.close()
    // The EventEmitter form: the refusal comes as 'error', then 'close'.
    const emitter = queue.events({ after: 'nonsense' })
    const seen = []
    await new Promise((resolve) => {
      emitter.on('event', () => seen.push('event'))
      emitter.on('error', (err) => seen.push(err.argument))
      emitter.on('close', resolve)
    })
    assert.deepEqual(seen, ['after'])
  })

  test('for await follows from now, waiting for entries; break closes the follower', async () => {
    const queue = await eventsQueue('ev')
    // Before the follower: not followed (it starts from now).
    await queue.add('before', { id: 'old' })
    await queue.complete(await queue.lease())
    const follower = queue.events()
    assert.ok(follower instanceof EventFollower)
    await follower.ready
    const got = []
    const reading = (async () => {
      for await (const ev of follower) {
        got.push([ev.event, ev.jobId])
        if (ev.event === 'completed') break
      }
    })()
    // The follower waits in the addon: this add and complete run meanwhile, on the event loop.
    await queue.add('x', { id: 'j' })
    const lease = await queue.lease()
    await queue.complete(lease)
    await reading
    assert.deepEqual(got, [
      ['added', 'j'],
      ['leased', 'j'],
      ['completed', 'j'],
    ])
    assert.equal(follower.closed, true)
    assert.deepEqual(await follower.next(), { done: true, value: undefined })
  })

  test('a follower resumes after an entry id; position is the last one read', async () => {
    const queue = await eventsQueue('ev')
    await queue.addBatch([new Item('1', 'a'), new Item('2', 'b'), new Item('3', 'c')])
    const all = await queue.readEvents({ after: '0-0' })
    const follower = queue.events({ after: all.events[0].id })
    const first = await follower.next()
    assert.equal(first.value.jobId, 'b')
    assert.equal(follower.position, first.value.id)
    const second = await follower.next()
    assert.equal(second.value.jobId, 'c')
    follower.close()
  })

  test("the EventEmitter form emits 'event' until closed, then 'close'", async () => {
    const queue = await eventsQueue('ev')
    const follower = queue.events()
    await follower.ready
    const ids = []
    const closed = new Promise((resolve) => follower.on('close', resolve))
    follower.on('event', (ev) => {
      ids.push(ev.jobId)
      if (ids.length === 2) follower.close()
    })
    await queue.add('x', { id: 'e1' })
    await queue.add('x', { id: 'e2' })
    await closed
    assert.deepEqual(ids, ['e1', 'e2'])
  })

  test('a follower never blocks other calls: a lease waits while the follower waits', async () => {
    const queue = await eventsQueue('ev')
    const follower = queue.events()
    await follower.ready
    const next = follower.next()
    // Both wait server-side; the add below answers the lease, then the follower sees it.
    const leasing = queue.lease({ timeoutMs: 30_000 })
    await queue.add('x', { id: 'k' })
    const lease = await leasing
    assert.equal(lease.id, 'k')
    const ev = await next
    assert.deepEqual([ev.value.event, ev.value.jobId], ['added', 'k'])
    follower.close()
  })

  test('close ends a waiting read, and the process can exit once the follower is closed', async () => {
    const queue = await eventsQueue('ev')
    const follower = queue.events()
    const waiting = follower.next()
    await follower.ready
    follower.close()
    assert.deepEqual(await waiting, { done: true, value: undefined })
    // A process that follows, closes the follower and then its client, exits by itself.
    const script = `
      const { Client } = require(${JSON.stringify(path.resolve(__dirname, '..'))})
      ;(async () => {
        const client = await Client.connect(process.argv[1])
        const follower = client.queue(process.argv[2]).events()
        const reading = (async () => { for await (const ev of follower) void ev })()
        await follower.ready
        follower.close()
        await reading
        await client.close()
        console.log('closed')
      })()
    `
    const out = await new Promise((resolve, reject) => {
      execFile(process.execPath, ['-e', script, redis.url, queue.prefix], { timeout: 30_000 }, (err, stdout) =>
        err ? reject(err) : resolve(stdout),
      )
    })
    assert.equal(out.trim(), 'closed')
  })

  test('closing the client ends a follower', async () => {
    const other = await Client.connect(redis.url)
    const queue = other.queue(uniquePrefix('ev'))
    const follower = queue.events()
    await follower.ready
    const waiting = follower.next()
    await other.close()
    assert.deepEqual(await waiting, { done: true, value: undefined })
  })
})
