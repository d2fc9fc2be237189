'use strict'
// The Node runner of the conformance vectors (spec/vectors, format in spec/vectors/README.md).
//
// It follows the Rust runner (integration-tests/vectors/tests/conformance.rs) step by step:
// queue operations go through this package's API; the Redis-side steps (the empty start of a
// case, `raw`, `state`) run the harness's leaseq-vector-tool (`$LEASEQ_VECTOR_TOOL`, else
// <repo>/target/debug/leaseq-vector-tool, which node/test.sh builds). One test per case, named
// after it; a failure reads `node: <case>: step <i> (<do>): <message>`.

const assert = require('node:assert/strict')
const { execFile } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')
const { after, before, describe, test } = require('node:test')

const { Client, Item, LeaseqError } = require('..')
const { startRedis } = require('./helpers/redis')
const resp = require('./helpers/resp')

const REPO = path.resolve(__dirname, '..', '..')
const VECTORS = path.join(REPO, 'spec', 'vectors')
const DEFAULT_PREFIX = '{v}'

/** The runner could not run a step as written (the Rust runner's `Err(String)`). */
class StepError extends Error {}

/** Every case of every spec/vectors/*.json, in file order. */
function loadCases() {
  const cases = []
  const files = fs
    .readdirSync(VECTORS)
    .filter((name) => name.endsWith('.json'))
    .sort()
  for (const name of files) {
    const doc = JSON.parse(fs.readFileSync(path.join(VECTORS, name), 'utf8'))
    assert.equal(doc.version, 2, name)
    assert.ok(Array.isArray(doc.cases) && doc.cases.length > 0, `${name} has cases`)
    cases.push(...doc.cases)
  }
  return cases
}

const CASES = loadCases()

function vectorTool() {
  const tool = process.env.LEASEQ_VECTOR_TOOL || path.join(REPO, 'target', 'debug', 'leaseq-vector-tool')
  try {
    fs.accessSync(tool, fs.constants.X_OK)
  } catch {
    throw new StepError(
      `vector tool ${tool} is missing: build it with \`cargo build -p leaseq-harness\` ` +
        '(node/test.sh does) or set LEASEQ_VECTOR_TOOL',
    )
  }
  return tool
}

/** Runs leaseq-vector-tool; its message on a failure or mismatch becomes a StepError. */
function tool(...args) {
  const file = vectorTool()
  return new Promise((resolve, reject) => {
    execFile(file, args, { timeout: 30_000 }, (err, stdout, stderr) => {
      if (!err) return resolve(stdout)
      const message = String(stderr).trim() || String(stdout).trim()
      reject(new StepError(message || `leaseq-vector-tool ${args[0]}: ${err.message}`))
    })
  })
}

// ---- values -----------------------------------------------------------------------------

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/** A vector data value: a string's UTF-8 bytes, or `{"hex": "00ff"}`. */
function dataBytes(value) {
  if (typeof value === 'string') return Buffer.from(value, 'utf8')
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const hex = value.hex
    if (typeof hex !== 'string') throw new StepError('data object needs "hex"')
    if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) {
      throw new StepError(`bad hex ${JSON.stringify(hex)}`)
    }
    return Buffer.from(hex, 'hex')
  }
  throw new StepError(`data must be a string or {"hex": ...}, not ${JSON.stringify(value)}`)
}

/** Bytes as vectors write them: a string when they are UTF-8, otherwise hex. */
function dataJson(bytes) {
  try {
    return UTF8.decode(bytes)
  } catch {
    return { hex: Buffer.from(bytes).toString('hex') }
  }
}

function leaseJson(lease) {
  if (lease === null) return null
  const out = { id: dataJson(lease.idBytes), data: dataJson(lease.data), count: lease.count }
  // `name` only for an item added with one (spec/vectors/README.md, "A lease").
  if (lease.name !== null) out.name = lease.name
  return out
}

function reportJson(report) {
  return { requeued: report.requeued, removed: report.removed }
}

const isPlainObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Equality where data values (`"text"` or `{"hex": ...}`) compare by their bytes. */
function same(want, got) {
  if (Array.isArray(want) && Array.isArray(got)) {
    return want.length === got.length && want.every((w, i) => same(w, got[i]))
  }
  if (isPlainObject(want) && isPlainObject(got) && !('hex' in want) && !('hex' in got)) {
    const keys = Object.keys(want)
    return (
      keys.length === Object.keys(got).length &&
      keys.every((k) => {
        if (!Object.prototype.hasOwnProperty.call(got, k)) return false
        try {
          return same(want[k], got[k])
        } catch (err) {
          if (err instanceof StepError) return false
          throw err
        }
      })
    )
  }
  const data = (v) => typeof v === 'string' || isPlainObject(v)
  if (data(want) && data(got)) return dataBytes(want).equals(dataBytes(got))
  return want === got
}

// ---- the runner -------------------------------------------------------------------------

/** @typedef {{ value?: unknown, error?: LeaseqError }} Outcome */

function strField(step, name) {
  const value = step[name]
  if (typeof value !== 'string') throw new StepError(`step needs string \`${name}\``)
  return value
}

/** A `*_ms` field: a non-negative integer. */
function ms(step, name) {
  const value = step[name]
  if (!Number.isSafeInteger(value) || value < 0) throw new StepError(`step needs number \`${name}\``)
  return value
}

/**
 * Calls a queue operation (which may throw at once or reject): leaseq's errors are its result,
 * anything else breaks the step.
 * @returns {Promise<Outcome>}
 */
async function run(call) {
  try {
    return { value: await call() }
  } catch (err) {
    if (err instanceof LeaseqError) return { error: err }
    const e = /** @type {Error} */ (err)
    throw new StepError(`threw ${e?.name}: ${e?.message}`)
  }
}

/** The outcome with its value (if it has one) converted to vector JSON. */
function then(outcome, convert) {
  if (outcome.error === undefined) outcome.value = convert(outcome.value)
  return outcome
}

const sleep = (millis) => new Promise((resolve) => setTimeout(resolve, millis))

/** Runs the steps of one case: one method per `do` of spec/vectors/README.md. */
class Runner {
  constructor(url, prefix, queue, client) {
    this.url = url
    this.prefix = prefix
    this.q = queue
    this.client = client
    /** @type {Map<string, import('..').Lease>} */
    this.leases = new Map()
  }

  /** Runs a step: an Outcome for an operation, undefined for a step with no result. */
  async step(step) {
    const op = strField(step, 'do')
    if (!Object.prototype.hasOwnProperty.call(STEPS, op)) throw new StepError(`unknown step \`${op}\``)
    return STEPS[op].call(this, step)
  }

  leaseNamed(step) {
    const name = strField(step, 'lease')
    const lease = this.leases.get(name)
    if (lease === undefined) throw new StepError(`no lease named \`${name}\``)
    return lease
  }

  /** A batch step's `completions`: `{ lease, result?, keepResultForMs? }` for each
   * `{"lease", "result" (optional), "keep_result_ms" (optional)}`. */
  completions(step) {
    if (!Array.isArray(step.completions)) throw new StepError('step needs a list `completions`')
    return step.completions.map((c) => {
      const completion = { lease: this.leaseNamed(c) }
      if ('result' in c) completion.result = dataBytes(c.result)
      if (typeof c.keep_result_ms === 'number') completion.keepResultForMs = c.keep_result_ms
      return completion
    })
  }

  /** Names the lease when the step says `"as"`; returns it. */
  keep(step, lease) {
    if (typeof step.as === 'string' && lease !== null) this.leases.set(step.as, lease)
    return lease
  }
}

/** A vector backoff (`{"fixed_ms": n}` or `{"exp_ms": [base, cap], "jitter": bool}`). */
function backoffOption(value) {
  if (typeof value.fixed_ms === 'number') return { type: 'fixed', delayMs: value.fixed_ms }
  if (Array.isArray(value.exp_ms) && value.exp_ms.length === 2) {
    const [baseMs, capMs] = value.exp_ms
    const backoff = { type: 'exponential', baseMs, capMs }
    if (typeof value.jitter === 'boolean') backoff.jitter = value.jitter
    return backoff
  }
  throw new StepError('backoff needs fixed_ms or exp_ms')
}

