// @ts-check
'use strict'
// Runners: `Worker` runs an async handler over a queue (or several), driven by leaseq's Rust core, which
// leases in batches, renews the leases, finishes in batches, rides through Redis outages and
// does the queue's housekeeping. This layer only calls the handler and reports its outcome.

const { EventEmitter } = require('node:events')
const util = require('node:util')
const args = require('./args')
const { invalidArgument, nativeAsync, nativeSync } = require('./errors')
const { nativeOf, Queue, toDependencyResults } = require('./queue')
const { PartitionedQueue, nativeOf: nativePartitioned } = require('./partitioned')
const native = require('./native')

const WHOLE = 'a whole number'
/** @type {(name: string, value: unknown) => unknown} */
const ms = (name, value) => args.number(name, value)
/** @type {(name: string, value: unknown) => unknown} */
const whole = (name, value) => args.number(name, value, WHOLE)
/** @type {(name: string, value: unknown) => unknown} */
const string = (name, value) => args.string(name, value)
/** @type {(name: string, value: unknown) => unknown} */
const boolean = (name, value) => args.boolean(name, value)

/**
 * The options of `Worker`, each with the check of its type: a value of the wrong type throws
 * `INVALID_ARGUMENT` naming the option as the constructor is called, before anything is sent
 * (null, like undefined, leaves an option out). Values are the core's to judge, as the runner
 * starts; `fallback`, `logger` and `logLevel` are checked whole by the constructor.
 * @type {Readonly<Record<string, (name: string, value: unknown) => unknown>>}
 */
const OPTION_TYPES = Object.freeze({
  concurrency: whole,
  leaseTtlMs: ms,
  renewEveryMs: ms,
  keepResults: boolean,
  keepResultForMs: ms,
  shutdownTimeoutMs: ms,
  onShutdown: string,
  pollIntervalMs: ms,
  heartbeatMs: ms,
  housekeeping: boolean,
  housekeepingEveryMs: ms,
  deepCleanEveryMs: ms,
  stats: boolean,
  jobTimeoutMs: ms,
  timeoutGraceMs: ms,
  weights: (/** @type {string} */ name, /** @type {unknown} */ value) => {
    if (!Array.isArray(value)) {
      throw invalidArgument(name, `must be an array of whole numbers, one per queue, not ${args.describe(value)}`)
    }
    for (const w of value) args.number(name, w, 'an array of whole numbers')
  },
  handleSignals: boolean,
  fallback: () => {},
  logger: () => {},
  logLevel: () => {},
})

const OPTIONS = Object.freeze(Object.keys(OPTION_TYPES))

/** The options the JavaScript layer keeps to itself (the rest go to the core). */
const JS_OPTIONS = Object.freeze(['handleSignals', 'fallback', 'logger'])

/** A logger's methods, by the core's level names. */
const LOG_LEVELS = Object.freeze(['debug', 'info', 'warn', 'error'])

/** `NODE_DEBUG=leaseq`: the default logger (every line, prefixed `LEASEQ <pid>:`). */
const debuglog = util.debuglog('leaseq')

/** `WorkerJob`'s method that the runner calls when the handler is told to stop. */
const TOLD = Symbol('told')

/** What `job.signal` aborts with, by `job.cancelReason`. */
const CANCEL_MESSAGES = Object.freeze({
  timeout: ['the job ran past its timeout', 'TimeoutError'],
  leaseLost: ["the job's lease is lost", 'AbortError'],
  shutdown: ['the runner is shutting down', 'AbortError'],
})

/**
 * The reason `job.signal` aborts with: a `DOMException` named `TimeoutError` for a timeout (as
 * `AbortSignal.timeout()` aborts), `AbortError` otherwise.
 * @param {string | null} reason
 */
function abortReason(reason) {
  const [message, name] = CANCEL_MESSAGES[/** @type {keyof CANCEL_MESSAGES} */ (reason)] ?? [
    'the job was cancelled',
    'AbortError',
  ]
  return new DOMException(message, name)
}

/** Thrown by a handler: the job goes straight to the dead letters, without a retry. */
class UnrecoverableError extends Error {
  /** @param {string} [message] */
  constructor(message) {
    super(message)
    this.name = 'UnrecoverableError'
  }
}

