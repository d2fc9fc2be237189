// @ts-check
'use strict'

const args = require('./args')
const { invalidArgument, nativeAsync, nativeSync } = require('./errors')
const { ITEM_OPTIONS, Item, nativeItem } = require('./item')
const { Lease, nativeLease, toBackoff, toLease } = require('./lease')
const { CONSTRUCT: FOLLOWER, EventFollower, toEvent } = require('./events')

/** Only `Client#queue` makes queues. */
const CONSTRUCT = Symbol('leaseq.Queue')

const LEASE_OPTIONS = Object.freeze(['ttlMs', 'timeoutMs', 'block'])
const BATCH_OPTIONS = Object.freeze(['ttlMs', 'timeoutMs'])
const TTL_OPTIONS = Object.freeze(['ttlMs'])
const COMPLETE_OPTIONS = Object.freeze(['result', 'keepResultForMs'])
const COMPLETE_AND_LEASE_OPTIONS = Object.freeze(['ttlMs', 'result', 'keepResultForMs'])
const FAIL_OPTIONS = Object.freeze(['errorType', 'retry', 'trace'])
const RETRY_OPTIONS = Object.freeze(['afterMs'])
const RELEASE_OPTIONS = Object.freeze(['delayMs'])
const WAIT_OPTIONS = Object.freeze(['timeoutMs'])
const ADD_OPTIONS = Object.freeze(['timeoutMs'])
const ADD_DATA_OPTIONS = Object.freeze([...ITEM_OPTIONS, ...ADD_OPTIONS])
const LIST_OPTIONS = Object.freeze(['start', 'count'])
const FIND_OPTIONS = Object.freeze(['name', 'errorType', 'start', 'count'])
const CONFIG_OPTIONS = Object.freeze([
  'maxAttempts',
  'backoff',
  'priority',
  'expiresAfterMs',
  'keepResultForMs',
  'deadMaxCount',
  'deadMaxAgeMs',
  'stats',
  'capacity',
  'rateLimit',
  'groupConcurrency',
  'groupRateLimit',
  'events',
  'eventsMaxLen',
  'eventsMaxAgeMs',
])
const EVENTS_OPTIONS = Object.freeze(['after'])
const READ_EVENTS_OPTIONS = Object.freeze(['after', 'count'])
/** What a schedule takes: when it fires, its missed-tick policy, and its item's data and
 * options: no id (each tick's item is `<name>@<tick ms>`) and no dependencies (a schedule
 * stores none); a delay or a time to run at reach the core, which refuses them (`item`). */
const SCHEDULE_WHEN = Object.freeze(['cron', 'tz', 'everyMs', 'missed', 'data'])
const SCHEDULE_ITEM_OPTIONS = Object.freeze(
  ITEM_OPTIONS.filter((o) => !['id', 'dependsOn', 'onDependencyFailure'].includes(o)),
)
const SCHEDULE_OPTIONS = Object.freeze([...SCHEDULE_WHEN, ...SCHEDULE_ITEM_OPTIONS])
const COMPLETION_FIELDS = Object.freeze(['lease', 'result', 'keepResultForMs'])
const FAILURE_FIELDS = Object.freeze(['lease', 'error', 'errorType', 'retry', 'trace'])
const WHOLE = 'a whole number'

/**
 * The item to add: an `Item`, or data and options to make one.
 * @param {unknown} itemOrData
 * @param {unknown} options
 */
function toItem(itemOrData, options) {
  if (itemOrData instanceof Item) {
    if (options !== undefined) {
      throw invalidArgument('options', 'belong to the Item (new Item(data, options)) when an Item is given')
    }
    return nativeItem(itemOrData)
  }
  if (!(itemOrData instanceof Uint8Array) && typeof itemOrData !== 'string') {
    throw invalidArgument(
      'item',
      `must be an Item, or data (a Buffer, a Uint8Array or a string), not ${args.describe(itemOrData)}`,
    )
  }
  const o = args.optionalOptions('options', options, ITEM_OPTIONS)
  return nativeItem(new Item(itemOrData, o))
}

/**
 * `add`'s arguments: the item (as `toItem` makes it) and the wait for room. With an `Item` the
 * options are `{ timeoutMs }`; with data they are the new item's options and `timeoutMs`.
 * @param {unknown} itemOrData
 * @param {unknown} options
 * @returns {[import('../native').NativeItem, number | undefined]}
 */
function addArgs(itemOrData, options) {
  const isData = itemOrData instanceof Uint8Array || typeof itemOrData === 'string'
  if (options === undefined || !(itemOrData instanceof Item || isData)) {
    return [toItem(itemOrData, options), undefined]
  }
  if (itemOrData instanceof Item) {
    if (args.isOptions(options) && Object.keys(options).some((k) => ITEM_OPTIONS.includes(k))) {
      throw invalidArgument(
        'options',
        'of the item belong to the Item (new Item(data, options)) when an Item is given; add takes only timeoutMs',
      )
    }
    const o = args.options('options', options, ADD_OPTIONS)
    return [nativeItem(itemOrData), args.optionalNumber('timeoutMs', o.timeoutMs)]
  }
  const { timeoutMs, ...itemOptions } = args.options('options', options, ADD_DATA_OPTIONS)
  return [toItem(itemOrData, itemOptions), args.optionalNumber('timeoutMs', timeoutMs)]
}

/**
 * @param {unknown} value
 * @param {string} name
 */
function batchItem(value, name) {
  return nativeItem(args.instance(name, value, Item))
}

/**
 * @param {unknown} value
 */
function requireLease(value) {
  return nativeLease(args.instance('lease', value, Lease))
}

/**
 * A Date from the addon's server-clock milliseconds.
 * @param {number | null | undefined} ms
 * @returns {Date | null}
 */
function date(ms) {
  return ms === undefined || ms === null ? null : new Date(ms)
}

/**
 * @template T
 * @param {T | null | undefined} value
 * @returns {T | null}
 */
function orNull(value) {
  return value === undefined ? null : value
}

/**
 * @param {import('../native').ResultParts | null | undefined} r
 * @returns {import('../index').JobResult | null}
 */
function toResult(r) {
  if (!r) return null
  return {
    data: r.data,
    attempts: r.attempts,
    finishedAt: new Date(r.finishedAt),
    addedAt: date(r.addedAt),
    name: r.name ?? null,
  }
}

/**
 * @param {import('../native').JobParts} j
 * @returns {import('../index').Job}
 */