/** The item options a step names (spec/vectors/README.md, "Item options"), as Node's. */
function itemOptions(step) {
  const options = {}
  const names = {
    delay_ms: 'delayMs',
    priority: 'priority',
    max_attempts: 'maxAttempts',
    expires_after_ms: 'expiresAfterMs',
    keep_result_ms: 'keepResultForMs',
  }
  for (const [vector, node] of Object.entries(names)) {
    if (typeof step[vector] === 'number') options[node] = step[vector]
  }
  if (step.backoff !== undefined && step.backoff !== null) options.backoff = backoffOption(step.backoff)
  if (typeof step.group === 'string') options.group = step.group
  if (typeof step.name === 'string') options.name = step.name
  if (Array.isArray(step.depends_on)) options.dependsOn = step.depends_on.filter((id) => typeof id === 'string')
  if (typeof step.on_dependency_failure === 'string') options.onDependencyFailure = step.on_dependency_failure
  return options
}

/**
 * A flow of an `add_flow` step: an item object with an optional `children` list of flows, as
 * `Queue#addFlow` takes a child (an Item, or `{ item, children }`); made inside `run`.
 */
function stepFlow(step) {
  const make = stepItem(step)
  const children = Array.isArray(step.children) ? step.children.map(stepFlow) : []
  return () => ({ item: make(), children: children.map((c) => c()) })
}

/**
 * The schedule a step names (spec/vectors/README.md): `cron` (with `tz`) or `every_ms`,
 * `missed`, and the item's `data` and options (`item_name` for its name), as
 * `Queue#upsertSchedule` takes them.
 */
function stepSchedule(step) {
  const schedule = { ...itemOptions({ ...step, name: step.item_name }) }
  if (typeof step.cron === 'string') schedule.cron = step.cron
  else if (typeof step.every_ms === 'number') schedule.everyMs = step.every_ms
  else throw new StepError('upsert_schedule needs `cron` or `every_ms`')
  if (typeof step.tz === 'string') schedule.tz = step.tz
  if (typeof step.missed === 'string') schedule.missed = step.missed
  schedule.data = step.data === undefined || step.data === null ? '' : dataBytes(step.data)
  return schedule
}

/** A stored schedule as the vectors write it (`get_schedule`). */
function scheduleJson(info) {
  if (info === null) return null
  const ms = (d) => (d === null ? null : d.getTime())
  return {
    version: info.version,
    next: ms(info.next),
    fired: info.fired,
    skipped: info.skipped,
    last_tick: ms(info.lastTick),
    missed: info.schedule === null ? null : info.schedule.missed,
    data: info.data === null ? null : dataJson(info.data),
  }
}

/**
 * An event entry as the vectors write it (spec/vectors/README.md, "An event"): its kind, item
 * and attempt, and `name`, `error`, `reason`, `state` when it has them.
 */
function eventJson(e) {
  const out = { event: e.event, id: e.jobId, attempt: e.attempt }
  if (e.name !== null) out.name = e.name
  if (e.error !== null) out.error = e.error
  if (e.reason !== null) out.reason = e.reason
  if (e.extra.state !== undefined) out.state = e.extra.state
  return out
}

/** An item for a step; made inside `run`, so that a refused one is the step's result. */
function stepItem(step) {
  const id = strField(step, 'id')
  const data = dataBytes(step.data)
  return () => new Item(data, { id, ...itemOptions(step) })
}

/**
 * A batch's item, made. Node refuses a bad option where the item is made (`new Item`), before
 * `addBatch` is called; the core refuses such an item of a batch naming the batch's argument
 * `items` and the item (spec/vectors/README.md), so the refusal is reported in its words.
 */
function batchMember(make, id) {
  try {
    return make()
  } catch (err) {
    if (!(err instanceof LeaseqError) || err.code !== 'INVALID_ARGUMENT') throw err
    throw new LeaseqError(err.code, `invalid argument \`items\`: item \`${id}\`: ${err.message}`, {
      cause: err,
      argument: 'items',
    })
  }
}

/** The `timeout_ms` of a lease step: 0 or absent, no wait. */
function waitOptions(step) {
  const wait = step.timeout_ms
  return Number.isSafeInteger(wait) && wait > 0 ? { timeoutMs: wait } : {}
}

function jobJson(job) {
  if (job === null) return null
  const out = {
    state: job.state,
    data: dataJson(job.data),
    attempts: job.attempts,
    error: job.error,
    error_type: job.errorType,
    reason: job.deadReason,
    progress: job.progress === null ? null : dataJson(job.progress),
    priority: job.priority,
    result: job.result === null ? null : dataJson(job.result.data),
  }
  // `group` only for an item that has one (spec/vectors/README.md, "A job").
  if (job.group !== null) out.group = job.group
  // `name` too, only for an item that has one.
  if (job.name !== null) out.name = job.name
  // `trace` only for an item that has one (spec/vectors/README.md, "A job").
  if (job.trace !== null) out.trace = job.trace
  // `depends_on` only for an item added with dependencies.
  if (job.dependsOn.length > 0) out.depends_on = job.dependsOn
  return out
}

