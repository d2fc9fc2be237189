// @ts-check
'use strict'
// The one place where errors become `LeaseqError`s (spec/errors.md, "Node `err.code`").
//
// napi rejections keep only a message, so src/error.rs puts the registry code in front of it
// as `leaseq:CODE: ` (`leaseq:INVALID_ARGUMENT:name: ` for a refused argument); `fromNative`
// takes it back off.

/**
 * The registry codes a Node caller can see, with whether the same call may succeed when tried
 * again unchanged. The tests check this table against spec/errors.md and the core.
 * @type {Readonly<Record<import('../index').ErrorCode, { retryable: boolean }>>}
 */
const REGISTRY = Object.freeze({
  CONNECTION: { retryable: true },
  REDIS: { retryable: false },
  INVALID_ARGUMENT: { retryable: false },
  WRONG_TYPE: { retryable: false },
  TIMEOUT: { retryable: true },
  CLOSED: { retryable: false },
  JSON: { retryable: false },
  UNAVAILABLE: { retryable: true },
  OUT_OF_MEMORY: { retryable: false },
  FULL: { retryable: false },
  DEAD: { retryable: false },
})

/** @type {Readonly<{ [K in import('../index').ErrorCode]: K }>} */
const ErrorCode = Object.freeze({
  CONNECTION: 'CONNECTION',
  REDIS: 'REDIS',
  INVALID_ARGUMENT: 'INVALID_ARGUMENT',
  WRONG_TYPE: 'WRONG_TYPE',
  TIMEOUT: 'TIMEOUT',
  CLOSED: 'CLOSED',
  JSON: 'JSON',
  UNAVAILABLE: 'UNAVAILABLE',
  OUT_OF_MEMORY: 'OUT_OF_MEMORY',
  FULL: 'FULL',
  DEAD: 'DEAD',
})

/** Every error leaseq rejects or throws with; `code` says which kind it is. */
class LeaseqError extends Error {
  /**
   * @param {import('../index').ErrorCode} code
   * @param {string} message
   * @param {{ cause?: unknown, argument?: string }} [options]
   */
  constructor(code, message, options) {
    super(message, options && 'cause' in options ? { cause: options.cause } : undefined)
    /** @type {import('../index').ErrorCode} */
    this.code = code
    if (options?.argument !== undefined) {
      /** @type {string | undefined} the refused argument, for code INVALID_ARGUMENT */
      this.argument = options.argument
    }
    /** @type {boolean} */
    this.retryable = Object.prototype.hasOwnProperty.call(REGISTRY, code)
      ? REGISTRY[code].retryable
      : false
  }
}
Object.defineProperty(LeaseqError.prototype, 'name', {
  value: 'LeaseqError',
  writable: true,
  configurable: true,
})

const NATIVE_PREFIX = /^leaseq:([A-Z_]+)(?::([^:\s]+))?: /

/**
 * The `LeaseqError` a native error stands for; any other error is returned unchanged.
 * @param {unknown} err
 * @returns {unknown}
 */
function fromNative(err) {
  if (!(err instanceof Error)) return err
  const match = NATIVE_PREFIX.exec(err.message)
  if (!match || !Object.prototype.hasOwnProperty.call(REGISTRY, match[1])) return err
  const code = /** @type {import('../index').ErrorCode} */ (match[1])
  const message = err.message.slice(match[0].length)
  return new LeaseqError(code, message, match[2] === undefined ? undefined : { argument: match[2] })
}

/**
 * Awaits a native call, turning its rejection into a `LeaseqError`.
 * @template T
 * @param {() => Promise<T>} call
 * @returns {Promise<T>}
 */
async function nativeAsync(call) {
  try {
    return await call()
  } catch (err) {
    throw withCallerStack(fromNative(err), nativeAsync)
  }
}

/**
 * Runs a synchronous native call, turning what it throws into a `LeaseqError`.
 * @template T
 * @param {() => T} call
 * @returns {T}
 */
function nativeSync(call) {
  try {
    return call()
  } catch (err) {
    throw withCallerStack(fromNative(err), nativeSync)
  }
}

/**
 * Starts the stack of a `LeaseqError` at the caller of `wrapper`, so that it shows the user's
 * call rather than this file.
 * @param {unknown} err
 * @param {Function} wrapper
 * @returns {unknown}
 */
function withCallerStack(err, wrapper) {
  if (err instanceof LeaseqError) Error.captureStackTrace(err, wrapper)
  return err
}

/**
 * An `INVALID_ARGUMENT` error naming `argument`, worded as the core words its own.
 * @param {string} argument
 * @param {string} reason
 */
function invalidArgument(argument, reason) {
  return new LeaseqError('INVALID_ARGUMENT', `invalid argument \`${argument}\`: ${reason}`, {
    argument,
  })
}

/**
 * A `JSON` error for data that could not be encoded or decoded.
 * @param {string} message
 * @param {unknown} [cause]
 */
function jsonError(message, cause) {
  return new LeaseqError('JSON', message, cause === undefined ? undefined : { cause })
}

module.exports = {
  ErrorCode,
  LeaseqError,
  REGISTRY,
  fromNative,
  invalidArgument,
  jsonError,
  nativeAsync,
  nativeSync,
}