/** Thrown by a handler: retry after `delayMs` instead of the queue's backoff. */
class RetryLaterError extends Error {
  /**
   * @param {string} message
   * @param {number} delayMs
   */
  constructor(message, delayMs) {
    super(message)
    this.name = 'RetryLaterError'
    this.delayMs = delayMs
  }
}

const RATE_LIMITED_OPTIONS = Object.freeze(['group'])
const CLOSE_OPTIONS = Object.freeze(['force'])

/**
 * Thrown by a handler that was rate limited (an API answered 429): every client's leases of the
 * queue are held off for `holdMs` (`Queue#rateLimit`; of every partition for a `Worker` over a
 * `PartitionedQueue`, `PartitionedQueue#rateLimit`) and the job is handed back, to run again
 * after the hold without being charged an attempt. With `{ group: true }` (an API that limits
 * per customer or tenant), only the job's group is held off (`Queue#rateLimitGroup`), the
 * queue's other groups going on; a job without a group holds the queue off (of a
 * `PartitionedQueue`: every partition).
 */
class RateLimitedError extends Error {
  /**
   * @param {number} holdMs
   * @param {{ group?: boolean }} [options]
   */
  constructor(holdMs, options) {
    const o = args.optionalOptions('options', options, RATE_LIMITED_OPTIONS)
    const group = o.group === undefined ? false : args.boolean('group', o.group)
    super(`rate limited for ${holdMs} ms${group ? ' (its group)' : ''}`)
    this.name = 'RateLimitedError'
    this.holdMs = holdMs
    /** Whether only the job's group is held off. */
    this.group = group
  }
}

/** Thrown by a handler: hand the job back untouched (no attempt counted), after `delayMs`. */
class ReleaseJob extends Error {
  /** @param {number} [delayMs] */
  constructor(delayMs) {
    super('released')
    this.name = 'ReleaseJob'
    this.delayMs = delayMs
  }
}

/**
 * What a handler receives: one leased item. The runner tells a handler to stop by aborting
 * `signal`, for one reason (`cancelReason`): its `jobTimeoutMs` passed (`timeout`: the attempt
 * fails with error type `timeout` whatever the handler returns now; the signal's reason is a
 * `TimeoutError`), its lease is lost (`leaseLost`), or the runner is shutting down past its
 * timeout (`shutdown`).
 */
