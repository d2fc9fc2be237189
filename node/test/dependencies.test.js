'use strict'
// Dependencies and flows (spec/PROTOCOL.md 5.24) from Node: `dependsOn` and
// `onDependencyFailure`, the `blocked` state, `addFlow` with nested children, `dependencies`
// and `dependencyResults`, and the core's refusals naming the argument.

const assert = require('node:assert/strict')
const { after, before, describe, test } = require('node:test')

const { Client, Item, LeaseqError, Worker } = require('..')
const { startRedis, uniquePrefix } = require('./helpers/redis')

describe('dependencies and flows', { timeout: 60_000 }, () => {
  let redis
  let client
  before(async () => {
    redis = await startRedis()
    client = await Client.connect(redis.url)
  })
  after(async () => {
    await client.close()
    await redis.stop()
  })

  const freshQueue = () => client.queue(uniquePrefix('dep'))

  /** Leases the next item and completes it with `result`; its id. */
  async function runNext(queue, result) {
    const lease = await queue.lease()
    assert.ok(lease, 'an item is waiting')
    assert.equal(await queue.complete(lease, result === undefined ? undefined : { result }), true)
    return lease.id
  }

  test('an item waits, blocked, until its dependencies complete', async () => {
    const queue = freshQueue()
    await queue.add('a', { id: 'a' })
    await queue.add('b', { id: 'b', dependsOn: ['a'], onDependencyFailure: 'run' })
    const job = await queue.get('b')
    assert.equal(job.state, 'blocked')
    assert.deepEqual(job.dependsOn, ['a'])
    assert.equal(job.onDependencyFailure, 'run')
    assert.equal(await queue.count('blocked'), 1)
    assert.equal((await queue.stats()).blocked, 1)
    assert.deepEqual((await queue.list('blocked')).map((e) => e.id), ['b'])
    const deps = await queue.dependencies('b')
    assert.deepEqual(deps, {
      dependsOn: ['a'],
      onDependencyFailure: 'run',
      pending: ['a'],
      dependantsCount: 0,
      dependants: [],
    })
    assert.deepEqual((await queue.dependencies('a')).dependants, ['b'])
    // An item without dependencies: empty lists, no policy.
    const none = await queue.get('a')
    assert.deepEqual([none.dependsOn, none.onDependencyFailure], [[], null])
    assert.equal(await runNext(queue), 'a')
    assert.equal((await queue.get('b')).state, 'waiting')
    assert.equal(await runNext(queue), 'b')
  })

  test("onDependencyFailure 'fail': the dependant dies, naming the dependency", async () => {
    const queue = freshQueue()
    await queue.add('a', { id: 'a', maxAttempts: 1 })
    await queue.add('b', { id: 'b', dependsOn: ['a'] })
    const lease = await queue.lease()
    assert.equal(await queue.fail(lease, 'boom'), 'dead')
    const b = await queue.get('b')
    assert.equal(b.state, 'dead')
    assert.match(b.deadReason ?? '', /a/)
  })

  test('addFlow adds a parent after its nested children; the parent reads their results', async () => {
    const queue = freshQueue()
    const added = await queue.addFlow(new Item('report', 'report'), [
      new Item('part a', 'a'),
      { item: new Item('part b', 'b'), children: [new Item('part c', 'c')] },
    ])
    assert.equal(added, 4)
    assert.equal((await queue.get('report')).state, 'blocked')
    assert.equal((await queue.get('b')).state, 'blocked')
    assert.deepEqual((await queue.dependencies('report')).dependsOn, ['a', 'b'])
    assert.deepEqual((await queue.dependencies('b')).dependsOn, ['c'])
    const ran = []
    for (let i = 0; i < 3; i++) {
      const lease = await queue.lease()
      ran.push(lease.id)
      await queue.complete(lease, { result: `done ${lease.id}` })
    }
    assert.deepEqual([...ran].sort(), ['a', 'b', 'c'])
    assert.ok(ran.indexOf('c') < ran.indexOf('b'), 'c before its parent b')
    const results = await queue.dependencyResults('report')
    assert.deepEqual(
      results.map((r) => [r.id, r.result && r.result.toString()]),
      [
        ['a', 'done a'],
        ['b', 'done b'],
      ],
    )
    assert.equal(await runNext(queue), 'report')
  })

  test('a runner runs a flow: children first, then the parent', async () => {
    const queue = freshQueue()
    await queue.addFlow(new Item('p', 'p'), [new Item('c1', 'c1'), new Item('c2', 'c2')])
    const order = []
    const worker = new Worker(queue, async (job) => {
      order.push(job.id)
      if (job.id === 'p') {
        // As BullMQ's job.getChildrenValues(): from the job itself, as the queue answers.
        const results = await job.dependencyResults()
        assert.deepEqual(results, await queue.dependencyResults('p'))
        return results.map((r) => `${r.id}=${r.result.toString()}`).join('+')
      }
      return job.id
    })
    worker.on('completed', (id) => {
      if (id === 'p') worker.close()
    })
    await worker.run()
    assert.equal(order[2], 'p')
    assert.equal((await queue.result('p')).data.toString(), 'c1=c1+c2=c2')
  })

  test('bad dependencies are refused naming the argument, nothing written', async () => {
    const queue = freshQueue()
    const names = async (promise, argument) =>
      assert.rejects(promise, (err) => {
        assert.ok(err instanceof LeaseqError, String(err))
        assert.equal(err.code, 'INVALID_ARGUMENT')
        assert.equal(err.argument, argument)
        return true
      })
    await names(queue.add('x', { id: 'a', dependsOn: ['a'] }), 'dependsOn')
    await names(queue.add('x', { id: 'a', dependsOn: 'b' }), 'dependsOn')
    await names(queue.add('x', { id: 'a', dependsOn: ['b'], onDependencyFailure: 'maybe' }), 'onDependencyFailure')
    await names(queue.addFlow(new Item('p', 'p'), [new Item('c', 'c'), new Item('c', 'c')]), 'children')
    await names(queue.addFlow(new Item('p', 'p'), [{ item: 'c' }]), 'children[0].item')
    await names(queue.addFlow('p', []), 'parent')
    assert.equal(await queue.exists(), false)
  })
})
