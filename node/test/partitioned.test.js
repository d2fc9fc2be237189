'use strict'
// Partitioned queues (spec/PROTOCOL.md 5.25) on a throwaway 3-primary Redis Cluster:
// creation and opening, adds split over the partitions, reads of the logical queue, leases from
// every partition finished (completed or failed) in their own, the batch finishes
// (`completeBatch`, `renewBatch`, `failBatch`) split by partition and answered in order, flows
// kept in one partition, the dead-letter calls and the configuration on every partition, the
// calls by id that find an item
// where it lives (`promote`, `dependencies`, `deadRequeueEach`), holds, pauses and resets of
// every partition, the counts, cleans and configuration of the logical queue (`exists`,
// `config`, `queueLen`, `processingLen`, `countsByName`, `lightClean`, `deepClean`, with
// `addUnique`), `find` searching one partition a call, a Worker's rate limit holding every
// partition, and the partitions handed out as queues (`partition`, `partitionOf`, `queueOf`).

const assert = require('node:assert/strict')
const net = require('node:net')
const { randomUUID } = require('node:crypto')
const { after, before, describe, test } = require('node:test')

const { Client, Item, LeaseqError, PartitionedQueue, Queue, RateLimitedError, Worker } = require('..')
const { startRedis } = require('./helpers/redis')
const resp = require('./helpers/resp')

/**
 * How many clients of the servers at `urls` last ran an `XREAD` (a follower's waits): one
 * `CLIENT LIST` each, over a plain socket.
 * @param {string[]} urls
 */
async function xreads(urls) {
  const lists = await Promise.all(
    urls.map(
      (url) =>
        new Promise((resolve, reject) => {
          const { hostname, port } = new URL(url)
          const socket = net.connect(Number(port), hostname)
          let data = ''
          socket.on('data', (chunk) => {
            data += chunk
            const head = /^\$(\d+)\r\n/.exec(data)
            if (head && data.length >= head[0].length + Number(head[1]) + 2) {
              socket.end()
              resolve(data)
            }
          })
          socket.on('error', reject)
          socket.write('CLIENT LIST\r\n')
        }),
    ),
  )
  // Blocked (`flags=b`): an idle connection back in the pool still shows its last command.
  const blocked = (list) => list.split('\n').filter((l) => l.includes(' flags=b ') && l.includes(' cmd=xread ')).length
  return lists.reduce((n, list) => n + blocked(list), 0)
}