const CONFIG_FIELDS = {
  max_attempts: 'maxAttempts',
  priority: 'priority',
  expires_after_ms: 'expiresAfterMs',
  keep_result_ms: 'keepResultForMs',
  dead_max_count: 'deadMaxCount',
  dead_max_age_ms: 'deadMaxAgeMs',
  capacity: 'capacity',
  group_concurrency: 'groupConcurrency',
}

/** @type {Record<string, (this: Runner, step: any) => Promise<Outcome | undefined>>} */
const STEPS = {
  async add(step) {
    const make = stepItem(step)
    return run(() => this.q.add(make()))
  },
  async add_unique(step) {
    const make = stepItem(step)
    return then(await run(() => this.q.addUnique(make())), () => null)
  },
  async add_batch(step) {
    if (!Array.isArray(step.items)) throw new StepError('add_batch needs `items`')
    const makers = step.items.map(stepItem)
    return run(() => this.q.addBatch(makers.map((make, i) => batchMember(make, step.items[i].id))))
  },
  async lease(step) {
    const options = { ttlMs: ms(step, 'ttl_ms'), ...waitOptions(step) }
    return then(await run(() => this.q.lease(options)), (lease) => leaseJson(this.keep(step, lease)))
  },
  async lease_batch(step) {
    if (!Number.isSafeInteger(step.n)) throw new StepError('lease_batch needs `n`')
    const options = { ttlMs: ms(step, 'ttl_ms'), ...waitOptions(step) }
    return then(await run(() => this.q.leaseBatch(step.n, options)), (leases) => {
      if (Array.isArray(step.as)) {
        leases.forEach((lease, i) => {
          if (typeof step.as[i] === 'string') this.leases.set(step.as[i], lease)
        })
      }
      return leases.map(leaseJson)
    })
  },
  async complete(step) {
    const lease = this.leaseNamed(step)
    if (!('result' in step)) return run(() => this.q.complete(lease))
    const options = { result: dataBytes(step.result) }
    if (typeof step.keep_result_ms === 'number') options.keepResultForMs = step.keep_result_ms
    return run(() => this.q.complete(lease, options))
  },
  async renew_outcome(step) {
    const lease = this.leaseNamed(step)
    const ttlMs = ms(step, 'ttl_ms')
    return run(() => this.q.renewOutcome(lease, { ttlMs }))
  },
  async fail(step) {
    const lease = this.leaseNamed(step)
    const error = strField(step, 'error')
    const options = { errorType: typeof step.error_type === 'string' ? step.error_type : '' }
    if (typeof step.trace === 'string') options.trace = step.trace
    const retry = step.retry
    if (retry === undefined || retry === null || retry === 'default') options.retry = 'default'
    else if (retry === 'never') options.retry = 'never'
    else if (Number.isSafeInteger(retry?.after_ms)) options.retry = { afterMs: retry.after_ms }
    else throw new StepError('retry must be default, never or {after_ms}')
    return run(() => this.q.fail(lease, error, options))
  },
  async release(step) {
    const lease = this.leaseNamed(step)
    const options = typeof step.delay_ms === 'number' ? { delayMs: step.delay_ms } : {}
    return run(() => this.q.release(lease, options))
  },
  async progress(step) {
    const lease = this.leaseNamed(step)
    const value = dataBytes(step.value)
    return run(() => this.q.progress(lease, value))
  },
  async result(step) {
    const id = strField(step, 'id')
    return then(await run(() => this.q.result(id)), (r) =>
      r === null ? null : { data: dataJson(r.data), attempts: r.attempts },
    )
  },
  async get(step) {
    const id = strField(step, 'id')
    return then(await run(() => this.q.get(id)), jobJson)
  },
  async list(step) {
    const state = strField(step, 'state')
    const options = {
      start: typeof step.start === 'number' ? step.start : 0,
      count: typeof step.count === 'number' ? step.count : 100,
    }
    return then(await run(() => this.q.list(state, options)), (entries) =>
      // Why a dead item died: named only when there is a reason.
      entries.map((e) => ({ id: e.id, attempts: e.attempts, error: e.error, ...(e.reason === null ? {} : { reason: e.reason }) })),
    )
  },
  async count(step) {
    const state = strField(step, 'state')
    return run(() => this.q.count(state))
  },
  async find(step) {
    const state = strField(step, 'state')
    const options = {
      start: typeof step.start === 'number' ? step.start : 0,
      count: typeof step.count === 'number' ? step.count : 100,
    }
    if (typeof step.name === 'string') options.name = step.name
    if (typeof step.error_type === 'string') options.errorType = step.error_type
    return then(await run(() => this.q.find(state, options)), (found) => ({
      ids: found.entries.map((e) => dataJson(e.idBytes)),
      next: found.next,
      examined: found.examined,
    }))
  },
  async add_flow(step) {
    if (!Array.isArray(step.children)) throw new StepError('add_flow needs `children`')
    const parent = stepItem(step.parent ?? {})
    const children = step.children.map(stepFlow)
    return run(() => this.q.addFlow(parent(), children.map((c) => c())))
  },
  async dependencies(step) {
    const id = strField(step, 'id')
    return then(await run(() => this.q.dependencies(id)), (d) => ({
      depends_on: d.dependsOn,
      pending: [...d.pending].sort(),
      dependants: d.dependantsCount,
      on_dependency_failure: d.onDependencyFailure,
    }))
  },
  async dependency_results(step) {
    const id = strField(step, 'id')
    return then(await run(() => this.q.dependencyResults(id)), (results) =>
      results.map((r) => [r.id, r.result === null ? null : dataJson(r.result)]),
    )
  },
  async upsert_schedule(step) {
    const name = strField(step, 'name')
    const schedule = stepSchedule(step)
    return run(() => this.q.upsertSchedule(name, schedule))
  },
  async remove_schedule(step) {
    const name = strField(step, 'name')
    return run(() => this.q.removeSchedule(name))
  },
  async get_schedule(step) {
    const name = strField(step, 'name')
    return then(await run(() => this.q.getSchedule(name)), scheduleJson)
  },
  async schedules(step) {
    const options = {
      start: typeof step.start === 'number' ? step.start : 0,
      count: typeof step.count === 'number' ? step.count : 100,
    }
    return then(await run(() => this.q.schedules(options)), (page) => ({
      total: page.total,
      names: page.schedules.map((s) => s.name),
    }))
  },
  async fire_due_schedules() {
    return then(await run(() => this.q.fireDueSchedules()), (r) => ({ fired: r.fired, skipped: r.skipped }))
  },
  async read_events(step) {
    const after = typeof step.after === 'string' ? step.after : '0-0'
    return then(await run(() => this.q.readEvents({ after, count: 1000 })), (page) => page.events.map(eventJson))
  },
  async promote(step) {
    const id = strField(step, 'id')
    return run(() => this.q.promote(id))
  },
  async cancel(step) {
    const id = strField(step, 'id')
    return run(() => this.q.cancel(id))
  },
  async dead_requeue(step) {
    if (!Array.isArray(step.ids)) throw new StepError('dead_requeue needs `ids`')
    const ids = step.ids.filter((id) => typeof id === 'string')
    return run(() => this.q.deadRequeue(ids))
  },
  async dead_requeue_each(step) {
    if (!Array.isArray(step.ids)) throw new StepError('dead_requeue_each needs `ids`')
    const ids = step.ids.filter((id) => typeof id === 'string')
    return run(() => this.q.deadRequeueEach(ids))
  },
  async exists() {
    return run(() => this.q.exists())
  },
  async dead_requeue_oldest(step) {
    const n = typeof step.n === 'number' ? step.n : undefined
    return run(() => this.q.deadRequeueOldest(n))
  },
  async dead_purge(step) {
    const n = typeof step.n === 'number' ? step.n : undefined
    return run(() => this.q.deadPurge(n))
  },
  async set_config(step) {
    const config = {}
    for (const [vector, node] of Object.entries(CONFIG_FIELDS)) {
      if (typeof step[vector] === 'number') config[node] = step[vector]
    }
    if (step.backoff !== undefined && step.backoff !== null) config.backoff = backoffOption(step.backoff)
    if (typeof step.stats === 'boolean') config.stats = step.stats
    if (typeof step.events === 'boolean') config.events = step.events
    if (typeof step.events_max_len === 'number') config.eventsMaxLen = step.events_max_len
    return then(await run(() => this.q.setConfig(config)), () => null)
  },
  async pause() {
    return run(() => this.q.pause())
  },
  async resume() {
    return run(() => this.q.resume())
  },
  async is_paused() {
    return run(() => this.q.isPaused())
  },
  async pause_group(step) {
    const group = strField(step, 'group')
    return run(() => this.q.pauseGroup(group))
  },
  async resume_group(step) {
    const group = strField(step, 'group')
    return run(() => this.q.resumeGroup(group))
  },
  async set_group_limit(step) {
    const group = strField(step, 'group')
    const limit = typeof step.limit === 'number' ? step.limit : undefined
    return then(await run(() => this.q.setGroupLimit(group, limit)), () => null)
  },
  async rate_limit_group(step) {
    const group = strField(step, 'group')
    return run(() => this.q.rateLimitGroup(group, ms(step, 'ms')))
  },
  async group(step) {
    const group = strField(step, 'group')
    return then(await run(() => this.q.group(group)), (g) => ({
      waiting: g.waiting,
      leased: g.leased,
      limit: g.limit,
      paused: g.paused,
    }))
  },
  async stats() {
    return then(await run(() => this.q.stats()), (s) => ({
      waiting: s.waiting,
      delayed: s.delayed,
      leased: s.leased,
      dead: s.dead,
      // null while the queue's counters are off
      completed: s.lastHour === null ? null : s.lastHour.completed,
      failed: s.lastHour === null ? null : s.lastHour.failed,
    }))
  },
  async counts_by_name() {
    return run(() => this.q.countsByName())
  },
  async complete_batch(step) {
    const completions = this.completions(step)
    return run(() => this.q.completeBatch(completions))
  },
  async complete_and_lease_batch(step) {
    const completions = this.completions(step)
    if (!Number.isSafeInteger(step.n)) throw new StepError('complete_and_lease_batch needs `n`')
    const options = { ttlMs: ms(step, 'ttl_ms') }
    return then(await run(() => this.q.completeAndLeaseBatch(completions, step.n, options)), (got) => {
      if (Array.isArray(step.as)) {
        got.leases.forEach((lease, i) => {
          if (typeof step.as[i] === 'string') this.leases.set(step.as[i], lease)
        })
      }
      return { completed: got.completed, leases: got.leases.map(leaseJson) }
    })
  },
  async complete_and_lease(step) {
    const lease = this.leaseNamed(step)
    const options = { ttlMs: ms(step, 'ttl_ms') }
    if ('result' in step) {
      options.result = dataBytes(step.result)
      if (typeof step.keep_result_ms === 'number') options.keepResultForMs = step.keep_result_ms
    }
    return then(await run(() => this.q.completeAndLease(lease, options)), (got) => ({
      completed: got.completed,
      next: leaseJson(this.keep(step, got.next)),
    }))
  },
  async renew(step) {
    const lease = this.leaseNamed(step)
    const ttlMs = ms(step, 'ttl_ms')
    return run(() => this.q.renew(lease, { ttlMs }))
  },
  async light_clean() {
    return then(await run(() => this.q.lightClean()), reportJson)
  },
  async deep_clean() {
    return then(await run(() => this.q.deepClean()), reportJson)
  },
  async queue_len() {
    return run(() => this.q.queueLen())
  },
  async processing_len() {
    return run(() => this.q.processingLen())
  },
  async open_queue(step) {
    const prefix = strField(step, 'prefix')
    return then(await run(() => this.client.queue(prefix)), () => null)
  },
  async raw(step) {
    if (!Array.isArray(step.command)) throw new StepError('raw needs `command`')
    await tool('raw', this.url, this.prefix, JSON.stringify(step.command))
    return undefined
  },
  async sleep_ms(step) {
    await sleep(ms(step, 'ms'))
    return undefined
  },
  async state(step) {
    const prefix = typeof step.prefix === 'string' ? step.prefix : this.prefix
    await tool('check', this.url, prefix, JSON.stringify(step.expect ?? null))
    return undefined
  },
}