function toJob(j) {
  return {
    id: j.id,
    idBytes: j.idBytes,
    state: /** @type {import('../index').JobState} */ (j.state),
    data: j.data,
    attempts: j.attempts,
    maxAttempts: orNull(j.maxAttempts),
    priority: j.priority,
    error: orNull(j.error),
    errorType: orNull(j.errorType),
    trace: orNull(j.trace),
    deadReason: orNull(j.deadReason),
    progress: orNull(j.progress),
    result: toResult(j.result),
    addedAt: date(j.addedAt),
    dueAt: date(j.dueAt),
    leasedAt: date(j.leasedAt),
    leaseExpiresAt: date(j.leaseExpiresAt),
    finishedAt: date(j.finishedAt),
    leaseTtlMs: orNull(j.leaseTtlMs),
    cancelled: j.cancelled,
    group: orNull(j.group),
    name: orNull(j.name),
    dependsOn: j.dependsOn,
    onDependencyFailure: /** @type {import('../index').OnDependencyFailure | null} */ (
      orNull(j.onDependencyFailure)
    ),
    partition: orNull(j.partition),
  }
}

/**
 * @param {import('../native').ConfigParts} c
 * @returns {import('../index').QueueConfig}
 */
function toConfig(c) {
  /** @type {import('../index').QueueConfig} */
  const out = {}
  if (c.maxAttempts != null) out.maxAttempts = c.maxAttempts
  if (c.backoff != null) out.backoff = toBackoff(c.backoff)
  if (c.priority != null) out.priority = c.priority
  if (c.expiresAfterMs != null) out.expiresAfterMs = c.expiresAfterMs
  if (c.keepResultForMs != null) out.keepResultForMs = c.keepResultForMs
  if (c.deadMaxCount != null) out.deadMaxCount = c.deadMaxCount
  if (c.deadMaxAgeMs != null) out.deadMaxAgeMs = c.deadMaxAgeMs
  if (c.stats != null) out.stats = c.stats
  if (c.capacity != null) out.capacity = c.capacity
  if (c.rateLimit != null) out.rateLimit = { max: c.rateLimit.max, perMs: c.rateLimit.perMs }
  if (c.groupConcurrency != null) out.groupConcurrency = c.groupConcurrency
  if (c.groupRateLimit != null) {
    out.groupRateLimit = { max: c.groupRateLimit.max, perMs: c.groupRateLimit.perMs }
  }
  if (c.events != null) out.events = c.events
  if (c.eventsMaxLen != null) out.eventsMaxLen = c.eventsMaxLen
  if (c.eventsMaxAgeMs != null) out.eventsMaxAgeMs = c.eventsMaxAgeMs
  return out
}

/**
 * `fail`'s `retry` option as the addon's two arguments.
 * @param {unknown} retry
 * @returns {[string | undefined, number | undefined]}
 */
function retryParts(retry) {
  if (retry === undefined) return [undefined, undefined]
  if (retry === 'default' || retry === 'never') return [retry, undefined]
  if (args.isOptions(retry)) {
    const o = args.options('retry', retry, RETRY_OPTIONS)
    return [undefined, args.number('afterMs', o.afterMs)]
  }
  throw invalidArgument('retry', `must be 'default', 'never' or { afterMs }, not ${args.describe(retry)}`)
}

/**
 * `fail`'s error and type: a message, or an Error (its message, its name as the default type).
 * @param {unknown} error
 * @param {unknown} errorType
 * @returns {[string, string | undefined]}
 */
function errorParts(error, errorType) {
  const type = errorType === undefined ? undefined : args.string('errorType', errorType)
  if (error instanceof Error) return [String(error.message), type ?? String(error.name)]
  return [args.string('error', error), type]
}

/**
 * `fail`'s trace: the one given, else an Error's `stack`, else none.
 * @param {unknown} error
 * @param {unknown} trace
 * @returns {string | undefined}
 */
function traceOf(error, trace) {
  if (trace !== undefined && trace !== null) return args.string('trace', trace)
  if (error instanceof Error && typeof error.stack === 'string') return error.stack
  return undefined
}

/**
 * A batch's completions as the addon's three parallel lists.
 * @param {unknown} completions
 * @returns {[import('../native').NativeLease[], Array<Uint8Array | undefined>, Array<number | undefined>]}
 */
function completionParts(completions) {
  /** @type {import('../native').NativeLease[]} */
  const leases = []
  /** @type {Array<Uint8Array | undefined>} */
  const results = []
  /** @type {Array<number | undefined>} */
  const keeps = []
  args.array('completions', completions, (value, name) => {
    if (value instanceof Lease) {
      leases.push(nativeLease(value))
      results.push(undefined)
      keeps.push(undefined)
      return
    }
    const c = args.options(name, value, COMPLETION_FIELDS)
    leases.push(requireLease(c.lease))
    results.push(c.result === undefined ? undefined : args.bytesNow('result', c.result))
    keeps.push(args.optionalNumber('keepResultForMs', c.keepResultForMs))
  })
  return [leases, results, keeps]
}

/**
 * `renewBatch`'s arguments: the leases and the TTL (`{ ttlMs }`).
 * @param {unknown} leases
 * @param {unknown} options
 * @returns {[import('../native').NativeLease[], number | undefined]}
 */
function renewBatchArgs(leases, options) {
  const natives = args.array('leases', leases, (v, name) => nativeLease(args.instance(name, v, Lease)))
  const o = args.optionalOptions('options', options, TTL_OPTIONS)
  return [natives, args.optionalNumber('ttlMs', o.ttlMs)]
}

/**
 * `failBatch`'s failures as the addon's two parallel lists: each failure's parts (as `fail`
 * takes them) and its lease.
 * @param {unknown} failures
 * @returns {[import('../native').FailureParts[], import('../native').NativeLease[]]}
 */
function failureParts(failures) {
  /** @type {import('../native').NativeLease[]} */
  const leases = []
  const parts = args.array('failures', failures, (value, name) => {
    const f = args.options(name, value, FAILURE_FIELDS)
    leases.push(requireLease(f.lease))
    const [message, errorType] = errorParts(f.error, f.errorType)
    const [retryMode, retryAfterMs] = retryParts(f.retry)
    return { error: message, errorType, retryMode, retryAfterMs, trace: traceOf(f.error, f.trace) }
  })
  return [parts, leases]
}

/**
 * `addBatch`'s arguments: the items and the wait for room (`{ timeoutMs }`).
 * @param {unknown} items
 * @param {unknown} options
 * @returns {[import('../native').NativeItem[], number | undefined]}
 */
function addBatchArgs(items, options) {
  const natives = args.array('items', items, batchItem)
  const o = args.optionalOptions('options', options, ADD_OPTIONS)
  return [natives, args.optionalNumber('timeoutMs', o.timeoutMs)]
}

/**
 * `addFlow`'s arguments: the parent, and its children as `flowParts` lays them out.
 * @param {unknown} parent
 * @param {unknown} children
 * @returns {[import('../native').NativeItem, import('../native').NativeItem[], number[]]}
 */
