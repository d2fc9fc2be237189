'use strict'
// bin/leaseq.js, the package's `bin` (`npx leaseq`): the command of cli/ through the addon.
// node/test.sh also runs it through `npx leaseq` from the packed packages (helpers/packed-smoke.js).

const assert = require('node:assert/strict')
const { spawn, spawnSync } = require('node:child_process')
const path = require('node:path')
const { after, before, describe, test } = require('node:test')

const { Client, Item } = require('..')
const { startRedis, uniquePrefix } = require('./helpers/redis')

const BIN = path.join(__dirname, '..', 'bin', 'leaseq.js')
const env = { ...process.env, NO_COLOR: '1' }
delete env.LEASEQ_URL
delete env.REDIS_URL

const leaseq = (...args) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env, timeout: 60_000 })

describe('the leaseq command (bin/leaseq.js)', { timeout: 90_000 }, () => {
  let redis
  before(async () => {
    redis = await startRedis()
  })
  after(async () => {
    await redis.stop()
  })

  test('--help prints the usage and exits 0', () => {
    const done = leaseq('--help')
    assert.equal(done.status, 0, done.stderr)
    assert.match(done.stdout, /Usage: leaseq/)
    assert.match(done.stdout, /dashboard/)
  })

  test('bad usage exits 2', () => {
    const done = leaseq('stats', '--no-such-option')
    assert.equal(done.status, 2)
    assert.match(done.stderr, /--no-such-option/)
  })

  test('stats --json on a fresh queue, get on an item the library added', async () => {
    const prefix = uniquePrefix('cli')
    // No key of it yet: the figures, then exit 6 and a message (a typo is not an empty queue).
    const stats = leaseq('stats', '--url', redis.url, '-q', prefix, '--json')
    assert.equal(stats.status, 6, stats.stderr)
    assert.ok(stats.stderr.includes(`no queue \`${prefix}\``), stats.stderr)
    const parsed = JSON.parse(stats.stdout)
    assert.equal(parsed.queue, prefix)
    assert.deepEqual([parsed.waiting, parsed.leased, parsed.dead], [0, 0, 0])

    const client = await Client.connect(redis.url)
    await client.queue(prefix).add(new Item('x', 'one'))
    await client.close()
    assert.equal(leaseq('stats', '--url', redis.url, '-q', prefix, '--json').status, 0)
    const got = leaseq('get', '--url', redis.url, '-q', prefix, 'one', '--json')
    assert.equal(got.status, 0, got.stderr)
    assert.equal(JSON.parse(got.stdout).state, 'waiting')
    assert.equal(leaseq('get', '--url', redis.url, '-q', prefix, 'nope').status, 1)
  })

  // Node's own one-shot SIGINT/SIGTERM handler once ran inside the command's and hung the
  // process: both signals must end the daemon with exit code 0.
  for (const sig of ['SIGINT', 'SIGTERM']) test(`${sig} stops clean gracefully`, async () => {
    const daemon = spawn(process.execPath, [BIN, 'clean', '--url', redis.url, '-q', uniquePrefix('cli'), '--every', '100ms'], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let log = ''
    daemon.stderr.setEncoding('utf8')
    const exited = new Promise((resolve) => daemon.on('exit', (code, signal) => resolve({ code, signal })))
    await new Promise((resolve) => {
      daemon.stderr.on('data', (chunk) => {
        log += chunk
        if (log.includes('cleaned')) resolve()
      })
    })
    daemon.kill(sig)
    const { code, signal } = await exited
    assert.deepEqual({ code, signal }, { code: 0, signal: null }, log)
    assert.match(log, /cleaner stopped/)
  })
})
