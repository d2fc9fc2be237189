// @ts-check
'use strict'
// Argument conversion: JavaScript values to what the addon takes, refusing wrong types with an
// INVALID_ARGUMENT error that names the argument. Values (an empty id, a zero TTL, ...) are
// judged by the core, which knows the protocol's limits.

const { invalidArgument } = require('./errors')

/** @param {unknown} value */
function describe(value) {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (value === undefined) return 'undefined'
  if (Buffer.isBuffer(value)) return 'a Buffer'
  if (typeof value === 'object') return 'an object'
  return `a ${typeof value}`
}

/**
 * @param {string} name
 * @param {unknown} value
 * @returns {string}
 */
function string(name, value) {
  if (typeof value !== 'string') throw invalidArgument(name, `must be a string, not ${describe(value)}`)
  return value
}

/**
 * A number (of milliseconds, unless `what` says otherwise). Its value is the core's to judge.
 * @param {string} name
 * @param {unknown} value
 * @param {string} [what]
 * @returns {number}
 */
function number(name, value, what = 'a number of milliseconds') {
  if (typeof value !== 'number') {
    throw invalidArgument(name, `must be ${what}, not ${describe(value)}`)
  }
  return value
}

/**
 * `number`, or undefined when the value is undefined (an option left out).
 * @param {string} name
 * @param {unknown} value
 * @param {string} [what]
 * @returns {number | undefined}
 */
function optionalNumber(name, value, what) {
  return value === undefined ? undefined : number(name, value, what)
}

/**
 * A point in time: a `Date` or milliseconds since the Unix epoch, as milliseconds (an invalid
 * Date gives NaN, which the addon refuses naming the argument).
 * @param {string} name
 * @param {unknown} value
 * @returns {number}
 */
function time(name, value) {
  if (value instanceof Date) return value.getTime()
  if (typeof value === 'number') return value
  throw invalidArgument(name, `must be a Date or milliseconds since 1970, not ${describe(value)}`)
}

const FIXED_BACKOFF = Object.freeze(['type', 'delayMs'])
const EXPONENTIAL_BACKOFF = Object.freeze(['type', 'baseMs', 'capMs', 'jitter'])

/**
 * A backoff: `{ type: 'fixed', delayMs }` or `{ type: 'exponential', baseMs, capMs, jitter? }`.
 * Missing durations and their bounds are the addon's and the core's to refuse.
 * @param {string} name
 * @param {unknown} value
 * @returns {import('../native').BackoffParts}
 */
function backoff(name, value) {
  const type = typeof value === 'object' && value !== null ? /** @type {any} */ (value).type : undefined
  if (type === 'fixed') {
    const o = options(name, value, FIXED_BACKOFF)
    return { type, delayMs: optionalNumber('delayMs', o.delayMs) }
  }
  if (type === 'exponential') {
    const o = options(name, value, EXPONENTIAL_BACKOFF)
    return {
      type,
      baseMs: optionalNumber('baseMs', o.baseMs),
      capMs: optionalNumber('capMs', o.capMs),
      jitter: o.jitter === undefined ? undefined : boolean('jitter', o.jitter),
    }
  }
  throw invalidArgument(
    name,
    "must be { type: 'fixed', delayMs } or { type: 'exponential', baseMs, capMs, jitter? }, " +
      `not ${describe(value)}`,
  )
}

const RATE_LIMIT = Object.freeze(['max', 'perMs'])

/**
 * A rate limit: `{ max, perMs }`. Their values are the core's to judge.
 * @param {string} name
 * @param {unknown} value
 * @returns {import('../native').RateLimitParts}
 */
function rateLimit(name, value) {
  const o = options(name, value, RATE_LIMIT)
  return {
    max: number(`${name}.max`, o.max, 'a whole number'),
    perMs: number(`${name}.perMs`, o.perMs),
  }
}

/**
 * @param {string} name
 * @param {unknown} value
 * @returns {boolean}
 */
function boolean(name, value) {
  if (typeof value !== 'boolean') throw invalidArgument(name, `must be a boolean, not ${describe(value)}`)
  return value
}

