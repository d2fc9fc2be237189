// @ts-check
'use strict'
// The queue's event stream (spec/PROTOCOL.md 14): `EventFollower`, made by `Queue#events`, is
// an async iterator (`for await (const ev of queue.events())`) and an EventEmitter (`'event'`,
// `'error'`, `'close'`). Each read waits in the addon, on its runtime: the event loop stays
// free, and once the follower is closed nothing of it keeps the process alive.

const { EventEmitter } = require('node:events')

const { LeaseqError, nativeAsync } = require('./errors')

/** Only `Queue#events` makes followers. */
const CONSTRUCT = Symbol('leaseq.EventFollower')

/**
 * A Date from server-clock milliseconds.
 * @param {number | null | undefined} ms
 */
function date(ms) {
  return ms === undefined || ms === null ? null : new Date(ms)
}

/**
 * An entry of the stream, from the addon's.
 * @param {import('../native').QueueEventParts} e
 * @returns {import('../index').QueueEvent}
 */
function toEvent(e) {
  return {
    id: e.id,
    event: e.event,
    jobId: e.jobId,
    inc: e.inc,
    attempt: e.attempt,
    error: e.error ?? null,
    name: e.name ?? null,
    due: date(e.due),
    reason: e.reason ?? null,
    time: new Date(e.timeMs),
    extra: Object.fromEntries(e.extra.map(([k, v]) => [k, v])),
    partition: e.partition ?? null,
  }
}

/** @type {IteratorReturnResult<undefined>} */
const DONE = Object.freeze({ done: true, value: undefined })

/**
 * A follower of a queue's event stream, from now or resuming after an entry id. Read it with
 * `for await` (breaking out of the loop closes it) or listen to `'event'` (listening starts the
 * reads); use one form per follower. `'error'` comes with an error that ends it (a refused
 * `after`); `'close'` once it has ended. Closing the client ends it too, as `close` does.
 * @implements {AsyncIterableIterator<import('../index').QueueEvent>}
 */
class EventFollower extends EventEmitter {
  /** @type {Promise<import('../native').NativeEvents>} */
  #opening
  /** @type {import('../native').NativeEvents | null} */
  #native = null
  #closed = false
  #emitting = false

  /**
   * @param {symbol} key
   * @param {() => Promise<import('../native').NativeEvents>} open
   */
  constructor(key, open) {
    if (key !== CONSTRUCT) throw new TypeError('followers come from Queue#events or PartitionedQueue#events, not from new EventFollower()')
    super()
    this.#opening = nativeAsync(open).then((native) => {
      this.#native = native
      if (this.#closed) native.close()
      return native
    })
    /**
     * Resolves once the follower knows where it starts (for a follower from now: the stream's
     * end as it found it); rejects with its refusal (an `after` that is no event id, or later
     * than the stream's last entry: `INVALID_ARGUMENT` naming `after`).
     * @readonly @type {Promise<void>}
     */
    this.ready = this.#opening.then(() => undefined)
    // Surfaced by `next` and as `'error'`; not an unhandled rejection when `ready` is unused.
    this.ready.catch(() => {})
    this.on('newListener', (name) => {
      if (name === 'event' && !this.#emitting) {
        this.#emitting = true
        queueMicrotask(() => this.#emitAll())
      }
    })
  }

  /**
   * Where to resume (null before the first entry): the id of the last entry read, or for a
   * partitioned queue's follower one id per partition joined by `,`. Pass it as `after`.
   */
  get position() {
    return this.#native === null ? null : this.#native.position ?? null
  }

  /** Whether the follower is closed. */
  get closed() {
    return this.#closed
  }

  /**
   * The next entry, waiting for it as long as it takes (the core rides through outages);
   * done once the follower or its client is closed.
   * @returns {Promise<IteratorResult<import('../index').QueueEvent, undefined>>}
   */
  async next() {
    if (this.#closed) return DONE
    const native = await this.#opening
    let e
    try {
      e = await nativeAsync(() => native.next())
    } catch (err) {
      if (err instanceof LeaseqError && err.code === 'CLOSED') {
        this.#closed = true
        return DONE
      }
      throw err
    }
    if (e === null || e === undefined) return DONE
    return { done: false, value: toEvent(e) }
  }

  /**
   * Closes the follower (what `break` in a `for await` loop does).
   * @returns {Promise<IteratorReturnResult<undefined>>}
   */
  async return() {
    this.close()
    return DONE
  }

  /** @returns {this} */
  [Symbol.asyncIterator]() {
    return this
  }

  /**
   * Ends the follower: a read waiting now ends (the iteration is done), and nothing of it
   * keeps the process alive. Emits `'close'` once.
   */
  close() {
    if (this.#closed) return
    this.#closed = true
    if (this.#native !== null) this.#native.close()
    if (!this.#emitting) queueMicrotask(() => this.emit('close'))
  }

  /** Reads entry after entry, emitting each as `'event'`, until the follower ends. */
  async #emitAll() {
    try {
      for (;;) {
        const got = await this.next()
        if (got.done) break
        this.emit('event', got.value)
      }
    } catch (err) {
      this.close()
      this.emit('error', err)
    }
    this.#closed = true
    this.emit('close')
  }
}

module.exports = { CONSTRUCT, EventFollower, toEvent }
