'use strict'
// The Node soak worker and producer (integration-tests/soak/README.md), on leaseq's Node API.
//
//     node soak_worker.js URL LANG work
//     node soak_worker.js URL LANG produce FIRST COUNT
//
// It follows the Rust worker (src/bin/soak-worker-rust.rs, src/lib.rs) rule for rule: the queues
// come from LEASEQ_SOAK_QUEUES (prefixes, comma separated) and the results queue from
// LEASEQ_SOAK_RESULTS; every event is recorded there with `addUnique` of an item whose id is
// `win|<queue>|<id>|<nonce>`, `exec|<queue>|<id>|<nonce>` or `viol|<lang>|<what>|<nonce>` and
// whose data is LANG. A worker misbehaves on purpose (4% drop, 3% slow, 2% complete twice, 2%
// renew late, 4% fail, 1% fail for good) unless LEASEQ_SOAK_MISBEHAVE=0 (or =plain: drop, slow
// and twice only). It loads the package from <repo>/node (built by
// `npm run build` there or node/test.sh), so it runs without installing. A retryable error (a
// connection cut) is ridden through: the call is tried again or given up (a complete's then
// recorded as `lost|<queue>|<id>|<nonce>`: it may have taken effect); any other failed call ends
// it with the error on stderr and a non-zero status. node/test/soak-worker.test.js keeps it
// working.

const crypto = require('node:crypto')

const { Client, Item, UnrecoverableError, Worker } = require('../../../node')

/** Every worker's lease TTL, in milliseconds. */
const TTL = 500
/** Past the TTL: how long a "slow" worker sleeps. */
const SLOW = 700
/** How long one lease call waits for an item before the worker tries the other queue. */
const WAIT = 100
/** Producers add their items in batches of this many. */
const BATCH = 50

const USAGE = 'usage: soak_worker.js URL LANG work | URL LANG run | URL LANG produce FIRST COUNT'
/** What a failing handler reports (the verdict looks for it in the dead letters). */
const FAILURE = 'soak failure'

/** A failure the worker reports in one line (no stack): a bad command line or environment. */
class Refusal extends Error {}

/**
 * What to do with one lease, from a roll in [0, 100): the table every language shares.
 *
 * - drop (4%): never completes; the lease expires and the cleaner gives the item back;
 * - slow (3%): sleeps past the TTL, then completes (which may return false);
 * - twice (2%): completes twice; the second must return false;
 * - renew-late (2%): sleeps past the TTL, renews (must return false), then completes;
 * - fail (4%): fails the attempt, retried 20 ms later;
 * - fail-for-good (1%): fails with no retry: the item is a dead letter with its error;
 * - normal: completes. With LEASEQ_SOAK_MISBEHAVE=0 (the demo), always normal; with
 *   LEASEQ_SOAK_MISBEHAVE=plain (the drain soak) only what redis-work-queue can do too: drop,
 *   slow and twice, no renew and no fail.
 * @param {number} roll
 * @returns {'drop' | 'slow' | 'twice' | 'renew-late' | 'fail' | 'fail-for-good' | 'normal'}
 */
function behaviour(roll) {
  const misbehave = process.env.LEASEQ_SOAK_MISBEHAVE
  if (misbehave === '0') return 'normal'
  if (misbehave === 'plain') {
    if (roll < 4) return 'drop'
    if (roll < 7) return 'slow'
    if (roll < 9) return 'twice'
    return 'normal'
  }
  if (roll < 4) return 'drop'
  if (roll < 7) return 'slow'
  if (roll < 9) return 'twice'
  if (roll < 11) return 'renew-late'
  if (roll < 15) return 'fail'
  if (roll < 16) return 'fail-for-good'
  return 'normal'
}

/** A random 32-hex-digit nonce, like the other workers' `uuid4().hex`. */
const nonce = () => crypto.randomUUID().replace(/-/g, '')

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * One server, or a cluster when `url` holds several URLs separated by commas. Tries again for up
 * to 10 s while the error is retryable (a connection cut as it opens).
 * @param {string} url
 */
async function connect(url) {
  for (let tries = 0; ; tries++) {
    try {
      return await (url.includes(',') ? Client.cluster(url.split(',')) : Client.connect(url))
    } catch (err) {
      if (!err.retryable || tries === 100) throw err
      await sleep(100)
    }
  }
}

/** What `unlessCut` resolves to when the call failed with a retryable error. */
const CUT = Symbol('cut')

/**
 * The outcome of `call`, or CUT, after a short pause, when it fails with a retryable error
 * (connection, timeout, unavailable); any other error ends the worker.
 * @template T
 * @param {() => Promise<T>} call
 * @returns {Promise<T | typeof CUT>}
 */
