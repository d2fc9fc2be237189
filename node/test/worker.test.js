'use strict'
// Worker: the core's runner with JavaScript handlers: outcomes, results, the lease-lost signal,
// the job timeout, shutdown, a Redis restart and CLIENT KILL under a busy runner, and a process killed mid-job.
// No unhandled rejection may happen anywhere.

const assert = require('node:assert/strict')
const { spawn } = require('node:child_process')
const path = require('node:path')
const { after, before, describe, test } = require('node:test')

const { Client, Item, LeaseqError, RateLimitedError, ReleaseJob, RetryLaterError, UnrecoverableError, Worker } = require('..')
const { startRedis, uniquePrefix } = require('./helpers/redis')
const resp = require('./helpers/resp')

/** Items `p0..p{n-1}`; resolves to their ids. */
async function fill(queue, n, p = 'j') {
  await queue.addBatch(Array.from({ length: n }, (_, i) => new Item(Buffer.from('x'), { id: `${p}${i}` })))
  return new Set(Array.from({ length: n }, (_, i) => `${p}${i}`))
}

async function settled(queue) {
  const s = await queue.stats()
  return s.waiting + s.delayed + s.leased + s.processing === 0
}

describe('Worker', { timeout: 120_000 }, () => {
  let redis
  let client
  const unhandled = []
  const onUnhandled = (reason) => unhandled.push(reason)

  before(async () => {
    process.on('unhandledRejection', onUnhandled)
    redis = await startRedis()
    client = await Client.connect(redis.url)
  })

  after(async () => {
    process.off('unhandledRejection', onUnhandled)
    await client.close()
    await redis.stop()
    assert.deepEqual(unhandled, [], 'no unhandled rejection')
  })

  test('a rate-limited handler holds the queue off and runs again, no attempt charged', async () => {
    const queue = client.queue(uniquePrefix('w'))
    await queue.add(new Item(Buffer.from('x'), { id: 'api', maxAttempts: 1 }))
    let calls = 0
    const worker = new Worker(queue, async (job) => {
      calls += 1
      if (calls === 1) throw new RateLimitedError(200) // the API answered 429
      return `attempt ${job.attempt}`
    })
    worker.on('completed', () => worker.close())
    const report = await worker.run()
    assert.equal(calls, 2, 'ran again after the hold')
    // maxAttempts 1, yet not dead: the rate-limited run was not charged an attempt.
    assert.deepEqual([report.completed, report.dead, report.retried], [1, 0, 0])
    assert.equal((await queue.result('api')).data.toString(), 'attempt 1')
  })

  test('a handler rate limited for its group holds only that group; the job runs again, no attempt charged', async () => {
    const queue = client.queue(uniquePrefix('w'))
    await queue.add(new Item(Buffer.from('x'), { id: 'a0', group: 'a', maxAttempts: 1 }))
    await queue.addBatch(['b0', 'b1', 'b2'].map((id) => new Item(Buffer.from('x'), { id, group: 'b' })))
    const calls = []
    const completed = []
    const worker = new Worker(
      queue,
      async (job) => {
        calls.push(job.id)
        if (job.id === 'a0' && calls.filter((id) => id === 'a0').length === 1) {
          throw new RateLimitedError(1_000, { group: true }) // customer a's API answered 429
        }
        return `attempt ${job.attempt}`
      },
      { concurrency: 1 },
    )
    worker.on('completed', (id) => {
      completed.push(id)
      if (completed.length === 4) worker.close()
    })
    const report = await worker.run()
    // Group b went on while a was held off; a0 ran again after its hold, not charged an attempt
    // (maxAttempts 1, yet not dead).
    assert.deepEqual(completed, ['b0', 'b1', 'b2', 'a0'], `calls: ${calls}`)
    assert.deepEqual(calls, ['a0', 'b0', 'b1', 'b2', 'a0'])
    assert.deepEqual([report.completed, report.dead, report.retried], [4, 0, 0])
    assert.equal((await queue.result('a0')).data.toString(), 'attempt 1')
    assert.equal(new RateLimitedError(5, { group: true }).group, true)
    assert.equal(new RateLimitedError(5).group, false, 'the queue by default')
    assert.throws(() => new RateLimitedError(5, { group: 'yes' }), { code: 'INVALID_ARGUMENT', argument: 'group' })
    assert.throws(() => new RateLimitedError(5, { groups: true }), { code: 'INVALID_ARGUMENT', argument: 'groups' })
  })

  test('a completed listener added while the runner runs hears the later completions', async () => {
    const queue = client.queue(uniquePrefix('w'))
    await fill(queue, 3, 'quiet')
    const handled = []
    const worker = new Worker(queue, async (job) => void handled.push(job.id), { pollIntervalMs: 50 })
    const done = worker.run()
    while (handled.length < 3 || !(await settled(queue))) await new Promise((r) => setTimeout(r, 10))
    await new Promise((r) => setTimeout(r, 100)) // their completes' replies are in
    // A listener added while the runner runs hears the jobs completed after it was added.
    const heard = []
    worker.on('completed', (id) => {
      heard.push(id)
      if (heard.length === 2) worker.close()
    })
    await new Promise((r) => setTimeout(r, 50))
    await fill(queue, 2, 'loud')
    const report = await done
    assert.deepEqual(heard.sort(), ['loud0', 'loud1'])
    assert.equal(report.completed, 5)
  })

  /** Runs a runner with `options` over `n` fresh items until each has completed. */
  async function runN(queue, n, options) {
    await fill(queue, n, 's')
    let completed = 0
    const settings = { concurrency: 4, housekeeping: false, handleSignals: false, ...options }
    const worker = new Worker(queue, async () => {}, settings)
    worker.on('completed', () => {
      if (++completed === n) worker.close()
    })
    return worker.run()
  }

  test('a runner with stats: true turns the queue\'s counters on', async () => {
    const queue = client.queue(uniquePrefix('w'))
    assert.equal((await queue.stats()).lastHour, null, 'off by default')
    const report = await runN(queue, 15, { stats: true })
    assert.equal(report.completed, 15)
    assert.equal((await queue.config()).stats, true)
    const stats = await queue.stats()
    assert.ok(stats.minutes !== null && stats.lastHour !== null, 'counting')
    assert.equal(stats.lastHour.completed, 15, 'every complete the runner made counts')
    assert.throws(() => new Worker(queue, async () => {}, { stats: 'yes' }), {
      code: 'INVALID_ARGUMENT',
      argument: 'stats',
    })
  })

  test('a logger gets the start line without the password, a line per failure, none per success', async () => {
    const raw = await resp.connect(redis.url)
    try {
      assert.equal(await raw.command('ACL', 'SETUSER', 'jslogger', 'on', '>hunter2', '~*', '&*', '+@all'), 'OK')
    } finally {
      raw.close()
    }
    const own = await Client.connect(redis.url.replace('redis://', 'redis://jslogger:hunter2@'))
    try {
      const prefix = uniquePrefix('log')
      const queue = own.queue(prefix)
      await queue.add(new Item(Buffer.from('x'), { id: 'ok' }))
      await queue.add(new Item(Buffer.from('x'), { id: 'bad', maxAttempts: 1 }))
      const lines = []
      const logger = Object.fromEntries(
        ['debug', 'info', 'warn', 'error'].map((level) => [level, (line) => lines.push([level, line])]),
      )
      function parse() {
        throw new TypeError('cannot parse x', { cause: new RangeError('byte 3') })
      }
      const worker = new Worker(
        queue,
        async (job) => {
          if (job.id === 'bad') parse()
        },
        { concurrency: 2, handleSignals: false, logger },
      )
      const ended = new Set()
      const stopWhenBoth = (id) => {
        ended.add(id)
        if (ended.size === 2) worker.close()
      }
      worker.on('completed', stopWhenBoth).on('dead', stopWhenBoth)
      const report = await worker.run()
      assert.deepEqual([report.completed, report.dead], [1, 1])
      const text = lines.map(([level, line]) => `${level} ${line}`).join('\n')
      assert.ok(!text.includes('hunter2') && !text.includes('jslogger'), text)
      assert.equal(lines[0][0], 'info', text)
      assert.match(lines[0][1], new RegExp(`started: queue ${prefix} on redis://127\\.0\\.0\\.1:\\d+, concurrency 2`), text)
      assert.ok(lines.some(([l, line]) => l === 'error' && line === 'job bad failed (attempt 1) and is dead: cannot parse x'), text)
      assert.ok(!lines.some(([, line]) => line.includes('job ok')), text)
      assert.deepEqual(lines.at(-1)[0], 'info', text)
      assert.match(lines.at(-1)[1], /stopped: 1 completed, 0 retried, 1 dead/, text)

      const job = await queue.get('bad')
      assert.match(job.trace, /^TypeError: cannot parse x\n\s+at parse /, job.trace)
      assert.match(job.trace, /\ncaused by: RangeError: byte 3\n/, job.trace)
    } finally {
      await own.close()
    }
  })

  test('logLevel debug writes a line per completed job; a logger without the methods is refused', async () => {
    const queue = client.queue(uniquePrefix('log'))
    await queue.add(new Item(Buffer.from('x'), { id: 'fine' }))
    const lines = []
    const logger = { debug: (l) => lines.push(l), info() {}, warn() {}, error() {} }
    const worker = new Worker(queue, async () => 'ok', { handleSignals: false, logger, logLevel: 'debug' })
    worker.on('completed', () => worker.close())
    await worker.run()
    assert.ok(lines.includes('job fine completed (attempt 1)'), lines.join('\n'))
    assert.throws(() => new Worker(queue, async () => {}, { logger: { info() {} } }), { argument: 'logger' })
    assert.throws(() => new Worker(queue, async () => {}, { logger: console, logLevel: 'loud' }), { argument: 'logLevel' })
  })

  test('fail keeps the trace given, or the Error\'s stack', async () => {
    const queue = client.queue(uniquePrefix('trace'))
    await queue.addBatch(['a', 'b', 'c'].map((id) => new Item(Buffer.from('x'), { id, maxAttempts: 1 })))
    const leases = Object.fromEntries((await queue.leaseBatch(3)).map((l) => [l.id, l]))
    await queue.fail(leases.a, new Error('thrown'))
    await queue.fail(leases.b, 'plain', { trace: 'my trace' })
    await queue.failBatch([{ lease: leases.c, error: 'batched', trace: 'batch trace' }])
    assert.match((await queue.get('a')).trace, /^Error: thrown\n\s+at /)
    assert.equal((await queue.get('b')).trace, 'my trace')
    assert.equal((await queue.get('c')).trace, 'batch trace')
  })

  test('a runner on a closed client rejects with CLOSED, at once or once stopped', async () => {
    const prefix = uniquePrefix('closed')
    await client.queue(prefix).add(new Item(Buffer.from('x'), { id: 'a' }))
    const closed = await Client.connect(redis.url)
    const queue = closed.queue(prefix)
    await closed.close()
    let ran = 0
    await assert.rejects(new Worker(queue, async () => { ran += 1 }).run(), { code: 'CLOSED' })
    assert.equal(ran, 0)
    // Closed while it runs (by its handler): it stops, and rejects rather than resolving.
    const other = await Client.connect(redis.url)
    const worker = new Worker(other.queue(prefix), async () => { await other.close() }, { pollIntervalMs: 200 })
    await assert.rejects(worker.run(), { code: 'CLOSED' })
  })

  test('job.progress takes bytes or a string; anything else rejects naming value', async () => {
    const queue = client.queue(uniquePrefix('progress'))
    await queue.add(new Item(Buffer.from('x'), { id: 'a' }))
    const seen = []
    const worker = new Worker(queue, async (job) => {
      for (const value of [{ pct: 50 }, 50, null]) {
        await assert.rejects(job.progress(value), (e) => e instanceof LeaseqError && e.code === 'INVALID_ARGUMENT' && e.argument === 'value')
      }
      // Too long for the core: its error, with its code, as Queue#progress gives it.
      await assert.rejects(job.progress(Buffer.alloc(70_000)), (e) => e instanceof LeaseqError && e.code === 'INVALID_ARGUMENT')
      seen.push(await job.progress('half'), await job.progress(Buffer.from('more')))
      seen.push((await queue.get('a')).progress.toString())
      setImmediate(() => worker.close())
    })
    await worker.run()
    assert.deepEqual(seen, [true, true, 'more'])
  })

  test('a runner without stats leaves the configuration alone', async () => {
    const prefix = uniquePrefix('w')
    const queue = client.queue(prefix)
    const report = await runN(queue, 5, {})
    assert.equal(report.completed, 5)
    const raw = await resp.connect(redis.url)
    try {
      assert.equal(await raw.command('EXISTS', `${prefix}:config`), 0, 'no P:config written')
    } finally {
      raw.close()
    }
    assert.equal((await queue.stats()).lastHour, null)
  })

  test('outcomes: results, retries, dead letters, sync throws', async () => {
    const queue = client.queue(uniquePrefix('w'))
    await fill(queue, 10)
    await queue.add(new Item(Buffer.from('x'), { id: 'flaky', maxAttempts: 2, backoff: { type: 'fixed', delayMs: 10 } }))
    await queue.add(new Item(Buffer.from('x'), { id: 'poison' }))
    await queue.add(new Item(Buffer.from('x'), { id: 'sync-throw', maxAttempts: 1 }))
    await queue.add(new Item(Buffer.from('x'), { id: 'later', maxAttempts: 2 }))
    const dead = []
    let completed = 0
    const worker = new Worker(
      queue,
      (job) => {
        if (job.id === 'sync-throw') throw new TypeError('not even async')
        return (async () => {
          if (job.id === 'flaky') throw new RangeError(`attempt ${job.attempt}`)
          if (job.id === 'poison') throw new UnrecoverableError('cannot parse')
          if (job.id === 'later' && job.attempt === 1) throw new RetryLaterError('busy', 20)
          return { id: job.id }
        })()
      },
      { concurrency: 4 },
    )
    const stopWhenDone = () => {
      if (completed === 11 && dead.length === 3) worker.close()
    }
    worker.on('completed', () => {
      completed += 1
      stopWhenDone()
    })
    worker.on('dead', (id) => {
      dead.push(id)
      stopWhenDone()
    })
    const report = await worker.run()
    assert.deepEqual(report, { completed: 11, retried: 2, dead: 3, lost: 0, released: 0, timedOut: 0 })
    assert.deepEqual(dead.sort(), ['flaky', 'poison', 'sync-throw'])
    const flaky = await queue.get('flaky')
    assert.equal(flaky.error, 'attempt 2')
    assert.equal(flaky.errorType, 'RangeError')
    assert.equal((await queue.result('j3')).data.toString(), '{"id":"j3"}')
    assert.ok(await settled(queue))
  })

  /** Runs `worker` until `done()` after each event says so, or 10 s: a wedged job fails the asserts. */
  async function runBriefly(worker, done) {
    const timer = setTimeout(() => worker.close(), 10_000)
    for (const name of ['completed', 'retrying', 'dead']) worker.on(name, () => done() && worker.close())
    try {
      return await worker.run()
    } finally {
      clearTimeout(timer)
    }
  }

  test('a result that cannot be encoded fails the attempt with the JSON error and frees its slot', async () => {
    const queue = client.queue(uniquePrefix('w'))
    const once = { maxAttempts: 1 }
    await queue.add(new Item(Buffer.from('x'), { id: 'bigint', maxAttempts: 2, backoff: { type: 'fixed', delayMs: 10 } }))
    await queue.add(new Item(Buffer.from('x'), { id: 'circular', ...once }))
    await queue.add(new Item(Buffer.from('x'), { id: 'function', ...once }))
    await queue.add(new Item(Buffer.from('x'), { id: 'next' }))
    const circular = { name: 'loop' }
    circular.self = circular
    const results = { bigint: 10n, circular, function: () => 1, next: 'fine' }
    const dead = new Set()
    const completed = new Set()
    const worker = new Worker(queue, async (job) => results[job.id], { concurrency: 1 })
    worker.on('dead', (id) => dead.add(id)).on('completed', (id) => completed.add(id))
    const report = await runBriefly(worker, () => dead.size === 3 && completed.has('next'))
    assert.deepEqual(report, { completed: 1, retried: 1, dead: 3, lost: 0, released: 0, timedOut: 0 })
    const cases = { bigint: /BigInt/, circular: /circular/, function: /function/ }
    for (const [id, why] of Object.entries(cases)) {
      const job = await queue.get(id)
      assert.equal(job.state, 'dead', id)
      assert.equal(job.errorType, 'TypeError', id)
      assert.ok(job.error.startsWith("the handler's result cannot be encoded: "), job.error)
      assert.match(job.error, why)
    }
    assert.equal(await queue.count('leased'), 0)
  })

  test('a result not kept is not encoded', async () => {
    const queue = client.queue(uniquePrefix('w'))
    await queue.add(new Item(Buffer.from('x'), { id: 'bigint' }))
    let ended = false
    const worker = new Worker(queue, async () => 10n, { keepResults: false })
    for (const name of ['completed', 'retrying', 'dead']) worker.on(name, () => (ended = true))
    const report = await runBriefly(worker, () => ended)
    assert.equal(report.completed, 1)
    assert.ok(await settled(queue))
  })

  test('a cancelled job is told through its AbortSignal, even past its TTL', async () => {
    const queue = client.queue(uniquePrefix('w'))
    await queue.add(new Item(Buffer.from('x'), { id: 'long' }))
    let started
    const running = new Promise((resolve) => (started = resolve))
    let aborted = false
    const worker = new Worker(
      queue,
      (job, signal) =>
        new Promise((resolve) => {
          started()
          signal.addEventListener('abort', () => {
            aborted = job.leaseLost && job.cancelReason === 'leaseLost' && signal.reason.name === 'AbortError'
            resolve()
          })
        }),
      { leaseTtlMs: 1000, renewEveryMs: 100 },
    )
    worker.on('leaseLost', () => worker.close())
    const run = worker.run()
    await running
    await new Promise((resolve) => setTimeout(resolve, 1500))
    assert.equal(await queue.count('leased'), 1, 'renewed past its TTL')
    await queue.cancel('long')
    const report = await run
    assert.ok(aborted)
    assert.equal(report.lost, 1)
    assert.equal(await queue.get('long'), null)
  })

  test('job.signal is made when read: read after the handler was told, it is aborted already', async () => {
    const queue = client.queue(uniquePrefix('w'))
    await queue.add(new Item(Buffer.from('x'), { id: 'long' }))
    let started
    const running = new Promise((resolve) => (started = resolve))
    let release
    const told = new Promise((resolve) => (release = resolve))
    let seen = null
    const worker = new Worker(
      queue,
      async (job) => {
        started()
        await told // the item is cancelled meanwhile: the lease is lost
        const signal = job.signal
        seen = [signal.aborted, signal.reason.name, job.cancelReason, job.signal === signal]
      },
      { leaseTtlMs: 1000, renewEveryMs: 100 },
    )
    worker.on('leaseLost', () => {
      release()
      worker.close()
    })
    const run = worker.run()
    await running
    await queue.cancel('long')
    const report = await run
    assert.deepEqual(seen, [true, 'AbortError', 'leaseLost', true])
    assert.equal(report.lost, 1)
  })

  test('a handler that may read a second argument gets the signal as it', async () => {
    const queue = client.queue(uniquePrefix('w'))
    const names = ['rest', 'args', 'two', 'defaulted']
    await queue.addBatch(names.map((name) => new Item(Buffer.from('x'), { id: name, name })))
    /** @type {Record<string, string>} */
    const got = {}
    const record = (job, second) => {
      got[job.name] = second === undefined ? 'nothing' : second === job.signal ? 'the signal' : 'something else'
    }
    const worker = new Worker(queue, {
      rest: (...a) => record(a[0], a[1]),
      args: function (job) {
        record(job, arguments[1]) // eslint-disable-line prefer-rest-params
      },
      two: (job, signal) => record(job, signal),
      defaulted: (job, signal = null) => record(job, signal),
    })
    await runBriefly(worker, () => Object.keys(got).length === names.length)
    assert.deepEqual(got, { rest: 'the signal', args: 'the signal', two: 'the signal', defaulted: 'the signal' })
  })

  test('outcomes settled together go back together; one the core refuses fails only its own job', async () => {
    const queue = client.queue(uniquePrefix('w'))
    const ids = await fill(queue, 6)
    await queue.add(new Item(Buffer.from('x'), { id: 'negative', maxAttempts: 1 }))
    await queue.add(new Item(Buffer.from('x'), { id: 'not-a-number', maxAttempts: 1 }))
    const dead = []
    let completed = 0
    const worker = new Worker(
      queue,
      (job) => {
        if (job.id === 'negative') throw new ReleaseJob(-5)
        if (job.id === 'not-a-number') throw new RetryLaterError('busy', /** @type {any} */ ('soon'))
        return job.id
      },
      { concurrency: 8 },
    )
    worker.on('dead', (id) => dead.push(id))
    worker.on('completed', () => completed++)
    const report = await runBriefly(worker, () => completed === ids.size && dead.length === 2)
    assert.deepEqual([report.completed, report.dead], [6, 2])
    assert.equal((await queue.result('j5')).data.toString(), 'j5')
    for (const id of ['negative', 'not-a-number']) {
      const job = await queue.get(id)
      assert.equal(job.state, 'dead', id)
      assert.equal(job.errorType, 'LeaseqError', id)
      assert.match(job.error, /delayMs/, id)
    }
  })

  /** Asserts `id` is dead after `attempts` attempts, failed by its timeout. */
  async function deadByTimeout(queue, id, attempts) {
    const job = await queue.get(id)
    assert.equal(job.state, 'dead')
    assert.equal(job.attempts, attempts)
    assert.equal(job.errorType, 'timeout')
    assert.match(job.error, /timeout/)
  }

  test('a handler past its timeout is told through its signal, and its attempt fails', async () => {
    const queue = client.queue(uniquePrefix('w'))
    await queue.add(new Item(Buffer.from('x'), { id: 'slow', maxAttempts: 2, backoff: { type: 'fixed', delayMs: 10 } }))
    const told = []
    const worker = new Worker(
      queue,
      // Never done by itself: waits to be told, then claims success (a timed-out attempt cannot).
      (job, signal) =>
        new Promise((resolve) => {
          signal.addEventListener('abort', () => {
            told.push([job.cancelReason, signal.reason.name, job.leaseLost])
            resolve('ok')
          })
        }),
      { jobTimeoutMs: 200 },
    )
    const timedOut = []
    const retrying = []
    worker.on('timedOut', (id, e) => timedOut.push([id, e.message]))
    worker.on('retrying', (id, e) => retrying.push([id, e.message]))
    worker.on('dead', () => worker.close())
    const report = await worker.run()
    assert.deepEqual(told, [
      ['timeout', 'TimeoutError', false],
      ['timeout', 'TimeoutError', false],
    ])
    assert.deepEqual(
      timedOut.map(([id]) => id),
      ['slow', 'slow'],
    )
    assert.ok(timedOut.every(([, message]) => /timeout/.test(message)))
    assert.equal(retrying.length, 1)
    assert.match(retrying[0][1], /timeout/)
    assert.deepEqual(report, { completed: 0, retried: 1, dead: 1, lost: 0, released: 0, timedOut: 2 })
    await deadByTimeout(queue, 'slow', 2)
  })

  test('a handler that ignores its timeout fails after the grace; its late result is ignored', async () => {
    const queue = client.queue(uniquePrefix('w'))
    await queue.add(new Item(Buffer.from('x'), { id: 'stubborn', maxAttempts: 1 }))
    let dead
    const isDead = new Promise((resolve) => (dead = resolve))
    let ended
    const worker = new Worker(
      queue,
      // Ignores its signal: settles only once the attempt is dead, then claims success.
      async (job, signal) => {
        await isDead
        ended = [signal.aborted, job.cancelReason]
        return 'late'
      },
      { jobTimeoutMs: 100, timeoutGraceMs: 100 },
    )
    worker.on('dead', () => {
      assert.equal(ended, undefined, 'dead while its handler still ran')
      dead()
      // Stopped once the handler has settled (its slot is free then).
      setImmediate(() => worker.close())
    })
    const report = await worker.run()
    assert.deepEqual(ended, [true, 'timeout'])
    assert.equal(report.timedOut, 1)
    assert.equal(report.completed, 0)
    await deadByTimeout(queue, 'stubborn', 1)
    assert.equal(await queue.result('stubborn'), null)
  })

  test('bad timeouts name the setting and lease nothing', async () => {
    const queue = client.queue(uniquePrefix('w'))
    await queue.add(new Item(Buffer.from('x'), { id: 'a' }))
    for (const [options, name] of [
      [{ jobTimeoutMs: 0 }, 'jobTimeoutMs'],
      [{ timeoutGraceMs: 2 * 86_400_000 }, 'timeoutGraceMs'],
      [{ jobTimeoutMs: -1 }, 'jobTimeoutMs'],
      [{ leaseTtlMs: 50 }, 'leaseTtlMs'],
      [{ leaseTtlMs: 1000, renewEveryMs: 1000 }, 'renewEveryMs'],
      [{ pollIntervalMs: 5 }, 'pollIntervalMs'],
      [{ concurrency: 0 }, 'concurrency'],
      [{ concurrency: -1 }, 'concurrency'],
    ]) {
      assert.throws(() => new Worker(queue, async () => {}, options).run(), {
        code: 'INVALID_ARGUMENT',
        argument: name,
      })
    }
    assert.equal(await queue.count('waiting'), 1)
  })

  test('options of the wrong type throw a LeaseqError naming the option; nothing is sent', async () => {
    const queue = client.queue(uniquePrefix('w'))
    await queue.add(new Item(Buffer.from('x'), { id: 'a' }))
    const wrong = [
      ['concurrency', 'x'],
      ['concurrency', '4'],
      ['leaseTtlMs', 'x'],
      ['renewEveryMs', true],
      ['keepResults', 'yes'],
      ['keepResultForMs', [1000]],
      ['shutdownTimeoutMs', 10n],
      ['onShutdown', 1],
      ['pollIntervalMs', {}],
      ['heartbeatMs', '5000'],
      ['housekeeping', 0],
      ['housekeepingEveryMs', new Date()],
      ['deepCleanEveryMs', 'hourly'],
      ['stats', 'yes'],
      ['jobTimeoutMs', '5'],
      ['timeoutGraceMs', {}],
      ['weights', '3,1'],
      ['weights', [1, '2']],
      ['handleSignals', 'no'],
      ['fallback', 5],
      ['logger', 5],
      ['logLevel', 5],
    ]
    for (const [name, value] of wrong) {
      assert.throws(
        () => new Worker(queue, async () => {}, { [name]: value }),
        (err) => {
          assert.ok(err instanceof LeaseqError, `${name}: ${err && err.stack}`)
          assert.equal(err.code, 'INVALID_ARGUMENT', err.message)
          assert.equal(err.argument, name, err.message)
          assert.match(err.message, new RegExp(`\`${name}\``))
          return true
        },
      )
    }
    for (const options of [5, 'fast', [1], new Date()]) {
      assert.throws(() => new Worker(queue, async () => {}, options), { code: 'INVALID_ARGUMENT', argument: 'options' })
    }
    // null leaves an option out, as undefined does.
    const worker = new Worker(queue, async () => {}, { concurrency: null, leaseTtlMs: undefined, handleSignals: false })
    await assert.rejects(worker.close({ force: 'yes' }), { code: 'INVALID_ARGUMENT', argument: 'force' })
    await assert.rejects(worker.close({ now: true }), { code: 'INVALID_ARGUMENT', argument: 'now' })
    await worker.close()
    const item = await queue.get('a')
    assert.deepEqual([item.state, item.attempts], ['waiting', 0])
  })

  test('close drains, then releases what still runs; a blocked event loop only delays it', async () => {
    const queue = client.queue(uniquePrefix('w'))
    await queue.add(new Item(Buffer.from('x'), { id: 'quick' }))
    await queue.add(new Item(Buffer.from('x'), { id: 'stuck' }))
    let begun = 0
    let bothStarted
    const both = new Promise((resolve) => (bothStarted = resolve))
    let stuckAborted = false
    const worker = new Worker(
      queue,
      (job, signal) => {
        if (++begun === 2) bothStarted()
        if (job.id === 'stuck') {
          return new Promise((resolve) => signal.addEventListener('abort', () => resolve((stuckAborted = true))))
        }
        const until = Date.now() + 50
        while (Date.now() < until) {} // blocks the event loop a moment
        return new Promise((resolve) => setTimeout(resolve, 100))
      },
      { concurrency: 2, shutdownTimeoutMs: 500 },
    )
    const run = worker.run()
    await both
    await worker.close()
    const report = await run
    assert.deepEqual([report.completed, report.released], [1, 1])
    assert.ok(stuckAborted)
    const stuck = await queue.get('stuck')
    assert.equal(stuck.state, 'waiting')
    assert.equal(stuck.attempts, 0)
  })

  for (const fault of ['restart', 'client kill']) {
    test(`a busy runner rides through a ${fault}`, async () => {
      const own = await startRedis()
      const c = await Client.connect(own.url)
      try {
        const queue = c.queue(uniquePrefix('w'))
        const ids = await fill(queue, 300)
        const handled = new Set()
        const outages = []
        const worker = new Worker(
          queue,
          async (job) => {
            await new Promise((resolve) => setTimeout(resolve, 2))
            handled.add(job.id)
          },
          { concurrency: 8, leaseTtlMs: 2000, handleSignals: false },
        )
        worker.on('outage', (o) => outages.push(o))
        const run = worker.run()
        while (handled.size < 80) await new Promise((resolve) => setTimeout(resolve, 10))
        if (fault === 'restart') {
          await own.restart()
        } else {
          const raw = await resp.connect(own.url)
          await raw.command('CLIENT', 'KILL', 'TYPE', 'normal')
          raw.close()
        }
        for (;;) {
          let done = false
          try {
            done = handled.size === ids.size && (await settled(queue))
          } catch {}
          if (done) break
          await new Promise((resolve) => setTimeout(resolve, 50))
        }
        await worker.close()
        const report = await run
        assert.deepEqual([...handled].sort(), [...ids].sort(), 'every item ran')
        // A restart is always noticed; a killed idle connection may be replaced unseen.
        if (fault === 'restart') assert.ok(outages.length > 0, 'the runner noticed the restart')
        assert.ok(report.completed >= 200)
      } finally {
        await c.close()
        await own.stop()
      }
    })
  }

  const CHILD = `
    const { Client, Worker } = require(${JSON.stringify(path.join(__dirname, '..'))})
    ;(async () => {
      const c = await Client.connect(process.env.URL)
      const w = new Worker(c.queue(process.env.PREFIX), async (job) => {
        process.stdout.write(job.id + '\\n')
        await new Promise((r) => setTimeout(r, Number(process.env.SLEEP)))
      }, { concurrency: 4, leaseTtlMs: 1000 })
      const report = await w.run()
      await c.close()
      process.stderr.write('report ' + JSON.stringify(report) + '\\n')
    })()
  `

  function child(prefix, sleep, seen) {
    const p = spawn(process.execPath, ['-e', CHILD], {
      env: { ...process.env, URL: redis.url, PREFIX: prefix, SLEEP: String(sleep) },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    p.stdout.setEncoding('utf8')
    p.stdout.on('data', (d) => d.split('\n').filter(Boolean).forEach((id) => seen.add(id)))
    let stderr = ''
    p.stderr.on('data', (d) => (stderr += d))
    p.exited = new Promise((resolve) => p.on('exit', (code, signal) => resolve({ code, signal, stderr })))
    return p
  }

  test('SIGTERM drains and exits 0; SIGKILL mid-job loses nothing', async () => {
    const queue = client.queue(uniquePrefix('w'))
    const ids = await fill(queue, 60)
    const seen = new Set()
    const first = child(queue.prefix, 200, seen)
    while (seen.size < 8) await new Promise((resolve) => setTimeout(resolve, 10))
    first.kill('SIGKILL')
    await first.exited
    const second = child(queue.prefix, 0, seen)
    while (!(await settled(queue))) await new Promise((resolve) => setTimeout(resolve, 50))
    second.kill('SIGTERM')
    const { code, signal, stderr } = await second.exited
    assert.deepEqual({ code, signal }, { code: 0, signal: null }, stderr)
    assert.match(stderr, /report/)
    assert.deepEqual([...seen].sort(), [...ids].sort())
    assert.equal(await queue.count('dead'), 0)
  })
})

describe('Worker over several queues', { timeout: 120_000 }, () => {
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

  /**
   * A runner over two fresh queues, concurrency 1, until it completed `perQueue` items (`a0`..,
   * `b0`..) of each: the ids in the order it completed them, and the queues.
   */
  async function runTwo(perQueue, options = {}) {
    const first = client.queue(uniquePrefix('wa'))
    const second = client.queue(uniquePrefix('wb'))
    await fill(first, perQueue, 'a')
    await fill(second, perQueue, 'b')
    const completed = []
    const worker = new Worker([first, second], async (job) => job.queuePrefix, {
      concurrency: 1,
      housekeeping: false,
      handleSignals: false,
      ...options,
    })
    worker.on('completed', (id) => {
      completed.push(id)
      if (completed.length === 2 * perQueue) worker.close()
    })
    const report = await worker.run()
    assert.equal(report.completed, 2 * perQueue)
    return { completed, first, second }
  }

  test('strict order: the second queue only once the first is empty; each job finished in its own queue', async () => {
    const { completed, first, second } = await runTwo(4)
    assert.deepEqual(completed, ['a0', 'a1', 'a2', 'a3', 'b0', 'b1', 'b2', 'b3'])
    // The handler returned job.queuePrefix: kept as the result in the job's own queue.
    assert.equal((await first.result('a1')).data.toString(), first.prefix)
    assert.equal((await second.result('b1')).data.toString(), second.prefix)
    assert.ok((await settled(first)) && (await settled(second)))
  })

  for (const [weights, fromFirst] of [
    [[3, 1], 6],
    [[1, 3], 2],
  ]) {
    test(`weights ${weights.join(':')} set the proportion while both queues have work`, async () => {
      const { completed } = await runTwo(6, { weights })
      assert.equal(completed.length, 12)
      const firstEight = completed.slice(0, 8)
      assert.equal(firstEight.filter((id) => id.startsWith('a')).length, fromFirst, completed.join(' '))
    })
  }

  test('an add to either queue wakes the runner waiting on both', async () => {
    const first = client.queue(uniquePrefix('wa'))
    const second = client.queue(uniquePrefix('wb'))
    const seen = []
    const worker = new Worker(
      [first, second],
      async (job) => {
        seen.push([job.id, job.queuePrefix])
      },
      { pollIntervalMs: 30_000, handleSignals: false },
    )
    worker.on('completed', () => {
      if (seen.length === 2) worker.close()
    })
    const run = worker.run()
    await new Promise((resolve) => setTimeout(resolve, 100))
    await second.add(new Item(Buffer.from('x'), { id: 'late-b' }))
    await first.add(new Item(Buffer.from('x'), { id: 'late-a' }))
    const report = await run
    assert.equal(report.completed, 2)
    assert.deepEqual(seen.sort(), [
      ['late-a', first.prefix],
      ['late-b', second.prefix],
    ])
  })

  test('bad queues and weights are refused naming the argument; nothing is written', async () => {
    const queue = client.queue(uniquePrefix('w'))
    const other = client.queue(uniquePrefix('w'))
    await queue.add(new Item(Buffer.from('x'), { id: 'a' }))
    const elsewhere = await Client.connect(redis.url)
    try {
      for (const [queues, options, name] of [
        [[], {}, 'queue'],
        [[queue, queue], {}, 'queue'],
        [[queue, elsewhere.queue(uniquePrefix('w'))], {}, 'queue'],
        [Array(65).fill(queue), {}, 'queue'],
        [[queue, other], { weights: [1] }, 'weights'],
        [[queue, other], { weights: [1, 0] }, 'weights'],
        [[queue, other], { weights: [1, 1001] }, 'weights'],
        [[queue, other], { weights: [1, -1] }, 'weights'],
        [[queue, other], { weights: [1, 1.5] }, 'weights'],
        [[queue, other], { weights: '3,1' }, 'weights'],
        [[queue, other], { weights: [1, '2'] }, 'weights'],
        [[queue, 'not a queue'], {}, 'queue'],
      ]) {
        assert.throws(
          () => new Worker(queues, async () => {}, { handleSignals: false, ...options }).run(),
          (err) => {
            assert.equal(err.code, 'INVALID_ARGUMENT', err.message)
            assert.equal(err.argument, name, err.message)
            assert.match(err.message, new RegExp(`\`${name}\``))
            return true
          },
        )
      }
    } finally {
      await elsewhere.close()
    }
    const item = await queue.get('a')
    assert.deepEqual([item.state, item.attempts], ['waiting', 0])
    assert.equal(await other.count('waiting'), 0)
  })
})
