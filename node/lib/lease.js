// @ts-check
'use strict'

const { parseJson } = require('./item')

/** Only the queue makes leases: `lease` and `completeAndLease` return them. */
const CONSTRUCT = Symbol('leaseq.Lease')

/** A leased item. Pass it back to `complete`, `completeAndLease` or `renew`. */
class Lease {
  /**
   * @param {symbol} key
   * @param {import('../native').LeaseParts} parts
   */
  constructor(key, parts) {
    if (key !== CONSTRUCT) throw new TypeError('leases come from Queue#lease, not from new Lease()')
    /** @readonly @type {string} the item's id */
    this.id = parts.id
    /** @readonly @type {Buffer} the item's data */
    this.data = parts.data
    /** @readonly @type {string} this lease's token: random, unique to this lease */
    this.token = parts.token
    /** @readonly @type {number} how many times the item has been leased, this lease included */
    this.count = parts.count
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
 * @param {import('../native').LeaseParts | null | undefined} parts
 * @returns {Lease | null}
 */
function toLease(parts) {
  return parts ? new Lease(CONSTRUCT, parts) : null
}

module.exports = { Lease, toLease }