class WorkerJob {
  /** The batch the job came in (one native object for all of them) and its index there. */
  #jobs
  #index
  /** @type {AbortController | null} */
  #controller = null
  /**
   * @param {import('../native').NativeWorkerJobs} jobs
   * @param {number} index
   */
  constructor(jobs, index) {
    this.#jobs = jobs
    this.#index = index
  }
  /**
   * Aborted when the handler is told to stop: a timeout, a lost lease or a shutdown. Made when
   * first asked for (a handler that never looks costs no `AbortController`); already aborted
   * when the handler was told before.
   * @returns {AbortSignal}
   */
  get signal() {
    if (this.#controller === null) {
      this.#controller = new AbortController()
      const reason = this.#jobs.cancelReason(this.#index)
      if (reason) this.#controller.abort(abortReason(reason))
    }
    return this.#controller.signal
  }
  /** The runner told the handler to stop: aborts the signal, if anyone has asked for it. */
  [TOLD]() {
    if (this.#controller !== null) this.#controller.abort(abortReason(this.#jobs.cancelReason(this.#index) ?? null))
  }
  /**
   * Why the handler was told to stop (`timeout`, `leaseLost` or `shutdown`; the first reason
   * is kept), or null while it is not.
   * @returns {string | null}
   */
  get cancelReason() {
    return this.#jobs.cancelReason(this.#index) ?? null
  }
  /** The item's id. */
  get id() {
    return this.#jobs.id(this.#index)
  }
  /** The item's data. */
  get data() {
    return this.#jobs.data(this.#index)
  }
  /** The data parsed as JSON. */
  json() {
    return JSON.parse(this.data.toString('utf8'))
  }
  /** Which attempt this is (1 for the first). */
  get attempt() {
    return this.#jobs.attempt(this.#index)
  }
  /** The item's attempt limit (0: unlimited). */
  get maxAttempts() {
    return this.#jobs.maxAttempts(this.#index)
  }
  /**
   * The item's name (what kind of job it is: `ItemOptions#name`), or null when it was added
   * without one.
   * @returns {string | null}
   */
  get name() {
    return this.#jobs.name(this.#index) ?? null
  }
  /**
   * The prefix of the queue the job came from (for a runner over several queues): the job is
   * completed, failed or released there.
   */
  get queuePrefix() {
    return this.#jobs.queuePrefix(this.#index)
  }
  /** Whether the lease is lost. */
  get leaseLost() {
    return this.#jobs.leaseLost(this.#index)
  }
  /**
   * Stores a small progress value (at most 64 KiB): bytes, or a string as UTF-8 (for an object,
   * `JSON.stringify` it); anything else rejects with INVALID_ARGUMENT naming `value`, as
   * `Queue#progress` does. False once the lease is lost.
   * @param {Buffer | Uint8Array | string} value
   */
  async progress(value) {
    const v = args.bytes('value', value)
    return nativeAsync(() => this.#jobs.progress(this.#index, v))
  }
  /**
   * The kept results of the items this job was added to wait for, in order (`result` null when
   * none is kept): a flow's parent reads its children's results so, as BullMQ's
   * `getChildrenValues` does. One round trip.
   * @returns {Promise<import('../index').DependencyResult[]>}
   */
  async dependencyResults() {
    return toDependencyResults(await nativeAsync(() => this.#jobs.dependencyResults(this.#index)))
  }
}

/**
 * A return value as the bytes kept: a Buffer as it is, a string as UTF-8, anything else as JSON.
 * Throws what JSON.stringify throws (a BigInt, a circular object), or a TypeError for a value it
 * gives no JSON for (a function, a symbol).
 * @param {unknown} value
 */
function resultBuffer(value) {
  if (value === undefined || value === null) return null
  if (Buffer.isBuffer(value)) return value
  if (value instanceof Uint8Array) return Buffer.from(value)
  if (typeof value === 'string') return Buffer.from(value)
  const json = JSON.stringify(value)
  if (json === undefined) throw new TypeError(`a ${typeof value} cannot be encoded as JSON`)
  return Buffer.from(json)
}

/**
 * The message and type recorded for a thrown value.
 * @param {unknown} error
 * @returns {[string, string]}
 */
function errorParts(error) {
  const e = /** @type {any} */ (error)
  return e instanceof Error ? [e.message, e.name] : [String(e), typeof e]
}

/**
 * The trace kept with a failed attempt: an Error's `stack` (its `cause`'s after it), else null.
 * @param {unknown} error
 * @returns {string | null}
 */
function errorTrace(error) {
  if (!(error instanceof Error) || typeof error.stack !== 'string') return null
  let trace = error.stack
  /** @type {unknown} */
  let cause = error.cause
  for (let depth = 0; cause instanceof Error && typeof cause.stack === 'string' && depth < 8; depth++) {
    trace += `\ncaused by: ${cause.stack}`
    cause = cause.cause
  }
  return trace
}

/**
 * The logger the runner writes to (spec/PROTOCOL.md 13.4): the `logger` option, checked, or
 * `util.debuglog('leaseq')` when `NODE_DEBUG=leaseq` is set, else none; and the least level.
 * @param {unknown} logger
 * @param {unknown} level
 * @returns {[Record<string, (line: string) => void> | null, string | undefined]}
 */
function loggerOf(logger, level) {
  if (level !== undefined && level !== null && !LOG_LEVELS.includes(/** @type {string} */ (level))) {
    throw invalidArgument('logLevel', `must be one of ${LOG_LEVELS.join(', ')}, not ${args.describe(level)}`)
  }
  if (logger === undefined || logger === null) {
    if (!debuglog.enabled) return [null, undefined]
    const write = (/** @type {string} */ line) => debuglog('%s', line)
    return [{ debug: write, info: write, warn: write, error: write }, 'debug']
  }
  const l = /** @type {any} */ (logger)
  if (typeof l !== 'object' || !LOG_LEVELS.every((m) => typeof l[m] === 'function')) {
    throw invalidArgument('logger', 'must have debug, info, warn and error methods (console, pino, winston...)')
  }
  return [l, /** @type {string | undefined} */ (level ?? undefined)]
}

/**
 * Whether `fn` may read its second argument (the signal): it declares two parameters or more,
 * or its source does not show that it cannot (rest or default parameters, `arguments`, a
 * bound or native function). A handler that cannot is called with the job alone, and no
 * `AbortController` is made for it unless it asks for `job.signal`.
 * @param {Function} fn
 */
function wantsSignal(fn) {
  if (fn.length >= 2) return true
  let source
  try {
    source = Function.prototype.toString.call(fn)
  } catch {
    return true
  }
  if (source.includes('arguments') || source.includes('[native code]')) return true
  if (/^(?:async\s+)?[\w$]+\s*=>/.test(source)) return false
  const params = /^(?:async\s*)?(?:function\s*\*?\s*[\w$]*\s*)?(?:[\w$]+\s*)?\(([^)]*)\)/.exec(source)
  return params === null || params[1].includes('...') || params[1].includes('=')
}

/**
 * Runs `handler(job, signal)` for each item of `queue`: a `Queue`, or an array of 1 to 64
 * queues of one client. `handler` is a function, or an object of handlers by name
 * (`{ sendEmail: fn, resize: fn }`: each key is an item name, used as given) with, optionally,
 * the `fallback` option for the jobs no key takes (those without a name too). The core checks
 * the table as the runner starts (`INVALID_ARGUMENT` naming `handlers`: no handler at all, a bad
 * name) and fails for good, with error type `NoHandler` and without calling a handler, a job that
 * no name and no fallback takes. Over several queues one runner asks them in the order given (strict: a
 * later queue gets slots only while every earlier one has no work for them), or, with the
 * `weights` option (one per queue, 1 to 1000), by weighted round robin: with `weights: [3, 1]` the
 * first queue has three turns of four (a turn: up to 250 ms of one queue's leases). One wait on the server covers every queue;
 * each job is finished in its own queue (`job.queuePrefix`). Events: `completed`, `retrying`, `dead`,
 * `released`, `leaseLost`, `timedOut` (each with the id and details), `outage` (a Redis error,
 * once per outage; without a listener or a `logger` it is logged once with console.warn) and
 * `recovered`. A failed attempt keeps the error's `stack` as the job's `trace` (`Queue#get`).
 *
 * Logging: with a `logger` (anything with `debug`, `info`, `warn` and `error` methods:
 * `console`, pino, winston), the runner writes a line as it starts (its queues, the server's URL
 * without credentials, its concurrency) and stops (its report) at `info`, one per failed attempt
 * to be retried, lost lease, timeout or outage at `warn` (id, attempt, error), one per dead job
 * at `error`, and one per completed job at `debug`; `logLevel` (default `info`) is the least
 * level it writes, so a success writes nothing by default. Without one, `NODE_DEBUG=leaseq`
 * writes every line through `util.debuglog('leaseq')`.
 * With `jobTimeoutMs`, a handler still running that long is told (its signal aborts with a
 * `TimeoutError`) and its attempt fails with error type `timeout` once it settles, or after
 * `timeoutGraceMs` (default 5 s) while it still runs: its later outcome is then ignored, and its
 * slot stays taken until it settles.
 */
class Worker extends EventEmitter {
  #queues
  /**
   * The partitioned queue whose partitions `#queues` are, if given one: the core's runner over
   * it holds every partition when a handler is rate limited.
   * @type {import('../native').NativePartitioned | undefined}
   */
  #partitioned
  #handler
  /** @type {Map<string, (job: WorkerJob, signal: AbortSignal) => unknown> | null} */
  #byName = null
  /** @type {((job: WorkerJob, signal: AbortSignal) => unknown) | undefined} */
  #fallback
  #options
  /** @type {import('../native').NativeWorkerRun | null} */
  #run = null
  /** The jobs whose handlers run, by key. @type {Map<number, WorkerJob>} */
  #running = new Map()
  /** The handlers that may read their second argument (`wantsSignal`). @type {Set<Function>} */
  #signalled = new Set()
  /** Outcomes settled since the last flush: completed keys, their results (when kept), others. */
  /** @type {number[]} */
  #doneKeys = []
  /** @type {(Buffer | null)[]} */
  #doneResults = []
  /** @type {import('../native').WorkerOutcomeParts[]} */
  #others = []
  #flushPending = false
  #flushNow = () => this.#flush()
  /** @type {Promise<import('../native').WorkerReportParts> | null} */
  #done = null
  #stopRequested = 0
  #keepResults = true
  /** @type {[Record<string, (line: string) => void> | null, string | undefined]} */
  #logger

  /**
   * @param {import('./queue').Queue | import('./queue').Queue[] | import('./partitioned').PartitionedQueue} queue
   * @param {((job: WorkerJob, signal: AbortSignal) => unknown)
   *   | Record<string, (job: WorkerJob, signal: AbortSignal) => unknown>} handler
   * @param {Record<string, unknown>} [options]
   */
  constructor(queue, handler, options = {}) {
    super()
    // A PartitionedQueue: its partitions, asked by weighted round robin with equal weights
    // unless `weights` says otherwise (the core's Worker::partitioned).
    if (queue instanceof PartitionedQueue) {
      this.#partitioned = nativePartitioned(queue)
      const parts = queue.partitionQueues()
      if (parts.length > 1 && args.isOptions(options) && options.weights == null) {
        options = { ...options, weights: parts.map(() => 1) }
      }
      queue = parts
    }
    const queues = Array.isArray(queue) ? [...queue] : [queue]
    if (!queues.every((q) => q instanceof Queue)) {
      throw invalidArgument('queue', 'must be a Queue from Client#queue, or an array of them')
    }
    if (typeof handler !== 'function') {
      if (handler === null || typeof handler !== 'object' || Array.isArray(handler)) {
        throw invalidArgument('handler', 'must be a function, or an object of functions by item name')
      }
      // The names are the core's to judge when the runner starts (argument `handlers`).
      this.#byName = new Map()
      for (const [name, fn] of Object.entries(handler)) {
        if (typeof fn !== 'function') {
          throw invalidArgument('handlers', `the handler of the name ${JSON.stringify(name)} must be a function`)
        }
        this.#byName.set(name, fn)
      }
    }
    if (!args.isOptions(options)) throw invalidArgument('options', `must be an object, not ${args.describe(options)}`)
    for (const [key, value] of Object.entries(options)) {
      if (!OPTIONS.includes(key)) throw invalidArgument(key, `is not an option of Worker (${OPTIONS.join(', ')})`)
      if (value !== undefined && value !== null) OPTION_TYPES[key](key, value)
    }
    if (options.fallback !== undefined && options.fallback !== null) {
      if (typeof options.fallback !== 'function') throw invalidArgument('fallback', 'must be a function')
      if (!this.#byName) {
        throw invalidArgument('fallback', 'is for an object of handlers by name; a single handler function takes every job')
      }
      this.#fallback = /** @type {(job: WorkerJob, signal: AbortSignal) => unknown} */ (options.fallback)
    }
    this.#logger = loggerOf(options.logger, options.logLevel)
    this.#queues = queues
    this.#handler = handler
    for (const fn of [handler, ...(this.#byName?.values() ?? []), this.#fallback]) {
      if (typeof fn === 'function' && wantsSignal(fn)) this.#signalled.add(fn)
    }
    this.#options = options
  }

  /** Takes what waits in the runner's inbox: new jobs, then the keys of jobs told to stop. */
  #wake() {
    const run = /** @type {import('../native').NativeWorkerRun} */ (this.#run)
    const jobs = run.take()
    const keys = jobs.keys()
    const names = this.#byName ? jobs.names() : null
    for (let i = 0; i < keys.length; i++) this.#dispatch(jobs, i, keys[i], names ? names[i] : null)
    for (const key of run.told()) this.#running.get(key)?.[TOLD]()
  }

  /**
   * @param {import('../native').NativeWorkerJobs} jobs
   * @param {number} index
   * @param {number} key
   * @param {string | null | undefined} name
   */
  #dispatch(jobs, index, key, name) {
    const job = new WorkerJob(jobs, index)
    this.#running.set(key, job)
    // By name, else the fallback: the core hands over only jobs one of them takes.
    const handler = /** @type {Function} */ (
      this.#byName ? (this.#byName.get(name ?? '') ?? this.#fallback) : this.#handler
    )
    let result
    try {
      result = this.#signalled.has(handler) ? handler(job, job.signal) : handler(job)
    } catch (err) {
      this.#failed(key, err)
      return
    }
    if (result instanceof Promise) {
      result.then(
        (value) => this.#completed(key, value),
        (err) => this.#failed(key, err),
      )
    } else if (result !== null && (typeof result === 'object' || typeof result === 'function') && typeof result.then === 'function') {
      Promise.resolve(result).then(
        (value) => this.#completed(key, value),
        (err) => this.#failed(key, err),
      )
    } else {
      this.#completed(key, result)
    }
  }

  /**
   * A handler returned `result`: the job completes, with it as the result when results are
   * kept (encoded here; a value that cannot be fails the attempt with the encoding's error,
   * which the core words, never with a generic one).
   * @param {number} key @param {unknown} result
   */
  #completed(key, result) {
    this.#running.delete(key)
    let value = null
    if (this.#keepResults) {
      try {
        value = resultBuffer(result)
      } catch (err) {
        const [message, errorType] = errorParts(err)
        this.#settle({ key, kind: 'unencodable', message, errorType })
        return
      }
      this.#doneResults.push(value)
    }
    this.#doneKeys.push(key)
    this.#later()
  }

  /**
   * A handler threw `error` (or its promise rejected with it): what the error says is done
   * with the job.
   * @param {number} key @param {unknown} error
   */
  #failed(key, error) {
    this.#running.delete(key)
    if (error === undefined) error = new Error('undefined')
    if (error instanceof ReleaseJob) {
      this.#settle({ key, kind: 'release', delayMs: error.delayMs })
    } else if (error instanceof RateLimitedError) {
      this.#settle({ key, kind: error.group ? 'rateLimitedGroup' : 'rateLimited', delayMs: error.holdMs })
    } else if (error instanceof UnrecoverableError) {
      this.#settle({ key, kind: 'fail', message: error.message, errorType: error.name, retry: 'never', trace: errorTrace(error) ?? undefined })
    } else if (error instanceof RetryLaterError) {
      const trace = errorTrace(error) ?? undefined
      this.#settle({ key, kind: 'fail', message: error.message, errorType: error.name, delayMs: error.delayMs, trace })
    } else {
      const [message, errorType] = errorParts(error)
      this.#settle({ key, kind: 'fail', message, errorType, trace: errorTrace(error) ?? undefined })
    }
  }

  /** @param {import('../native').WorkerOutcomeParts} outcome */
  #settle(outcome) {
    this.#others.push(outcome)
    this.#later()
  }

  /** Sends the outcomes settled in this turn of the event loop together, once it ends. */
  #later() {
    if (this.#flushPending) return
    this.#flushPending = true
    setImmediate(this.#flushNow)
  }

  /** Sends every outcome waiting, in one native call. */
  #flush() {
    this.#flushPending = false
    const run = /** @type {import('../native').NativeWorkerRun} */ (this.#run)
    const keys = this.#doneKeys
    const others = this.#others
    if (keys.length === 0 && others.length === 0) return
    try {
      run.finish(keys, this.#keepResults ? this.#doneResults : null, others.length ? others : null)
    } catch {
      // A value JavaScript could not pass (a delay that is not a number, say): each outcome on
      // its own, and the one refused fails its job with the refusal.
      keys.forEach((key, i) => run.finish([key], this.#keepResults ? [this.#doneResults[i]] : null, null))
      for (const outcome of others) {
        try {
          run.finish([], null, [outcome])
        } catch (err) {
          const message = err instanceof Error ? err.message : String(err)
          run.finish([], null, [{ key: outcome.key, kind: 'fail', message, errorType: 'LeaseqError' }])
        }
      }
    }
    keys.length = 0
    this.#doneResults.length = 0
    others.length = 0
  }

  /** @param {import('../native').WorkerEventParts} e */
  #event(e) {
    switch (e.name) {
      case 'error':
        if (this.listenerCount('outage') === 0 && !this.#logger[0]) {
          console.warn(`leaseq runner: ${e.during} failed (${e.code}: ${e.message}); going on`)
        }
        this.emit('outage', { during: e.during, code: e.code, message: e.message })
        break
      case 'recovered':
        this.emit('recovered', { during: e.during })
        break
      default:
        this.emit(e.name, e.id, e)
    }
  }

  /**
   * Starts the runner; resolves with its report once it has stopped (after `close()`, or
   * SIGINT/SIGTERM with `handleSignals`, the default: a graceful stop, and a second signal
   * forces). Redis outages never reject it: the core rides through them. It rejects with
   * CLOSED when the client is closed, at once or (closed while it runs) once it has stopped:
   * close the runner before its client. Called again, it returns the same promise.
   * @returns {Promise<{completed: number, retried: number, dead: number, lost: number, released: number, timedOut: number}>}
   */
  run() {
    if (this.#done) return this.#done
    const o = this.#options
    /** @type {Record<string, unknown>} */
    const parts = {}
    for (const key of OPTIONS) {
      if (!JS_OPTIONS.includes(key) && o[key] !== undefined && o[key] !== null) {
        /** @type {any} */ (parts)[key] = o[key]
      }
    }
    if (this.#byName) {
      parts.handlerNames = [...this.#byName.keys()]
      parts.fallbackHandler = this.#fallback !== undefined
    }
    const [logger, logLevel] = this.#logger
    if (logLevel !== undefined) /** @type {any} */ (parts).logLevel = logLevel
    const onLog = logger
      ? (/** @type {import('../native').WorkerLogLine} */ l) => logger[l.level].call(logger, l.line)
      : undefined
    // A setting the core refuses throws its LeaseqError (INVALID_ARGUMENT naming the setting).
    this.#run = nativeSync(() =>
      native.startWorker(
        this.#queues.map((q) => nativeOf(q)),
        () => this.#wake(),
        (event) => this.#event(event),
        parts,
        onLog,
        this.#partitioned,
      ),
    )
    this.#keepResults = this.#run.keepResults
    if (this.#stopRequested) this.#stopRequested === 2 ? this.#run.force() : this.#run.stop()
    const run = this.#run
    // `completed` events cross from the core only while someone listens.
    const followCompleted = () => run.wantCompleted(this.listenerCount('completed') > 0)
    followCompleted()
    const onListeners = (/** @type {string | symbol} */ name) => {
      if (name === 'completed') process.nextTick(followCompleted)
    }
    this.on('newListener', onListeners).on('removeListener', onListeners)
    const onSignal = () => run.interrupt()
    const signals = o.handleSignals === false ? [] : ['SIGINT', 'SIGTERM']
    for (const sig of signals) process.on(sig, onSignal)
    // (The runner's end: its report, or a LeaseqError, such as a queue that is a partitioned
    // queue's base, refused as the runner starts.)
    this.#done = nativeAsync(() => run.wait()).finally(() => {
      for (const sig of signals) process.off(sig, onSignal)
      this.off('newListener', onListeners).off('removeListener', onListeners)
    })
    return this.#done
  }

  /**
   * Stops the runner gracefully (no more leases; running handlers get `shutdownTimeoutMs`, then
   * what still runs is released); `{ force: true }` cuts the wait short. Resolves once stopped.
   * @param {{force?: boolean}} [options]
   */
  async close(options) {
    const o = args.optionalOptions('options', options, CLOSE_OPTIONS)
    const force = o.force === undefined || o.force === null ? false : args.boolean('force', o.force)
    if (!this.#run) {
      this.#stopRequested = force ? 2 : 1
      return undefined
    }
    if (force) this.#run.force()
    else this.#run.stop()
    return this.#done
  }
}

module.exports = { RateLimitedError, ReleaseJob, RetryLaterError, UnrecoverableError, Worker, WorkerJob }
