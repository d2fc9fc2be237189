// @ts-check
'use strict'

const native = require('./native')
const args = require('./args')
const { jsonError, nativeSync } = require('./errors')

const ITEM_OPTIONS = Object.freeze([
  'id',
  'delayMs',
  'runAt',
  'priority',
  'maxAttempts',
  'backoff',
  'expiresAfterMs',
  'keepResultForMs',
  'group',
  'name',
  'dependsOn',
  'onDependencyFailure',
])

/**
 * The addon's form of an item's options; types checked here, values by the core.
 * @param {Record<string, unknown>} o
 * @returns {import('../native').ItemOptions}
 */
function itemOptions(o) {
  return {
    delayMs: args.optionalNumber('delayMs', o.delayMs),
    runAtMs: o.runAt === undefined ? undefined : args.time('runAt', o.runAt),
    priority: args.optionalNumber('priority', o.priority, 'a whole number'),
    maxAttempts: args.optionalNumber('maxAttempts', o.maxAttempts, 'a whole number'),
    backoff: o.backoff === undefined ? undefined : args.backoff('backoff', o.backoff),
    expiresAfterMs: args.optionalNumber('expiresAfterMs', o.expiresAfterMs),
    keepResultForMs: args.optionalNumber('keepResultForMs', o.keepResultForMs),
    group: o.group === undefined ? undefined : args.string('group', o.group),
    name: o.name === undefined ? undefined : args.string('name', o.name),
    dependsOn:
      o.dependsOn === undefined ? undefined : args.array('dependsOn', o.dependsOn, (v, n) => args.string(n, v)),
    onDependencyFailure:
      o.onDependencyFailure === undefined ? undefined : args.string('onDependencyFailure', o.onDependencyFailure),
  }
}

/** @type {(item: Item) => import('../native').NativeItem} */
let nativeOf

/**
 * A piece of work: an id, unique while the item exists, its data (bytes), and its options
 * (delay, priority, retries...). The core checks the id at once and the options' values when
 * the item is added.
 */
class Item {
  /** @type {import('../native').NativeItem} */
  #native

  static {
    nativeOf = (item) => item.#native
  }

  /**
   * @param {Buffer | Uint8Array | string} data the item's data (copied); a string is stored as
   *   UTF-8
   * @param {string | import('../index').ItemOptions} [idOrOptions] the item's id, or its
   *   options (`id` among them); a random UUID when no id is given
   */
  constructor(data, idOrOptions) {
    const bytes = args.bytesNow('data', data)
    /** @type {string | undefined} */
    let id
    /** @type {import('../native').ItemOptions | undefined} */
    let options
    if (args.isOptions(idOrOptions)) {
      const o = args.options('options', idOrOptions, ITEM_OPTIONS)
      id = o.id === undefined ? undefined : args.string('id', o.id)
      options = itemOptions(o)
    } else if (idOrOptions !== undefined) {
      id = args.string('id', idOrOptions)
    }
    this.#native = nativeSync(() => new native.NativeItem(bytes, id, options))
    /** @readonly @type {string} */
    this.id = this.#native.id
  }

  /**
   * An item whose data is `value` encoded as JSON.
   * @param {unknown} value
   * @param {string | import('../index').ItemOptions} [idOrOptions]
   * @returns {Item}
   */
  static fromJson(value, idOrOptions) {
    let text
    try {
      text = JSON.stringify(value)
    } catch (err) {
      throw jsonError(`value cannot be encoded as JSON: ${/** @type {Error} */ (err).message}`, err)
    }
    if (text === undefined) throw jsonError(`value cannot be encoded as JSON: it is ${typeof value}`)
    return new Item(text, idOrOptions)
  }

  /**
   * The item's data (a copy).
   * @returns {Buffer}
   */
  get data() {
    return this.#native.data
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
 * @param {Buffer} data
 * @returns {unknown}
 */
function parseJson(data) {
  try {
    return JSON.parse(data.toString('utf8'))
  } catch (err) {
    throw jsonError(`data is not valid JSON: ${/** @type {Error} */ (err).message}`, err)
  }
}

/**
 * The addon's item behind `item`.
 * @param {Item} item
 */
function nativeItem(item) {
  return nativeOf(item)
}

module.exports = { ITEM_OPTIONS, Item, nativeItem, parseJson }
