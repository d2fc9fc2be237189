'use strict'
// Code as users run it: the README's "Use from Node" example, the TypeScript example (also
// type-checked by `tsc --strict` in node/test.sh), and both module systems.

const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { after, before, describe, test } = require('node:test')

const { PACKAGE_ROOT, makeConsumer } = require('./helpers/consumer')
const { startRedis } = require('./helpers/redis')

const README = path.resolve(PACKAGE_ROOT, '..', 'README.md')

/** The runner's ```js block of the README. */
function readmeRunner() {
  const text = fs.readFileSync(README, 'utf8')
  const begin = text.indexOf('<!-- BEGIN node-runner -->')
  const end = text.indexOf('<!-- END node-runner -->')
  const match = /```js\n([\s\S]*?)```/.exec(text.slice(begin, end))
  assert.ok(begin >= 0 && match, 'the node section has a runner example')
  return match[1]
}

/** The first ```js block of the README's node section after the runner's. */
function readmeExample() {
  const text = fs.readFileSync(README, 'utf8')
  const begin = text.indexOf('<!-- END node-runner -->')
  const end = text.indexOf('<!-- END node -->')
  assert.ok(begin >= 0 && end > begin, 'README.md has the node markers')
  const match = /```js\n([\s\S]*?)```/.exec(text.slice(begin, end))
  assert.ok(match, 'the node section has a js example')
  return match[1]
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

  test('the README example runs and prints what its comments say', async () => {
    consumer.write('readme.js', readmeExample())
    const result = await consumer.run('readme.js', { REDIS_URL: redis.url })
    assertRan(result)
    const lines = result.stdout.trim().split('\n')
    assert.deepEqual(lines.slice(0, 3), ['true', 'false', '2'])
    const jobs = lines.filter((line) => /^\S+ \(attempt \d\): \d+ bytes$/.test(line))
    assert.equal(jobs.length, 6, result.stdout)
    assert.match(jobs[0], / \(attempt 1\): 3 bytes$/, 'the priority-5 item comes first')
    assert.ok(lines.includes('report-7 (attempt 1): 8 bytes'), result.stdout)
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
    assert.ok(lines.includes('retrying'), result.stdout)
  })

  test("the README's runner example runs", async () => {
    consumer.write('runner.js', readmeRunner())
    const result = await consumer.run('runner.js', { REDIS_URL: redis.url })
    assertRan(result)
    const lines = result.stdout.trim().split('\n')
    assert.equal(lines.filter((l) => l.startsWith('sending to ')).length, 2, result.stdout)
    assert.equal(lines.at(-1), '2 completed, 1 dead')
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
