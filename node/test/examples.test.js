'use strict'
// Code as users run it: every program of node/examples (the documentation shows them word for
// word: each JavaScript block of the READMEs and docs/ names its file in a `<!-- sample: ... -->`
// line, and scripts/check-samples.py checks that the block is the file), the TypeScript example
// (also type-checked by `tsc --strict` in node/test.sh), and both module systems.

const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { after, before, describe, test } = require('node:test')

const { PACKAGE_ROOT, makeConsumer } = require('./helpers/consumer')
const { startRedis } = require('./helpers/redis')

const EXAMPLES = path.resolve(PACKAGE_ROOT, 'examples')

/** What each example of node/examples prints, checked; a new example needs its check here. */
const CHECKS = {
  'quickstart.js'(lines) {
    assert.deepEqual(lines, ['sending to ada@example.com (attempt 1)', 'result: sent'])
  },
  'logs.js'(lines, errors) {
    // console.info writes to stdout, console.warn and console.error to stderr.
    assert.match(lines[0], /^runner \S+ started: queue \{invoices\} on redis:\/\/127\.0\.0\.1:\d+, concurrency 1$/)
    assert.equal(errors.length, 1, errors.join('\n'))
    assert.match(errors[0], /^job [0-9a-f-]{36} failed \(attempt 1\) and is dead: not an amount: twelve$/)
    assert.ok(!lines.some((l) => l.startsWith('job ')), 'a success is logged at debug')
    assert.match(lines.at(-2), /stopped: 1 completed, 0 retried, 1 dead/)
    assert.equal(lines.at(-1), 'TypeError: not an amount: twelve')
  },
  'runner.js'(lines) {
    assert.equal(lines.filter((l) => l.startsWith('sending to ')).length, 2)
    assert.equal(lines.at(-1), '2 completed, 1 dead')
  },
  'names.js'(lines) {
    // Each named job ran with its handler; the name no handler has is dead at once, NoHandler.
    assert.deepEqual(lines.slice(0, 2).sort(), ['mail to ada@example.com', 'resize: 640 px'])
    assert.deepEqual(lines.slice(2), [
      '2 completed, 1 dead',
      'video-1: dead, NoHandler',
      'resize: 1 completed, 0 dead',
      'sendEmail: 1 completed, 0 dead',
      'transcode: 0 completed, 1 dead',
    ])
  },
  'dependencies.js'(lines) {
    assert.deepEqual(lines, [
      'email waits for report',
      '2 blocked',
      'part eu',
      'part us',
      'report from part-eu=42 sales, part-us=42 sales',
      'email sent after the report',
    ])
  },
  'events.js'(lines) {
    assert.deepEqual(lines, [
      'added order-1 (attempt 0)',
      'leased order-1 (attempt 1)',
      'completed order-1 (attempt 1)',
      'after the first: leased, completed',
    ])
  },
  'schedules.js'(lines) {
    assert.deepEqual(lines.slice(0, 2).sort(), ['nightly: 0 3 * * *, next set', 'poll: every 1000 ms, next set'])
    assert.deepEqual(lines.slice(2), ['poll ran (poll)', '1 schedule left'])
  },
  'partitioned.js'(lines) {
    const handled = lines.filter((l) => l.startsWith('handled '))
    assert.equal(handled.length, 9, 'the runner handled the nine left')
    assert.deepEqual(
      [...handled, ...lines.filter((l) => l.startsWith('completed '))].map((l) => l.replace(/^\S+ | in partition \d$/g, '')).sort(),
      ['order 0', 'order 1', 'order 2', 'order 3', 'order 4', 'order 5', 'refund 0', 'refund 1', 'refund 2', 'refund 3'],
    )
    const rest = lines.filter((l) => !l.startsWith('handled '))
    assert.deepEqual(rest.slice(0, 2), ['4 partitions', 'added 10'])
    // A customer's orders share a partition.
    assert.match(rest[2], /^order 0 and order 2 in partition ([0-3]) and \1$/)
    assert.match(rest[3], /^completed (order|refund) \d in partition [0-3]$/)
    assert.deepEqual(rest.slice(4), [
      'INVALID_ARGUMENT',
      'the runner completed 9',
      'waiting 0 in 4 partitions',
      'events: 10 added, 10 completed, 10 leased',
    ])
  },
  'operations.js'(lines) {
    assert.deepEqual(lines.slice(0, 3), ['true', 'false', '2'])
    const jobs = lines.filter((line) => /^\S+ \(attempt \d\): \d+ bytes$/.test(line))
    assert.equal(jobs.length, 6)
    assert.match(jobs[0], / \(attempt 1\): 3 bytes$/, 'the priority-5 item comes first')
    assert.ok(lines.includes('report-7 (attempt 1): 8 bytes'))
    assert.deepEqual(jobs.slice(-2), ['flaky (attempt 1): 5 bytes', 'flaky (attempt 2): 5 bytes'])
    assert.deepEqual(lines.slice(-8), [
      'dead',
      'sent report-7',
      'dead 2 Error SMTP timeout',
      '1',
      'delayed',
      '1 0 0 4 2',
      '{"maxAttempts":5,"backoff":{"type":"exponential","baseMs":1000,"capMs":60000,"jitter":true},"stats":true}',
      'INVALID_ARGUMENT ttlMs',
    ])
    assert.ok(lines.includes('retrying'))
  },
}