async function unlessCut(call) {
  try {
    return await call()
  } catch (err) {
    if (!err.retryable) throw err
    await sleep(100)
    return CUT
  }
}

/** Records events in the results queue, through leaseq itself. */
class Recorder {
  /**
   * @param {import('../../../node').Client} client
   * @param {string} prefix
   * @param {string} lang
   * @param {import('../../../node').Client | null} own the client to close with the recorder
   */
  constructor(client, prefix, lang, own = null) {
    this.results = client.queue(prefix)
    this.lang = lang
    this.own = own
  }

  /**
   * A recorder through `client`, or through a client of its own when LEASEQ_SOAK_RESULTS_URL
   * puts the results on a server of their own (the fault soak).
   * @param {import('../../../node').Client} client
   * @param {string} prefix
   * @param {string} lang
   */
  static async open(client, prefix, lang) {
    const url = process.env.LEASEQ_SOAK_RESULTS_URL
    if (!url) return new Recorder(client, prefix, lang)
    const own = await connect(url)
    return new Recorder(own, prefix, lang, own)
  }

  /** Closes the recorder's own client, if it has one. */
  async close() {
    if (this.own) await this.own.close()
  }

  /** `kind` is `win`, `exec` or `lost` (a complete whose reply was lost); `queue` the prefix. */
  record(kind, queue, id) {
    return this.add(`${kind}|${queue}|${id}|${nonce()}`)
  }

  /** A broken guarantee. */
  violation(what) {
    return this.add(`viol|${this.lang}|${what}|${nonce()}`)
  }

  /** Adds a record, riding through Redis restarts (ids are unique per record). */
  async add(record) {
    for (;;) {
      try {
        await this.results.add(new Item(this.lang, record))
        return
      } catch (err) {
        if (!err.retryable) throw err
        await sleep(100)
      }
    }
  }
}

/** Leases from the two queues in turn, forever (the soak kills its workers). */
async function work(client, lang, prefixes, results) {
  const recorder = await Recorder.open(client, results, lang)
  const queues = prefixes.map((prefix) => [prefix, client.queue(prefix)])
  // A call cut by a connection loss (retryable) is not the end of the worker: the lease is tried
  // again, and the outcome of any other call is unknown (the lease expires, or the call took
  // effect); only a complete's matters, recorded as `lost`.
  for (let turn = 0; ; turn++) {
    const [name, queue] = queues[turn % queues.length]
    const lease = await unlessCut(() => queue.lease({ ttlMs: TTL, timeoutMs: WAIT }))
    if (lease === null || lease === CUT) continue
    await recorder.record('exec', name, lease.id)
    const what = behaviour(crypto.randomInt(100))
    if (what === 'drop') continue
    if (what === 'fail' || what === 'fail-for-good') {
      const retry = what === 'fail' ? { afterMs: 20 } : 'never'
      const outcome = await unlessCut(() =>
        queue.fail(lease, 'soak failure', { errorType: 'SoakError', retry }),
      )
      if (what === 'fail-for-good' && outcome === 'retrying') {
        await recorder.violation('fail without retry was retried')
      }
      continue
    }
    if (what === 'slow' || what === 'renew-late') await sleep(SLOW)
    if (what === 'renew-late' && (await unlessCut(() => queue.renew(lease, TTL))) === true) {
      await recorder.violation('renew after expiry returned true')
    }
    const done = await unlessCut(() => queue.complete(lease))
    if (done === CUT) await recorder.record('lost', name, lease.id)
    else if (done) await recorder.record('win', name, lease.id)
    if (what === 'twice' && (await unlessCut(() => queue.complete(lease))) === true) {
      // After a first complete that was cut before it took effect, the second wins.
      if (done === CUT) await recorder.record('win', name, lease.id)
      else await recorder.violation('second complete returned true')
    }
  }
}

/**
 * Adds `<lang>-<n>` (data `{"n":n}`) for n in first..first+count, to queue n % (number of
 * queues).
 */
async function produce(client, lang, prefixes, first, count) {
  const queues = prefixes.map((prefix) => client.queue(prefix))
  const batches = queues.map(() => [])
  for (let n = first; n < first + count; n++) {
    batches[n % queues.length].push(new Item(`{"n":${n}}`, `${lang}-${n}`))
    for (const [i, queue] of queues.entries()) {
      if (batches[i].length === BATCH) {
        const added = await queue.addBatch(batches[i])
        if (added !== BATCH) throw new Refusal(`addBatch added ${added} of ${BATCH} ids`)
        batches[i] = []
      }
    }
  }
  for (const [i, queue] of queues.entries()) {
    if (batches[i].length > 0) await queue.addBatch(batches[i])
  }
}

