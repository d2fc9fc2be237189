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
 * @param {string} name
 * @param {unknown} value
 * @returns {number}
 */
function number(name, value) {
  if (typeof value !== 'number') {
    throw invalidArgument(name, `must be a number of milliseconds, not ${describe(value)}`)
  }
  return value
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
 * Item data: a copy of a Buffer or any Uint8Array, or a string as UTF-8. A copy, so that the
 * item does not change when the caller reuses its buffer (the addon reads it on another thread).
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
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
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

module.exports = { array, boolean, bytes, instance, number, options, string }
