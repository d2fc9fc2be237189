// @ts-check
'use strict'

const native = require('./native')
const args = require('./args')
const { jsonError, nativeSync } = require('./errors')

/** A piece of work: an id, unique while the item exists, and its data (bytes). */
class Item {
  /**
   * @param {Buffer | Uint8Array | string} data the item's data; a string is stored as UTF-8
   * @param {string} [id] the item's id; a random UUID when absent
   */
  constructor(data, id) {
    /** @readonly @type {Buffer} */
    this.data = args.bytes('data', data)
    const checked = id === undefined ? undefined : args.string('id', id)
    /** @readonly @type {string} */
    this.id = nativeSync(() => native.itemId(checked))
  }

  /**
   * An item whose data is `value` encoded as JSON.
   * @param {unknown} value
   * @param {string} [id]
   * @returns {Item}
   */
  static fromJson(value, id) {
    let text
    try {
      text = JSON.stringify(value)
    } catch (err) {
      throw jsonError(`value cannot be encoded as JSON: ${/** @type {Error} */ (err).message}`, err)
    }
    if (text === undefined) throw jsonError(`value cannot be encoded as JSON: it is ${typeof value}`)
    return new Item(text, id)
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

module.exports = { Item, parseJson }