function addFlowArgs(parent, children) {
  const p = nativeItem(args.instance('parent', parent, Item))
  return [p, ...flowParts(children)]
}

/**
 * `fail`'s arguments as the addon takes them: the lease, the message, its type, the retry
 * (mode, delay) and the trace.
 * @param {unknown} lease
 * @param {unknown} error
 * @param {unknown} options
 * @returns {[import('../native').NativeLease, string, string | undefined, string | undefined, number | undefined, string | undefined]}
 */
function failArgs(lease, error, options) {
  const l = requireLease(lease)
  const o = args.optionalOptions('options', options, FAIL_OPTIONS)
  const [message, errorType] = errorParts(error, o.errorType)
  const [mode, afterMs] = retryParts(o.retry)
  return [l, message, errorType, mode, afterMs, traceOf(error, o.trace)]
}

/**
 * The `n` of `deadRequeueOldest` and `deadPurge`: a whole number, or undefined (all).
 * @param {unknown} n
 * @returns {number | undefined}
 */
function deadCount(n) {
  return args.optionalNumber('n', n, WHOLE)
}

/**
 * The ids of `deadRequeue` and `deadRequeueEach`: an array of ids (strings or bytes).
 * @param {unknown} ids
 * @returns {Buffer[]}
 */
function deadIds(ids) {
  return args.array('ids', ids, (v, name) => args.id(name, v))
}

/**
 * `dependencies`' answer as JavaScript receives it.
 * @param {import('../native').DependenciesParts} d
 * @returns {import('../index').Dependencies}
 */
function toDependencies(d) {
  return {
    dependsOn: d.dependsOn,
    onDependencyFailure: /** @type {import('../index').OnDependencyFailure | null} */ (
      orNull(d.onDependencyFailure)
    ),
    pending: d.pending,
    dependantsCount: d.dependantsCount,
    dependants: d.dependants,
  }
}

/**
 * `dependencyResults`' answer as JavaScript receives it.
 * @param {import('../native').DependencyResultParts[]} results
 * @returns {import('../index').DependencyResult[]}
 */
function toDependencyResults(results) {
  return results.map((r) => ({ id: r.id, result: orNull(r.result) }))
}

/**
 * `countsByName`'s answer as JavaScript receives it: null while the counters are off.
 * @param {import('../native').NameCountsParts[] | null | undefined} counts
 * @returns {import('../index').NameCounts[] | null}
 */
function toNameCounts(counts) {
  if (counts === null || counts === undefined) return null
  return counts.map((c) => ({ name: c.name, completed: c.completed, failed: c.failed, dead: c.dead }))
}

/**
 * `setConfig`'s configuration as the addon takes it.
 * @param {unknown} config
 * @returns {import('../native').ConfigParts}
 */
function configParts(config) {
  const o = args.options('config', config, CONFIG_OPTIONS)
  return {
    maxAttempts: args.optionalNumber('maxAttempts', o.maxAttempts, WHOLE),
    backoff: o.backoff === undefined ? undefined : args.backoff('backoff', o.backoff),
    priority: args.optionalNumber('priority', o.priority, WHOLE),
    expiresAfterMs: args.optionalNumber('expiresAfterMs', o.expiresAfterMs),
    keepResultForMs: args.optionalNumber('keepResultForMs', o.keepResultForMs),
    deadMaxCount: args.optionalNumber('deadMaxCount', o.deadMaxCount, WHOLE),
    deadMaxAgeMs: args.optionalNumber('deadMaxAgeMs', o.deadMaxAgeMs),
    stats: o.stats === undefined ? undefined : args.boolean('stats', o.stats),
    capacity: args.optionalNumber('capacity', o.capacity, WHOLE),
    rateLimit: o.rateLimit === undefined ? undefined : args.rateLimit('rateLimit', o.rateLimit),
    groupConcurrency: args.optionalNumber('groupConcurrency', o.groupConcurrency, WHOLE),
    groupRateLimit:
      o.groupRateLimit === undefined ? undefined : args.rateLimit('groupRateLimit', o.groupRateLimit),
    events: o.events === undefined ? undefined : args.boolean('events', o.events),
    eventsMaxLen: args.optionalNumber('eventsMaxLen', o.eventsMaxLen, WHOLE),
    eventsMaxAgeMs: args.optionalNumber('eventsMaxAgeMs', o.eventsMaxAgeMs),
  }
}

/**
 * One queue: the keys under one prefix. Every method returns a Promise; a bad argument rejects
 * it with a `LeaseqError` (code `INVALID_ARGUMENT`) before anything is sent.
 */
/**
 * A flow's children as the addon takes them: every item of the tree, each before its own
 * children, and the index of each one's parent in that list (-1: a child of the top).
 * @param {unknown} children
 * @returns {[import('../native').NativeItem[], number[]]}
 */
function flowParts(children) {
  /** @type {import('../native').NativeItem[]} */
  const items = []
  /** @type {number[]} */
  const parents = []
  /**
   * @param {unknown} list
   * @param {string} name
   * @param {number} parent
   */
  const walk = (list, name, parent) => {
    args.array(name, list, (value, at) => {
      if (value instanceof Item) {
        items.push(nativeItem(value))
        parents.push(parent)
        return
      }
      const o = args.options(at, value, FLOW_FIELDS)
      items.push(nativeItem(args.instance(`${at}.item`, o.item, Item)))
      parents.push(parent)
      if (o.children !== undefined) walk(o.children, `${at}.children`, items.length - 1)
    })
  }
  walk(children, 'children', -1)
  return [items, parents]
}

const FLOW_FIELDS = Object.freeze(['item', 'children'])

/**
 * `events`' option `after`, checked: where a follower starts (undefined: now).
 * @param {unknown} options
 * @returns {string | undefined}
 */
function followerAfter(options) {
  const o = args.optionalOptions('options', options, EVENTS_OPTIONS)
  return o.after === undefined ? undefined : args.string('after', o.after)
}

/**
 * `upsertSchedule`'s arguments as the addon takes them: the name, when the schedule fires, and
 * the item each tick adds.
 * @param {unknown} name
 * @param {unknown} schedule
 * @returns {[string, import('../native').ScheduleParts, import('../native').NativeItem]}
 */
function scheduleArgs(name, schedule) {
  const n = args.string('name', name)
  const o = args.options('schedule', schedule, SCHEDULE_OPTIONS)
  /** @type {import('../native').ScheduleParts} */
  const parts = {
    cron: o.cron === undefined ? undefined : args.string('cron', o.cron),
    tz: o.tz === undefined ? undefined : args.string('tz', o.tz),
    everyMs: args.optionalNumber('everyMs', o.everyMs),
    missed: o.missed === undefined ? undefined : args.string('missed', o.missed),
  }
  /** @type {Record<string, unknown>} */
  const itemOptions = {}
  for (const key of SCHEDULE_ITEM_OPTIONS) if (o[key] !== undefined) itemOptions[key] = o[key]
  const item = nativeItem(new Item(o.data === undefined ? '' : args.bytesNow('data', o.data), itemOptions))
  return [n, parts, item]
}

