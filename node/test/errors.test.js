'use strict'
// The error registry (spec/errors.md) walked row by row: every Node code exists in this package
// with the registry's retryability, the core agrees, and each one is met for real.

const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { after, before, describe, test } = require('node:test')

const { Client, ErrorCode, Item, LeaseqError } = require('..')
const native = require('../lib/native')
const { startRedis, uniquePrefix } = require('./helpers/redis')
const { startProxy } = require('./helpers/proxy')
const resp = require('./helpers/resp')

const SPEC = path.resolve(__dirname, '..', '..', 'spec', 'errors.md')

/** The rows of the registry table: { number, code, retryable, node }. */
function registryRows() {
  const rows = []
  for (const line of fs.readFileSync(SPEC, 'utf8').split('\n')) {
    const cells = line.split('|').slice(1, -1).map((c) => c.trim().replace(/`/g, ''))
    if (cells.length !== 7 || !/^\d+$/.test(cells[0])) continue
    rows.push({ number: Number(cells[0]), code: cells[1], retryable: cells[3], node: cells[6] })
  }
  return rows
}

const rows = registryRows()
const nodeRows = rows.filter((row) => row.node !== '-')

/** @param {string} code */
function isLeaseqError(code) {
  return (err) => {
    assert.ok(err instanceof LeaseqError, `expected a LeaseqError, got ${err}`)
    assert.ok(err instanceof Error)
    assert.equal(err.name, 'LeaseqError')
    assert.equal(err.code, code, err.message)
    assert.doesNotMatch(err.message, /^leaseq:/, 'the transport prefix must be stripped')
    return true
  }
}

describe('the error registry', () => {
  test('spec/errors.md has Node codes to walk', () => {
    assert.ok(nodeRows.length >= 7, `found ${nodeRows.length} rows with a Node code`)
  })

  test('ErrorCode holds exactly the registry codes with a Node face', () => {
    assert.deepEqual(Object.keys(ErrorCode).sort(), nodeRows.map((row) => row.node).sort())
    for (const row of nodeRows) assert.equal(ErrorCode[row.node], row.node)
  })

  test('each code keeps the registry name, number and retryability in the core too', () => {
    const core = new Map(native.errorCodes().map((info) => [info.code, info]))
    for (const row of nodeRows) {
      assert.equal(row.node, row.code, 'Node err.code is the registry code')
      const info = core.get(row.code)
      assert.ok(info, `the core has no code ${row.code}`)
      assert.equal(info.number, row.number, row.code)
      assert.equal(info.retryable, row.retryable === 'yes', row.code)
      const err = new LeaseqError(row.node, 'message')
      assert.equal(err.retryable, row.retryable === 'yes', row.code)
    }
    const nodeCodes = new Set(nodeRows.map((row) => row.code))
    for (const code of core.keys()) assert.ok(nodeCodes.has(code), `${code} is not in the registry`)
  })
})

describe('every registry code is met for real', { concurrency: true, timeout: 60_000 }, () => {
  let redis
  before(async () => {
    redis = await startRedis()
  })
  after(async () => {
    await redis.stop()
  })

  /** How to meet each code; a code added to the registry fails the walk until it has one. */
  const producers = {
    async CONNECTION() {
      const proxy = await startProxy(redis.url)
      try {
        const client = await Client.connect(proxy.url)
        const queue = client.queue(uniquePrefix('connection'))
        proxy.stall()
        const pending = queue.queueLen()
        // Let the command leave before the connection is cut under it.
        await new Promise((resolve) => setImmediate(resolve))
        proxy.cut()
        await assert.rejects(pending, isLeaseqError('CONNECTION'))
        await client.close()
      } finally {
        proxy.close()
      }
    },
    async REDIS() {
      const admin = await resp.connect(redis.url)
      await admin.command('ACL', 'SETUSER', 'nollen', 'on', '>secret', '~*', '&*', '+@all', '-llen')
      admin.close()
      const { port } = new URL(redis.url)
      const client = await Client.connect(`redis://nollen:secret@127.0.0.1:${port}`)
      // queueLen's function calls LLEN, which this user may not run: Redis refuses it inside the
      // function, and its message comes through.
      await assert.rejects(client.queue(uniquePrefix('redis')).queueLen(), (err) => {
        isLeaseqError('REDIS')(err)
        assert.match(err.message, /can't run this command|noperm/i)
        return true
      })
      await client.close()
    },
    async UNAVAILABLE() {
      // Another client's endless script makes Redis answer BUSY: the call did not run.
      const own = await startRedis()
      try {
        const client = await Client.connect(own.url)
        const admin = await resp.connect(own.url)
        await admin.command('CONFIG', 'SET', 'busy-reply-threshold', '50')
        const busy = await resp.connect(own.url)
        const looping = busy.command('EVAL', 'while true do end', '0').catch(() => {})
        for (;;) {
          const reply = await admin.command('PING').catch((err) => err)
          if (reply instanceof Error && /BUSY/.test(reply.message)) break
          await new Promise((resolve) => setTimeout(resolve, 25))
        }
        await assert.rejects(client.queue(uniquePrefix('busy')).queueLen(), (err) => {
          isLeaseqError('UNAVAILABLE')(err)
          assert.equal(err.retryable, true)
          return true
        })
        await admin.command('SCRIPT', 'KILL')
        await looping
        admin.close()
        busy.close()
        await client.close()
      } finally {
        await own.stop()
      }
    },
    async OUT_OF_MEMORY() {
      // A server of its own: over maxmemory, every other producer would fail too.
      const own = await startRedis()
      try {
        const admin = await resp.connect(own.url)
        await admin.command('CONFIG', 'SET', 'maxmemory', '1')
        admin.close()
        const client = await Client.connect(own.url)
        await assert.rejects(client.queue(uniquePrefix('oom')).add(new Item('x')), (err) => {
          isLeaseqError('OUT_OF_MEMORY')(err)
          assert.equal(err.retryable, false)
          assert.match(err.message, /OOM/)
          return true
        })
        await client.close()
      } finally {
        await own.stop()
      }
    },
    async INVALID_ARGUMENT() {
      const client = await Client.connect(redis.url)
      assert.throws(() => client.queue(''), isLeaseqError('INVALID_ARGUMENT'))
      await client.close()
    },
    async WRONG_TYPE() {
      const prefix = uniquePrefix('wrongtype')
      const admin = await resp.connect(redis.url)
      await admin.command('SET', `${prefix}:queue`, 'not a list')
      admin.close()
      const client = await Client.connect(redis.url)
      await assert.rejects(client.queue(prefix).queueLen(), isLeaseqError('WRONG_TYPE'))
      await assert.rejects(client.queue(prefix).add(new Item('x')), isLeaseqError('WRONG_TYPE'))
      await client.close()
    },
    async TIMEOUT() {
      // The core gives an answer 10 s; a proxy that swallows everything makes it run out.
      const proxy = await startProxy(redis.url)
      try {
        const client = await Client.connect(proxy.url)
        proxy.stall()
        await assert.rejects(client.queue(uniquePrefix('timeout')).queueLen(), (err) => {
          isLeaseqError('TIMEOUT')(err)
          assert.equal(err.retryable, true)
          return true
        })
        await client.close()
      } finally {
        proxy.close()
      }
    },
    async CLOSED() {
      const client = await Client.connect(redis.url)
      const queue = client.queue(uniquePrefix('closed'))
      await client.close()
      await assert.rejects(queue.queueLen(), isLeaseqError('CLOSED'))
    },
    async FULL() {
      const client = await Client.connect(redis.url)
      const queue = client.queue(uniquePrefix('full'))
      await queue.setConfig({ capacity: 1 })
      await queue.add(new Item('x'))
      await assert.rejects(queue.add(new Item('y')), (err) => {
        isLeaseqError('FULL')(err)
        assert.equal(err.retryable, false)
        return true
      })
      await client.close()
    },
    async DEAD() {
      const client = await Client.connect(redis.url)
      const queue = client.queue(uniquePrefix('dead'))
      await queue.add(new Item('x', { id: 'doomed' }))
      await queue.fail(await queue.lease(), 'boom', { retry: 'never' })
      await assert.rejects(queue.waitResult('doomed', { timeoutMs: 0 }), (err) => {
        isLeaseqError('DEAD')(err)
        assert.equal(err.retryable, false)
        return true
      })
      await client.close()
    },
    async JSON() {
      assert.throws(() => Item.fromJson(undefined), isLeaseqError('JSON'))
      assert.throws(() => Item.fromJson({ n: 1n }), isLeaseqError('JSON'))
      const cyclic = {}
      cyclic.self = cyclic
      assert.throws(() => Item.fromJson(cyclic), isLeaseqError('JSON'))
      const client = await Client.connect(redis.url)
      const queue = client.queue(uniquePrefix('json'))
      await queue.add(new Item(Buffer.from([0xff, 0x00, 0x7b])))
      const lease = await queue.lease({ ttlMs: 30_000 })
      assert.throws(() => lease.json(), isLeaseqError('JSON'))
      assert.throws(() => new Item('{"unclosed": ').json(), isLeaseqError('JSON'))
      await client.close()
    },
  }

  // One test per registry row, run concurrently so that the TIMEOUT case's wait overlaps the
  // others. A code added to the registry fails here until the binding meets it.
  for (const row of nodeRows) {
    test(row.node, async () => {
      assert.ok(producers[row.node], `no test produces ${row.node}`)
      await producers[row.node]()
    })
  }
})
