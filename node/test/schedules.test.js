'use strict'
// Recurring jobs (spec/PROTOCOL.md 5.23) from Node: upsert (cron with a time zone, or
// everyMs; the item's data and options; the missed policy), get, the page with next fire
// times, remove, fireDueSchedules, the core's refusals, and a Node runner firing a schedule.

const assert = require('node:assert/strict')
const { after, before, describe, test } = require('node:test')

const { Client, Worker } = require('..')
const { startRedis, uniquePrefix } = require('./helpers/redis')

describe('schedules', { timeout: 60_000 }, () => {
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

  const freshQueue = () => client.queue(uniquePrefix('sched'))

  test('upsert, get, list with next fire times, remove', async () => {
    const queue = freshQueue()
    const isNew = await queue.upsertSchedule('nightly', {
      cron: '0 3 * * *',
      tz: 'Europe/Berlin',
      missed: 'once',
      data: 'report',
      priority: 5,
      name: 'report',
    })
    assert.equal(isNew, true)
    assert.equal(await queue.upsertSchedule('poll', { everyMs: 60_000, missed: 'all:3' }), true)
    // Upserting again changes it: not new, its version bumped.
    assert.equal(await queue.upsertSchedule('poll', { everyMs: 120_000 }), false)
    assert.equal((await queue.stats()).schedules, 2)
    const nightly = await queue.getSchedule('nightly')
    assert.deepEqual(nightly.schedule, { cron: '0 3 * * *', tz: 'Europe/Berlin', everyMs: null, missed: 'once' })
    assert.equal(nightly.data.toString(), 'report')
    assert.equal(nightly.version, 1)
    assert.ok(nightly.next instanceof Date)
    // 03:00 in Berlin is 01:00 or 02:00 UTC.
    assert.ok([1, 2].includes(nightly.next.getUTCHours()), nightly.next.toISOString())
    const poll = await queue.getSchedule('poll')
    assert.deepEqual(poll.schedule, { cron: null, tz: null, everyMs: 120_000, missed: 'skip' })
    assert.equal(poll.version, 2)
    const page = await queue.schedules()
    assert.equal(page.total, 2)
    assert.ok(page.now instanceof Date)
    const names = page.schedules.map((s) => s.name)
    assert.deepEqual([...names].sort(), ['nightly', 'poll'])
    assert.deepEqual((await queue.schedules({ start: 1, count: 1 })).schedules.map((s) => s.name), [names[1]])
    assert.equal(await queue.removeSchedule('poll'), true)
    assert.equal(await queue.removeSchedule('poll'), false)
    assert.equal(await queue.getSchedule('poll'), null)
  })

  test('fireDueSchedules fires nothing before a tick is due', async () => {
    const queue = freshQueue()
    await queue.upsertSchedule('hourly', { cron: '0 * * * *' })
    const report = await queue.fireDueSchedules()
    assert.equal(report.fired, 0)
    assert.equal(typeof report.nextDueInMs, 'number')
    assert.equal(await queue.count('waiting'), 0)
  })

  test('bad schedules are refused naming the argument', async () => {
    const queue = freshQueue()
    const names = (schedule, argument) =>
      assert.rejects(queue.upsertSchedule('bad', schedule), { code: 'INVALID_ARGUMENT', argument })
    await names({ cron: '0 3 * *' }, 'cron')
    await names({ cron: '0 3 * * *', tz: 'Mars/Base' }, 'tz')
    await names({ everyMs: 999 }, 'everyMs')
    await names({ everyMs: 60_000, missed: 'all:0' }, 'missed')
    await names({ everyMs: 60_000, delayMs: 5 }, 'item')
    await names({ everyMs: 60_000, cron: '* * * * *' }, 'schedule')
    await assert.rejects(queue.upsertSchedule('bad', { everyMs: 60_000, cron: '* * * * *' }), /not both/)
    await assert.rejects(queue.upsertSchedule('bad', {}), /needs one of/)
    await names({ everyMs: 60_000, id: 'x' }, 'id')
    await assert.rejects(queue.upsertSchedule('', { everyMs: 60_000 }), { code: 'INVALID_ARGUMENT', argument: 'name' })
    assert.equal((await queue.schedules()).total, 0)
  })

  test('a Node runner fires an every-second schedule: it runs the item the tick added', async () => {
    const queue = freshQueue()
    await queue.upsertSchedule('tick', { everyMs: 1000, data: 'tock', name: 'tick' })
    const seen = []
    const worker = new Worker(queue, async (job) => {
      seen.push([job.id, job.name, job.data.toString()])
    })
    worker.on('completed', () => worker.close())
    await worker.run()
    assert.equal(seen.length >= 1, true)
    const [id, name, data] = seen[0]
    assert.match(id, /^tick@\d+$/)
    assert.deepEqual([name, data], ['tick', 'tock'])
    assert.ok((await queue.getSchedule('tick')).fired >= 1)
  })
})