/**
 * A page of schedules from the addon's.
 * @param {import('../native').SchedulePageParts} page
 * @returns {import('../index').SchedulePage}
 */
function toSchedulePage(page) {
  return { now: new Date(page.now), total: page.total, schedules: page.schedules.map(toScheduleInfo) }
}

/**
 * What a fire did, from the addon's.
 * @param {import('../native').FireReportParts} r
 * @returns {import('../index').FireReport}
 */
function toFireReport(r) {
  return {
    due: r.due,
    fired: r.fired,
    skipped: r.skipped,
    lostRaces: r.lostRaces,
    unreadable: r.unreadable,
    nextDueInMs: orNull(r.nextDueInMs),
  }
}

/**
 * A schedule from the addon's.
 * @param {import('../native').ScheduleInfoParts} i
 * @returns {import('../index').ScheduleInfo}
 */
function toScheduleInfo(i) {
  const s = i.schedule
  return {
    name: i.name,
    schedule:
      s == null
        ? null
        : {
            cron: orNull(s.cron),
            tz: orNull(s.tz),
            everyMs: orNull(s.everyMs),
            missed: /** @type {import('../index').Missed} */ (s.missed ?? 'skip'),
          },
    data: orNull(i.data),
    version: i.version,
    next: date(i.next),
    from: new Date(i.from),
    fired: i.fired,
    skipped: i.skipped,
    lastTick: date(i.lastTick),
    created: new Date(i.created),
    updated: new Date(i.updated),
  }
}

/**
 * One line of `list` or `find`, from the addon's.
 * @param {any} e
 * @returns {import('../index').ListEntry}
 */
function toEntry(e) {
  return {
    id: e.id,
    idBytes: e.idBytes,
    at: date(e.at),
    attempts: e.attempts,
    error: orNull(e.error),
    errorType: orNull(e.errorType),
    name: orNull(e.name),
    reason: orNull(e.reason),
    partition: orNull(e.partition),
  }
}

/**
 * `find`'s arguments: the state, and the name, error type, start and count of its options.
 * @param {unknown} state
 * @param {unknown} options
 * @returns {[string, string | undefined, string | undefined, number | undefined, number | undefined]}
 */
function findArgs(state, options) {
  const s = args.string('state', state)
  const o = args.optionalOptions('options', options, FIND_OPTIONS)
  const name = o.name === undefined ? undefined : args.string('name', o.name)
  const errorType = o.errorType === undefined ? undefined : args.string('errorType', o.errorType)
  const start = args.optionalNumber('start', o.start, WHOLE)
  const count = args.optionalNumber('count', o.count, WHOLE)
  return [s, name, errorType, start, count]
}

/**
 * What `find` found, from the addon's.
 * @param {import('../native').FoundParts} found
 * @returns {import('../index').Found}
 */
function toFound(found) {
  return { entries: found.entries.map(toEntry), next: orNull(found.next), examined: found.examined }
}

/**
 * A queue's figures, from the addon's.
 * @param {import('../native').StatsParts} s
 * @returns {import('../index').Stats}
 */
function toStats(s) {
  return {
    waiting: s.waiting,
    delayed: s.delayed,
    leased: s.leased,
    dead: s.dead,
    processing: s.processing,
    blocked: s.blocked,
    schedules: s.schedules,
    oldestWaitingMs: orNull(s.oldestWaitingMs),
    now: new Date(s.now),
    minutes: orNull(s.minutes),
    lastHour: orNull(s.lastHour),
    paused: s.paused,
    capacity: orNull(s.capacity),
    rateLimitedForMs: orNull(s.rateLimitedForMs),
  }
}

/** @type {(queue: Queue) => import('../native').NativeQueue} */
let nativeOf

class Queue {
  /** @type {import('../native').NativeQueue} */
  #native

  static {
    nativeOf = (queue) => queue.#native
  }

  /**
   * @param {symbol} key
   * @param {import('../native').NativeQueue} native
   */
  constructor(key, native) {
    if (key !== CONSTRUCT) throw new TypeError('queues come from Client#queue, not from new Queue()')
    this.#native = native
  }

  /** The prefix of this queue's keys. */
  get prefix() {
    return this.#native.prefix
  }

