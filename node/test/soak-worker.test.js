'use strict'
// The Node soak worker (integration-tests/soak/workers/soak_worker.js), run as the soak runs it.
//
// The soak itself (`leaseq-soak --worker node=...`) is a Rust program outside these tests; these
// keep the script working: its producer adds what the soak expects, its worker (behaving, as
// with LEASEQ_SOAK_MISBEHAVE=0) completes every item once and records it, and a failed call
// ends it with a non-zero status.

const assert = require('node:assert/strict')
const { execFile, spawn } = require('node:child_process')
const path = require('node:path')
const { after, before, describe, test } = require('node:test')

const { Client, Item } = require('..')
const { startRedis, uniquePrefix } = require('./helpers/redis')
const resp = require('./helpers/resp')

const REPO = path.resolve(__dirname, '..', '..')
const WORKER = path.join(REPO, 'integration-tests', 'soak', 'workers', 'soak_worker.js')
const LANG = 'node'

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

function soakEnv(queues, results, extra = {}) {
  return {
    ...process.env,
    LEASEQ_SOAK_QUEUES: queues.join(','),
    LEASEQ_SOAK_RESULTS: results,
    ...extra,
  }
}

/** Runs the worker script to its end; resolves to { code, stderr } whatever the exit code. */
function runWorker(args, env) {
  return new Promise((resolve) => {
    const options = { env, timeout: 60_000 }
    execFile(process.execPath, [WORKER, ...args], options, (err, _stdout, stderr) => {
      resolve({ code: err ? (err.code ?? 1) : 0, stderr })
    })
  })
}