/** Waits until `ok()` resolves true, for at most 10 s; its last answer. */
async function eventually(ok) {
  for (let i = 0; i < 200; i++) {
    if (await ok()) return true
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return ok()
}

const TTL = 30_000

/** A base no other test uses, with a hash tag. */
const fresh = () => `{p-${randomUUID().slice(0, 8)}}`
const items = (n) => Array.from({ length: n }, (_, i) => new Item('x', { id: `i${i}` }))
/** `n` ids (`tag0`, `tag1`, ...) whose own partition in `q` is not `avoid`. */
const idsNotIn = (q, avoid, tag, n) => {
  const ids = []
  for (let i = 0; ids.length < n; i++) {
    if (q.partitionOf(new Item('x', { id: `${tag}${i}` })) !== avoid) ids.push(`${tag}${i}`)
  }
  return ids
}
/** @param {string} argument */
const invalid = (argument) => (err) =>
  err instanceof LeaseqError && err.code === 'INVALID_ARGUMENT' && err.argument === argument

describe('partitioned queues', { timeout: 60_000 }, () => {
  let cluster
  let client
  before(async () => {
    cluster = await startRedis({ cluster: true })
    client = await Client.cluster(cluster.urls)
  })
  after(async () => {
    await client.close()
    await cluster.stop()
  })

  test('create, open, and a count that differs is refused', async () => {
    const base = fresh()
    const q = await client.createPartitioned(base, 3)
    assert.ok(q instanceof PartitionedQueue)
    assert.equal(q.base, base)
    assert.equal(q.partitions.length, 3)
    assert.equal(new Set(q.partitions).size, 3)
    assert.deepEqual((await client.partitioned(base)).partitions, q.partitions)
    await assert.rejects(client.createPartitioned(base, 4), invalid('partitions'))
    await assert.rejects(client.createPartitioned(fresh(), 0), invalid('partitions'))
    const plain = fresh()
    assert.deepEqual((await client.partitioned(plain)).partitions, [plain])
  })

  test('adds spread over the partitions and the reads see the logical queue', async () => {
    const q = await client.createPartitioned(fresh(), 3)
    assert.equal(await q.addBatch(items(60)), 60)
    assert.equal(await q.add(new Item('x', { id: 'i0' })), false)
    assert.equal(await q.add('data', { id: 'extra' }), true)
    const stats = await q.stats()
    assert.equal(stats.total.waiting, 61)
    assert.equal(stats.partitions.length, 3)
    assert.equal(stats.partitions.reduce((sum, s) => sum + s.waiting, 0), 61)
    assert.ok(stats.partitions.every((s) => s.waiting > 0))
    assert.ok(stats.total.now instanceof Date)
    for (const [i, prefix] of q.partitions.entries()) {
      assert.equal(await client.queue(prefix).count('waiting'), stats.partitions[i].waiting)
    }
    assert.equal(await q.count('waiting'), 61)
    const listed = await q.list('waiting', { count: 1000 })
    assert.equal(listed.length, 61)
    // Each entry names the partition it lives in; listed from a partition itself, none.
    for (const e of listed) assert.equal(e.partition, q.partitionOf(new Item('', { id: e.id })), e.id)
    assert.ok((await q.partition(0).list('waiting')).every((e) => e.partition === null))
    const found = await q.get('i5')
    assert.equal(found.id, 'i5')
    // It says which partition holds it; read from that partition itself, none.
    const home = q.partitionOf(new Item('', { id: 'i5' }))
    assert.equal(found.partition, home)
    assert.equal((await q.partition(home).get('i5')).partition, null)
    assert.equal(await q.get('missing'), null)
    assert.equal(await q.cancel('i5'), 'waiting')
    assert.equal(await q.get('i5'), null)
  })

  test('leases come from every partition and finish in their own', async () => {
    const q = await client.createPartitioned(fresh(), 3)
    await q.addBatch(items(30))
    const leases = await q.leaseBatch(30, { ttlMs: TTL })
    assert.equal(leases.length, 30)
    assert.equal(new Set(leases.map((l) => l.id)).size, 30)
    const [first, ...rest] = leases
    assert.equal(await q.complete(first, { result: 'done' }), true)
    assert.equal((await q.result(first.id)).data.toString(), 'done')
    for (const lease of rest) assert.equal(await q.complete(lease), true)
    assert.equal((await q.stats()).total.leased, 0)
    assert.equal(await q.lease({ ttlMs: TTL }), null)
    // A waiting lease is answered by an add to whichever partition.
    const waiting = q.lease({ ttlMs: TTL, timeoutMs: 20_000 })
    await q.add(new Item('late', { id: 'late' }))
    assert.equal((await waiting).id, 'late')
    // A lease of another queue is refused, naming it.
    const other = client.queue(fresh())
    await other.add(new Item('z'))
    const foreign = await other.lease({ ttlMs: TTL })
    await assert.rejects(q.complete(foreign), invalid('lease'))
  })

  test('waitResult waits where the item is, in every partition before it is added', async () => {
    const q = await client.createPartitioned(fresh(), 4)
    // A group that takes the item away from its id's partition.
    const item = Array.from({ length: 64 }, (_, g) => new Item('x', { id: 'w1', group: `g${g}` })).find(
      (i) => q.partitionOf(i) !== q.partitionOf(new Item('x', { id: 'w1' })),
    )
    const waiting = q.waitResult('w1', Infinity)
    assert.equal(await q.add(item), true)
    const lease = await q.partition(q.partitionOf(item)).lease({ ttlMs: TTL })
    assert.equal(lease.id, 'w1')
    assert.equal(await q.complete(lease, { result: 'one' }), true)
    assert.equal((await waiting).data.toString(), 'one')
    assert.equal((await q.waitResult('w1', { timeoutMs: 0 })).data.toString(), 'one')
    assert.equal(await q.waitResult('never', 100), null)
    await assert.rejects(q.waitResult('', 0), invalid('id'))
    await assert.rejects(q.waitResult('w1', -1), invalid('timeoutMs'))
  })

  test('the group calls act in the partition where the group lives', async () => {
    const q = await client.createPartitioned(fresh(), 4)
    assert.equal(await q.addBatch([0, 1, 2].map((i) => new Item('x', { id: `t${i}`, group: 'tenant' }))), 3)
    assert.equal(await q.pauseGroup('tenant'), true)
    const info = await q.group('tenant')
    assert.equal(info.paused, true)
    assert.equal(info.waiting, 3)
    await q.add(new Item('x', { id: 'free' }))
    assert.deepEqual((await q.leaseBatch(10, { ttlMs: TTL })).map((l) => l.id), ['free'])
    assert.equal(await q.resumeGroup('tenant'), true)
    await q.setGroupLimit('tenant', 2)
    assert.equal((await q.group('tenant')).limit, 2)
    assert.equal((await q.leaseBatch(10, { ttlMs: TTL })).length, 2)
    const held = await q.rateLimitGroup('tenant', 60_000)
    assert.ok(held > 0 && held <= 60_000)
    assert.ok((await q.group('tenant')).rateLimitedForMs > 0)
    await assert.rejects(q.setGroupLimit('tenant', 0), invalid('limit'))
    await assert.rejects(q.pauseGroup(''), invalid('group'))
  })

  test("fail retries in the lease's own partition, and with retry never it is dead there", async () => {
    const q = await client.createPartitioned(fresh(), 3)
    await q.addBatch(items(6))
    const lease = await q.lease({ ttlMs: TTL })
    const home = q.partitionOf(new Item('x', { id: lease.id }))
    assert.equal(await q.fail(lease, new TypeError('boom'), { retry: { afterMs: 60_000 } }), 'retrying')
    const job = await q.partition(home).get(lease.id)
    assert.deepEqual([job.state, job.error, job.errorType, job.attempts], ['delayed', 'boom', 'TypeError', 1])
    assert.match(job.trace, /TypeError: boom/, "an Error's stack is its trace, as Queue#fail keeps it")
    const delayed = (await q.stats()).partitions.map((s) => s.delayed)
    assert.deepEqual(delayed, delayed.map((_, i) => (i === home ? 1 : 0)))
    // The lease is spent: the answer is Queue#fail's for it, and nothing changes.
    const again = await q.fail(lease, 'again')
    assert.ok(!['retrying', 'dead'].includes(again), again)
    assert.equal(again, await q.partition(home).fail(lease, 'again'))
    assert.equal((await q.get(lease.id)).error, 'boom')

    const last = await q.lease({ ttlMs: TTL })
    const lastHome = q.partitionOf(new Item('x', { id: last.id }))
    assert.equal(await q.fail(last, 'bad input', { errorType: 'Bad', retry: 'never' }), 'dead')
    const dead = await q.partition(lastHome).get(last.id)
    assert.deepEqual([dead.state, dead.error, dead.errorType], ['dead', 'bad input', 'Bad'])
    assert.equal((await q.stats()).partitions[lastHome].dead, 1)
    assert.equal(await q.count('dead'), 1)
    // Refused before anything is sent, as Queue#fail refuses: a lease of another queue, an
    // unknown retry.
    const other = client.queue(fresh())
    await other.add(new Item('z'))
    const foreign = await other.lease({ ttlMs: TTL })
    await assert.rejects(q.fail(foreign, 'x'), invalid('lease'))
    const third = await q.lease({ ttlMs: TTL })
    await assert.rejects(q.fail(third, 'x', { retry: 'sometimes' }), invalid('retry'))
    assert.equal((await q.get(third.id)).state, 'leased')
  })

  test('completeBatch and renewBatch split leases of several partitions interleaved, answering in order', async () => {
    const q = await client.createPartitioned(fresh(), 3)
    await q.addBatch(items(12))
    const leased = await q.leaseBatch(12, { ttlMs: TTL })
    assert.equal(leased.length, 12)
    const home = (lease) => q.partitions.indexOf(q.queueOf(lease).prefix)
    // Round robin over the partitions: no two neighbours from the same one, where it can be.
    const byPartition = q.partitions.map((_, i) => leased.filter((l) => home(l) === i))
    assert.ok(byPartition.filter((ls) => ls.length > 0).length >= 2, 'leases from several partitions')
    const leases = []
    for (let k = 0; leases.length < leased.length; k++) {
      for (const ls of byPartition) if (k < ls.length) leases.push(ls[k])
    }
    assert.ok(leases.some((l, k) => k > 0 && home(l) !== home(leases[k - 1])), 'interleaved')

    // One lease finished beforehand answers for itself, in its place.
    const spent = 3
    assert.equal(await q.complete(leases[spent]), true)
    assert.deepEqual(
      await q.renewBatch(leases, { ttlMs: TTL }),
      leases.map((_, k) => (k === spent ? 'completed' : 'renewed')),
    )
    assert.deepEqual(await q.renewBatch([]), [])
    const completions = leases.map((lease, k) => (k % 2 === 0 ? lease : { lease, result: `r${k}` }))
    assert.deepEqual(
      await q.completeBatch(completions),
      leases.map((_, k) => k !== spent),
    )
    for (const [k, lease] of leases.entries()) {
      if (k % 2 === 1 && k !== spent) {
        assert.equal((await q.partition(home(lease)).result(lease.id)).data.toString(), `r${k}`, 'kept in its partition')
      }
    }
    assert.equal((await q.stats()).total.leased, 0)
    assert.deepEqual(await q.completeBatch(leases.slice(0, 2)), [false, false], 'once per incarnation')
  })

  test('the batch finishes refuse a lease of another queue, sending nothing', async () => {
    const q = await client.createPartitioned(fresh(), 3)
    await q.addBatch(items(6))
    const leases = await q.leaseBatch(6, { ttlMs: TTL })
    assert.ok(new Set(leases.map((l) => q.queueOf(l).prefix)).size >= 2, 'leases from several partitions')
    const other = client.queue(fresh())
    await other.add(new Item('z', { id: 'z' }))
    const foreign = await other.lease({ ttlMs: TTL })
    const withForeign = [...leases.slice(0, 3), foreign, ...leases.slice(3)]
    await assert.rejects(q.completeBatch(withForeign), invalid('lease'))
    await assert.rejects(q.completeBatch([{ lease: leases[0], result: 'x' }, { lease: foreign }]), invalid('lease'))
    await assert.rejects(q.renewBatch(withForeign, { ttlMs: TTL }), invalid('lease'))
    await assert.rejects(
      q.failBatch(withForeign.map((lease) => ({ lease, error: 'boom', retry: 'never' }))),
      invalid('lease'),
    )
    // Nothing was completed, renewed or failed: every lease is still held, the foreign one too.
    const stats = await q.stats()
    assert.deepEqual([stats.total.leased, stats.total.dead, stats.total.delayed], [6, 0, 0])
    for (const lease of leases) assert.equal((await q.get(lease.id)).state, 'leased')
    assert.equal((await other.get('z')).state, 'leased')
    // The queue's own checks, as Queue's batch finishes make them.
    await assert.rejects(q.completeBatch(leases[0]), invalid('completions'))
    await assert.rejects(q.completeBatch([{ lease: leases[0], keepResultForMs: 5 }]), invalid('keepResultForMs'))
    await assert.rejects(q.renewBatch([leases[0], {}]), invalid('leases[1]'))
    await assert.rejects(q.renewBatch(leases, { ttlMs: 0 }), invalid('ttlMs'))
    await assert.rejects(q.failBatch([{ lease: leases[0], error: 'e', retry: 'maybe' }]), invalid('retry'))
    await assert.rejects(q.completeBatch(Array.from({ length: 1001 }, () => leases[0])), invalid('completions'))
    assert.deepEqual(await q.completeBatch(leases), leases.map(() => true))
  })

  test('failBatch fails each lease in its own partition, across two, answering in order', async () => {
    const q = await client.createPartitioned(fresh(), 3)
    await q.addBatch(items(12))
    const leased = await q.leaseBatch(12, { ttlMs: TTL })
    const home = (lease) => q.partitions.indexOf(q.queueOf(lease).prefix)
    const [p, r] = [...new Set(leased.map(home))]
    assert.notEqual(r, undefined, 'leases from two partitions')
    const [a, b] = leased.filter((l) => home(l) === p)
    const [c, d] = leased.filter((l) => home(l) === r)
    assert.ok(a && b && c && d, 'two leases in each of two partitions')
    assert.equal(await q.complete(d), true)
    assert.deepEqual(
      await q.failBatch([
        { lease: a, error: new TypeError('t'), retry: 'never' },
        { lease: c, error: 'later', errorType: 'Slow', retry: { afterMs: 60_000 } },
        { lease: b, error: 'again', trace: 'a trace' },
        { lease: d, error: 'late' },
      ]),
      ['dead', 'retrying', 'retrying', 'completed'],
    )
    const deadA = await q.partition(p).get(a.id)
    assert.deepEqual([deadA.state, deadA.error, deadA.errorType], ['dead', 't', 'TypeError'])
    assert.match(deadA.trace, /TypeError: t/, "an Error's stack is its trace")
    const delayedC = await q.partition(r).get(c.id)
    assert.deepEqual([delayedC.state, delayedC.error, delayedC.errorType], ['delayed', 'later', 'Slow'])
    const b2 = await q.partition(p).get(b.id)
    assert.deepEqual([b2.error, b2.trace, b2.attempts], ['again', 'a trace', 1])
    assert.equal(await q.get(d.id), null, 'completed before, and gone')
    const stats = await q.stats()
    assert.equal(stats.partitions[p].dead, 1)
    assert.equal(stats.partitions[r].delayed, 1)
    assert.equal(stats.total.dead, 1)
    // Spent leases answer why, in order, and change nothing.
    const again = await q.failBatch([{ lease: c, error: 'x' }, { lease: a, error: 'x' }])
    assert.ok(again.every((o) => !['retrying', 'dead'].includes(o)), `${again}`)
    assert.equal((await q.get(a.id)).error, 't')
  })

  test('partitionOf is where add puts an item, queueOf where a lease came from, partition(i) that queue', async () => {
    const q = await client.createPartitioned(fresh(), 3)
    const grouped = [0, 1, 2].map((i) => new Item('g', { id: `g${i}`, group: 'customer-1' }))
    const where = new Map()
    for (const item of [...items(9), ...grouped]) {
      const i = q.partitionOf(item)
      where.set(item.id, i)
      assert.ok(Number.isInteger(i) && i >= 0 && i < 3, `${i}`)
      assert.equal(await q.add(item), true)
      assert.equal((await q.partition(i).get(item.id)).state, 'waiting', `${item.id} is in partition ${i}`)
    }
    assert.equal(new Set(grouped.map((item) => q.partitionOf(item))).size, 1, 'a group stays together')
    assert.equal(q.partitionOf(new Item('other data', { id: 'i3' })), q.partitionOf(items(4)[3]), 'by the id alone')
    for (const [i, prefix] of q.partitions.entries()) {
      const partition = q.partition(i)
      assert.ok(partition instanceof Queue)
      assert.equal(partition.prefix, prefix)
    }
    for (const bad of [3, -1, 1.5, 2 ** 40]) assert.throws(() => q.partition(bad), invalid('partition'))
    assert.throws(() => q.partition('0'), invalid('partition'))
    assert.throws(() => q.partitionOf('data'), invalid('item'))

    const leases = await q.leaseBatch(12, { ttlMs: TTL })
    assert.ok(leases.length >= 10, `${leases.length} leased (one of the group at a time)`)
    for (const lease of leases) {
      const home = q.queueOf(lease)
      assert.ok(home instanceof Queue)
      assert.equal(home.prefix, q.partitions[where.get(lease.id)], `${lease.id} came from where it was added`)
      assert.equal(await home.renew(lease, { ttlMs: TTL }), true, 'the partition holds the lease')
      assert.equal(await home.complete(lease), true)
    }
    const other = client.queue(fresh())
    await other.add(new Item('z'))
    const foreign = await other.lease({ ttlMs: TTL })
    assert.throws(() => q.queueOf(foreign), invalid('lease'))
    assert.throws(() => q.queueOf('lease'), invalid('lease'))
  })

  test('addFlow keeps a flow in one partition, and it runs children first', async () => {
    const q = await client.createPartitioned(fresh(), 3)
    const parent = new Item('report', { id: 'report-1' })
    const children = [
      new Item('part a', { id: 'part-a' }),
      { item: new Item('part b', { id: 'part-b' }), children: [new Item('part c', { id: 'part-c' })] },
    ]
    assert.equal(await q.addFlow(parent, children), 4)
    const home = q.partitionOf(parent)
    const { partitions } = await q.stats()
    assert.deepEqual(
      partitions.map((s) => s.waiting + s.blocked),
      partitions.map((_, i) => (i === home ? 4 : 0)),
      'every item of the flow is in the parent\'s partition',
    )
    const order = []
    for (;;) {
      const lease = await q.lease({ ttlMs: TTL })
      if (lease === null) break
      assert.equal(q.queueOf(lease).prefix, q.partitions[home])
      order.push(lease.id)
      if (lease.id === 'report-1') {
        const results = await q.partition(home).dependencyResults('report-1')
        assert.deepEqual(
          results.map((r) => [r.id, r.result?.toString()]),
          [['part-a', 'done part-a'], ['part-b', 'done part-b']],
        )
      }
      assert.equal(await q.complete(lease, { result: `done ${lease.id}` }), true)
    }
    assert.deepEqual(order.slice(-2), ['part-b', 'report-1'])
    assert.deepEqual(order.slice(0, 2).sort(), ['part-a', 'part-c'])
    assert.equal((await q.result('report-1')).data.toString(), 'done report-1')
    await assert.rejects(q.addFlow('report', []), invalid('parent'))
  })

  test('deadRequeueOldest and deadPurge take the oldest of the logical queue, n in all', async () => {
    const q = await client.createPartitioned(fresh(), 3)
    await q.addBatch(items(12))
    for (const lease of await q.leaseBatch(12, { ttlMs: TTL })) {
      assert.equal(await q.fail(lease, 'bad', { retry: 'never' }), 'dead')
    }
    const dead = (await q.stats()).partitions.map((s) => s.dead)
    assert.ok(dead.every((n) => n >= 2), `dead per partition: ${dead}`)
    // The n oldest over every partition: n in all.
    assert.equal(await q.deadRequeueOldest(1), 1)
    assert.deepEqual([await q.count('dead'), await q.count('waiting')], [11, 1])
    assert.equal(await q.deadPurge(2), 2)
    assert.equal(await q.count('dead'), 9)
    assert.equal(await q.deadRequeueOldest(), 9)
    assert.deepEqual([await q.count('dead'), await q.count('waiting')], [0, 10])
    assert.equal(await q.deadPurge(), 0)
    await assert.rejects(q.deadPurge(1.5), invalid('n'))
    await assert.rejects(q.deadRequeueOldest('all'), invalid('n'))
  })

  test('setConfig stores the configuration in every partition', async () => {
    const q = await client.createPartitioned(fresh(), 3)
    const config = { maxAttempts: 7, stats: true, backoff: { type: 'fixed', delayMs: 500 } }
    assert.equal(await q.setConfig(config), undefined)
    for (const i of q.partitions.keys()) assert.deepEqual(await q.partition(i).config(), config)
    await q.setConfig({ capacity: 10 })
    for (const i of q.partitions.keys()) {
      assert.deepEqual(await q.partition(i).config(), { ...config, capacity: 10 })
    }
    // Refused before anything is written, as Queue#setConfig refuses.
    await assert.rejects(q.setConfig({ maxAttempts: 1.5 }), invalid('maxAttempts'))
    await assert.rejects(q.setConfig({ colour: 'red' }), invalid('colour'))
    assert.equal((await q.partition(2).config()).maxAttempts, 7)
    // A capacity holds per partition; add and addBatch wait for room as Queue's do.
    await q.setConfig({ capacity: 1 })
    const first = new Item('a', { id: 'cap-0' })
    const same = items(30).find((item) => q.partitionOf(item) === q.partitionOf(first))
    assert.equal(await q.add(first), true)
    const full = (err) => err instanceof LeaseqError && err.code === 'FULL'
    await assert.rejects(q.add(same, { timeoutMs: 50 }), full)
    await assert.rejects(q.addBatch([same], { timeoutMs: 50 }), full)
    await assert.rejects(q.add(same, { timeoutMs: -1 }), invalid('timeoutMs'))
  })

  test('pause holds every partition', async () => {
    const q = await client.createPartitioned(fresh(), 3)
    await q.addBatch(items(3))
    assert.equal(await q.pause(), true)
    assert.equal((await q.stats()).total.paused, true)
    assert.equal(await q.lease({ ttlMs: TTL }), null)
    assert.equal(await q.resume(), true)
    assert.equal((await q.leaseBatch(3, { ttlMs: TTL })).length, 3)
  })

  test('promote, dependencies and dependencyResults find the item in the partition that holds it', async () => {
    const q = await client.createPartitioned(fresh(), 3)
    const gp = q.partitionOf(new Item('x', { group: 'g' }))
    // Ids whose own partition is not the group's: the group (or a dependency) takes each there.
    const [late, base, later] = idsNotIn(q, gp, 'i', 3)
    assert.equal(await q.add(new Item('x', { id: late, group: 'g', delayMs: 3_600_000 })), true)
    assert.equal(await q.partition(gp).count('delayed'), 1)
    assert.equal(await q.promote(late), true, "found in its group's partition")
    assert.equal((await q.get(late)).state, 'waiting')
    assert.equal(await q.promote(late), false, 'no longer delayed')
    assert.equal(await q.promote('nobody'), false)
    await assert.rejects(q.promote(''), invalid('id'))
    await assert.rejects(q.promote(5), invalid('id'))
    // Out of the way of the group's limit (one at a time).
    assert.equal(await q.cancel(late), 'waiting')

    // A dependant lives where its dependency does: the group's partition.
    await q.add(new Item('x', { id: base, group: 'g' }))
    await q.add(new Item('x', { id: later, dependsOn: [base], onDependencyFailure: 'run' }))
    assert.equal(await q.partition(gp).count('blocked'), 1)
    assert.deepEqual(await q.dependencies(Buffer.from(later)), {
      dependsOn: [base],
      onDependencyFailure: 'run',
      pending: [base],
      dependantsCount: 0,
      dependants: [],
    })
    const d = await q.dependencies(base)
    assert.deepEqual([d.dependantsCount, d.dependants], [1, [later]])
    assert.deepEqual(await q.dependencies('nobody'), {
      dependsOn: [],
      onDependencyFailure: null,
      pending: [],
      dependantsCount: 0,
      dependants: [],
    })
    assert.deepEqual(await q.dependencyResults(later), [{ id: base, result: null }])
    const lease = (await q.partition(gp).leaseBatch(10, { ttlMs: TTL })).find((l) => l.id === base)
    assert.ok(lease, 'base leased')
    assert.equal(await q.complete(lease, { result: 'out' }), true)
    const results = await q.dependencyResults(later)
    assert.deepEqual(results.map((r) => [r.id, r.result?.toString()]), [[base, 'out']])
    assert.deepEqual(await q.dependencyResults('nobody'), [])
    await assert.rejects(q.dependencies(''), invalid('id'))
    await assert.rejects(q.dependencyResults(null), invalid('id'))
  })

  test('deadRequeue and deadRequeueEach requeue each dead item by id where it is', async () => {
    const q = await client.createPartitioned(fresh(), 3)
    const gp = q.partitionOf(new Item('x', { group: 'g' }))
    // One dead in its group's partition (not its id's), one in its id's.
    const [k1, k2] = idsNotIn(q, gp, 'k', 2)
    const killAll = async () => {
      for (const lease of await q.leaseBatch(10, { ttlMs: TTL })) {
        assert.equal(await q.fail(lease, 'boom', { retry: 'never' }), 'dead')
      }
    }
    await q.add(new Item('x', { id: k1, group: 'g' }))
    await q.add(new Item('x', { id: k2 }))
    await killAll()
    assert.equal(await q.count('dead'), 2)
    assert.equal((await q.partition(gp).get(k1)).state, 'dead')
    assert.deepEqual(
      await q.deadRequeueEach([k1, k2, k1, 'nobody']),
      [true, true, false, false],
      'found where each is; a repeat is false',
    )
    assert.equal((await q.get(k1)).state, 'waiting')
    assert.equal(await q.partition(gp).count('waiting'), 1)
    assert.equal(await q.deadRequeue([k1, k2]), 0)
    await killAll()
    assert.equal(await q.deadRequeue([Buffer.from(k1), k2, 'nobody']), 2)
    assert.equal(await q.count('dead'), 0)
    assert.equal(await q.deadRequeue([]), 0)
    // Checked before anything is sent, as Queue's are: both dead again, and none requeued.
    await killAll()
    assert.equal(await q.count('dead'), 2)
    await assert.rejects(q.deadRequeue(Array.from({ length: 1001 }, (_, i) => `m${i}`)), invalid('ids'))
    await assert.rejects(q.deadRequeueEach([k1, '']), invalid('id'))
    await assert.rejects(q.deadRequeueEach([k1, 5]), invalid('ids[1]'))
    await assert.rejects(q.deadRequeue(k1), invalid('ids'))
    assert.equal(await q.count('dead'), 2, 'nothing requeued')
  })

  test('rateLimit holds every partition, isPaused is every partition paused, resetConfig clears each', async () => {
    const q = await client.createPartitioned(fresh(), 3)
    await assert.rejects(q.rateLimit(0), invalid('durationMs'))
    await assert.rejects(q.rateLimit(-1), invalid('durationMs'))
    await assert.rejects(q.rateLimit('60000'), invalid('durationMs'))
    assert.ok((await q.stats()).partitions.every((s) => s.rateLimitedForMs === null), 'nothing written')
    const held = await q.rateLimit(60_000)
    assert.ok(held > 50_000 && held <= 60_000, `${held}`)
    const stats = await q.stats()
    assert.ok(
      stats.partitions.every((s) => s.rateLimitedForMs > 0),
      `held per partition: ${stats.partitions.map((s) => s.rateLimitedForMs)}`,
    )
    assert.ok(stats.total.rateLimitedForMs > 0)
    await q.addBatch(items(9))
    assert.deepEqual(await q.leaseBatch(10, { ttlMs: TTL }), [])
    assert.ok((await q.rateLimit(1_000)) > 50_000, 'a shorter hold keeps the longer one')

    assert.equal(await q.isPaused(), false)
    assert.equal(await q.pause(), true)
    assert.equal(await q.isPaused(), true)
    assert.equal((await q.stats()).total.paused, true)
    assert.equal(await q.partition(1).resume(), true)
    assert.equal(await q.isPaused(), false, 'one partition runs')

    await q.setConfig({ capacity: 100, maxAttempts: 3 })
    assert.equal(await q.resetConfig(), undefined)
    for (const i of q.partitions.keys()) assert.deepEqual(await q.partition(i).config(), {}, `partition ${i}`)
  })

  test('exists, config, addUnique, the lengths, countsByName and the cleans cover every partition', async () => {
    const q = await client.createPartitioned(fresh(), 3)
    assert.equal(await q.exists(), false, 'created, never used')
    await q.setConfig({ stats: true, capacity: 500 })
    assert.equal(await q.exists(), true)
    assert.deepEqual(await q.config(), { stats: true, capacity: 500 })
    // Named items in every partition, added without the id check (an Item, or data and options).
    const named = items(9).map((item) => new Item('x', { id: item.id, name: 'mail' }))
    assert.equal(new Set(named.map((item) => q.partitionOf(item))).size, 3, 'in every partition')
    for (const item of named) assert.equal(await q.addUnique(item), undefined)
    assert.equal(await q.addUnique('x', { id: 'by-data', name: 'mail' }), undefined)
    assert.equal((await q.get('by-data')).name, 'mail')
    assert.equal(await q.queueLen(), 10)
    await assert.rejects(q.addUnique(new Item('x'), { name: 'mail' }), invalid('options'))
    await assert.rejects(q.addUnique(5), invalid('item'))
    const leases = await q.leaseBatch(20, { ttlMs: TTL })
    assert.equal(leases.length, 10)
    assert.deepEqual([await q.queueLen(), await q.processingLen()], [0, 10])
    for (const lease of leases) assert.equal(await q.complete(lease), true)
    assert.equal(await q.processingLen(), 0)
    assert.deepEqual(await q.countsByName(), [{ name: 'mail', completed: 10, failed: 0, dead: 0 }])
    // Due delayed items in every partition: a light clean promotes them all.
    const candidates = Array.from({ length: 60 }, (_, i) => `late${i}`)
    const late = [0, 1, 2].map((p) => candidates.find((id) => q.partitionOf(new Item('x', { id })) === p))
    for (const id of late) assert.equal(await q.add(new Item('x', { id, delayMs: 1 })), true)
    await new Promise((resolve) => setTimeout(resolve, 20))
    assert.deepEqual([await q.count('delayed'), await q.count('waiting')], [3, 0])
    assert.deepEqual(await q.lightClean(), { requeued: 0, removed: 0, promoted: 3, dead: 0 })
    assert.deepEqual([await q.count('delayed'), await q.count('waiting')], [0, 3])
    // An item key on no list (a redis-work-queue client crashed mid-add) in two partitions, set
    // on the node that holds each: the deep clean finds both.
    for (const prefix of q.partitions.slice(1)) {
      let set = false
      for (const url of cluster.urls) {
        const conn = await resp.connect(url)
        try {
          set = (await conn.command('SET', `${prefix}:item:orphan`, 'x')) === 'OK'
        } catch (err) {
          if (!/^MOVED /.test(err.message)) throw err
        } finally {
          conn.close()
        }
        if (set) break
      }
      assert.ok(set, `set in ${prefix}`)
    }
    assert.deepEqual(await q.deepClean(), { requeued: 2, removed: 0, promoted: 0, dead: 0 })
    assert.equal(await q.count('waiting'), 5)
    // With the counters off in every partition, nothing is counted.
    await q.setConfig({ stats: false })
    assert.equal(await q.countsByName(), null)
  })

  test('find searches one partition a call, and following next walks every partition', async () => {
    const q = await client.createPartitioned(fresh(), 3)
    // Four items in each partition, every other one named "mail".
    const perPartition = [[], [], []]
    for (let i = 0; perPartition.some((ids) => ids.length < 4); i++) {
      const id = `f${i}`
      const p = q.partitionOf(new Item('x', { id }))
      if (perPartition[p].length < 4) perPartition[p].push(id)
    }
    const mail = []
    for (const ids of perPartition) {
      for (const [k, id] of ids.entries()) {
        const name = k % 2 === 0 ? 'mail' : 'other'
        assert.equal(await q.add(new Item('x', { id, name })), true)
        if (name === 'mail') mail.push(id)
      }
    }
    assert.equal(mail.length, 6)
    const found = []
    let calls = 0
    for (let start = 0; start !== null; calls++) {
      assert.ok(calls < 50, 'next keeps going')
      const page = await q.find('waiting', { name: 'mail', start, count: 1 })
      assert.ok(page.entries.every((e) => e.name === 'mail'))
      found.push(...page.entries.map((e) => e.id))
      start = page.next
    }
    assert.deepEqual([...found].sort(), [...mail].sort())
    assert.equal(new Set(found).size, found.length, 'each once')
    // The defaults: from position 0, up to 100 matches, all of partition 0's.
    const first = await q.find('waiting', { name: 'mail' })
    assert.deepEqual(first.entries.map((e) => e.id).sort(), perPartition[0].filter((_, k) => k % 2 === 0).sort())
    assert.deepEqual([first.next, first.examined], [4, 4], "partition 1's first position next")
    assert.equal((await q.find('waiting', { start: 12 })).next, null, 'past the end')
    await assert.rejects(q.find('waiting', { count: 0 }), invalid('count'))
    await assert.rejects(q.find('waiting', { name: 5 }), invalid('name'))
    await assert.rejects(q.find('waiting', { nmae: 'mail' }), invalid('nmae'))
  })

  test('a Worker on the base is refused as it starts', async () => {
    const q = await client.createPartitioned(fresh(), 3)
    const worker = new Worker(client.queue(q.base), async () => {})
    await assert.rejects(worker.run(), invalid('prefix'))
  })

  test('schedules live in partition 0, and a fire adds their items there', async () => {
    const q = await client.createPartitioned(fresh(), 3)
    assert.equal(await q.upsertSchedule('poll', { everyMs: 1000, data: 'poll' }), true)
    assert.equal(await q.upsertSchedule('poll', { everyMs: 1000, data: 'poll' }), false)
    assert.notEqual(await q.partition(0).getSchedule('poll'), null)
    for (const i of [1, 2]) assert.equal((await q.partition(i).schedules()).total, 0)
    assert.equal((await q.schedules()).total, 1)
    assert.equal((await q.getSchedule('poll')).name, 'poll')
    await assert.rejects(q.upsertSchedule('bad', { everyMs: 1000, colour: 'red' }), invalid('colour'))
    assert.equal(await q.getSchedule('bad'), null)
    // Past its first tick, a fire adds its item to partition 0.
    await new Promise((resolve) => setTimeout(resolve, 1200))
    assert.ok((await q.fireDueSchedules()).fired >= 1)
    assert.ok((await q.partition(0).count('waiting')) >= 1)
    for (const i of [1, 2]) assert.equal(await q.partition(i).count('waiting'), 0)
    assert.equal(await q.removeSchedule('poll'), true)
    assert.equal(await q.partition(0).getSchedule('poll'), null)
  })

  test('a follower sees every partition, names each, and resumes from its position', async () => {
    const q = await client.createPartitioned(fresh(), 3)
    await q.setConfig({ events: true })
    // Two ids for each partition, in partition order.
    const ids = [[], [], []]
    for (let n = 0; ids.some((part) => part.length < 2); n++) {
      const p = q.partitionOf(new Item('x', { id: `e${n}` }))
      if (ids[p].length < 2) ids[p].push(`e${n}`)
    }
    const follower = q.events()
    await follower.ready
    assert.equal(follower.position, null)
    for (const round of [0, 1]) for (const part of ids) await q.add(new Item('x', { id: part[round] }))
    const seen = [[], [], []]
    for await (const ev of follower) {
      assert.equal(ev.event, 'added')
      assert.equal(ev.partition, q.partitionOf(new Item('x', { id: ev.jobId })))
      seen[ev.partition].push(ev.jobId)
      if (seen.flat().length === 6) break
    }
    assert.deepEqual(seen, ids)
    const position = follower.position
    assert.equal(position.split(',').length, 3)
    await q.add(new Item('x', { id: 'later' }))
    const resumed = q.events({ after: position })
    const next = await resumed.next()
    assert.equal(next.value.jobId, 'later')
    resumed.close()
    // A queue's follower names no partition.
    const one = q.partition(0).events({ after: '0-0' })
    assert.equal((await one.next()).value.partition, null)
    one.close()
    for (const bad of ['1-0,2-0', 'x']) {
      const refused = q.events({ after: bad })
      await assert.rejects(refused.ready, invalid('after'))
      refused.close()
    }
    assert.throws(() => q.events({ after: 7 }), invalid('after'))
  })

  test("closing a follower ends its waits at once, one per partition while it waits", async () => {
    const q = await client.createPartitioned(fresh(), 3)
    await q.setConfig({ events: true })
    const before = await xreads(cluster.urls)
    const follower = q.events()
    await follower.ready
    const pending = follower.next()
    assert.ok(await eventually(async () => (await xreads(cluster.urls)) === before + 3))
    follower.close()
    assert.deepEqual(await pending, { done: true, value: undefined })
    assert.ok(await eventually(async () => (await xreads(cluster.urls)) === before), 'closed: no wait left')
  })
})

describe('a Worker over a partitioned queue', { timeout: 60_000 }, () => {
  let cluster
  let client
  before(async () => {
    cluster = await startRedis({ cluster: true })
    client = await Client.cluster(cluster.urls)
  })
  after(async () => {
    await client.close()
    await cluster.stop()
  })

  test('runs every item of every partition, each finished in its own', async () => {
    const q = await client.createPartitioned(fresh(), 3)
    await q.addBatch(items(12))
    assert.deepEqual(
      q.partitionQueues().map((p) => p.prefix),
      q.partitions,
    )
    const seen = new Map()
    const worker = new Worker(q, async (job) => {
      seen.set(job.id, job.queuePrefix)
    }, { concurrency: 4 })
    const stopWhenDrained = async () => {
      const { total } = await q.stats()
      if (total.waiting + total.leased === 0) await worker.close()
    }
    worker.on('completed', () => void stopWhenDrained())
    const report = await worker.run()
    assert.equal(report.completed, 12)
    assert.equal(seen.size, 12)
    assert.ok([...seen.values()].every((prefix) => q.partitions.includes(prefix)))
    assert.equal(new Set(seen.values()).size, 3, 'jobs came from every partition')
  })

  test("a handler's rate limit holds every partition, and the job is released with no attempt charged", async () => {
    const q = await client.createPartitioned(fresh(), 3)
    assert.equal(await q.add(new Item('x', { id: 'api', maxAttempts: 1 })), true)
    let calls = 0
    const worker = new Worker(q, async () => {
      calls += 1
      throw new RateLimitedError(60_000) // the API answered 429
    })
    const run = worker.run()
    // The hold goes out before the job is released: wait for the release.
    const released = await eventually(async () => calls > 0 && (await q.get('api')).state === 'waiting')
    await worker.close()
    const report = await run
    assert.ok(released, 'the job was released')
    assert.equal(calls, 1, 'held off: not run again')
    assert.deepEqual([report.completed, report.retried, report.dead], [0, 0, 0])
    // The other partitions' holds go out beside the release, not waited for.
    await eventually(async () => (await q.stats()).partitions.every((s) => s.rateLimitedForMs > 0))
    const { partitions } = await q.stats()
    assert.equal(partitions.length, 3)
    for (const [i, s] of partitions.entries()) {
      assert.ok(s.rateLimitedForMs > 0, `partition ${i} is held (${s.rateLimitedForMs})`)
    }
    const job = await q.get('api')
    assert.deepEqual([job.state, job.attempts], ['waiting', 0], 'no attempt charged')
  })
})