/**
 * Bytes: a copy of a Buffer or any Uint8Array, or a string as UTF-8. A copy, so that what is
 * sent does not change when the caller reuses its buffer (the addon reads it on another thread).
 * @param {string} name
 * @param {unknown} value
 * @returns {Buffer}
 */
function bytes(name, value) {
  if (value instanceof Uint8Array) return Buffer.from(value)
  if (typeof value === 'string') return Buffer.from(value, 'utf8')
  throw invalidArgument(name, `must be a Buffer, a Uint8Array or a string, not ${describe(value)}`)
}

/**
 * An id that names an item, as the bytes the addon takes: a string as UTF-8, or a copy of a
 * Buffer or Uint8Array (an id another kind of client added need not be UTF-8).
 * @param {string} name
 * @param {unknown} value
 * @returns {Buffer}
 */
function id(name, value) {
  if (value instanceof Uint8Array) return Buffer.from(value)
  if (typeof value === 'string') return Buffer.from(value, 'utf8')
  throw invalidArgument(name, `must be a string or a Buffer, not ${describe(value)}`)
}

/**
 * Bytes read at once, on this thread (the addon copies them before returning): a Uint8Array
 * as it is, or a string as UTF-8.
 * @param {string} name
 * @param {unknown} value
 * @returns {Uint8Array}
 */
function bytesNow(name, value) {
  if (value instanceof Uint8Array) return value
  if (typeof value === 'string') return Buffer.from(value, 'utf8')
  throw invalidArgument(name, `must be a Buffer, a Uint8Array or a string, not ${describe(value)}`)
}

/**
 * Whether `value` can be an options object (an object, but not an array, bytes or a Date).
 * @param {unknown} value
 * @returns {value is Record<string, unknown>}
 */
function isOptions(value) {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    !(value instanceof Uint8Array) &&
    !(value instanceof Date)
  )
}

/**
 * @template T
 * @param {string} name
 * @param {unknown} value
 * @param {(element: unknown, name: string) => T} element
 * @returns {T[]}
 */
function array(name, value, element) {
  if (!Array.isArray(value)) throw invalidArgument(name, `must be an array, not ${describe(value)}`)
  return value.map((v, i) => element(v, `${name}[${i}]`))
}

/**
 * An options object whose keys must all be in `known`; a misspelt option is an error rather
 * than a silent default.
 * @param {string} name
 * @param {unknown} value
 * @param {readonly string[]} known
 * @returns {Record<string, unknown>}
 */
function options(name, value, known) {
  if (!isOptions(value)) {
    throw invalidArgument(name, `must be an object with ${known.join(', ')}, not ${describe(value)}`)
  }
  const record = /** @type {Record<string, unknown>} */ (value)
  for (const key of Object.keys(record)) {
    if (!known.includes(key)) {
      throw invalidArgument(key, `is not an option here (known: ${known.join(', ')})`)
    }
  }
  return record
}

/**
 * @template T
 * @param {string} name
 * @param {unknown} value
 * @param {abstract new (...args: never[]) => T} type
 * @returns {T}
 */
function instance(name, value, type) {
  if (!(value instanceof type)) {
    throw invalidArgument(name, `must be a leaseq ${type.name}, not ${describe(value)}`)
  }
  return value
}

/**
 * `options`, or an empty object when the value is undefined (every option left out).
 * @param {string} name
 * @param {unknown} value
 * @param {readonly string[]} known
 * @returns {Record<string, unknown>}
 */
function optionalOptions(name, value, known) {
  return value === undefined ? NO_OPTIONS : options(name, value, known)
}

/** Every option left out: one shared object, not one per call. */
const NO_OPTIONS = Object.freeze(/** @type {Record<string, unknown>} */ ({}))

module.exports = {
  array,
  backoff,
  boolean,
  bytes,
  bytesNow,
  describe,
  id,
  instance,
  isOptions,
  number,
  optionalNumber,
  rateLimit,
  optionalOptions,
  options,
  string,
  time,
}