describe('the soak worker', { timeout: 120_000 }, () => {
  let redis
  let client
  let admin
  before(async () => {
    redis = await startRedis()
    client = await Client.connect(redis.url)
    admin = await resp.connect(redis.url)
  })
  after(async () => {
    admin?.close()
    await client?.close()
    await redis?.stop()
  })

  const prefixes = () => [uniquePrefix('soak-even'), uniquePrefix('soak-odd')]

  async function produce(queues, results, first, count) {
    const args = [redis.url, LANG, 'produce', String(first), String(count)]
    const done = await runWorker(args, soakEnv(queues, results))
    assert.equal(done.code, 0, done.stderr)
    assert.equal(done.stderr, '')
  }

  /** Leases (and completes) every item of the queue: id -> data as text. */
  async function drain(queue) {
    const items = new Map()
    for (;;) {
      const lease = await queue.lease({ ttlMs: 30_000 })
      if (lease === null) return items
      assert.equal(items.has(lease.id), false, `${lease.id} leased twice`)
      items.set(lease.id, lease.data.toString('utf8'))
      assert.equal(await queue.complete(lease), true)
    }
  }

  /** The results queue's records as the soak reads them: [id, data], straight from Redis. */
  async function records(results) {
    const ids = await admin.command('LRANGE', `${results}:queue`, 0, -1)
    const found = []
    for (const id of ids) found.push([id, await admin.command('GET', `${results}:item:${id}`)])
    return found
  }

  test('the producer adds its share to both queues, full batches then a partial one', async () => {
    const queues = prefixes()
    const results = uniquePrefix('soak-results')
    // 121 items from 3: more than one batch of 50 per queue, and a partial batch at the end.
    await produce(queues, results, 3, 121)
    const [even, odd] = queues.map((p) => client.queue(p))
    assert.deepEqual([await even.queueLen(), await odd.queueLen()], [60, 61])
    const got = [await drain(even), await drain(odd)]
    for (const parity of [0, 1]) {
      const want = new Map()
      for (let n = 3; n < 124; n++) if (n % 2 === parity) want.set(`${LANG}-${n}`, `{"n":${n}}`)
      assert.deepEqual(new Map([...got[parity]].sort()), new Map([...want].sort()))
    }
    assert.equal(await client.queue(results).queueLen(), 0, 'a producer records nothing')
  })

  test('a full batch that adds fewer than 50 ids is an error', async () => {
    const queues = prefixes()
    // node-5 exists already, so the first full batch of the odd queue (1, 3, ..., 99) adds 49.
    assert.equal(await client.queue(queues[1]).add(new Item('old', `${LANG}-5`)), true)
    const env = soakEnv(queues, uniquePrefix('r'))
    const done = await runWorker([redis.url, LANG, 'produce', '0', '100'], env)
    assert.notEqual(done.code, 0)
    assert.match(done.stderr, /addBatch added 49 of 50 ids/)
  })

  test('a bad command line is refused with the usage', async () => {
    const env = soakEnv(prefixes(), uniquePrefix('r'))
    for (const args of [
      [redis.url, LANG, 'produce', '3'],
      [redis.url, LANG, 'produce', '3', 'many'],
      [redis.url, LANG, 'play'],
      [redis.url],
    ]) {
      const done = await runWorker(args, env)
      assert.notEqual(done.code, 0, args.join(' '))
      assert.match(done.stderr, /usage:/, args.join(' '))
    }
  })

  test('a behaving worker completes every item once and records it', { timeout: 60_000 }, async () => {
    const queues = prefixes()
    const results = uniquePrefix('soak-results')
    await produce(queues, results, 0, 80)
    const worker = spawn(process.execPath, [WORKER, redis.url, LANG, 'work'], {
      env: soakEnv(queues, results, { LEASEQ_SOAK_MISBEHAVE: '0' }),
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let stderr = ''
    worker.stderr.on('data', (chunk) => {
      stderr += chunk
    })
    let exit = null
    const exited = new Promise((resolve) => {
      worker.once('exit', (code, signal) => {
        exit = { code, signal }
        resolve(exit)
      })
    })
    try {
      const resultQueue = client.queue(results)
      // Each item gives an `exec` and a `win` record; the worker writes the win after its
      // complete, so wait for the records rather than for the queues to empty. Polled, not timed.
      while ((await resultQueue.queueLen()) < 160) {
        assert.equal(exit, null, `the worker exited: ${JSON.stringify(exit)}\n${stderr}`)
        await sleep(50)
      }
      assert.equal(exit, null, 'the worker runs until it is stopped')
    } finally {
      worker.kill('SIGKILL')
      await exited
    }
    assert.equal(stderr, '')
    const found = await records(results)
    assert.equal(found.length, 160)
    const kinds = new Map()
    for (const [record, data] of found) {
      assert.equal(data, LANG, 'a record holds the language')
      const parts = record.split('|')
      assert.equal(parts.length, 4, record)
      const [kind, queue, id, nonce] = parts
      assert.match(nonce, /^[0-9a-f]{32}$/)
      const key = `${kind}|${queue}|${id}`
      kinds.set(key, (kinds.get(key) ?? 0) + 1)
    }
    const expected = []
    for (let n = 0; n < 80; n++) expected.push(`${queues[n % 2]}|${LANG}-${n}`)
    expected.sort()
    const of = (kind) =>
      [...kinds.keys()]
        .filter((k) => k.startsWith(`${kind}|`))
        .map((k) => k.slice(kind.length + 1))
        .sort()
    assert.deepEqual(of('win'), expected)
    assert.deepEqual(of('exec'), expected)
    assert.deepEqual(new Set(kinds.values()), new Set([1]), 'one exec and one win per item: it behaved')
    for (const prefix of queues) {
      const q = client.queue(prefix)
      assert.deepEqual([await q.queueLen(), await q.processingLen()], [0, 0])
    }
  })

  test('a worker whose call fails exits by itself with a non-zero status', async () => {
    const queues = prefixes()
    // A queue list of the wrong type: the worker's first lease fails with WRONG_TYPE.
    await admin.command('SET', `${queues[0]}:queue`, 'not a list')
    const done = await runWorker([redis.url, LANG, 'work'], soakEnv(queues, uniquePrefix('r')))
    assert.notEqual(done.code, 0)
    assert.match(done.stderr, /WRONG_TYPE/)
  })

  test('the misbehaviour table is the shared one; MISBEHAVE=0 behaves, =plain keeps three rows', (t) => {
    const { behaviour, TTL, SLOW, WAIT, BATCH } = require(WORKER)
    assert.deepEqual([TTL, SLOW, WAIT, BATCH], [500, 700, 100, 50])
    const table = [
      [0, 'drop'],
      [3, 'drop'],
      [4, 'slow'],
      [6, 'slow'],
      [7, 'twice'],
      [8, 'twice'],
      [9, 'renew-late'],
      [10, 'renew-late'],
      [11, 'fail'],
      [14, 'fail'],
      [15, 'fail-for-good'],
      [16, 'normal'],
      [99, 'normal'],
    ]
    const saved = process.env.LEASEQ_SOAK_MISBEHAVE
    t.after(() => {
      if (saved === undefined) delete process.env.LEASEQ_SOAK_MISBEHAVE
      else process.env.LEASEQ_SOAK_MISBEHAVE = saved
    })
    delete process.env.LEASEQ_SOAK_MISBEHAVE
    for (const [roll, what] of table) assert.equal(behaviour(roll), what, `roll ${roll}`)
    process.env.LEASEQ_SOAK_MISBEHAVE = '0'
    for (const [roll] of table) assert.equal(behaviour(roll), 'normal', `roll ${roll}`)
    // The drain soak: only what a redis-work-queue worker can do too.
    process.env.LEASEQ_SOAK_MISBEHAVE = 'plain'
    for (const [roll, what] of table) {
      const plain = ['drop', 'slow', 'twice'].includes(what) ? what : 'normal'
      assert.equal(behaviour(roll), plain, `roll ${roll}`)
    }
  })
})
