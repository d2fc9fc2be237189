// @ts-check
'use strict'

const args = require('./args')
const { nativeAsync } = require('./errors')
const { Item } = require('./item')
const { Lease, toLease } = require('./lease')

/** Only `Client#queue` makes queues. */
const CONSTRUCT = Symbol('leaseq.Queue')

const LEASE_OPTIONS = Object.freeze(['ttlMs', 'block', 'timeoutMs'])
const NEXT_OPTIONS = Object.freeze(['ttlMs'])

/**
 * @param {unknown} value
 * @param {string} name
 * @returns {import('../native').ItemParts}
 */
function itemParts(value, name) {
  const item = args.instance(name, value, Item)
  return { id: item.id, data: item.data }
}

/**
 * @param {unknown} value
 * @returns {Lease}
 */
function requireLease(value) {
  return args.instance('lease', value, Lease)
}

/** One queue: the keys under one prefix. Every method returns a Promise. */
class Queue {
  /** @type {import('../native').NativeQueue} */
  #native

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
   * Adds `item` unless an item with its id exists. Resolves to whether it was added.
   * @param {Item} item
   * @returns {Promise<boolean>}
   */
  async add(item) {
    const parts = itemParts(item, 'item')
    return nativeAsync(() => this.#native.add(parts))
  }

  /**
   * Adds `item` without checking whether its id exists: for fresh (random) ids only.
   * @param {Item} item
   * @returns {Promise<void>}
   */
  async addUnique(item) {
    const parts = itemParts(item, 'item')
    return nativeAsync(() => this.#native.addUnique(parts))
  }

  /**
   * Adds every item whose id does not exist yet, in one round trip. Resolves to how many were
   * added.
   * @param {Item[]} items
   * @returns {Promise<number>}
   */
  async addBatch(items) {
    const parts = args.array('items', items, itemParts)
    return nativeAsync(() => this.#native.addBatch(parts))
  }

  /**
   * Leases the next item for `ttlMs`. Without `block` it resolves at once (to null when the
   * queue is empty); with `block: true` it waits server-side until an item comes, `timeoutMs`
   * passes (null), or the client is closed (rejects with code CLOSED).
   * @param {{ ttlMs: number, block?: boolean, timeoutMs?: number }} options
   * @returns {Promise<Lease | null>}
   */
  async lease(options) {
    const o = args.options('options', options, LEASE_OPTIONS)
    const ttlMs = args.number('ttlMs', o.ttlMs)
    const block = o.block === undefined ? false : args.boolean('block', o.block)
    const timeoutMs = o.timeoutMs === undefined ? undefined : args.number('timeoutMs', o.timeoutMs)
    return toLease(await nativeAsync(() => this.#native.lease(ttlMs, block, timeoutMs)))
  }

  /**
   * Completes the leased item. Resolves to true for exactly one caller per item, ever.
   * @param {Lease} lease
   * @returns {Promise<boolean>}
   */
  async complete(lease) {
    const l = requireLease(lease)
    return nativeAsync(() => this.#native.complete(l.id, l.token))
  }

  /**
   * Completes `lease` and leases the next item for `ttlMs` in the same round trip, without
   * waiting.
   * @param {Lease} lease
   * @param {{ ttlMs: number }} options
   * @returns {Promise<{ completed: boolean, next: Lease | null }>}
   */
  async completeAndLease(lease, options) {
    const l = requireLease(lease)
    const o = args.options('options', options, NEXT_OPTIONS)
    const ttlMs = args.number('ttlMs', o.ttlMs)
    const result = await nativeAsync(() => this.#native.completeAndLease(l.id, l.token, ttlMs))
    return { completed: result.completed, next: toLease(result.next) }
  }

  /**
   * Extends the lease to `ttlMs` from now, only while it is still this holder's. Resolves to
   * false when it expired, another worker took the item, or the item is complete.
   * @param {Lease} lease
   * @param {number} ttlMs
   * @returns {Promise<boolean>}
   */
  async renew(lease, ttlMs) {
    const l = requireLease(lease)
    const ttl = args.number('ttlMs', ttlMs)
    return nativeAsync(() => this.#native.renew(l.id, l.token, ttl))
  }

  /**
   * Re-queues items whose lease is gone and drops ids of complete items from processing.
   * @returns {Promise<{ requeued: number, removed: number }>}
   */
  async lightClean() {
    return nativeAsync(() => this.#native.lightClean())
  }

  /**
   * A light clean, plus items on no list and orphaned lease counts. Walks every key of the
   * queue: run it rarely.
   * @returns {Promise<{ requeued: number, removed: number }>}
   */
  async deepClean() {
    return nativeAsync(() => this.#native.deepClean())
  }

  /**
   * How many ids wait in the queue.
   * @returns {Promise<number>}
   */
  async queueLen() {
    return nativeAsync(() => this.#native.queueLen())
  }

  /**
   * How many ids are in processing (leased, or left by crashed workers until a light clean).
   * @returns {Promise<number>}
   */
  async processingLen() {
    return nativeAsync(() => this.#native.processingLen())
  }
}

/**
 * @param {import('../native').NativeQueue} native
 * @returns {Queue}
 */
function toQueue(native) {
  return new Queue(CONSTRUCT, native)
}

module.exports = { Queue, toQueue }