/** @param {Outcome} outcome */
function describeOutcome(outcome) {
  if (outcome.error !== undefined) return `error ${outcome.error.code}: ${outcome.error.message}`
  return `Ok(${JSON.stringify(outcome.value)})`
}

/** Compares an operation's outcome with the step's `expect` or `expect_error`. */
function check(step, outcome) {
  if ('expect_error' in step) {
    const code = step.expect_error
    if (outcome.error === undefined || outcome.error.code !== code) {
      throw new StepError(`expected error ${JSON.stringify(code)}, got ${describeOutcome(outcome)}`)
    }
    // `expect_error_names`: the error's message names this argument or key.
    // Node names an argument in camelCase (`depends_on` is `dependsOn`, `every` is `everyMs`).
    const name = step.expect_error_names
    const camel = typeof name === 'string' ? name.replace(/_([a-z])/g, (_, c) => c.toUpperCase()) : name
    if (typeof name === 'string' && !outcome.error.message.includes(name) && !outcome.error.message.includes(camel)) {
      throw new StepError(`expected an error naming \`${name}\`, got ${describeOutcome(outcome)}`)
    }
  } else if (outcome.error !== undefined) {
    throw new StepError(`unexpected error ${outcome.error.code}: ${outcome.error.message}`)
  } else {
    const want = step.expect === undefined ? null : step.expect
    if (!same(want, outcome.value)) {
      throw new StepError(`expected ${JSON.stringify(want)}, got ${JSON.stringify(outcome.value)}`)
    }
  }
}

