// @ts-check
'use strict'

const native = require('./native')
const args = require('./args')
const { nativeAsync, nativeSync } = require('./errors')
const { toQueue } = require('./queue')
const { toPartitioned } = require('./partitioned')

/** Only `Client.connect` and `Client.cluster` make clients. */
const CONSTRUCT = Symbol('leaseq.Client')

/**
 * A connection to Redis or Redis Cluster, shared by its queues. Concurrent calls share one
 * connection; each blocking lease waits on a connection of its own.
 */
class Client {
  /** @type {import('../native').NativeClient} */
  #native

  /**
   * @param {symbol} key
   * @param {import('../native').NativeClient} nativeClient
   */
  constructor(key, nativeClient) {
    if (key !== CONSTRUCT) throw new TypeError('clients come from Client.connect or Client.cluster')
    this.#native = nativeClient
  }

  /**
   * Connects to one Redis server: `redis://[user:pass@]host[:port][/db]`, `rediss://...` or
   * `redis+unix:///path/to.sock`.
   * @param {string} url
   * @returns {Promise<Client>}
   */
  static async connect(url) {
    const u = args.string('url', url)
    return new Client(CONSTRUCT, await nativeAsync(() => native.NativeClient.connect(u)))
  }

  /**
   * Connects to a Redis Cluster through one or more of its nodes' URLs. Queue prefixes must then
   * carry a `{hash tag}`.
   * @param {string[]} urls
   * @returns {Promise<Client>}
   */
  static async cluster(urls) {
    const u = args.array('urls', urls, (v, name) => args.string(name, v))
    return new Client(CONSTRUCT, await nativeAsync(() => native.NativeClient.cluster(u)))
  }

  /**
   * The queue stored under `prefix`. Validates the prefix; sends nothing.
   * @param {string} prefix
   */
  queue(prefix) {
    const p = args.string('prefix', prefix)
    return toQueue(nativeSync(() => this.#native.queue(p)))
  }

  /**
   * Creates (or opens) the partitioned queue `base` of `partitions` partitions (1 to 64; more
   * than one need a `{hash tag}` in `base`).
   * @param {string} base
   * @param {number} partitions
   */
  async createPartitioned(base, partitions) {
    const b = args.string('base', base)
    const n = args.number('partitions', partitions, 'a whole number')
    return toPartitioned(await nativeAsync(() => this.#native.createPartitioned(b, n)))
  }

  /**
   * The partitioned queue `base` as stored (a plain queue at `base` is one partition).
   * @param {string} base
   */
  async partitioned(base) {
    const b = args.string('base', base)
    return toPartitioned(await nativeAsync(() => this.#native.partitioned(b)))
  }

  /**
   * Closes the client: waiting leases reject with code CLOSED at once, and so does every later
   * call on this client and its queues.
   * @returns {Promise<void>}
   */
  async close() {
    this.#native.close()
  }

  /** Whether `close` was called. */
  get closed() {
    return this.#native.closed
  }

  /** Whether this client talks to a Redis Cluster. */
  get isCluster() {
    return this.#native.isCluster
  }

  /**
   * Server settings found when connecting that put items at risk, e.g. a `maxmemory-policy`
   * that may evict queue keys.
   * @returns {string[]}
   */
  get warnings() {
    return this.#native.warnings
  }
}

module.exports = { Client }