function assertRan(result) {
  assert.equal(result.code, 0, `exit ${result.code}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`)
}

describe('examples', { timeout: 60_000 }, () => {
  let redis
  let consumer
  before(async () => {
    redis = await startRedis()
    consumer = makeConsumer()
  })
  after(async () => {
    consumer.remove()
    await redis.stop()
  })

  test('every example has its check', () => {
    assert.deepEqual(fs.readdirSync(EXAMPLES).sort(), Object.keys(CHECKS).sort())
  })

  /** Runs examples/`name` against `url`; with `check`, checks what it prints. */
  async function runExample(name, url, check = true) {
    consumer.write(name, fs.readFileSync(path.join(EXAMPLES, name), 'utf8'))
    const result = await consumer.run(name, { REDIS_URL: url })
    assertRan(result)
    if (!check) return
    const lines = result.stdout.trim().split('\n')
    try {
      CHECKS[name](lines, result.stderr.trim().split('\n'))
    } catch (err) {
      err.message += `\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`
      throw err
    }
  }

  for (const name of Object.keys(CHECKS).sort()) {
    test(`examples/${name} runs and prints what it says`, async () => {
      const fresh = await startRedis()
      await runExample(name, fresh.url).finally(() => fresh.stop())
    })
  }

  test('the examples share one server: each prints what it says after the others, and runs again', async () => {
    // As a reader runs the guides, one after another on one server: no example may need a
    // fresh one (a queue another example uses in another way, an id a run left behind).
    // Reversed, partitioned.js runs before events.js, schedules.js before dependencies.js.
    const shared = await startRedis()
    try {
      const names = Object.keys(CHECKS).sort().reverse()
      for (const name of names) await runExample(name, shared.url)
      // Once more: each still runs to its end (what it counts may now include the first run).
      for (const name of names) await runExample(name, shared.url, false)
    } finally {
      await shared.stop()
    }
  })

  test('the TypeScript example runs', async () => {
    const ts = require('typescript')
    const source = fs.readFileSync(path.join(__dirname, 'types', 'example.ts'), 'utf8')
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
    })
    consumer.write('example-ts.js', outputText)
    const result = await consumer.run('example-ts.js', { REDIS_URL: redis.url })
    assertRan(result)
    assert.match(result.stdout, /^sent welcome to ada@example\.com \(attempt 1\)$/m)
    assert.match(result.stdout, /^urgent: renewed, progress true, result \{"ok":true\}$/m)
    assert.match(result.stdout, /^flaky: dead, dead \(.+\), 1 dead, TypeError$/m)
    assert.match(result.stdout, /^TypeError: 1 of 1 looked at, promoted false$/m)
    assert.match(result.stdout, /^requeued 1, later due true, cancelled delayed$/m)
    // Its config turns the counters on before `urgent` completes: counted, not 'uncounted'.
    assert.match(result.stdout, /^stats: \d+ waiting, 1 completed, \d+ dead$/m)
    assert.match(result.stdout, /^closed: CLOSED$/m)
  })

  test('CommonJS and ES modules see the same classes', async () => {
    consumer.write(
      'both.mjs',
      [
        "import { createRequire } from 'node:module'",
        "import * as esm from 'leaseq'",
        "import leaseqDefault from 'leaseq'",
        'const cjs = createRequire(import.meta.url)("leaseq")',
        "const names = ['Client', 'ErrorCode', 'Item', 'Lease', 'LeaseqError', 'Queue']",
        'for (const name of names) {',
        '  if (typeof esm[name] === "undefined") throw new Error(`no ESM export ${name}`)',
        '  if (esm[name] !== cjs[name] || leaseqDefault[name] !== cjs[name]) throw new Error(name)',
        '}',
        "const client = await esm.Client.connect(process.env.REDIS_URL)",
        "await client.queue('{esm}').add(new esm.Item('from esm'))",
        "console.log(await client.queue('{esm}').queueLen())",
        'await client.close()',
      ].join('\n'),
    )
    const result = await consumer.run('both.mjs', { REDIS_URL: redis.url })
    assertRan(result)
    assert.equal(result.stdout.trim(), '1')
  })
})