/** Runs one case; resolves to null when it passes, else what failed (`step <i> (<do>): ...`). */
async function runCase(url, client, testCase) {
  let runner
  try {
    await tool('flush', url)
    const prefix = typeof testCase.prefix === 'string' ? testCase.prefix : DEFAULT_PREFIX
    runner = new Runner(url, prefix, client.queue(prefix), client)
  } catch (err) {
    if (err instanceof StepError || err instanceof LeaseqError) {
      return `before the first step: ${err.message}`
    }
    throw err
  }
  const steps = testCase.steps
  if (!Array.isArray(steps)) return 'case needs `steps`'
  for (const [index, step] of steps.entries()) {
    try {
      const outcome = await runner.step(step)
      if (outcome !== undefined) check(step, outcome)
    } catch (err) {
      if (err instanceof StepError) return `step ${index} (${step?.do}): ${err.message}`
      throw err
    }
  }
  return null
}

describe('conformance vectors (spec/vectors)', { timeout: 180_000 }, () => {
  let redis
  let client
  before(async () => {
    // A server of this file's own: every case begins with FLUSHALL.
    redis = await startRedis()
    client = await Client.connect(redis.url)
  })
  after(async () => {
    await client?.close()
    await redis?.stop()
  })

  test('every case of every vector file is a test of its own', () => {
    const names = CASES.map((c) => c.name)
    for (const name of names) assert.equal(typeof name, 'string')
    assert.equal(new Set(names).size, names.length, 'case names are unique (they are the test names)')
    assert.ok(names.length >= 40, `only ${names.length} cases found`)
  })

  for (const testCase of CASES) {
    test(testCase.name, async () => {
      const failure = await runCase(redis.url, client, testCase)
      if (failure !== null) assert.fail(`node: ${testCase.name}: ${failure}`)
    })
  }

  test('the runner fails a wrong result, a wrong error, a wrong state and an unknown step', async () => {
    const cases = [
      { steps: [{ do: 'add', id: 'a', data: 'x', expect: false }] },
      { steps: [{ do: 'lease', ttl_ms: 0, expect_error: 'WRONG_TYPE' }] },
      { steps: [{ do: 'lease', ttl_ms: 0, expect: null }] },
      {
        steps: [
          { do: 'add', id: 'a', data: { hex: '00ff' }, expect: true },
          { do: 'lease', ttl_ms: 1000, expect: { id: 'a', data: { hex: '00fe' }, count: 1 } },
        ],
      },
      { steps: [{ do: 'state', expect: { queue: ['a'] } }] },
      { steps: [{ do: 'nonsense' }] },
      { steps: [{ do: 'add', id: 'a', data: 'x' }] },
      { steps: [{ do: 'add_batch', items: [{ id: '', data: 'x' }], expect: 0 }] },
      { steps: [{ do: 'complete', lease: 'L', expect: true }] },
      {
        steps: [
          { do: 'set_config', capacity: 0, expect_error: 'INVALID_ARGUMENT', expect_error_names: 'max_attempts' },
        ],
      },
    ]
    const failures = []
    for (const c of cases) failures.push(await runCase(redis.url, client, c))
    assert.equal(failures[0], 'step 0 (add): expected false, got true')
    assert.match(
      failures[1] ?? '',
      /^step 0 \(lease\): expected error "WRONG_TYPE", got error INVALID_ARGUMENT: /,
    )
    assert.match(failures[2] ?? '', /^step 0 \(lease\): unexpected error INVALID_ARGUMENT: /)
    assert.equal(
      failures[3],
      'step 1 (lease): expected {"id":"a","data":{"hex":"00fe"},"count":1}, ' +
        'got {"id":"a","data":{"hex":"00ff"},"count":1}',
    )
    assert.match(failures[4] ?? '', /^step 0 \(state\): state `queue`/)
    assert.equal(failures[5], 'step 0 (nonsense): unknown step `nonsense`')
    assert.equal(failures[6], 'step 0 (add): expected null, got true', 'no expect: expects null')
    assert.match(
      failures[7] ?? '',
      /^step 0 \(add_batch\): unexpected error INVALID_ARGUMENT: /,
      'a refused item in a batch is the step result',
    )
    assert.equal(failures[8], 'step 0 (complete): no lease named `L`')
    assert.match(
      failures[9] ?? '',
      /^step 0 \(set_config\): expected an error naming `max_attempts`, got error INVALID_ARGUMENT: /,
      'expect_error_names checks the message',
    )
  })

  test('a refused id in add is the step result, so expect_error matches it', async () => {
    const failure = await runCase(redis.url, client, {
      steps: [
        { do: 'add', id: '', data: 'x', expect_error: 'INVALID_ARGUMENT' },
        { do: 'add_unique', id: '', data: 'x', expect_error: 'INVALID_ARGUMENT' },
        { do: 'state', expect: { keys: [] } },
      ],
    })
    assert.equal(failure, null)
  })

  test('lease with timeout_ms waits (in BLMOVE) for an item added meanwhile', async () => {
    const admin = await resp.connect(redis.url)
    try {
      const expect = { id: 'w', data: 'late', count: 1 }
      let settled = false
      const running = runCase(redis.url, client, {
        steps: [{ do: 'lease', ttl_ms: 10_000, timeout_ms: 30_000, expect }],
      }).finally(() => {
        settled = true
      })
      // Asked, never timed: the step is waiting once Redis shows a client blocked (flag b) in
      // BLMOVE. An idle connection keeps `cmd=blmove` from an earlier wait, hence the flag.
      const blockedNow = async () =>
        String(await admin.command('CLIENT', 'LIST'))
          .split('\n')
          .some((line) => / flags=[A-Za-z]*b/.test(line) && / cmd=blmove /.test(line))
      let blocked = false
      while (!blocked && !settled) {
        blocked = await blockedNow()
        if (!blocked) await sleep(5)
      }
      if (!blocked) assert.fail(`the lease step ended without waiting in BLMOVE: ${await running}`)
      assert.equal(await client.queue(DEFAULT_PREFIX).add(new Item('late', 'w')), true)
      assert.equal(await running, null)
    } finally {
      admin.close()
    }
  })
})