  /**
   * Adds an item unless an item with its id exists. Resolves to whether it was added. A full
   * bounded queue rejects with code `FULL` (nothing added), after waiting up to `timeoutMs`
   * for room when it is given (`Infinity`: no limit); the wait leaves the event loop free.
   * @param {Item | Buffer | Uint8Array | string} item an `Item`, or data for a new one
   * @param {import('../index').AddOptions | import('../index').AddDataOptions} [options]
   *   `timeoutMs`; with data also the new item's id and options
   * @returns {Promise<boolean>}
   */
  async add(item, options) {
    const [n, timeoutMs] = addArgs(item, options)
    return nativeAsync(() => this.#native.add(n, timeoutMs))
  }

  /**
   * Adds an item without checking whether its id exists: for fresh (random) ids only.
   * @param {Item | Buffer | Uint8Array | string} item
   * @param {import('../index').ItemOptions} [options]
   * @returns {Promise<void>}
   */
  async addUnique(item, options) {
    const n = toItem(item, options)
    return nativeAsync(() => this.#native.addUnique(n))
  }

  /**
   * Adds every item whose id does not exist yet, each with its own options, in one round trip.
   * Resolves to how many were added. A bounded queue takes the batch whole or not at all
   * (`FULL`), waiting up to `timeoutMs` for room as `add` does.
   * @param {Item[]} items
   * @param {import('../index').AddOptions} [options]
   * @returns {Promise<number>}
   */
  async addBatch(items, options) {
    const [natives, timeoutMs] = addBatchArgs(items, options)
    return nativeAsync(() => this.#native.addBatch(natives, timeoutMs))
  }

  /**
   * Adds `parent` and its children in one call (at most 1000 items in all): the children
   * first, then the parent, blocked until every child completed. A child is an `Item`, or
   * `{ item, children }` with children of its own. Resolves to how many were added (an id that
   * exists is not added again, and counts as the dependency).
   * @param {Item} parent
   * @param {Array<Item | import('../index').FlowChild>} children
   * @returns {Promise<number>}
   */
  async addFlow(parent, children) {
    const [p, items, parents] = addFlowArgs(parent, children)
    return nativeAsync(() => this.#native.addFlow(p, items, parents))
  }

  /**
   * What item `id` waits for (its dependencies, those still pending) and what waits for it.
   * @param {string | Uint8Array} id
   * @returns {Promise<import('../index').Dependencies>}
   */
  async dependencies(id) {
    const i = args.id('id', id)
    return toDependencies(await nativeAsync(() => this.#native.dependencies(i)))
  }

  /**
   * The kept results of the items `id` was added to wait for, in order: a flow's parent reads
   * its children's results so. A result is null when none is kept.
   * @param {string | Uint8Array} id
   * @returns {Promise<import('../index').DependencyResult[]>}
   */
  async dependencyResults(id) {
    const i = args.id('id', id)
    return toDependencyResults(await nativeAsync(() => this.#native.dependencyResults(i)))
  }

  /**
   * Stores the recurring job `name`, new or changed (a change never fires a tick twice nor
   * skips one): `{ cron, tz? }` or `{ everyMs }`, `missed` (`'skip'`, `'once'` or
   * `'all:<n>'`), and the data and options of the item each tick adds. Resolves to whether it
   * is new. Runners fire schedules; `fireDueSchedules` does where none runs.
   * @param {string} name
   * @param {import('../index').ScheduleOptions} schedule
   * @returns {Promise<boolean>}
   */
  async upsertSchedule(name, schedule) {
    const [n, parts, item] = scheduleArgs(name, schedule)
    return nativeAsync(() => this.#native.upsertSchedule(n, parts, item))
  }

  /**
   * Removes the recurring job `name` (the items it added stay). Resolves to whether there was
   * one.
   * @param {string} name
   * @returns {Promise<boolean>}
   */
  async removeSchedule(name) {
    const n = args.string('name', name)
    return nativeAsync(() => this.#native.removeSchedule(n))
  }

  /**
   * The recurring job `name` with its next fire time, or null.
   * @param {string} name
   * @returns {Promise<import('../index').ScheduleInfo | null>}
   */
  async getSchedule(name) {
    const n = args.string('name', name)
    const info = await nativeAsync(() => this.#native.getSchedule(n))
    return info ? toScheduleInfo(info) : null
  }

  /**
   * A page of the queue's recurring jobs by next fire time, and how many there are.
   * @param {{ start?: number, count?: number }} [options]
   * @returns {Promise<import('../index').SchedulePage>}
   */
  async schedules(options) {
    const o = args.optionalOptions('options', options, LIST_OPTIONS)
    const start = args.optionalNumber('start', o.start, WHOLE)
    const count = args.optionalNumber('count', o.count, WHOLE)
    return toSchedulePage(await nativeAsync(() => this.#native.schedules(start, count)))
  }

  /**
   * Fires the due recurring jobs once, where no runner does. Resolves to what it did.
   * @returns {Promise<import('../index').FireReport>}
   */
  async fireDueSchedules() {
    return toFireReport(await nativeAsync(() => this.#native.fireDueSchedules()))
  }

  /**
   * One page of the event stream, without waiting: at most `count` entries after the entry id
   * `after` (left out: from now, so none), oldest first, a `gap` entry first when some were
   * trimmed away; with the stream's last id and whether the queue's events are on.
   * @param {{ after?: string, count?: number }} [options]
   * @returns {Promise<import('../index').EventsPage>}
   */
  async readEvents(options) {
    const o = args.optionalOptions('options', options, READ_EVENTS_OPTIONS)
    const after = o.after === undefined ? undefined : args.string('after', o.after)
    const count = args.optionalNumber('count', o.count, WHOLE)
    const page = await nativeAsync(() => this.#native.readEvents(after, count))
    return { events: page.events.map(toEvent), last: page.last, on: page.on }
  }

  /**
   * Follows the event stream from now, or resuming after the entry id `after`: an
   * `EventFollower`, both an async iterator and an EventEmitter. Its reads wait off the event
   * loop; close it (or break out of the loop) when done. A refused `after` rejects its
   * `ready`, its first read, or comes as `'error'`.
   * @param {{ after?: string }} [options]
   * @returns {EventFollower}
   */
  events(options) {
    const after = followerAfter(options)
    return new EventFollower(FOLLOWER, () => this.#native.events(after))
  }

  /**
   * Leases the next item (highest priority first). Without `timeoutMs` it resolves at once (to
   * null when nothing is waiting); with it, it waits server-side up to that long (`Infinity`:
   * until an item comes or the client closes).
   * @param {import('../index').LeaseOptions} [options]
   * @returns {Promise<Lease | null>}
   */
  async lease(options) {
    const o = args.optionalOptions('options', options, LEASE_OPTIONS)
    const ttlMs = args.optionalNumber('ttlMs', o.ttlMs)
    const block = o.block === undefined ? undefined : args.boolean('block', o.block)
    const timeoutMs = args.optionalNumber('timeoutMs', o.timeoutMs)
    return toLease(await nativeAsync(() => this.#native.lease(ttlMs, block, timeoutMs)))
  }

  /**
   * Leases up to `n` items in one round trip; waits as `lease` does while none is there.
   * @param {number} n
   * @param {import('../index').LeaseBatchOptions} [options]
   * @returns {Promise<Lease[]>}
   */
  async leaseBatch(n, options) {
    const count = args.number('n', n, WHOLE)
    const o = args.optionalOptions('options', options, BATCH_OPTIONS)
    const ttlMs = args.optionalNumber('ttlMs', o.ttlMs)
    const timeoutMs = args.optionalNumber('timeoutMs', o.timeoutMs)
    const leased = await nativeAsync(() => this.#native.leaseBatch(count, ttlMs, timeoutMs))
    return leased.map((parts) => /** @type {Lease} */ (toLease(parts)))
  }

  /**
   * Completes the leased item, keeping `result` (if given) for `result`/`waitResult`. Resolves
   * to true for exactly one caller per incarnation of the item.
   * @param {Lease} lease
   * @param {import('../index').CompleteOptions} [options]
   * @returns {Promise<boolean>}
   */
  async complete(lease, options) {
    const l = requireLease(lease)
    const o = args.optionalOptions('options', options, COMPLETE_OPTIONS)
    const result = o.result === undefined ? undefined : args.bytes('result', o.result)
    const keep = args.optionalNumber('keepResultForMs', o.keepResultForMs)
    return nativeAsync(() => this.#native.complete(l, result, keep))
  }

  /**
   * Completes `lease` (keeping `result`, if given, as `complete` does) and leases the next item
   * in the same round trip, without waiting.
   * @param {Lease} lease
   * @param {import('../index').CompleteAndLeaseOptions} [options]
   * @returns {Promise<{ completed: boolean, next: Lease | null }>}
   */
  async completeAndLease(lease, options) {
    const l = requireLease(lease)
    const o = args.optionalOptions('options', options, COMPLETE_AND_LEASE_OPTIONS)
    const ttlMs = args.optionalNumber('ttlMs', o.ttlMs)
    const kept = o.result === undefined ? undefined : args.bytes('result', o.result)
    const keep = args.optionalNumber('keepResultForMs', o.keepResultForMs)
    const result = await nativeAsync(() => this.#native.completeAndLease(l, ttlMs, kept, keep))
    return { completed: result.completed, next: toLease(result.next) }
  }

  /**
   * Extends the lease to `ttlMs` from now, only while it is still this holder's. Resolves to
   * false when it is not (`renewOutcome` says why).
   * @param {Lease} lease
   * @param {{ ttlMs?: number } | number} [options] the options, or `ttlMs` alone
   * @returns {Promise<boolean>}
   */
  async renew(lease, options) {
    const l = requireLease(lease)
    const ttlMs = renewTtl(options)
    return nativeAsync(() => this.#native.renew(l, ttlMs))
  }

  /**
   * Like `renew`, resolving to what it found: `'renewed'`, or why not.
   * @param {Lease} lease
   * @param {{ ttlMs?: number } | number} [options]
   * @returns {Promise<import('../index').RenewOutcome>}
   */
  async renewOutcome(lease, options) {
    const l = requireLease(lease)
    const ttlMs = renewTtl(options)
    const outcome = await nativeAsync(() => this.#native.renewOutcome(l, ttlMs))
    return /** @type {import('../index').RenewOutcome} */ (outcome)
  }

  /**
   * Records a failed attempt. The item retries after its backoff (or `retry: { afterMs }`)
   * while it has attempts left, else (or with `retry: 'never'`) it is dead. `trace` (default:
   * an Error's `stack`; at most 16 KiB kept) is kept with the item, shown by `get`.
   * @param {Lease} lease
   * @param {string | Error} error a message, or an Error (its message; its name is the
   *   default `errorType`)
   * @param {import('../index').FailOptions} [options]
   * @returns {Promise<import('../index').FailOutcome>}
   */
  async fail(lease, error, options) {
    const a = failArgs(lease, error, options)
    const outcome = await nativeAsync(() => this.#native.fail(...a))
    return /** @type {import('../index').FailOutcome} */ (outcome)
  }

  /**
   * Hands the item back without counting a failure: waiting again now, or after `delayMs`.
   * @param {Lease} lease
   * @param {{ delayMs?: number }} [options]
   * @returns {Promise<boolean>}
   */
  async release(lease, options) {
    const l = requireLease(lease)
    const o = args.optionalOptions('options', options, RELEASE_OPTIONS)
    const delayMs = args.optionalNumber('delayMs', o.delayMs)
    return nativeAsync(() => this.#native.release(l, delayMs))
  }

  /**
   * Stores a small progress value (at most 64 KiB) on the leased item, shown by `get`.
   * @param {Lease} lease
   * @param {Buffer | Uint8Array | string} value
   * @returns {Promise<boolean>}
   */
  async progress(lease, value) {
    const l = requireLease(lease)
    const v = args.bytes('value', value)
    return nativeAsync(() => this.#native.progress(l, v))
  }

  /**
   * The lease whose parts (`lease.id`, `lease.token`, `lease.incarnation`, `lease.attempt`)
   * another process kept, to finish it here: `complete`, `fail`, `release`, `renew` and
   * `progress` take it as they take a lease from `lease`. Sends nothing, so it returns the
   * Lease itself (not a Promise) and throws on a bad part. Its `data` is empty, and its
   * `maxAttempts` and `backoff` are the defaults, not the item's (parts do not carry them):
   * `fail` still applies the item's max attempts, but retries after the default backoff.
   * @param {string} id
   * @param {string} token
   * @param {string} incarnation
   * @param {number} attempt
   * @returns {Lease}
   */
  leaseFromParts(id, token, incarnation, attempt) {
    const i = args.string('id', id)
    const t = args.string('token', token)
    const inc = args.string('incarnation', incarnation)
    const n = args.number('attempt', attempt, WHOLE)
    return /** @type {Lease} */ (toLease(nativeSync(() => this.#native.leaseFromParts(i, t, inc, n))))
  }

  /**
   * The result kept for item `id` (a string, or a Buffer for an id that is not UTF-8), or null.
   * @param {string | Uint8Array} id
   * @returns {Promise<import('../index').JobResult | null>}
   */
  async result(id) {
    const i = args.id('id', id)
    return toResult(await nativeAsync(() => this.#native.result(i)))
  }

  /**
   * Waits up to `timeoutMs` for item `id`'s result, server-side (`Infinity`: until it comes or
   * the client is closed; 0: only reads it); null if none came. A job that dies rejects with
   * code `DEAD` within a second.
   * @param {string | Uint8Array} id
   * @param {number | { timeoutMs: number }} timeoutMs the timeout, or `{ timeoutMs }`
   * @returns {Promise<import('../index').JobResult | null>}
   */
  async waitResult(id, timeoutMs) {
    const i = args.id('id', id)
    const timeout = waitTimeout(timeoutMs)
    return toResult(await nativeAsync(() => this.#native.waitResult(i, timeout)))
  }

  /**
   * Everything known about item `id` (a string, or a Buffer for an id that is not UTF-8), or
   * null.
   * @param {string | Uint8Array} id
   * @returns {Promise<import('../index').Job | null>}
   */
  async get(id) {
    const i = args.id('id', id)
    const job = await nativeAsync(() => this.#native.get(i))
    return job ? toJob(job) : null
  }

  /**
   * A page of the items in `state`.
   * @param {import('../index').ListState} state
   * @param {{ start?: number, count?: number }} [options]
   * @returns {Promise<import('../index').ListEntry[]>}
   */
  async list(state, options) {
    const s = args.string('state', state)
    const o = args.optionalOptions('options', options, LIST_OPTIONS)
    const start = args.optionalNumber('start', o.start, WHOLE)
    const count = args.optionalNumber('count', o.count, WHOLE)
    const entries = await nativeAsync(() => this.#native.list(s, start, count))
    return entries.map(toEntry)
  }

  /**
   * The items of `state` with a name or an error type, looking at most at 1000 positions from
   * `start` and resolving to at most `count` matches, with where the next call goes on.
   * @param {import('../index').ListState} state
   * @param {{ name?: string, errorType?: string, start?: number, count?: number }} [options]
   * @returns {Promise<import('../index').Found>}
   */
  async find(state, options) {
    const a = findArgs(state, options)
    return toFound(await nativeAsync(() => this.#native.find(...a)))
  }

  /**
   * Makes the delayed item `id` (a string or a Buffer) wait now, at its priority (or in its
   * group), as if it were due. Resolves to whether it was delayed.
   * @param {string | Uint8Array} id
   * @returns {Promise<boolean>}
   */
  async promote(id) {
    const i = args.id('id', id)
    return nativeAsync(() => this.#native.promote(i))
  }

  /**
   * How many items are in `state`.
   * @param {import('../index').ListState} state
   * @returns {Promise<number>}
   */
  async count(state) {
    const s = args.string('state', state)
    return nativeAsync(() => this.#native.count(s))
  }

  /**
   * Cancels item `id` (a string or a Buffer). Resolves to the state it was in, or null when
   * there was none.
   * @param {string | Uint8Array} id
   * @returns {Promise<import('../index').JobState | null>}
   */
  async cancel(id) {
    const i = args.id('id', id)
    const was = await nativeAsync(() => this.#native.cancel(i))
    return /** @type {import('../index').JobState | null} */ (orNull(was))
  }

  /**
   * Counts per state, the oldest waiting item's age, and per-minute counters (`minutes` and
   * `lastHour` are null while the queue's counters are off: `setConfig({ stats: true })`).
   * @returns {Promise<import('../index').Stats>}
   */
  async stats() {
    return toStats(await nativeAsync(() => this.#native.stats()))
  }

  /**
   * For each item name (`ItemOptions#name`) met in the last 60 minutes, how many of its jobs
   * completed, failed (attempts, retried or not) and went dead, sorted by name. Null while the
   * queue's counters are off (`setConfig({ stats: true })` turns them on): nothing is counted
   * then. Each minute counts at most 300 name-and-outcome pairs, and at most 1000 names are
   * returned.
   * @returns {Promise<import('../index').NameCounts[] | null>}
   */
  async countsByName() {
    return toNameCounts(await nativeAsync(() => this.#native.countsByName()))
  }

  /**
   * Pauses the queue: nothing is leased from it (by any client) until `resume`; adds go on.
   * Resolves to whether it was running.
   * @returns {Promise<boolean>}
   */
  async pause() {
    return nativeAsync(() => this.#native.pause())
  }

  /**
   * Resumes a paused queue: waiting leases and runners wake at once. Resolves to whether it
   * was paused.
   * @returns {Promise<boolean>}
   */
  async resume() {
    return nativeAsync(() => this.#native.resume())
  }

  /**
   * Whether the queue is paused (also `stats().paused`).
   * @returns {Promise<boolean>}
   */
  async isPaused() {
    return nativeAsync(() => this.#native.isPaused())
  }

  /**
   * Whether the queue exists: whether any of its fixed keys does (items, configuration, pause,
   * runners, ...), in one round trip. False for a mistyped name, where `count` and `stats`
   * answer zeros as for an empty queue.
   * @returns {Promise<boolean>}
   */
  async exists() {
    return nativeAsync(() => this.#native.exists())
  }

  /**
   * Pauses one group (items added with `group`): its items are not leased, by any client,
   * until `resumeGroup`; the rest of the queue goes on. Resolves to whether it was running.
   * @param {string} group
   * @returns {Promise<boolean>}
   */
  async pauseGroup(group) {
    const g = args.string('group', group)
    return nativeAsync(() => this.#native.pauseGroup(g))
  }

  /**
   * Resumes a paused group. Resolves to whether it was paused.
   * @param {string} group
   * @returns {Promise<boolean>}
   */
  async resumeGroup(group) {
    const g = args.string('group', group)
    return nativeAsync(() => this.#native.resumeGroup(g))
  }

  /**
   * Sets how many items of `group` may be leased at once (1 to 1000), for every client; left
   * out (or null), the group's own limit is removed and the queue's `groupConcurrency` applies.
   * @param {string} group
   * @param {number | null} [limit]
   * @returns {Promise<void>}
   */
  async setGroupLimit(group, limit) {
    const g = args.string('group', group)
    const n = limit === null ? undefined : args.optionalNumber('limit', limit, WHOLE)
    return nativeAsync(() => this.#native.setGroupLimit(g, n))
  }

  /**
   * One group at a glance: its waiting and leased items, its limit, whether it is paused, and
   * how long it waits for its rate limit's window (`rateLimitedForMs`, null when it does not).
   * @param {string} group
   * @returns {Promise<import('../index').GroupInfo>}
   */
  async group(group) {
    const g = args.string('group', group)
    return toGroup(await nativeAsync(() => this.#native.group(g)))
  }

  /**
   * Holds every client's leases of the queue off for `durationMs`: a handler was rate limited
   * (an API answered 429). Leases get nothing until then; adds, completes and renews go on. A
   * longer hold already in place is kept. Resolves to how long leases are held off, in ms
   * (also `stats().rateLimitedForMs`).
   * @param {number} durationMs
   * @returns {Promise<number>}
   */
  async rateLimit(durationMs) {
    const ms = args.number('durationMs', durationMs)
    return nativeAsync(() => this.#native.rateLimit(ms))
  }

  /**
   * Holds one group's leases off for `durationMs`, for every client: a handler working for that
   * group (a customer, a tenant) was rate limited by an API that limits per key. The queue's
   * other groups and ungrouped items go on; the group's items wait, in their order, until the
   * hold ends. A longer hold already in place is kept. Resolves to how long the group is held
   * off, in ms (also `group(group).rateLimitedForMs`).
   * @param {string} group
   * @param {number} durationMs
   * @returns {Promise<number>}
   */
  async rateLimitGroup(group, durationMs) {
    const g = args.string('group', group)
    const ms = args.number('durationMs', durationMs)
    return nativeAsync(() => this.#native.rateLimitGroup(g, ms))
  }

  /**
   * Puts these dead items (ids as strings or Buffers) back to waiting, attempts reset.
   * Resolves to how many.
   * @param {Array<string | Uint8Array>} ids
   * @returns {Promise<number>}
   */
  async deadRequeue(ids) {
    const i = deadIds(ids)
    return nativeAsync(() => this.#native.deadRequeue(i))
  }

  /**
   * Like `deadRequeue`, resolving to whether each id was requeued, in order (false: not a dead
   * letter: no such item, or one in another state; an id given twice is false the second time).
   * @param {Array<string | Uint8Array>} ids
   * @returns {Promise<boolean[]>}
   */
  async deadRequeueEach(ids) {
    const i = deadIds(ids)
    return nativeAsync(() => this.#native.deadRequeueEach(i))
  }

  /**
   * Requeues the `n` oldest dead items (all when `n` is left out). Resolves to how many.
   * @param {number} [n]
   * @returns {Promise<number>}
   */
  async deadRequeueOldest(n) {
    const count = deadCount(n)
    return nativeAsync(() => this.#native.deadRequeueOldest(count))
  }

  /**
   * Deletes the `n` oldest dead items (all when `n` is left out). Resolves to how many.
   * @param {number} [n]
   * @returns {Promise<number>}
   */
  async deadPurge(n) {
    const count = deadCount(n)
    return nativeAsync(() => this.#native.deadPurge(count))
  }

  /**
   * The stored configuration: only the fields stored (the others take the defaults).
   * @returns {Promise<import('../index').QueueConfig>}
   */
  async config() {
    return toConfig(await nativeAsync(() => this.#native.config()))
  }

  /**
   * Stores the fields given; the others keep their stored value.
   * @param {import('../index').QueueConfig} config
   * @returns {Promise<void>}
   */
  async setConfig(config) {
    const parts = configParts(config)
    return nativeAsync(() => this.#native.setConfig(parts))
  }

  /**
   * Removes the stored configuration: the defaults apply again.
   * @returns {Promise<void>}
   */
  async resetConfig() {
    return nativeAsync(() => this.#native.resetConfig())
  }

  /**
   * Completes many leases (at most 1000) in one round trip, each as `complete` would: an entry
   * is a Lease, or `{ lease, result?, keepResultForMs? }`. Resolves to whether each completed
   * its item, in order.
   * @param {Array<Lease | import('../index').Completion>} completions
   * @returns {Promise<boolean[]>}
   */
  async completeBatch(completions) {
    const [leases, results, keeps] = completionParts(completions)
    return nativeAsync(() => this.#native.completeBatch(leases, results, keeps))
  }

  /**
   * Extends many leases (at most 1000) in one round trip; resolves to each one's outcome.
   * @param {Lease[]} leases
   * @param {{ ttlMs?: number }} [options]
   * @returns {Promise<import('../index').RenewOutcome[]>}
   */
  async renewBatch(leases, options) {
    const [natives, ttlMs] = renewBatchArgs(leases, options)
    const outcomes = await nativeAsync(() => this.#native.renewBatch(natives, ttlMs))
    return /** @type {import('../index').RenewOutcome[]} */ (outcomes)
  }

  /**
   * Fails many leases (at most 1000) in one round trip, each as `fail` would; resolves to the
   * outcomes in order.
   * @param {import('../index').Failure[]} failures
   * @returns {Promise<import('../index').FailOutcome[]>}
   */
  async failBatch(failures) {
    const [parts, leases] = failureParts(failures)
    const outcomes = await nativeAsync(() => this.#native.failBatch(parts, leases))
    return /** @type {import('../index').FailOutcome[]} */ (outcomes)
  }

  /**
   * A busy worker's whole step in one round trip: completes `completions` (as
   * `completeBatch`) and leases up to `n` more items (without waiting).
   * @param {Array<Lease | import('../index').Completion>} completions
   * @param {number} n
   * @param {{ ttlMs?: number }} [options]
   * @returns {Promise<{ completed: boolean[], leases: Lease[] }>}
   */
  async completeAndLeaseBatch(completions, n, options) {
    const [leases, results, keeps] = completionParts(completions)
    const count = args.number('n', n, WHOLE)
    const o = args.optionalOptions('options', options, TTL_OPTIONS)
    const ttlMs = args.optionalNumber('ttlMs', o.ttlMs)
    const got = await nativeAsync(() =>
      this.#native.completeAndLeaseBatch(leases, results, keeps, count, ttlMs),
    )
    return {
      completed: got.completed,
      leases: got.leases.map((parts) => /** @type {Lease} */ (toLease(parts))),
    }
  }

  /**
   * Re-queues items whose lease is gone and drops ids of complete items from processing.
   * @returns {Promise<import('../index').CleanReport>}
   */
  async lightClean() {
    return nativeAsync(() => this.#native.lightClean())
  }

  /**
   * A light clean, plus items on no list and orphaned lease counts. Walks every key of the
   * queue: run it rarely.
   * @returns {Promise<import('../index').CleanReport>}
   */
  async deepClean() {
    return nativeAsync(() => this.#native.deepClean())
  }

  /**
   * How many items wait, at every priority: the same as `count('waiting')` (not
   * redis-work-queue's `LLEN P:queue`, which misses every priority but 0).
   * @returns {Promise<number>}
   */
  async queueLen() {
    return nativeAsync(() => this.#native.queueLen())
  }

  /**
   * How many items are being processed: leased by leaseq plus those in redis-work-queue's
   * processing list (its clients' leases, or left by crashed ones until a light clean).
   * @returns {Promise<number>}
   */
  async processingLen() {
    return nativeAsync(() => this.#native.processingLen())
  }
}

/**
 * `renew`'s second argument: `{ ttlMs }`, a number (the TTL), or nothing (the core's default).
 * @param {unknown} options
 * @returns {number | undefined}
 */
function renewTtl(options) {
  if (options === undefined) return undefined
  if (!args.isOptions(options)) return args.number('ttlMs', options)
  const o = args.options('options', options, TTL_OPTIONS)
  return args.optionalNumber('ttlMs', o.ttlMs)
}

/**
 * @param {import('../native').NativeQueue} native
 * @returns {Queue}
 */
function toQueue(native) {
  return new Queue(CONSTRUCT, native)
}

/**
 * A group's figures as `group` gives them.
 * @param {import('../native').GroupParts} info
 * @returns {import('../index').GroupInfo}
 */
function toGroup(info) {
  return {
    waiting: info.waiting,
    leased: info.leased,
    limit: info.limit,
    paused: info.paused,
    rateLimitedForMs: orNull(info.rateLimitedForMs),
  }
}

/**
 * `waitResult`'s timeout: a number, or `{ timeoutMs }`.
 * @param {number | { timeoutMs: number }} timeoutMs
 * @returns {number}
 */
function waitTimeout(timeoutMs) {
  return args.isOptions(timeoutMs)
    ? args.number('timeoutMs', args.options('options', timeoutMs, WAIT_OPTIONS).timeoutMs)
    : args.number('timeoutMs', timeoutMs)
}

module.exports = {
  Queue,
  nativeOf: (/** @type {Queue} */ q) => nativeOf(q),
  toQueue,
  // The conversions lib/partitioned.js shares (a partitioned queue takes and gives the same).
  BATCH_OPTIONS,
  COMPLETE_OPTIONS,
  LIST_OPTIONS,
  WHOLE,
  addArgs,
  addBatchArgs,
  addFlowArgs,
  batchItem,
  completionParts,
  configParts,
  deadCount,
  deadIds,
  failArgs,
  failureParts,
  findArgs,
  followerAfter,
  renewBatchArgs,
  requireLease,
  scheduleArgs,
  toConfig,
  toDependencies,
  toDependencyResults,
  toEntry,
  toFireReport,
  toFound,
  toGroup,
  toItem,
  toJob,
  toNameCounts,
  toResult,
  toScheduleInfo,
  toSchedulePage,
  toStats,
  waitTimeout,
}
