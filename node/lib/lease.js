// @ts-check
'use strict'

const { parseJson } = require('./item')

/** Only the queue makes leases: `lease`, `leaseBatch` and `completeAndLease` return them. */
const CONSTRUCT = Symbol('leaseq.Lease')

/** @type {(lease: Lease) => import('../native').NativeLease} */
let nativeOf

/**
 * A leased item. It holds the core's lease, which `complete`, `fail`, `release`, `renew`,
 * `renewOutcome` and `progress` take back whole.
 */
class Lease {
  /** @type {import('../native').NativeLease} */
  #native

  static {
    nativeOf = (lease) => lease.#native
  }

  /**
   * @param {symbol} key
   * @param {import('../native').LeasedParts} parts
   */
  constructor(key, parts) {
    if (key !== CONSTRUCT) throw new TypeError('leases come from Queue#lease, not from new Lease()')
    this.#native = parts.lease
    /** @readonly @type {Buffer} the item's data */
    this.data = parts.data
  }

  /** The item's id (shown lossily if it is not UTF-8; `idBytes` has it exactly). */
  get id() {
    return this.#native.id
  }

  /** The item's id exactly as Redis holds it. */
  get idBytes() {
    return this.#native.idBytes
  }

  /** This lease's token: random, unique to this lease. */
  get token() {
    return this.#native.token
  }

  /** How many times the item has been leased, this lease included. */
  get count() {
    return this.#native.count
  }

  /** The attempt number: the same as `count`. */
  get attempt() {
    return this.#native.count
  }

  /** Which life of the id this lease belongs to. */
  get incarnation() {
    return this.#native.incarnation
  }

  /** The attempts after which the item is dead instead of retried (0: no limit). */
  get maxAttempts() {
    return this.#native.maxAttempts
  }

  /**
   * The item's name (what kind of job it is: `ItemOptions#name`), or null when it was added
   * without one.
   * @returns {string | null}
   */
  get name() {
    return this.#native.name ?? null
  }

  /**
   * The item's backoff.
   * @returns {import('../index').Backoff}
   */
  get backoff() {
    return toBackoff(this.#native.backoff)
  }

  /**
   * The data parsed as JSON.
   * @returns {unknown}
   */
  json() {
    return parseJson(this.data)
  }
}

/**
 * The addon's backoff as the public type (only the fields of its kind).
 * @param {import('../native').BackoffParts} b
 * @returns {import('../index').Backoff}
 */
function toBackoff(b) {
  if (b.type === 'fixed') return { type: 'fixed', delayMs: /** @type {number} */ (b.delayMs) }
  return {
    type: 'exponential',
    baseMs: /** @type {number} */ (b.baseMs),
    capMs: /** @type {number} */ (b.capMs),
    jitter: /** @type {boolean} */ (b.jitter),
  }
}

/**
 * @param {import('../native').LeasedParts | null | undefined} parts
 * @returns {Lease | null}
 */
function toLease(parts) {
  return parts ? new Lease(CONSTRUCT, parts) : null
}

/**
 * The addon's lease behind `lease`.
 * @param {Lease} lease
 */
function nativeLease(lease) {
  return nativeOf(lease)
}

module.exports = { Lease, nativeLease, toBackoff, toLease }