test('same compares data values as bytes and everything else as JSON', () => {
  assert.ok(same('ab', { hex: '6162' }))
  assert.ok(same({ hex: '6162' }, 'ab'))
  assert.ok(!same('ab', { hex: '6163' }))
  assert.ok(same({ a: ['x', 1] }, { a: [{ hex: '78' }, 1] }))
  assert.ok(!same(true, 1))
  assert.ok(!same(null, false))
  assert.ok(!same({ a: 1 }, { a: 1, b: 2 }))
  assert.ok(!same({ a: 1, b: 2 }, { a: 1, c: 2 }))
  assert.ok(!same([1], [1, 2]))
  assert.throws(() => same({ hex: '0' }, 'x'), StepError)
})

test('dataJson keeps UTF-8 (with a BOM or NUL) as text and anything else as hex', () => {
  assert.equal(dataJson(Buffer.from('a\u0000é')), 'a\u0000é')
  assert.equal(dataJson(Buffer.from([0xef, 0xbb, 0xbf, 0x61])), '\ufeffa')
  assert.deepEqual(dataJson(Buffer.from([0x00, 0xff])), { hex: '00ff' })
  assert.deepEqual(dataBytes({ hex: '00FF' }), Buffer.from([0, 255]))
  assert.deepEqual(dataBytes('é'), Buffer.from([0xc3, 0xa9]))
  assert.throws(() => dataBytes(3), StepError)
  assert.throws(() => dataBytes({ hex: 'zz' }), StepError)
})