/** A whole number from the command line, or a usage error. */
function count(text) {
  const n = Number(text)
  if (text === undefined || !/^\d+$/.test(text) || !Number.isSafeInteger(n)) throw new Refusal(USAGE)
  return n
}

function env(name) {
  const value = process.env[name]
  if (value === undefined) throw new Refusal(`${name} is not set`)
  return value
}

/**
 * Runner mode's rule, the same in every language (RunnerRule in src/lib.rs): by the number at
 * the end of the id, every 101st item fails for good, every 13th fails its first attempt.
 * @param {string} id
 * @param {number} attempt
 */
function rule(id, attempt) {
  const tail = id.split('-').at(-1) ?? ''
  const n = /^\d+$/.test(tail) ? Number(tail) : 1
  if (n % 101 === 0) return 'dead'
  if (n % 13 === 0 && attempt === 1) return 'retry'
  return 'succeed'
}

/** Runner mode: one Worker per queue; records follow the runners' events; SIGTERM drains. */
/**
 * Runner mode's runner over the partitioned queue `base` (LEASEQ_SOAK_PARTITIONED, the fault
 * soak's `partitioned` stage). An event names only the item: its partition is the one its
 * handler last ran it from (every event follows a run).
 */
// One runner of the soak over `queue`, a queue or a partitioned queue: each job is recorded
// under the prefix of the queue it came from (`job.queuePrefix`), and so is each outcome.
function soakWorker(queue, recorder) {
  const prefixOf = new Map()
  const worker = new Worker(
    queue,
    async (job) => {
      prefixOf.set(job.id, job.queuePrefix)
      await recorder.record('exec', job.queuePrefix, job.id)
      await sleep(1)
      const what = rule(job.id, job.attempt)
      if (what === 'dead') throw new UnrecoverableError(FAILURE)
      if (what === 'retry') throw new Error(FAILURE)
    },
    {
      concurrency: 4,
      leaseTtlMs: 2000,
      heartbeatMs: 500,
      housekeepingEveryMs: 500,
      deepCleanEveryMs: 5000,
      handleSignals: false,
    },
  )
  for (const [event, kind] of [['completed', 'win'], ['retrying', 'retry'], ['dead', 'dead']]) {
    worker.on(event, (id) => {
      recorder.record(kind, prefixOf.get(id), id).catch((err) => {
        console.error(err)
        process.exit(1)
      })
    })
  }
  return worker
}

async function run(client, lang, prefixes, results) {
  const recorder = await Recorder.open(client, results, lang)
  const base = process.env.LEASEQ_SOAK_PARTITIONED || ''
  const workers = (base ? [] : prefixes).map((name) => soakWorker(client.queue(name), recorder))
  // With LEASEQ_SOAK_PARTITIONED=BASE, one runner over the partitioned queue BASE instead.
  if (base) {
    let queue = CUT
    while (queue === CUT) queue = await unlessCut(() => client.partitioned(base))
    workers.push(soakWorker(queue, recorder))
  }
  const stopping = new Promise((resolve) => process.once('SIGTERM', resolve))
  const runs = workers.map((w) => w.run())
  await stopping
  await Promise.all(workers.map((w) => w.close()))
  await recorder.close()
  console.error(`soak_worker.js: ${JSON.stringify(await Promise.all(runs))}`)
}

async function main(argv) {
  const [url, lang, mode] = argv
  if (argv.length < 3 || !['work', 'run', 'produce'].includes(mode)) throw new Refusal(USAGE)
  const first = mode === 'produce' ? count(argv[3]) : 0
  const total = mode === 'produce' ? count(argv[4]) : 0
  const prefixes = env('LEASEQ_SOAK_QUEUES').split(',')
  if (prefixes.some((p) => p === '')) {
    throw new Refusal('LEASEQ_SOAK_QUEUES must name prefixes, comma separated')
  }
  const results = env('LEASEQ_SOAK_RESULTS')
  const client = await connect(url)
  try {
    if (mode === 'work') await work(client, lang, prefixes, results)
    else if (mode === 'run') await run(client, lang, prefixes, results)
    else await produce(client, lang, prefixes, first, total)
  } finally {
    await client.close()
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((err) => {
    console.error(err instanceof Refusal ? `soak_worker.js: ${err.message}` : err)
    process.exit(1)
  })
}

module.exports = { behaviour, BATCH, SLOW, TTL, WAIT }
